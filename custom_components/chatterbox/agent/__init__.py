"""Agent of Chatterbox."""
