"""Tests of running the model's calls: the guard, the sensitive policy, repairs."""
