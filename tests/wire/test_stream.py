"""Tests for turning streamed chat completions into chat log deltas."""

import json
from types import SimpleNamespace
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.helpers import llm

from custom_components.chatterbox.speech import SpeechFilter
from custom_components.chatterbox.tools.names import tool_resolver
from custom_components.chatterbox.wire import stream
from custom_components.chatterbox.wire.arguments import UnreadableCall
from custom_components.chatterbox.wire.stream import StreamStats, transform_stream
from custom_components.chatterbox.wire.text_calls import TextToolCallParser
from tests.helpers.llm_server import LLMServer
from tests.helpers.stream import (
    aiter_chunks,
    call,
    chunk,
    collect,
    event,
    joined,
    stream_events,
    tool_calls_of,
)


async def test_text_is_yielded_as_it_arrives() -> None:
    """Yield the role once, then each piece of the answer in its own delta."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk("", role="assistant"),
            chunk("The kitchen"),
            chunk(" light is on."),
            chunk(finish_reason="stop"),
            chunk(
                choices=False,
                usage={
                    "prompt_tokens": 812,
                    "completion_tokens": 9,
                    "total_tokens": 821,
                    "prompt_tokens_details": {"cached_tokens": 768},
                },
            ),
        ],
        stats,
    )

    assert deltas == [
        {"role": "assistant"},
        {"content": "The kitchen"},
        {"content": " light is on."},
    ]
    assert stats.finish_reason == "stop"
    assert (stats.prompt_tokens, stats.completion_tokens, stats.total_tokens) == (
        812,
        9,
        821,
    )
    assert stats.cached_tokens == 768
    assert stats.model == "qwen3"
    assert stats.content_chars == len("The kitchen light is on.")
    assert not stats.empty


async def test_usage_without_details_and_a_stream_without_usage() -> None:
    """Keep cached tokens unknown when the server does not report them."""
    with_usage = StreamStats()
    await collect(
        [
            chunk("Hi", finish_reason="stop"),
            chunk(
                choices=False,
                usage={"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            ),
        ],
        with_usage,
    )
    without_usage = StreamStats()
    await collect([chunk("Hi", finish_reason="stop")], without_usage)

    assert (with_usage.total_tokens, with_usage.cached_tokens) == (6, None)
    assert without_usage.prompt_tokens is None
    assert without_usage.total_tokens is None


async def test_time_to_first_token_counts_from_the_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Measure from when the request was sent to the first real output."""
    clock = iter([10.75, 99.0])
    monkeypatch.setattr(stream, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    stats = StreamStats(started=10.0)

    # The role chunk and an empty content string are not output yet.
    await collect([chunk("", role="assistant"), chunk("Hello"), chunk(" there")], stats)

    assert stats.time_to_first_token == pytest.approx(0.75)


@pytest.mark.parametrize(
    "first_output",
    [
        chunk(reasoning_content="Let me think"),
        chunk(tool_calls=[call(0, call_id="c1", name="HassTurnOn")]),
        chunk(refusal="I can't help with that."),
        chunk("<thi"),
    ],
)
async def test_any_output_is_a_first_token(first_output: dict[str, Any]) -> None:
    """Count thinking, tool calls, refusals and held-back text as output."""
    stats = StreamStats()

    await collect([chunk(role="assistant"), first_output], stats)

    assert stats.time_to_first_token is not None
    assert stats.time_to_first_token >= 0


async def test_an_empty_stream_yields_only_the_role() -> None:
    """Raise nothing for an empty answer and let the stats tell the caller."""
    stats = StreamStats()

    deltas = await collect(
        [chunk("", role="assistant"), chunk(finish_reason="stop")], stats
    )
    nothing_at_all = await collect([])

    assert deltas == [{"role": "assistant"}]
    assert nothing_at_all == [{"role": "assistant"}]
    assert stats.empty
    assert stats.time_to_first_token is None
    assert stats.finish_reason == "stop"


async def test_the_stats_can_be_left_out() -> None:
    """Transform a stream when the caller does not want the stats."""
    deltas = [delta async for delta in transform_stream(aiter_chunks([chunk("Hi")]))]

    assert deltas == [{"role": "assistant"}, {"content": "Hi"}]


async def test_a_refusal_is_the_answer() -> None:
    """Speak a refusal that OpenAI sends in its own field."""
    deltas = await collect([chunk(refusal="I can't help with that.")])

    assert joined(deltas, "content") == "I can't help with that."


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_fields_become_thinking(field: str) -> None:
    """Read the reasoning of vLLM and DeepSeek or of Ollama and OpenRouter."""
    stats = StreamStats()
    first: dict[str, Any] = {field: "The user wants"}
    second: dict[str, Any] = {field: " the lights on."}
    done: dict[str, Any] = {field: None}

    deltas = await collect(
        [
            chunk(role="assistant", **first),
            chunk(**second),
            chunk("Done.", **done),
        ],
        stats,
    )

    assert deltas == [
        {"role": "assistant"},
        {"thinking_content": "The user wants"},
        {"thinking_content": " the lights on."},
        {"content": "Done."},
    ]
    assert stats.thinking_chars == len("The user wants the lights on.")


async def test_reasoning_sent_in_both_fields_is_read_once() -> None:
    """Read one field when a server sends the same reasoning under both names."""
    deltas = await collect(
        [chunk(reasoning_content="Hmm.", reasoning="Hmm."), chunk(reasoning="!")]
    )

    assert joined(deltas, "thinking_content") == "Hmm.!"


async def test_tool_calls_are_assembled_and_yielded_once() -> None:
    """Join argument fragments by index and yield the calls at the finish."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk(role="assistant", content=""),
            chunk(
                tool_calls=[
                    call(0, call_id="call_a", name="HassTurnOn", arguments=""),
                ]
            ),
            chunk(tool_calls=[call(0, arguments='{"name": "Kitch')]),
            chunk(tool_calls=[call(0, arguments='en Light"}')]),
            chunk(
                tool_calls=[
                    call(1, call_id="call_b", name="HassTurnOff", arguments='{"area"'),
                ]
            ),
            chunk(tool_calls=[call(1, arguments=': "Den"}')]),
            chunk(finish_reason="tool_calls"),
            # OpenRouter repeats the finish reason in the usage chunk.
            chunk(
                finish_reason="tool_calls",
                usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
            ),
        ],
        stats,
    )

    assert tool_calls_of(deltas) == [
        [
            llm.ToolInput(
                tool_name="HassTurnOn", tool_args={"name": "Kitchen Light"}, id="call_a"
            ),
            llm.ToolInput(
                tool_name="HassTurnOff", tool_args={"area": "Den"}, id="call_b"
            ),
        ]
    ]
    assert all(not tool_input.external for tool_input in tool_calls_of(deltas)[0])
    assert deltas[-1] == {"tool_calls": tool_calls_of(deltas)[0]}
    assert stats.tool_calls == 2
    assert stats.total_tokens == 3


async def test_several_calls_in_one_chunk() -> None:
    """Read every call of a chunk, as servers that send whole calls do."""
    deltas = await collect(
        [
            chunk(
                tool_calls=[
                    call(0, call_id="a", name="HassTurnOn", arguments='{"name": "A"}'),
                    call(1, call_id="b", name="HassTurnOn", arguments='{"name": "B"}'),
                ],
                finish_reason="tool_calls",
            )
        ]
    )

    assert [
        (tool_input.id, tool_input.tool_args) for tool_input in tool_calls_of(deltas)[0]
    ] == [("a", {"name": "A"}), ("b", {"name": "B"})]


async def test_tool_calls_finished_with_stop_or_no_reason() -> None:
    """Yield calls on a stop finish and when the stream just ends."""
    on_stop = await collect(
        [
            chunk(tool_calls=[call(0, call_id="a", name="GetLiveContext")]),
            chunk(finish_reason="stop"),
        ]
    )
    at_end = await collect(
        [chunk(tool_calls=[call(0, call_id="b", name="GetLiveContext")])]
    )

    assert tool_calls_of(on_stop) == [
        [llm.ToolInput(tool_name="GetLiveContext", tool_args={}, id="a")]
    ]
    assert tool_calls_of(at_end) == [
        [llm.ToolInput(tool_name="GetLiveContext", tool_args={}, id="b")]
    ]


async def test_text_and_tool_calls_in_one_response() -> None:
    """Stream the text before a tool call and yield the call at the finish."""
    deltas = await collect(
        [
            chunk("Turning it on."),
            chunk(
                tool_calls=[call(0, call_id="a", name="HassTurnOn", arguments="{}")],
                finish_reason="tool_calls",
            ),
        ]
    )

    assert deltas == [
        {"role": "assistant"},
        {"content": "Turning it on."},
        {"tool_calls": [llm.ToolInput(tool_name="HassTurnOn", tool_args={}, id="a")]},
    ]


async def test_a_missing_id_is_generated() -> None:
    """Give each call without an id a unique one, so its result can answer it."""
    deltas = await collect(
        [
            chunk(
                tool_calls=[
                    call(0, name="HassTurnOn", arguments='{"name": "A"}'),
                    call(1, name="HassTurnOn", arguments='{"name": "B"}'),
                ]
            )
        ]
    )

    ids = [tool_input.id for tool_input in tool_calls_of(deltas)[0]]
    assert len(ids) == 2
    assert len(set(ids)) == 2
    assert all(ids)


async def test_calls_that_reuse_an_index_are_told_apart_by_id() -> None:
    """Split calls that Ollama streams all at index 0, each with its own id."""
    deltas = await collect(
        [
            chunk(tool_calls=[call(0, call_id="x1", name="HassTurnOn")]),
            chunk(tool_calls=[call(0, call_id="x1", arguments='{"name": "A"}')]),
            chunk(tool_calls=[call(0, call_id="x2", name="HassTurnOff")]),
            chunk(tool_calls=[call(0, arguments='{"name": "B"}')]),
            chunk(finish_reason="tool_calls"),
        ]
    )

    assert tool_calls_of(deltas) == [
        [
            llm.ToolInput(tool_name="HassTurnOn", tool_args={"name": "A"}, id="x1"),
            llm.ToolInput(tool_name="HassTurnOff", tool_args={"name": "B"}, id="x2"),
        ]
    ]


async def test_calls_without_an_index_are_told_apart_by_id() -> None:
    """Read the calls of old Ollama versions, which send no index."""
    deltas = await collect(
        [
            chunk(
                tool_calls=[
                    call(None, call_id="a", name="HassTurnOn", arguments="{}"),
                    call(None, call_id="b", name="HassTurnOff", arguments="{}"),
                ]
            )
        ]
    )

    assert [tool_input.id for tool_input in tool_calls_of(deltas)[0]] == ["a", "b"]


async def test_a_fragment_without_a_function_only_sets_the_id() -> None:
    """Take the id and the name from whichever fragment carries them."""
    fragment = call(0, call_id="a")
    del fragment["function"]

    deltas = await collect(
        [
            chunk(tool_calls=[fragment]),
            chunk(tool_calls=[call(0, name="HassTurnOn", arguments='{"name": "A"}')]),
            chunk(tool_calls=[call(0, name="HassTurnOn")]),
        ]
    )

    assert tool_calls_of(deltas) == [
        [llm.ToolInput(tool_name="HassTurnOn", tool_args={"name": "A"}, id="a")]
    ]


async def test_unreadable_arguments_are_reported_not_raised() -> None:
    """Yield the call with no arguments and the reason under its id."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk(
                tool_calls=[
                    call(0, call_id="bad", name="HassTurnOn", arguments='{"name": '),
                    call(1, call_id="good", name="HassTurnOff", arguments="{'a': 1}"),
                ],
                finish_reason="length",
            )
        ],
        stats,
    )

    bad, good = tool_calls_of(deltas)[0]
    assert bad == UnreadableCall(
        tool_name="HassTurnOn", tool_args={}, id="bad", problem=bad.problem
    )
    assert bad.problem.startswith("invalid JSON: Expecting value at position 8")
    assert good == llm.ToolInput(tool_name="HassTurnOff", tool_args={"a": 1}, id="good")


