"""The thinking option, in the field each kind of server reads. Pure: no hass."""

from typing import Any

import pytest

from custom_components.chatterbox.server.client import ServerKind
from custom_components.chatterbox.server.thinking import (
    fields_for,
    thinking_fields,
    with_extra_body,
)


@pytest.mark.parametrize(
    ("kind", "off", "low"),
    [
        # Ollama's OpenAI endpoint turns thinking off only with "none".
        (
            ServerKind.OLLAMA,
            {"reasoning_effort": "none"},
            {"reasoning_effort": "low"},
        ),
        # The chat template's switches: Qwen3's enable_thinking, gpt-oss's level.
        (
            ServerKind.LLAMA_CPP,
            {"chat_template_kwargs": {"enable_thinking": False}},
            {
                "chat_template_kwargs": {
                    "enable_thinking": True,
                    "reasoning_effort": "low",
                }
            },
        ),
        (
            ServerKind.VLLM,
            {"chat_template_kwargs": {"enable_thinking": False}},
            {
                "chat_template_kwargs": {
                    "enable_thinking": True,
                    "reasoning_effort": "low",
                },
                "reasoning_effort": "low",
            },
        ),
        (
            ServerKind.OPENROUTER,
            {"reasoning": {"enabled": False}},
            {"reasoning": {"effort": "low"}},
        ),
        # OpenAI, LM Studio and the rest.
        (None, {"reasoning_effort": "none"}, {"reasoning_effort": "low"}),
    ],
)
def test_each_server_gets_its_own_field(
    kind: ServerKind | None, off: dict[str, Any], low: dict[str, Any]
) -> None:
    """Off and a level, per kind; the server's default sends nothing."""
    assert thinking_fields("off", kind) == off
    assert thinking_fields("low", kind) == low
    assert thinking_fields("default", kind) == {}


def test_the_extra_body_is_the_users_last_word() -> None:
    """The user's extra body wins field by field, in the template's switches too."""
    thinking = {"chat_template_kwargs": {"enable_thinking": False}}
    extra = {"top_k": 20, "chat_template_kwargs": {"enable_thinking": True}}
    assert with_extra_body(thinking, extra) == extra
    assert with_extra_body(
        {"chat_template_kwargs": {"enable_thinking": False}},
        {"chat_template_kwargs": {"custom": 1}},
    ) == {"chat_template_kwargs": {"enable_thinking": False, "custom": 1}}
    assert with_extra_body({"reasoning_effort": "none"}, {}) == {
        "reasoning_effort": "none"
    }
    assert with_extra_body({}, {}) == {}


def test_a_model_gets_the_first_level_set_unless_it_does_not_think() -> None:
    """The probe asks as the model's agents do; Ollama's non-thinkers, nothing."""
    assert fields_for(("default", "off", "high"), ServerKind.OLLAMA, thinks=True) == {
        "reasoning_effort": "none"
    }
    assert fields_for(("default",), ServerKind.OLLAMA, thinks=None) == {}
    assert fields_for(("low",), ServerKind.OLLAMA, thinks=False) == {}
