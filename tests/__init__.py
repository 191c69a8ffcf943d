"""Tests for the Chatterbox integration."""