async def test_stats_as_dict_for_the_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the trace plain values."""
    monkeypatch.setattr(stream, "time", SimpleNamespace(monotonic=lambda: 3.5))
    stats = StreamStats(started=3.0)

    await collect(
        [
            chunk("<think>Hm</think>Ok"),
            chunk(tool_calls=[call(0, call_id="a", name="X", arguments="1")]),
            chunk(
                finish_reason="tool_calls",
                usage={"prompt_tokens": 4, "completion_tokens": 5, "total_tokens": 9},
            ),
        ],
        stats,
    )

    assert stats.as_dict() == {
        "time_to_first_token": 0.5,
        "finish_reason": "tool_calls",
        "model": "qwen3",
        "prompt_tokens": 4,
        "completion_tokens": 5,
        "total_tokens": 9,
        "cached_tokens": None,
        "content_chars": 2,
        "thinking_chars": 2,
        "tool_calls": 1,
        "cut_short": False,
        "looped": False,
        "made_up": 0,
    }
    json.dumps(stats.as_dict())


async def test_a_real_sdk_stream_from_a_reasoning_server(
    sse_server: LLMServer,
) -> None:
    """Transform what the SDK reads from a vLLM-style server, quirks included."""
    deltas, stats = await stream_events(
        sse_server,
        [
            event({"role": "assistant", "content": ""}),
            event({"reasoning_content": "They want the den lit."}),
            event(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "chatcmpl-tool-1",
                            "type": "function",
                            "function": {"name": "HassTurnOn", "arguments": ""},
                        }
                    ]
                }
            ),
            event({"tool_calls": [{"index": 0, "function": {"arguments": '{"area"'}}]}),
            event(
                {"tool_calls": [{"index": 0, "function": {"arguments": ': "Den"}'}}]}
            ),
            # A finish reason outside the SDK's list, as llama.cpp once sent.
            event({}, finish_reason="eos"),
            {
                "id": "chatcmpl-9",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "deepseek-r1",
                "choices": [],
                "usage": {
                    "prompt_tokens": 100,
                    "completion_tokens": 20,
                    "total_tokens": 120,
                },
            },
        ],
    )

    assert deltas == [
        {"role": "assistant"},
        {"thinking_content": "They want the den lit."},
        {
            "tool_calls": [
                llm.ToolInput(
                    tool_name="HassTurnOn",
                    tool_args={"area": "Den"},
                    id="chatcmpl-tool-1",
                )
            ]
        },
    ]
    assert stats.finish_reason == "eos"
    assert stats.total_tokens == 120
    assert stats.model == "deepseek-r1"


def offered(*names: str) -> TextToolCallParser:
    """Return a parser for the calls of these tools written as text."""
    return TextToolCallParser(tool_resolver(names))


def calls_of(
    deltas: list[conversation.AssistantContentDeltaDict],
) -> list[tuple[str, dict[str, Any]]]:
    """Return the name and arguments of every tool call yielded."""
    return [
        (tool_input.tool_name, tool_input.tool_args)
        for batch in tool_calls_of(deltas)
        for tool_input in batch
    ]


# Token by token, as Qwen2.5-Coder-1.5B streams a call with the fenced-JSON
# template when the server does not parse it (research/local-llm.md).
QWEN_FENCED_CALL = [
    "```",
    "json",
    "\n",
    '{"',
    "name",
    '":',
    ' "',
    "Hass",
    "Turn",
    "On",
    '",',
    ' "',
    "arguments",
    '":',
    ' {"',
    "name",
    '":',
    ' "',
    "kitchen",
    " light",
    '"}}\n',
    "```",
]


async def test_a_call_written_as_text_becomes_a_tool_call() -> None:
    """The model writes its call in a fenced block; a real tool call comes out."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk("", role="assistant"),
            *(chunk(token) for token in QWEN_FENCED_CALL),
            chunk(finish_reason="stop"),
        ],
        stats,
        text_tools=offered("HassTurnOn", "HassTurnOff"),
    )

    assert calls_of(deltas) == [("HassTurnOn", {"name": "kitchen light"})]
    (tool_input,) = tool_calls_of(deltas)[0]
    assert tool_input.id
    assert not tool_input.external
    assert joined(deltas, "content") is None
    assert stats.tool_calls == 1
    assert stats.content_chars == 0
    assert not isinstance(tool_input, UnreadableCall)


