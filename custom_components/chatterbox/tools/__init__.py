"""Tools of Chatterbox."""
