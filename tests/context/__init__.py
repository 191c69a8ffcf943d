"""Tests of staying inside the context window, and of memory."""