async def test_a_result_the_model_writes_itself_is_counted_and_left_out() -> None:
    """The model writes a result in the results' tags: no text, no call, one made up."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk("<tool_response>\n"),
            chunk('{"temperature": 22}\n</tool_response>'),
            chunk(finish_reason="stop"),
        ],
        stats,
        text_tools=offered("HassTurnOn"),
    )

    assert joined(deltas, "content") is None
    assert (stats.made_up, stats.tool_calls, stats.content_chars) == (1, 0, 0)


async def test_text_calls_are_yielded_with_the_native_ones_at_the_finish() -> None:
    """Both kinds of call come out together, when the finish reason arrives."""
    stats = StreamStats()
    deltas = transform_stream(
        aiter_chunks(
            [
                chunk(
                    '<tool_call>{"name": "HassTurnOff", "arguments": {"area": "Den"}}'
                ),
                chunk("</tool_call>"),
                chunk(tool_calls=[call(0, call_id="n1", name="HassTurnOn")]),
                chunk(tool_calls=[call(0, arguments='{"name": "A"}')]),
                chunk(finish_reason="tool_calls"),
                chunk(
                    choices=False,
                    usage={
                        "prompt_tokens": 1,
                        "completion_tokens": 2,
                        "total_tokens": 3,
                    },
                ),
            ]
        ),
        stats,
        text_tools=offered("HassTurnOn", "HassTurnOff"),
    )

    # The usage after the finish reason is not read yet when the calls come.
    batches = [
        (calls_of([delta]), stats.total_tokens)
        async for delta in deltas
        if "tool_calls" in delta
    ]

    # In the order the model wrote them.
    assert batches == [
        ([("HassTurnOff", {"area": "Den"}), ("HassTurnOn", {"name": "A"})], None)
    ]
    assert stats.tool_calls == 2


async def test_the_text_around_a_call_is_the_answer() -> None:
    """Text before and after a call is streamed; the call is not in it."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk("Turning it on.\n"),
            chunk('<tool_call>\n{"name": "HassTurnOn", "arguments": {"name": "A"}}\n'),
            chunk("</tool_call>\n"),
        ],
        stats,
        text_tools=offered("HassTurnOn"),
    )

    assert deltas == [
        {"role": "assistant"},
        {"content": "Turning it on."},
        {"tool_calls": tool_calls_of(deltas)[0]},
    ]
    assert calls_of(deltas) == [("HassTurnOn", {"name": "A"})]
    assert stats.content_chars == len("Turning it on.")


