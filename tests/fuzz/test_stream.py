"""Property-based tests for the streaming parsers: any input, cut any way.

The server's chunks, the content models write and the way the network cuts
it are all outside our control. Whatever they are, turning a stream into chat
log deltas never raises, and where the cuts fall never changes the result.
Each property runs 1,000 examples (the "ci" Hypothesis profile in conftest.py).
"""

from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
import json
from typing import Any

from hypothesis import example, given, strategies as st
import pytest

from homeassistant.components import conversation

from custom_components.chatterbox.speech import SpeechFilter, is_pictograph
from custom_components.chatterbox.tools.names import tool_resolver
from custom_components.chatterbox.wire.arguments import (
    ToolArgumentsError,
    UnreadableCall,
    parse_tool_arguments,
)
from custom_components.chatterbox.wire.stream import StreamStats
from custom_components.chatterbox.wire.text_calls import (
    TextToolCall,
    TextToolCallParser,
)
from tests.helpers.strategies import result_or_error
from tests.helpers.stream import call, chunk, chunked, collect, joined, speak

OFFERED = ("HassTurnOn", "HassTurnOff", "GetLiveContext")

# Pieces that mean something to one of the parsers, whole and cut short, among
# arbitrary text: think tags, every text tool call format, markdown, emoji,
# lone surrogates (a JSON string escape can make one) and brackets.
MARKERS = [
    "<think>",
    "</think>",
    "<thi",
    "</th",
    "<tool_call>",
    "</tool_call>",
    "<tool_",
    '{"name": "HassTurnOn", "arguments": {"name": "Kitchen"}}',
    '{"name": "HassTurnOn", "arguments": {"name": ',
    '{"name": "Nope", "parameters": {}}',
    "{'name': 'HassTurnOff', 'arguments': {'area': 'Hall'}}",
    "```json\n",
    "```\n",
    "```",
    "~~~",
    "<function=HassTurnOn>",
    "<parameter=name>",
    "</parameter>",
    "</function>",
    "<function_calls>",
    '<invoke name="HassTurnOff">',
    '<parameter name="name">',
    "</invoke>",
    "</function_calls>",
    "[TOOL_CALLS]",
    "HassTurnOn[ARGS]",
    "<|python_tag|>",
    "**",
    "__",
    "# ",
    "- ",
    "1. ",
    "| a | b |",
    "|---|",
    "---",
    "[link](",
    "](https://example.com/a_(b))",
    "https://x.y/z",
    "www.",
    "<https://",
    "`",
    "\\",
    "\n",
    "\n\n",
    " ",
    "\t",
    "💡",
    "👨\u200d👩\u200d👧",
    "\ud800",
    "[[[[",
    "]]]]",
    "{",
    "}",
    '"',
    "'",
    ",",
    ":",
]
FUZZ_TEXT = st.lists(
    st.one_of(st.sampled_from(MARKERS), st.text(max_size=4)), max_size=8
).map("".join)
SIZES = st.lists(st.integers(1, 12), min_size=1, max_size=6)
WHOLE = [10**9]
"""Chunk sizes that leave a text in one piece."""


def drive[T](coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits for anything, without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    msg = "the coroutine waited for something"
    raise AssertionError(msg)


# Any chunk a server might send, in any order: content, reasoning, refusals,
# tool call fragments with or without index, id, name and arguments, finish
# reasons anywhere, chunks without choices.
FRAGMENT = st.builds(
    call,
    st.sampled_from([None, 0, 1, 2]),
    call_id=st.sampled_from([None, "call_a", "call_b", "call_c"]),
    name=st.sampled_from([None, "", *OFFERED, "not_offered"]),
    arguments=st.none() | FUZZ_TEXT,
)
EXTRA_FIELDS = st.sampled_from(["reasoning_content", "reasoning", "refusal"])
ANY_CHUNK = st.builds(
    lambda content, extra, **kwargs: chunk(content, **dict([extra]), **kwargs),
    st.none() | FUZZ_TEXT,
    st.tuples(EXTRA_FIELDS, st.none() | FUZZ_TEXT),
    tool_calls=st.none() | st.lists(FRAGMENT, max_size=2),
    finish_reason=st.sampled_from([None, "stop", "tool_calls", "length"]),
    choices=st.booleans(),
)
DELTA_KEYS = {"role", "content", "thinking_content", "tool_calls"}

# The agent reads chunks as the JSON the server wrote, unchecked by the SDK:
# any field the agent reads may hold any JSON value, and a chunk may be no
# object at all.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=6,
)


