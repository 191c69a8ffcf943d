"""Tests of the OpenAI wire format: messages, schemas, the stream, calls as text."""