async def test_a_text_call_at_every_cut_of_the_stream() -> None:
    """Wherever the server cuts the content, the same call and text come out."""
    answer = (
        "Sure. <tool_call>\n"
        '{"name": "HassTurnOn", "arguments": {"name": "Kitchen Light"}}\n'
        "</tool_call>"
    )
    for cut in range(1, len(answer)):
        deltas = await collect(
            [chunk(answer[:cut]), chunk(answer[cut:])],
            text_tools=offered("HassTurnOn"),
        )

        assert joined(deltas, "content") == "Sure.", cut
        assert calls_of(deltas) == [("HassTurnOn", {"name": "Kitchen Light"})], cut


async def test_an_unreadable_text_call_is_answered_with_its_error() -> None:
    """Broken arguments come as an unreadable call, as for native calls."""
    stats = StreamStats()

    deltas = await collect(
        [chunk('<tool_call>{"name": "HassTurnOn", "arguments": {"name": </tool_call>')],
        stats,
        text_tools=offered("HassTurnOn"),
    )

    (tool_input,) = tool_calls_of(deltas)[0]
    assert (tool_input.tool_name, tool_input.tool_args) == ("HassTurnOn", {})
    assert isinstance(tool_input, UnreadableCall)
    assert tool_input.problem.startswith("invalid JSON")


