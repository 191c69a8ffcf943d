"""Hypothesis properties and hostile input for every parser."""
