"""Tests of the skills: weather, calculator, knowledge lookup."""