async def test_a_call_of_a_tool_not_offered_stays_the_answer() -> None:
    """A call of an unknown tool is not run: the text is the answer, unchanged."""
    answer = '<tool_call>{"name": "SendEmail", "arguments": {}}</tool_call>'
    stats = StreamStats()

    deltas = await collect(
        [chunk(answer[:20]), chunk(answer[20:])],
        stats,
        text_tools=offered("HassTurnOn"),
    )

    assert joined(deltas, "content") == answer
    assert tool_calls_of(deltas) == []
    assert stats.content_chars == len(answer)
    assert stats.tool_calls == 0


async def test_an_answer_that_is_only_calls_has_no_content() -> None:
    """The whitespace between calls does not make a blank answer."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk("\n\n"),
            chunk('[TOOL_CALLS]HassTurnOn[ARGS]{"name": "A"}\n'),
            chunk('[TOOL_CALLS]HassTurnOff[ARGS]{"name": "B"}\n\n'),
        ],
        stats,
        text_tools=offered("HassTurnOn", "HassTurnOff"),
    )

    assert joined(deltas, "content") is None
    assert calls_of(deltas) == [
        ("HassTurnOn", {"name": "A"}),
        ("HassTurnOff", {"name": "B"}),
    ]
    assert stats.content_chars == 0
    assert not stats.empty


MARKDOWN_CHUNKS = [
    "## Kitchen",
    " 🏠\n\n- **Ceil",
    "ing light**: on\n",
    "- *Fan*",
    ": off\n\nSee [the",
    " dashboard](http://ha.local:8123/lovelace",
    ") for more",
    ". 😊",
]


async def test_a_markdown_answer_is_streamed_as_clean_sentences() -> None:
    """The speech filter cleans the answer chunk by chunk, without stalling it."""
    stats = StreamStats()

    deltas = await collect(
        [chunk(piece) for piece in MARKDOWN_CHUNKS], stats, speech=SpeechFilter()
    )

    content = joined(deltas, "content")
    assert content == (
        "Kitchen.\n\nCeiling light: on.\nFan: off.\n\nSee the dashboard for more."
    )
    assert stats.content_chars == len(content)
    # Nearly every chunk gives speech at once.
    assert len([delta for delta in deltas if "content" in delta]) >= 6


async def test_speech_leaves_thinking_alone_and_filters_a_refusal() -> None:
    """Only the answer is filtered: thinking is not spoken."""
    deltas = await collect(
        [
            chunk("<think>**plan**: 🙂</think>**Done** ✅"),
            chunk(refusal=" *No* 🚫"),
        ],
        speech=SpeechFilter(),
    )

    assert joined(deltas, "thinking_content") == "**plan**: 🙂"
    assert joined(deltas, "content") == "Done No"


async def test_text_calls_and_speech_together() -> None:
    """The call is taken out first; the text around it is cleaned for speech."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk("**Sure!** 💡 "),
            chunk('```json\n{"name": "HassTurnOn", "arguments": {"name": "A"}}\n```'),
            chunk("\n- *done*"),
        ],
        stats,
        text_tools=offered("HassTurnOn"),
        speech=SpeechFilter(),
    )

    assert joined(deltas, "content") == "Sure!\ndone."
    assert calls_of(deltas) == [("HassTurnOn", {"name": "A"})]
    assert stats.content_chars == len("Sure!\ndone.")


