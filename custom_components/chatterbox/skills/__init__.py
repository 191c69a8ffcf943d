"""Skills: tools plus the knowledge of when to use them, each an LLM API.

Every skill lives in a module of its own; registry.py lists them and registers
them with Home Assistant while a Chatterbox server entry is loaded.

The modules reach the integration's const with a relative import: the absolute
name of a custom integration depends on how Home Assistant loads it.
"""