def _some_of(**keys: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Return objects with any of these keys, each holding what its strategy makes."""
    return st.fixed_dictionaries({}, optional=keys)


ANY_FRAGMENT = JSON | _some_of(
    index=JSON, id=JSON, function=JSON | _some_of(name=JSON, arguments=JSON)
)
ANY_DELTA = JSON | _some_of(
    content=JSON | FUZZ_TEXT,
    refusal=JSON,
    reasoning=JSON,
    reasoning_content=JSON,
    tool_calls=JSON | st.lists(ANY_FRAGMENT, max_size=2),
)
ANY_JSON_CHUNK = JSON | _some_of(
    model=JSON,
    usage=JSON
    | _some_of(
        prompt_tokens=JSON,
        completion_tokens=JSON,
        total_tokens=JSON,
        prompt_tokens_details=JSON | _some_of(cached_tokens=JSON),
    ),
    choices=JSON | st.lists(_some_of(delta=ANY_DELTA, finish_reason=JSON), max_size=2),
)


def filters(text_tools: bool, speech: bool) -> dict[str, Any]:  # noqa: FBT001
    """Return the answer filters of a stream, fresh for one response."""
    return {
        "text_tools": TextToolCallParser(tool_resolver(OFFERED))
        if text_tools
        else None,
        "speech": SpeechFilter() if speech else None,
    }


@given(
    chunks=st.lists(ANY_CHUNK, max_size=6),
    text_tools=st.booleans(),
    speech=st.booleans(),
)
def test_any_stream_becomes_deltas_the_chat_log_accepts(
    chunks: list[dict[str, Any]],
    text_tools: bool,  # noqa: FBT001
    speech: bool,  # noqa: FBT001
) -> None:
    """Whatever the server sends, the deltas are well formed and counted."""
    stats = StreamStats()

    deltas = drive(collect(chunks, stats, **filters(text_tools, speech)))

    assert_well_formed(deltas, stats)


@given(chunks=st.lists(ANY_JSON_CHUNK, max_size=6), speech=st.booleans())
def test_any_json_becomes_deltas_the_chat_log_accepts(
    chunks: list[object],
    speech: bool,  # noqa: FBT001
) -> None:
    """A number for the content, a string for the choices: nothing raises."""
    stats = StreamStats()

    deltas = drive(collect(chunks, stats, **filters(text_tools=True, speech=speech)))

    assert_well_formed(deltas, stats)
    counts = (stats.prompt_tokens, stats.completion_tokens, stats.cached_tokens)
    assert all(n is None or (type(n) is int and n >= 0) for n in counts)
    assert stats.finish_reason is None or isinstance(stats.finish_reason, str)


def assert_well_formed(
    deltas: list[conversation.AssistantContentDeltaDict], stats: StreamStats
) -> None:
    """Check that the chat log accepts the deltas and the stats count them."""
    assert deltas[0] == {"role": "assistant"}
    assert all(set(delta) <= DELTA_KEYS for delta in deltas)
    # HA 2026.11 keeps an explicit "" as a silent answer: none is yielded.
    assert all(delta.get("content") != "" for delta in deltas)
    assert all(delta.get("thinking_content") != "" for delta in deltas)
    assert len(joined(deltas, "content") or "") == stats.content_chars
    assert len(joined(deltas, "thinking_content") or "") == stats.thinking_chars
    calls = [tool for delta in deltas for tool in delta.get("tool_calls") or ()]
    assert stats.tool_calls == len(calls)
    # Every call can be answered: it has an id, and its arguments are an
    # object, or empty with the reason it could not be read.
    assert all(tool.id and isinstance(tool.tool_args, dict) for tool in calls)
    assert all(not tool.tool_args for tool in calls if isinstance(tool, UnreadableCall))
    assert stats.empty == (not deltas[1:])


@dataclass(frozen=True)
class Response:
    """What a server means to send, before the network cuts it into chunks."""

    reasoning: str
    content: str
    calls: list[tuple[str | None, str, str]]
    """Each call's id (None for a server that sends none), name and arguments."""
    ollama: bool
    """Every call at index 0, told apart by its id, as Ollama sends them."""

    def chunks(self, sizes: Sequence[int]) -> list[dict[str, Any]]:
        """Send the response with its texts cut into pieces of these sizes."""
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        deltas += [{"reasoning_content": p} for p in chunked(self.reasoning, sizes)]
        deltas += [{"content": piece} for piece in chunked(self.content, sizes)]
        for index, (call_id, name, arguments) in enumerate(self.calls):
            position = 0 if self.ollama else index
            deltas.append({"tool_calls": [call(position, call_id=call_id, name=name)]})
            deltas += [
                {"tool_calls": [call(position, arguments=piece)]}
                for piece in chunked(arguments, sizes) or [""]
            ]
        finish = "tool_calls" if self.calls else "stop"
        return [*map(valid_chunk, deltas), valid_chunk({}, finish)]


def valid_chunk(
    delta: dict[str, Any], finish_reason: str | None = None
) -> dict[str, Any]:
    """Build a well-formed chunk."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "qwen3",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


ARGUMENTS = st.one_of(
    FUZZ_TEXT,
    st.dictionaries(
        st.sampled_from(["name", "area", "domain"]), st.text(max_size=8), max_size=3
    ).map(json.dumps),
)


def make_response(
    reasoning: str,
    content: str,
    calls: list[tuple[bool, str, str]],
    ollama: bool,  # noqa: FBT001
) -> Response:
    """Build a response whose calls are numbered; Ollama's always have an id."""
    return Response(
        reasoning,
        content,
        [
            (f"call_{index}" if ollama or with_id else None, name, arguments)
            for index, (with_id, name, arguments) in enumerate(calls)
        ],
        ollama,
    )


RESPONSES = st.builds(
    make_response,
    FUZZ_TEXT,
    FUZZ_TEXT,
    st.lists(
        st.tuples(st.booleans(), st.sampled_from([*OFFERED, "not_offered"]), ARGUMENTS),
        max_size=3,
    ),
    st.booleans(),
)


def outcome(
    deltas: list[conversation.AssistantContentDeltaDict], stats: StreamStats
) -> tuple[Any, ...]:
    """Return what a stream amounts to, leaving out the ids made up for it."""
    calls = [tool for delta in deltas for tool in delta.get("tool_calls") or ()]
    return (
        joined(deltas, "content"),
        joined(deltas, "thinking_content"),
        [
            (
                tool.tool_name,
                tool.tool_args,
                tool.id if tool.id.startswith("call_") else None,
                tool.problem if isinstance(tool, UnreadableCall) else "",
            )
            for tool in calls
        ],
    )


@given(
    response=RESPONSES,
    sizes=SIZES,
    text_tools=st.booleans(),
    speech=st.booleans(),
)
def test_cutting_a_stream_differently_never_changes_the_turn(
    response: Response,
    sizes: list[int],
    text_tools: bool,  # noqa: FBT001
    speech: bool,  # noqa: FBT001
) -> None:
    """The same response, in one chunk per part or cut anywhere, reads the same."""
    whole_stats, cut_stats = StreamStats(), StreamStats()

    whole = drive(
        collect(response.chunks(WHOLE), whole_stats, **filters(text_tools, speech))
    )
    cut = drive(
        collect(response.chunks(sizes), cut_stats, **filters(text_tools, speech))
    )

    assert outcome(cut, cut_stats) == outcome(whole, whole_stats)
    if text_tools:
        return  # the calls written in the content join the server's own
    # Each of the server's calls is read as parse_tool_arguments reads it, up
    # to the first that repeats one before it: a model in a loop.
    made: list[tuple[str, str, str]] = []
    for call_id, name, arguments in response.calls:
        if (name, arguments.strip()) in {(n, a.strip()) for _, n, a in made}:
            assert whole_stats.looped
            break
        made.append((call_id, name, arguments))
    for (call_id, name, arguments), (got_name, got_args, got_id, error) in zip(
        made, outcome(whole, whole_stats)[2], strict=True
    ):
        assert (got_name, got_id) == (name, call_id)
        expected = result_or_error(
            lambda arguments=arguments: parse_tool_arguments(arguments),
            ToolArgumentsError,
        )
        if isinstance(expected, ToolArgumentsError):
            assert (got_args, error) == ({}, str(expected))
        else:
            assert (got_args, error) == (expected, "")


def read_calls(
    accepts: Callable[[str], str | None], chunks: Sequence[str]
) -> tuple[str, list[TextToolCall]]:
    """Feed the chunks to a text tool call parser; return its text and calls."""
    parser = TextToolCallParser(accepts)
    pieces = [piece for text in chunks for piece in parser.feed(text)]
    pieces += parser.finish()
    text = "".join(piece for piece in pieces if isinstance(piece, str))
    return text, [piece for piece in pieces if isinstance(piece, TextToolCall)]


def is_subsequence(part: str, whole: str) -> bool:
    """Tell whether part is whole with some characters taken out."""
    rest = iter(whole)
    return all(char in rest for char in part)


# Hostile shapes for the stream readers: each is also fed one character at a
# time, so 64 KB rather than the megabyte of tests/fuzz/test_hostile_input.py.
LARGE = 65_536


@given(
    text=FUZZ_TEXT,
    sizes=SIZES,
    any_name=st.booleans(),
)
@example(text="```json\n" + " " * LARGE, sizes=[64], any_name=False)
@example(
    text='{"name": "HassTurnOn", "arguments": {"' + "a" * LARGE,
    sizes=[7],
    any_name=True,
)
@pytest.mark.timeout(60)
def test_text_tool_calls_read_the_same_however_the_text_is_cut(
    text: str,
    sizes: list[int],
    any_name: bool,  # noqa: FBT001
) -> None:
    """Any answer, cut anywhere: the same text and calls, and nothing added."""
    accepts = (lambda name: name) if any_name else tool_resolver(OFFERED)

    whole_text, calls = read_calls(accepts, [text])

    assert read_calls(accepts, chunked(text, sizes)) == (whole_text, calls)
    assert read_calls(accepts, list(text)) == (whole_text, calls)
    if not any_name:
        assert {found.name for found in calls} <= set(OFFERED)
    # Only calls are taken out: without any, the text is the answer exactly.
    if calls:
        assert is_subsequence(whole_text, text)
    else:
        assert whole_text == text
    for found in calls:
        # Read, or answered with the error as the server's own calls are.
        result_or_error(
            lambda found=found: parse_tool_arguments(found.arguments),
            ToolArgumentsError,
        )


@given(text=FUZZ_TEXT, sizes=SIZES)
@example(text="|" + "-" * LARGE + "x", sizes=[64])
@example(text="```\n" + " " * LARGE + "`" * 3, sizes=[5])
@pytest.mark.timeout(60)
def test_speech_is_the_same_however_the_answer_is_cut(
    text: str, sizes: list[int]
) -> None:
    """Any answer, cut anywhere, is spoken the same, with no emoji outside code."""
    spoken = speak([text])

    assert speak(chunked(text, sizes)) == spoken
    assert speak(text) == spoken
    if not any(fence in text for fence in ("`", "~~~")):
        assert not any(map(is_pictograph, spoken))