async def test_a_real_sdk_stream_with_a_call_in_the_content(
    sse_server: LLMServer,
) -> None:
    """A llama.cpp-style server without a tool parser sends the call as content."""
    deltas, stats = await stream_events(
        sse_server,
        [
            event({"role": "assistant", "content": ""}),
            *(event({"content": token}) for token in QWEN_FENCED_CALL),
            event({}, finish_reason="stop"),
        ],
        text_tools=offered("HassTurnOn"),
        speech=SpeechFilter(),
    )

    assert calls_of(deltas) == [("HassTurnOn", {"name": "kitchen light"})]
    assert joined(deltas, "content") is None
    assert stats.finish_reason == "stop"
    assert stats.tool_calls == 1


async def test_a_response_that_makes_a_call_again_is_read_no_further() -> None:
    """A small model in a loop writes the same calls until its token limit.

    The response is read up to the first call it makes again: the calls
    before it run, the repeat and all after it are not read.
    """
    stats = StreamStats()
    lamp = '{"name": "Lamp"}'
    looping = [
        call(0, call_id="a", name="HassTurnOn", arguments=lamp),
        call(1, call_id="b", name="GetLiveContext", arguments="{}"),
        call(2, call_id="c", name="HassTurnOn", arguments=lamp),
        call(3, call_id="d", name="GetLiveContext", arguments="{}"),
    ]

    deltas = await collect(
        [
            chunk("To switch it on:"),
            *(chunk(tool_calls=[fragment]) for fragment in looping),
            chunk(" and on and on"),
            chunk(finish_reason="length"),
        ],
        stats,
    )

    assert calls_of(deltas) == [
        ("HassTurnOn", {"name": "Lamp"}),
        ("GetLiveContext", {}),
    ]
    assert joined(deltas, "content") == "To switch it on:"
    assert stats.looped
    assert stats.finish_reason is None


