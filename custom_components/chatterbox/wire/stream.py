"""Turn a streamed chat completion into Home Assistant chat log deltas."""

from collections.abc import AsyncGenerator, AsyncIterable
from dataclasses import dataclass, field
import time
from typing import Any

from homeassistant.components import conversation
from homeassistant.helpers import llm
from homeassistant.util.ulid import ulid_now

from ..speech import SpeechFilter
from .arguments import (
    ToolArgumentsError,
    UnreadableCall,
    parse_tool_arguments,
)
from .chunks import (
    Chunk,
    Fields,
    count,
    delta_of,
    fields,
    finish_reason,
    first_choice,
    fragment_index,
    text,
    tool_call_fragments,
)
from .text_calls import TextToolCall, TextToolCallParser
from .thinking import ThinkSplitter, reasoning


@dataclass(slots=True, kw_only=True)
class StreamStats:
    """Facts about one streamed response, filled in by transform_stream.

    Create it just before sending the request: started is the reference for
    time_to_first_token, so the latency includes the server's prompt processing.
    """

    started: float = field(default_factory=time.monotonic)
    """time.monotonic() when the request was sent."""

    time_to_first_token: float | None = None
    """Seconds from started to the first content, thinking or tool call."""

    finish_reason: str | None = None
    """The last finish reason the server sent, as it spelled it."""

    model: str | None = None
    """The model the server says answered."""

    # Usage from the last chunk that carried it; None when the server sent none.
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cached_tokens: int | None = None

    # What was yielded: with all three zero the response was empty.
    content_chars: int = 0
    thinking_chars: int = 0
    tool_calls: int = 0

    cut_short: bool = False
    """The reader stopped before the end: the answer outgrew the room kept for it."""

    looped: bool = False
    """The reader stopped at a call the response had made already: a small
    model in a loop writes the same calls over until its token limit, and
    none of them runs until the response ends."""

    made_up: int = 0
    """Tool results the model wrote itself, left out of the answer."""

    @property
    def empty(self) -> bool:
        """Return whether the response had no content, thinking or tool call."""
        return not (self.content_chars or self.thinking_chars or self.tool_calls)

    def as_dict(self) -> dict[str, Any]:
        """Return the stats for the conversation trace."""
        return {
            "time_to_first_token": self.time_to_first_token,
            "finish_reason": self.finish_reason,
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cached_tokens": self.cached_tokens,
            "content_chars": self.content_chars,
            "thinking_chars": self.thinking_chars,
            "tool_calls": self.tool_calls,
            "cut_short": self.cut_short,
            "looped": self.looped,
            "made_up": self.made_up,
        }


async def transform_stream(
    chunks: AsyncIterable[Chunk],
    stats: StreamStats | None = None,
    *,
    text_tools: TextToolCallParser | None = None,
    speech: SpeechFilter | None = None,
) -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
    """Transform chat completion chunks into chat log deltas for one message.

    Yields {"role": "assistant"} first, then content and thinking as they
    arrive, so speech can start early. Reasoning fields and <think> blocks in
    the content become thinking_content. Tool calls are assembled across chunks
    and yielded once, when the server sends a finish reason or the stream ends.

    A tool call whose arguments cannot be parsed is still yielded, so that it is
    answered: as an UnreadableCall, with tool_args {} and the problem, which
    the tool guard answers instead of calling the tool.

    An empty stream yields only the role and raises nothing: stats.empty tells
    the caller, which decides how to report it.

    The answer's text, after the think blocks are split out, can be filtered:
    with text_tools, the tool calls written as text become tool calls, read
    and yielded as the server's own are; with speech, what a text-to-speech
    engine would read literally is removed. With either, the whitespace at
    the start and end of the answer is dropped. Each is good for one response.
    """
    answer = (
        _AnswerFilter(text_tools, speech)
        if text_tools is not None or speech is not None
        else None
    )
    transformer = _Transformer(StreamStats() if stats is None else stats, answer)
    yield {"role": "assistant"}
    async for chunk in chunks:
        if update := transformer.chunk(chunk):
            yield update
        if transformer.looped:
            # The caller closes the stream: the server stops writing.
            break
    if update := transformer.finish():
        yield update


