"""Wire of Chatterbox."""
