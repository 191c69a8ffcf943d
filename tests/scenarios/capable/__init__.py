"""Conversations as capable models hold them: the checks must cost them nothing."""
