"""Chat completions messages built by hand, as the agent sends them."""

from collections.abc import Sequence
import json
import math
from typing import Any

from openai.types.chat import ChatCompletionMessageParam

PROMPT = "You are a voice assistant for Home Assistant. Answer briefly."


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "GetForecast",
            "description": "Get the weather forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
            },
        },
    }
]


def server_tokens(messages: Sequence[object], tools: Sequence[object] = ()) -> int:
    """Count tokens the way a fake server does: 3.1 characters per token."""
    return math.ceil(len(json.dumps([*messages, *tools])) / 3.1)


def system(text: str = PROMPT) -> ChatCompletionMessageParam:
    """Return a system message."""
    return {"role": "system", "content": text}


def user(text: str) -> ChatCompletionMessageParam:
    """Return a user message."""
    return {"role": "user", "content": text}


def answer(text: str) -> ChatCompletionMessageParam:
    """Return an assistant message without tool calls."""
    return {"role": "assistant", "content": text}


def call(
    call_id: str, name: str = "GetForecast", **args: Any
) -> ChatCompletionMessageParam:
    """Return an assistant message that calls one tool."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


def result(call_id: str, data: Any) -> ChatCompletionMessageParam:
    """Return the tool message with a result, as wire.py builds it."""
    content = json.dumps({"data": data, "error": False}, separators=(",", ":"))
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def forecast(size: int) -> dict[str, Any]:
    """Return a forecast of about size characters."""
    days = [{"day": n, "temp": 20 + n % 7, "sky": "cloudy"} for n in range(size // 40)]
    return {"city": "Oslo", "days": days}


def check_pairs(messages: Sequence[ChatCompletionMessageParam]) -> None:
    """Assert that every tool call has its result and every result its call."""
    calls = {
        call["id"]
        for message in messages
        if message["role"] == "assistant"
        for call in message.get("tool_calls", ())
    }
    results = {
        message["tool_call_id"] for message in messages if message["role"] == "tool"
    }
    assert calls == results
