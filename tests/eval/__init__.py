"""scripts/eval: Chatterbox and core llama_cpp on a real model, over the same cases."""
