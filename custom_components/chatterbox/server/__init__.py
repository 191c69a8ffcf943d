"""Server of Chatterbox."""
