"""Scenario tests: whole turns, with what goes on the wire snapshotted."""
