"""Tests of the other end: the client, the probe, the errors."""
