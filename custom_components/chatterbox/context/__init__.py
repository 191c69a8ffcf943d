"""Context of Chatterbox."""