def one_chunk_each(tool: str, *names: str) -> list[dict[str, Any]]:
    """Return one chunk per call of the tool, for each device name."""
    return [
        chunk(
            tool_calls=[
                call(
                    index,
                    call_id=f"call_{index}",
                    name=tool,
                    arguments=json.dumps({"name": name}),
                )
            ]
        )
        for index, name in enumerate(names)
    ]


async def test_the_same_tool_with_other_arguments_is_no_loop() -> None:
    """Two lamps switched on in one response are two calls."""
    stats = StreamStats()

    deltas = await collect(
        [*one_chunk_each("HassTurnOn", "A", "B"), chunk(finish_reason="tool_calls")],
        stats,
    )

    assert calls_of(deltas) == [
        ("HassTurnOn", {"name": "A"}),
        ("HassTurnOn", {"name": "B"}),
    ]
    assert not stats.looped


async def test_a_call_written_as_text_again_is_read_no_further() -> None:
    """The same loop in text mode: the second fenced call is the first's repeat."""
    stats = StreamStats()
    written = "".join(QWEN_FENCED_CALL)

    deltas = await collect(
        [chunk(written), chunk("\n" + written), chunk("\n" + written)],
        stats,
        text_tools=offered("HassTurnOn"),
    )

    assert calls_of(deltas) == [("HassTurnOn", {"name": "kitchen light"})]
    assert stats.looped


async def test_a_call_written_as_text_then_a_native_one_are_two_calls() -> None:
    """Each whole call is looked up once: a text call, then another native one."""
    stats = StreamStats()

    deltas = await collect(
        [
            chunk("".join(QWEN_FENCED_CALL)),
            *one_chunk_each("HassTurnOff", "A", "B"),
            chunk(finish_reason="tool_calls"),
        ],
        stats,
        text_tools=offered("HassTurnOn", "HassTurnOff"),
    )

    assert sorted(calls_of(deltas), key=str) == [
        ("HassTurnOff", {"name": "A"}),
        ("HassTurnOff", {"name": "B"}),
        ("HassTurnOn", {"name": "kitchen light"}),
    ]
    assert not stats.looped
