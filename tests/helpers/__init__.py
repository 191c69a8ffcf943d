"""Shared helpers of the tests: the scripted server, fakes and builders."""
