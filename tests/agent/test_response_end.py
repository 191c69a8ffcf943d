"""Where Chatterbox stops reading a response: at its end, not at the server's."""

import json
from typing import Any

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.helpers.common import ask
from tests.helpers.llm_server import LLMServer, Raw

USAGE = {"prompt_tokens": 900, "completion_tokens": 5, "total_tokens": 905}


def event(data: Any) -> str:
    """Write one server-sent event, as OpenAI streams it."""
    return f"data: {json.dumps(data)}\n\n"


def chunk(
    delta: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, int] | None = None,
) -> str:
    """Write one chat completion chunk; without a delta, the usage chunk."""
    choices = (
        []
        if delta is None
        else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    )
    return event(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "qwen3",
            "choices": choices,
            "usage": usage,
        }
    )


def answer(text: str, *, after: str, usage: bool) -> Raw:
    """Stream an answer, its finish, maybe its usage, then words after it all."""
    return Raw(
        [
            chunk({"role": "assistant", "content": text}),
            chunk({}, "stop"),
            *([chunk(usage=USAGE)] if usage else []),
            chunk({"content": after}),
            "data: [DONE]\n\n",
        ]
    )


async def test_reading_stops_once_the_answer_and_its_usage_are_in(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The server finishes and counts its tokens; what it sends later is not read.

    After the usage chunk only [DONE] should follow: the stream is closed
    there, rather than waited on to its end.
    """
    llm_server.reply(answer("The door is locked.", after=" And more.", usage=True))

    result = await ask(hass, "Is the front door locked?")

    assert result.response.speech["plain"]["speech"] == "The door is locked."


async def test_a_server_without_usage_is_read_to_the_end_once(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A server that sends no usage is learnt from its first answer.

    The first answer is read to its end, waiting for a usage that never
    comes; from then on each answer ends at its finish reason.
    """
    llm_server.reply(
        answer("It is sunny.", after=" Warm, too.", usage=False),
        answer("It is 21 degrees.", after=" Inside.", usage=False),
    )

    first = await ask(hass, "How is the weather?", "weather")
    second = await ask(hass, "And the temperature?", "weather")

    assert first.response.speech["plain"]["speech"] == "It is sunny. Warm, too."
    assert second.response.speech["plain"]["speech"] == "It is 21 degrees."
