"""Tests of the languages: their words, and the readers that use them."""
