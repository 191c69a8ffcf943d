"""Tests of the tool guard, confirmation and tool helpers."""
