"""Tests of the agent loop and its parts."""