class _Transformer:
    """Turn the chunks of one response into deltas, recording the stats."""

    def __init__(self, stats: StreamStats, answer: _AnswerFilter | None) -> None:
        """Start a response, filtering its answer with answer if given."""
        self.stats = stats
        self._splitter = ThinkSplitter()
        self._tool_calls = _ToolCallAssembler()
        self._answer = answer

    def chunk(self, chunk: Chunk) -> conversation.AssistantContentDeltaDict:
        """Return the delta for one chunk."""
        self._record(chunk)
        if (choice := first_choice(chunk)) is None:
            return {}
        delta = delta_of(choice)
        thinking = reasoning(delta)
        written = text(delta, "content")
        # OpenAI puts a refusal in its own field; it is the answer to speak.
        refusal = text(delta, "refusal")
        content, tagged_thinking = self._splitter.feed(written)
        content = self._filtered(content + refusal, final=False)
        if fragments := tool_call_fragments(delta):
            self._tool_calls.add(fragments)
        if self.stats.time_to_first_token is None and (
            written or refusal or thinking or fragments
        ):
            self.stats.time_to_first_token = time.monotonic() - self.stats.started

        update = self._text(content, thinking + tagged_thinking)
        if (reason := finish_reason(choice)) is not None:
            self.stats.finish_reason = reason
            # Emitted on any finish reason: some servers finish tool calls with
            # "stop", and a later repeat of the reason finds nothing left.
            if self._tool_calls:
                update["tool_calls"] = self._tool_calls.take(self.stats)
        return update

    def finish(self) -> conversation.AssistantContentDeltaDict:
        """Return the delta for what is left when the stream ends."""
        content, thinking = self._splitter.flush()
        update = self._text(self._filtered(content, final=True), thinking)
        if self._answer is not None:
            self.stats.made_up = self._answer.made_up
        if self._tool_calls:
            update["tool_calls"] = self._tool_calls.take(self.stats)
        self.stats.looped = self._tool_calls.looped
        return update

    @property
    def looped(self) -> bool:
        """Tell whether the response made a call again: it is read no further."""
        return self._tool_calls.looped

    def _filtered(self, content: str, *, final: bool) -> str:
        """Return the answer's text to yield, keeping the calls written in it."""
        if self._answer is None:
            return content
        text, calls = self._answer.feed(content, final=final)
        for call in calls:
            self._tool_calls.add_text_call(call)
        return text

    def _record(self, chunk: Chunk) -> None:
        """Record the model and usage that a chunk carries."""
        data = fields(chunk)
        if model := text(data, "model"):
            self.stats.model = model
        if not isinstance(usage := data.get("usage"), dict):
            return
        # Only whole numbers count: a NaN learnt by the token estimator would
        # fail every later turn of the agent.
        self.stats.prompt_tokens = count(usage.get("prompt_tokens"))
        self.stats.completion_tokens = count(usage.get("completion_tokens"))
        self.stats.total_tokens = count(usage.get("total_tokens"))
        if isinstance(details := usage.get("prompt_tokens_details"), dict):
            self.stats.cached_tokens = count(details.get("cached_tokens"))

    def _text(
        self, content: str, thinking: str
    ) -> conversation.AssistantContentDeltaDict:
        """Return the delta for content and thinking text, counting it."""
        update: conversation.AssistantContentDeltaDict = {}
        # Empty strings are left out: HA 2026.11 keeps an explicit empty content
        # as a silent answer, and servers send "" with the role and tool calls.
        if content:
            update["content"] = content
            self.stats.content_chars += len(content)
        if thinking:
            update["thinking_content"] = thinking
            self.stats.thinking_chars += len(thinking)
        return update


