"""Turn a response's chunks into the deltas the chat log streams and runs."""

from collections.abc import AsyncGenerator, AsyncIterator

import httpx
import openai
from openai import AsyncStream

from homeassistant.components import conversation

from ..const import LOGGER
from ..speech import SpeechFilter
from ..tools.guard import ToolGuard
from ..wire.chunks import (
    Chunk,
    delta_of,
    fields,
    first_choice,
    text,
    tool_call_fragments,
)
from ..wire.stream import StreamStats, transform_stream
from ..wire.text_calls import TextToolCallParser
from .turn import Turn


def read_response(  # noqa: PLR0913  # keyword-only, each one part of the pipeline
    chunks: AsyncStream[Chunk],
    stats: StreamStats,
    turn: Turn,
    *,
    allow_tools: bool,
    text_tools: TextToolCallParser | None,
    usage_expected: bool,
) -> AsyncIterator[conversation.AssistantContentDeltaDict]:
    """Return the chat log deltas of one response's message."""
    limit = turn.answer_chars
    read = _until_finished(chunks, stats, usage_expected=usage_expected)
    deltas = transform_stream(
        _until_broken_after_finish(
            read if limit is None else _cut_at(read, stats, limit), stats
        ),
        stats,
        text_tools=text_tools,
        speech=SpeechFilter(turn.language) if turn.speech else None,
    )
    return deltas if allow_tools else _without_tool_calls(deltas)


def text_call_parser(
    guard: ToolGuard | None, turn: Turn, *, native: bool
) -> TextToolCallParser | None:
    """Return a parser of calls written as text, which must not be read aloud.

    In text mode that is how calls come. With native tools, a server whose
    template expects another format passes the call on as text (llama.cpp
    with Qwen2.5-Coder 0.5B's bare JSON), and on the final round, told to
    answer, small models often write the call the server no longer parses:
    read as calls when the turn guides a small model. Native: the request
    sent offers the tools natively. A capable model's
    calls come native; a call it writes in its answer is an example, and is
    read out as text.
    """
    if guard is None or not turn.tools:
        return None
    if native and not turn.guide:
        return None
    return TextToolCallParser(guard.resolve)


async def _until_finished(
    chunks: AsyncIterator[Chunk],
    stats: StreamStats,
    *,
    usage_expected: bool,
) -> AsyncGenerator[Chunk]:
    """Pass chunks on until the answer is finished and its usage is in.

    After the finish reason only the usage chunk and [DONE] follow: the
    caller closes the stream without waiting for them when the usage has
    arrived, or when the server is known to send none. Each chunk has been
    read into the stats by the time the next one is asked for.
    """
    async for chunk in chunks:
        yield chunk
        if stats.finish_reason is not None and (
            stats.prompt_tokens is not None or not usage_expected
        ):
            return


async def _cut_at(
    chunks: AsyncIterator[Chunk], stats: StreamStats, limit: int
) -> AsyncGenerator[Chunk]:
    """Pass chunks on until the answer and its calls outgrow the limit.

    The caller then closes the stream, and the server stops writing: llama.cpp,
    Ollama and vLLM cancel a request whose client went away. Reasoning does
    not count: a thinking model may think at length before a short answer.
    """
    written = 0
    async for chunk in chunks:
        yield chunk
        if (choice := first_choice(chunk)) is not None:
            delta = delta_of(choice)
            written += len(text(delta, "content"))
            for call in tool_call_fragments(delta):
                written += len(text(fields(call.get("function")), "arguments"))
        if written > limit:
            stats.cut_short = True
            return


async def _until_broken_after_finish(
    chunks: AsyncIterator[Chunk], stats: StreamStats
) -> AsyncGenerator[Chunk]:
    """Pass chunks on; a connection lost after the finish reason ends them quietly.

    Only the usage chunk and [DONE] follow the finish reason, so the answer is
    complete: failing the turn would make the user repeat an action that ran.
    """
    try:
        async for chunk in chunks:
            yield chunk
    except (openai.OpenAIError, httpx.HTTPError, ValueError) as err:
        if stats.finish_reason is None:
            raise
        LOGGER.info("The stream broke off after the answer was complete: %r", err)


async def _without_tool_calls(
    deltas: AsyncIterator[conversation.AssistantContentDeltaDict],
) -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
    """Drop tool calls the model may not make.

    In the final answer of a turn (its server ignored tool_choice), or from an
    agent without tools.
    """
    async for delta in deltas:
        if "tool_calls" in delta:
            LOGGER.info("Ignoring tool calls: none can run in this answer")
            delta = {k: v for k, v in delta.items() if k != "tool_calls"}  # type: ignore[assignment]  # noqa: PLW2901
            if not delta:
                continue
        yield delta
