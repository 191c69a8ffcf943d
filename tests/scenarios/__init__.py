"""End-to-end stories against the scripted server: a person speaks, the home answers."""
