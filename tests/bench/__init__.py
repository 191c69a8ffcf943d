"""Benchmarks of Chatterbox side by side with Home Assistant's llama_cpp agent."""
