"""Streams built by hand: chunks, server-sent events, text cut into pieces."""

from collections.abc import AsyncIterator, Iterable, Sequence
from itertools import cycle
import json
from typing import Any

import openai
from openai import AsyncStream

from homeassistant.components import conversation
from homeassistant.helpers import llm

from custom_components.chatterbox.speech import SpeechFilter
from custom_components.chatterbox.wire.stream import StreamStats, transform_stream
from custom_components.chatterbox.wire.text_calls import TextToolCallParser
from tests.helpers.llm_server import LLMServer, Raw


def chunk(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    choices: bool = True,
    model: str = "qwen3",
    **delta: Any,
) -> dict[str, Any]:
    """Build a chunk as a server writes it, and as the agent reads it: JSON."""
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    data: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
        if choices
        else [],
    }
    if usage is not None:
        data["usage"] = usage
    return data


def call(
    index: int | None,
    *,
    call_id: str | None = None,
    name: str | None = None,
    arguments: str | None = None,
) -> dict[str, Any]:
    """Build one tool call fragment."""
    fragment: dict[str, Any] = {"function": {}}
    if index is not None:
        fragment["index"] = index
    if call_id is not None:
        fragment["id"] = call_id
        fragment["type"] = "function"
    if name is not None:
        fragment["function"]["name"] = name
    if arguments is not None:
        fragment["function"]["arguments"] = arguments
    return fragment


async def aiter_chunks(chunks: Iterable[object]) -> AsyncIterator[object]:
    """Serve chunks as a stream."""
    for item in chunks:
        yield item


async def collect(
    chunks: Iterable[object],
    stats: StreamStats | None = None,
    *,
    text_tools: TextToolCallParser | None = None,
    speech: SpeechFilter | None = None,
) -> list[conversation.AssistantContentDeltaDict]:
    """Return every delta that the chunks turn into."""
    return [
        delta
        async for delta in transform_stream(
            aiter_chunks(chunks), stats, text_tools=text_tools, speech=speech
        )
    ]


def joined(
    deltas: list[conversation.AssistantContentDeltaDict], key: str
) -> str | None:
    """Return the text of one key across deltas, as the chat log would join it."""
    parts = [delta[key] for delta in deltas if key in delta]  # type: ignore[literal-required]
    return "".join(parts) if parts else None


def tool_calls_of(
    deltas: list[conversation.AssistantContentDeltaDict],
) -> list[list[llm.ToolInput]]:
    """Return each tool call batch that was yielded."""
    return [delta["tool_calls"] or [] for delta in deltas if "tool_calls" in delta]


async def stream_events(
    server: LLMServer,
    events: list[dict[str, Any]],
    *,
    text_tools: TextToolCallParser | None = None,
    speech: SpeechFilter | None = None,
) -> tuple[list[conversation.AssistantContentDeltaDict], StreamStats]:
    """Have the server send these events over HTTP; transform what the SDK reads.

    The chunks are asked for as the agent asks for them: as JSON.
    """
    server.reply(
        Raw([f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"])
    )
    stats = StreamStats()
    async with openai.AsyncOpenAI(
        base_url=server.url, api_key="none", max_retries=0
    ) as client:
        chunks = await client.post(
            "/chat/completions",
            body={"model": "any", "messages": [{"role": "user", "content": "Hi"}]},
            cast_to=object,
            stream=True,
            stream_cls=AsyncStream[object],
        )
        async with chunks:
            deltas = [
                delta
                async for delta in transform_stream(
                    chunks, stats, text_tools=text_tools, speech=speech
                )
            ]
    return deltas, stats


def event(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    """Build one streamed event as a server writes it."""
    return {
        "id": "chatcmpl-9",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "deepseek-r1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def speak(chunks: Iterable[str]) -> str:
    """Feed the chunks one by one, then finish; return all that was written."""
    speech = SpeechFilter()
    written = [speech.feed(chunk) for chunk in chunks]
    return "".join(written) + speech.finish()


def chunked(text: str, sizes: Sequence[int]) -> list[str]:
    """Cut text into chunks of these sizes, over and over."""
    chunks: list[str] = []
    for size in cycle(sizes):
        if not text:
            return chunks
        chunks.append(text[:size])
        text = text[size:]
    raise AssertionError  # cycle never ends