class _AnswerFilter:
    """Take the text tool calls out of the answer, then make it fit for speech."""

    def __init__(
        self, text_tools: TextToolCallParser | None, speech: SpeechFilter | None
    ) -> None:
        """Filter with the parser and the speech filter that are given."""
        self._text_tools = text_tools
        self._speech = speech
        self._started = False
        self._spaces = ""

    @property
    def made_up(self) -> int:
        """Return how many results the model wrote itself, left out."""
        return self._text_tools.made_up if self._text_tools is not None else 0

    def feed(self, text: str, *, final: bool) -> tuple[str, list[TextToolCall]]:
        """Return the text to yield and the calls that text completes."""
        calls: list[TextToolCall] = []
        if self._text_tools is not None:
            pieces = self._text_tools.feed(text)
            if final:
                pieces += self._text_tools.finish()
            text = "".join(piece for piece in pieces if isinstance(piece, str))
            calls = [piece for piece in pieces if isinstance(piece, TextToolCall)]
        if self._speech is not None:
            text = self._speech.feed(text) + (self._speech.finish() if final else "")
        return self._trimmed(text), calls

    def _trimmed(self, text: str) -> str:
        """Return text without the answer's leading and trailing whitespace.

        Whitespace is held until text follows it: around a call written as
        text, it would otherwise make a blank answer.
        """
        if not self._started:
            text = text.lstrip()
            self._started = bool(text)
        text = self._spaces + text
        kept = text.rstrip()
        self._spaces = text[len(kept) :]
        return kept


@dataclass(slots=True)
class _PendingToolCall:
    """A tool call being assembled from fragments."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    whole: bool = False
    """Complete, and looked up among the calls made before it."""


class _ToolCallAssembler:
    """Assemble tool calls from the fragments in the chunks."""

    def __init__(self) -> None:
        """Start with no tool call."""
        self._calls: list[_PendingToolCall] = []
        self._by_index: dict[int | None, _PendingToolCall] = {}
        self.looped = False
        """A call came whole that the response had made already; it is dropped."""
        self._made: set[tuple[str, str]] = set()

    def __bool__(self) -> bool:
        """Return whether a tool call is pending."""
        return bool(self._calls)

    def add(self, fragments: list[Fields]) -> None:
        """Add the tool call fragments of one chunk."""
        for fragment in fragments:
            index = fragment_index(fragment)
            call_id = text(fragment, "id")
            call = self._by_index.get(index)
            # Ollama gives every call of a response index 0 (ollama#15457) and
            # older versions no index at all, but each call its own id.
            if call is None or (call_id and call.id and call_id != call.id):
                # The call before is whole: a repeat of an earlier one ends
                # the response, whatever else this chunk holds.
                if self._drop_repeat():
                    return
                call = _PendingToolCall()
                self._calls.append(call)
                self._by_index[index] = call
            if call_id and not call.id:
                call.id = call_id
            function = fields(fragment.get("function"))
            if (name := text(function, "name")) and not call.name:
                call.name = name
            if arguments := text(function, "arguments"):
                call.arguments.append(arguments)

    def add_text_call(self, call: TextToolCall) -> None:
        """Add a whole tool call that the model wrote as text."""
        if not self.looped:
            self._calls.append(
                _PendingToolCall(name=call.name, arguments=[call.arguments])
            )
            self._drop_repeat()

    def _drop_repeat(self) -> bool:
        """Drop the last call if the response made it already; tell whether it did.

        The same name with the same arguments, as written: a model in a loop
        writes them token for token. Each whole call is looked up once, so a
        response of many calls is read in linear time.
        """
        if self._calls and not self.looped and not (last := self._calls[-1]).whole:
            last.whole = True
            said = (last.name, "".join(last.arguments).strip())
            if said in self._made:
                self._calls.pop()
                self.looped = True
            else:
                self._made.add(said)
        return self.looped

    def take(self, stats: StreamStats) -> list[llm.ToolInput]:
        """Return the pending tool calls, the unreadable ones as such."""
        self._drop_repeat()  # the last call, whole now
        tool_inputs: list[llm.ToolInput] = []
        for call in self._calls:
            call_id = call.id or ulid_now()
            try:
                tool_args = parse_tool_arguments("".join(call.arguments))
            except ToolArgumentsError as err:
                tool_inputs.append(
                    UnreadableCall(call.name, {}, call_id, problem=str(err))
                )
            else:
                tool_inputs.append(llm.ToolInput(call.name, tool_args, call_id))
        self._calls.clear()
        self._by_index.clear()
        stats.tool_calls += len(tool_inputs)
        return tool_inputs
