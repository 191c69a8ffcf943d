"""Which of a server's listed models are offered for an agent. Pure: no hass."""

import pytest

from custom_components.chatterbox.server.client import Listed
from custom_components.chatterbox.server.models import chat_models, chats


@pytest.mark.parametrize(
    "model",
    [
        "whisper-1",
        "tts-1-hd",
        "gpt-4o-mini-tts",
        "gpt-4o-transcribe",
        "text-embedding-3-small",
        "nomic-embed-text:latest",
        "embeddinggemma",
        "dall-e-3",
        "gpt-image-1",
        "sora-2",
        "omni-moderation-latest",
        "gpt-realtime",
        "davinci-002",
        "bge-reranker-v2-m3",
        "stable-diffusion-xl",
    ],
)
def test_a_model_named_for_another_endpoint_is_left_out(model: str) -> None:
    """Speech, image, embedding, moderation and completion-only models."""
    assert not chats(model)


@pytest.mark.parametrize(
    "model",
    [
        "gpt-4o-mini",
        "o3-mini",
        "gpt-5",
        "qwen3:8b",
        "llama3.2:3b",
        "gpt-oss:20b",
        "mistral-small3.2",
        "unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M",
        "deepseek-r1:14b",
        "gemma3:4b",
        "llava:7b",
    ],
)
def test_a_chat_model_is_offered(model: str) -> None:
    """The models people chat with, whatever their server names them."""
    assert chats(model)


def test_what_the_server_says_comes_before_the_name() -> None:
    """OpenRouter tells a model's output: that decides, whatever its name."""
    assert chats("google/gemini-image-preview", Listed(chat=True))
    assert not chats("acme/voice-one", Listed(chat=False))
    assert not chats("whisper-1", Listed())


def test_the_offer_is_sorted_and_never_empty() -> None:
    """Chat models by name; a list of none but hints offers them all."""
    listed = {"o3-mini": Listed(), "whisper-1": Listed(), "gpt-4o": Listed()}
    assert chat_models(listed) == ["gpt-4o", "o3-mini"]
    assert chat_models({"tts-1": Listed(), "dall-e-3": Listed()}) == [
        "dall-e-3",
        "tts-1",
    ]
    assert chat_models({}) == []
