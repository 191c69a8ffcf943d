"""Tests for reading tool calls that models write as text, and the text-mode prompt."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
import json

from hypothesis import example, given, strategies as st
from openai.types.chat import ChatCompletionToolParam
import pytest

from custom_components.chatterbox.tools.names import tool_resolver
from custom_components.chatterbox.wire.arguments import (
    ToolArgumentsError,
    parse_tool_arguments,
)
from custom_components.chatterbox.wire.text_calls import (
    MAX_HOLD,
    TextPiece,
    TextToolCall,
    TextToolCallParser,
    text_tool_prompt,
)
from tests.helpers.stream import chunked

OFFERED = tool_resolver(["HassTurnOn", "HassTurnOff", "GetLiveContext"])


def turn_on(name: str) -> TextToolCall:
    """Return the call that turns on a named device."""
    return TextToolCall("HassTurnOn", json.dumps({"name": name}))


@dataclass(frozen=True)
class Read:
    """What a parser made of a whole stream."""

    text: str
    calls: list[TextToolCall]


def read(chunks: Iterable[str]) -> Read:
    """Feed the chunks one by one, then finish; join the text."""
    parser = TextToolCallParser(OFFERED)
    pieces: list[TextPiece] = []
    for piece in chunks:
        pieces += parser.feed(piece)
    pieces += parser.finish()
    return Read(
        "".join(piece for piece in pieces if isinstance(piece, str)),
        [piece for piece in pieces if isinstance(piece, TextToolCall)],
    )


def some_chunkings(text: str) -> list[list[str]]:
    """Return varied multi-way cuts of text, the same every run."""
    return [
        chunked(text, [1 + (start + step * k) % width for k in range(7)])
        for start in range(4)
        for step in (1, 3)
        for width in (3, 5, 11)
    ]


CHUNK_SIZES = st.lists(st.integers(1, 12), min_size=1, max_size=8)


@dataclass(frozen=True)
class Sample:
    """A model's answer and the text and calls to find in it."""

    answer: str
    text: str
    calls: list[TextToolCall]


# Written the way the models write them: Qwen2.5 with its stock template and
# Qwen2.5-Coder-1.5B with the fenced one (research/local-llm.md), Qwen3-Coder,
# Llama 3.1, Mistral, and Claude-style XML.
SAMPLES = {
    "hermes": Sample(
        '<tool_call>\n{"name": "HassTurnOn", "arguments": {"name": "Kitchen Light"}}'
        "\n</tool_call>",
        "",
        [turn_on("Kitchen Light")],
    ),
    "hermes, two calls after text": Sample(
        "I'll turn both on.\n<tool_call>\n"
        '{"name": "HassTurnOn", "arguments": {"name": "Kitchen Light"}}\n'
        "</tool_call>\n<tool_call>\n"
        '{"name": "HassTurnOn", "arguments": {"name": "Hallway Fan"}}\n</tool_call>',
        "I'll turn both on.\n\n",
        [turn_on("Kitchen Light"), turn_on("Hallway Fan")],
    ),
    "a call in the results' tags": Sample(
        '<tool_response> {"name": "HassTurnOn", "arguments": {"name": "Kitchen '
        'Light"}} </tool_response>',
        "",
        [turn_on("Kitchen Light")],
    ),
    "a result written back is made up, and dropped": Sample(
        'It is warm.\n<tool_response>\n{"temperature": 22, "unit": "°C"}\n'
        "</tool_response>",
        "It is warm.\n",
        [],
    ),
    "hermes around a fence": Sample(
        '<tool_call>\n```json\n{"name": "HassTurnOn", "arguments": {"name": "A"}}'
        "\n```\n</tool_call>",
        "",
        [turn_on("A")],
    ),
    "qwen3-coder": Sample(
        "<tool_call>\n<function=HassTurnOn>\n<parameter=name>\nKitchen Light\n"
        "</parameter>\n<parameter=brightness>\n40\n</parameter>\n</function>\n"
        "</tool_call>",
        "",
        [TextToolCall("HassTurnOn", '{"name": "Kitchen Light", "brightness": 40}')],
    ),
    "llama 3 python tag": Sample(
        '<|python_tag|>{"name": "HassTurnOff", "parameters": {"area": "Den"}}',
        "",
        [TextToolCall("HassTurnOff", '{"area": "Den"}')],
    ),
    "llama 3, a brace and quotes in a string": Sample(
        '<|python_tag|>{"name": "HassTurnOn", "parameters": '
        '{"name": "The \\"big} lamp\\\\"}}',
        "",
        [TextToolCall("HassTurnOn", json.dumps({"name": 'The "big} lamp\\'}))],
    ),
    "llama 3 bare object": Sample(
        '{"name": "HassTurnOn", "parameters": {"name": "Kitchen Light"}}',
        "",
        [turn_on("Kitchen Light")],
    ),
    "bare object with arguments, then a word": Sample(
        '\n{"name": "GetLiveContext", "arguments": {}}\nChecking.',
        "\n\nChecking.",
        [TextToolCall("GetLiveContext", "{}")],
    ),
    "mistral list": Sample(
        '[TOOL_CALLS] [{"name": "HassTurnOn", "arguments": {"name": "Kitchen Light"}},'
        ' {"name": "GetLiveContext", "arguments": {}}]',
        "",
        [turn_on("Kitchen Light"), TextToolCall("GetLiveContext", "{}")],
    ),
    "mistral v11": Sample(
        '[TOOL_CALLS]HassTurnOn[ARGS]{"name": "Kitchen Light"}'
        "[TOOL_CALLS]GetLiveContext[CALL_ID]a1b2c3d4e[ARGS] {}",
        "",
        [turn_on("Kitchen Light"), TextToolCall("GetLiveContext", "{}")],
    ),
    "fenced json": Sample(
        '```json\n{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}\n```',
        "",
        [turn_on("kitchen light")],
    ),
    "fenced list without language": Sample(
        'Here you go:\n```\n[{"name": "HassTurnOn", "arguments": {"name": "A"}}, '
        '{"name": "HassTurnOff", "arguments": {"name": "B"}}]\n```\nDone.',
        "Here you go:\n\nDone.",
        [turn_on("A"), TextToolCall("HassTurnOff", '{"name": "B"}')],
    ),
    "fenced openai shape": Sample(
        '```json\n{"type": "function", "function": {"name": "HassTurnOn", '
        '"arguments": "{\\"name\\": \\"A\\"}"}}\n```',
        "",
        [turn_on("A")],
    ),
    "function with json": Sample(
        'Sure. <function=HassTurnOn>{"name": "Kitchen Light"}</function>',
        "Sure. ",
        [TextToolCall("HassTurnOn", '{"name": "Kitchen Light"}')],
    ),
    "function with parameters": Sample(
        "<function=HassTurnOff>\n<parameter=area>\nDen\n</parameter>\n</function>",
        "",
        [TextToolCall("HassTurnOff", '{"area": "Den"}')],
    ),
    "invoke in function_calls": Sample(
        '<function_calls>\n<invoke name="HassTurnOn">\n<parameter name="name">'
        'Kitchen Light</parameter>\n</invoke>\n<invoke name="GetLiveContext">\n'
        "</invoke>\n</function_calls>",
        "",
        [turn_on("Kitchen Light"), TextToolCall("GetLiveContext", "{}")],
    ),
    "bare invoke": Sample(
        "Let me check. <invoke name='GetLiveContext'></invoke> One moment.",
        "Let me check.  One moment.",
        [TextToolCall("GetLiveContext", "{}")],
    ),
}


@pytest.mark.parametrize("sample", SAMPLES.values(), ids=SAMPLES.keys())
def test_each_format_becomes_calls(sample: Sample) -> None:
    """The model writes its calls as text; they are read, the rest stays text."""
    assert read([sample.answer]) == Read(sample.text, sample.calls)


@pytest.mark.parametrize("sample", SAMPLES.values(), ids=SAMPLES.keys())
def test_each_format_split_at_every_boundary(sample: Sample) -> None:
    """Wherever the stream is cut, the same calls and text come out."""
    expected = Read(sample.text, sample.calls)
    for cut in range(1, len(sample.answer)):
        answer = sample.answer
        assert read([answer[:cut], answer[cut:]]) == expected, cut
    assert read(sample.answer) == expected  # one character at a time
    for chunks in some_chunkings(sample.answer):
        assert read(chunks) == expected, chunks


def test_names_that_are_not_offered_stay_text() -> None:
    """A call of a tool the agent does not offer is left as the model wrote it."""
    answer = (
        'Sure.<tool_call>{"name": "SendEmail", "arguments": {}}</tool_call>'
        '[TOOL_CALLS][{"name": "HassTurnOn", "arguments": {}}, '
        '{"name": "RunScript", "arguments": {}}]'
    )

    assert read([answer]) == Read(answer, [])


def test_names_match_loosely() -> None:
    """Case and a functions. prefix do not matter; the offered name is used."""
    answer = (
        '<tool_call>{"name": "functions.hassturnon", "arguments": {"name": "A"}}'
        '</tool_call><tool_call>{"name": " default_api.GetLiveContext"}</tool_call>'
    )

    assert read([answer]).calls == [turn_on("A"), TextToolCall("GetLiveContext", "{}")]
    assert OFFERED("HassTurnOnNow") is None


def test_unclosed_calls_stay_text_at_the_end() -> None:
    """A call cut off by the end of the stream is text, not a half call."""
    cut_off = [
        '<tool_call>\n{"name": "HassTurnOn", "arguments": {"name": "Kit',
        "<tool_call>",
        "<tool_call>\n",
        '<|python_tag|>{"name": "HassTurnOn", "parameters": {',
        "<|python_tag|>",
        '{"name": "HassTurnOn", "arguments": {"name": "Kitchen"}',
        "{",
        '```json\n{"name": "HassTurnOn", "arguments": {"na',
        "```json",
        "```json\n",
        '[TOOL_CALLS]HassTurnOn[ARGS]{"name": "Kit',
        "[TOOL_CALLS]HassTurnOn[ARGS]",
        "[TOOL_CALLS]Hass",
        "<function=HassTurnOn",
        "<function=HassTurnOn>{",
        '<invoke name="HassTurnOn"><parameter name="name">Kit',
    ]

    for answer in cut_off:
        assert read([answer]) == Read(answer, []), answer
        assert read(answer) == Read(answer, []), answer


def test_a_made_up_result_cut_off_is_dropped_with_the_rest() -> None:
    """A result the model writes itself is made up, closed or not."""
    answer = 'Here it is.\n<tool_response>\n{"temperature": 22, "unit": "°'

    assert read([answer]) == Read("Here it is.\n", [])
    assert read(answer) == Read("Here it is.\n", [])


def test_a_whole_call_without_its_closing_tag_is_still_a_call() -> None:
    """Servers that stop at </tool_call> leave it out; the JSON is complete."""
    answer = '<tool_call>\n{"name": "HassTurnOn", "arguments": {"name": "A"}}\n'
    fenced = '```json\n{"name": "HassTurnOn", "arguments": {"name": "A"}}\n'
    xml = "<function=HassTurnOn>\n<parameter=name>\nA\n</parameter>\n"

    assert read([answer]) == Read("", [turn_on("A")])
    assert read([fenced]) == Read("", [turn_on("A")])
    assert read([xml]) == Read("", [TextToolCall("HassTurnOn", '{"name": "A"}')])


def test_broken_arguments_are_handed_on_for_the_model_to_fix() -> None:
    """A call with a readable name and broken JSON is a call: its error is told."""
    missing_brace = (
        '<tool_call>{"name": "HassTurnOn", "arguments": {"name": "Kitchen"}</tool_call>'
    )
    truncated = '<tool_call>{"name": "HassTurnOn", "arguments": {"name": </tool_call>'

    (repaired,) = read([missing_brace]).calls
    (broken,) = read([truncated]).calls

    assert parse_tool_arguments(repaired.arguments) == {"name": "Kitchen"}
    assert broken.name == "HassTurnOn"
    with pytest.raises(ToolArgumentsError, match="invalid JSON"):
        parse_tool_arguments(broken.arguments)


def test_unreadable_blocks_stay_text() -> None:
    """A block that holds no call keeps its text, tags and all."""
    answers = [
        "<tool_call>{oops}</tool_call>",
        '<tool_call>[{"name": "HassTurnOn"}, 3]</tool_call>',
        "<tool_call>[]</tool_call>",
        '<tool_call>{"arguments": {}}</tool_call>',
        '```json\n{"status": "ok"}\n```',
        '<function=HassTurnOn>\n<param name="x">1</param>\n</function>',
        "<function_calls><b>bold</b></function_calls>",
        "[TOOL_CALLS]HassTurnOn[ARGS]oops",
        '<invoke name="HassTurnOn">kitchen</invoke> and <invoke>',
    ]

    for answer in answers:
        assert read([answer]) == Read(answer, []), answer


def test_python_style_and_flattened_calls() -> None:
    """Small models write single quotes, or the arguments beside the name."""
    answer = (
        "<tool_call>{'name': 'HassTurnOn', 'arguments': {'name': 'A', 'on': True}}"
        '</tool_call><tool_call>{"name": "HassTurnOff", "area": "Den"}</tool_call>'
        '<tool_call>{"function": "HassTurnOff", "name": "Lamp"}</tool_call>'
        '<tool_call>{"name": "GetLiveContext", "arguments": null}</tool_call>'
    )

    assert read([answer]).calls == [
        TextToolCall("HassTurnOn", '{"name": "A", "on": true}'),
        TextToolCall("HassTurnOff", '{"area": "Den"}'),
        TextToolCall("HassTurnOff", '{"name": "Lamp"}'),
        TextToolCall("GetLiveContext", "null"),
    ]


def test_several_objects_in_one_block() -> None:
    """Two call objects in one <tool_call> are two calls."""
    answer = (
        '<tool_call>\n{"name": "HassTurnOn", "arguments": {"name": "A"}}\n'
        '{"name": "HassTurnOn", "arguments": {"name": "B"}}\n</tool_call>'
    )

    assert read([answer]).calls == [turn_on("A"), turn_on("B")]


def test_a_tool_definition_echoed_back_is_not_a_call() -> None:
    """Asked what it can do, a model may print a tool's definition."""
    answer = (
        '{"name": "HassTurnOn", "description": "Turns on a device", '
        '"parameters": {"type": "object", "properties": {}}}'
    )

    assert read([answer]) == Read(answer, [])


def test_prose_that_looks_like_markers_is_kept() -> None:
    """Brackets, tags, braces and code in an answer are not calls."""
    answer = (
        "{Kitchen} is on. Use <b>bold</b>, a [link], `code`, {braces} and x < y; "
        "the <tool_call> tag is what Hermes models write. <invoker> <function x> "
        "[TOOL_CALLS] then prose, <|python_tag|> print(1), {'a' and "
        '{"name": "HassTurnOn", "arguments": {}} in a sentence.'
    )

    assert read([answer]) == Read(answer, [])
    assert read(answer) == Read(answer, [])


def test_code_blocks_are_kept_with_what_they_show() -> None:
    """A call shown inside a code block is an example, not a call."""
    answer = (
        "```python\nprint('<tool_call>')\n```\n"
        '```xml\n<tool_call>{"name": "HassTurnOn"}</tool_call>\n```\n'
        "```json\nnot json\n```\n```Json"
    )

    assert read([answer]) == Read(answer, [])
    assert read(answer) == Read(answer, [])


def test_a_bare_object_is_a_call_only_at_the_start_or_after_a_call() -> None:
    """JSON after some prose is prose; after a call it is the next call."""
    after_prose = 'The JSON is {"name": "HassTurnOn", "arguments": {}}'
    after_call = (
        '{"name": "HassTurnOn", "arguments": {"name": "A"}}\n'
        '{"name": "HassTurnOn", "arguments": {"name": "B"}}'
    )
    data = '{"name": "Bob", "age": 3} is a JSON object.'

    assert read([after_prose]) == Read(after_prose, [])
    assert read([after_call]) == Read("\n", [turn_on("A"), turn_on("B")])
    assert read([data]) == Read(data, [])


@pytest.mark.parametrize(
    "opener",
    [
        "<tool_call>",
        "<|python_tag|>",
        "[TOOL_CALLS]",
        "```",
        "<function=",
        "<function_calls>",
        "<invoke",
    ],
)
def test_text_that_could_start_a_call_is_held_then_released(opener: str) -> None:
    """Only a partial marker waits, and only until the next character tells."""
    parser = TextToolCallParser(OFFERED)

    before = parser.feed("The light is on " + opener[:-1])
    after = parser.feed("\u00a7 ok")

    assert before == ["The light is on "]
    assert len(opener) - 1 <= MAX_HOLD
    assert after == [opener[:-1] + "\u00a7 ok"]
    assert parser.finish() == []


def test_ordinary_text_is_released_as_it_comes() -> None:
    """Text without markers comes out at once, chunk by chunk."""
    parser = TextToolCallParser(OFFERED)

    assert parser.feed("The kitchen") == ["The kitchen"]
    assert parser.feed(" light is on.") == [" light is on."]
    assert parser.feed("") == []
    assert parser.finish() == []


def test_a_call_is_released_as_soon_as_it_closes() -> None:
    """The call comes out when its closing tag arrives, not at the end."""
    parser = TextToolCallParser(OFFERED)

    assert parser.feed('On it. <tool_call>{"name": "HassTurnOn", ') == ["On it. "]
    assert parser.feed('"arguments": {"name": "A"}}</tool_') == []
    assert parser.feed("call> Done") == [turn_on("A"), " Done"]


def test_the_longest_hold_is_a_marker_less_one() -> None:
    """MAX_HOLD is the longest marker, <function_calls>, less its last character."""
    longest_marker = "<function_calls>"
    assert len(longest_marker) - 1 == MAX_HOLD


def test_whitespace_before_a_bare_call_is_released() -> None:
    """Leading whitespace does not wait for the bare object after it."""
    parser = TextToolCallParser(OFFERED)

    assert parser.feed("\n  ") == ["\n  "]
    assert parser.feed('{"name": "HassTurnOn",') == []
    assert parser.feed(' "arguments": {"name": "A"}}') == [turn_on("A")]


# Pieces of answers for the property tests: calls in every format, text that
# cannot begin a marker, and text full of the characters that do.
CALL_SAMPLES = [
    sample for sample in SAMPLES.values() if not sample.answer.lstrip().startswith("{")
]
SAFE = st.lists(
    st.sampled_from([*"ab .,!?\n'\"=_|}", "tool", "json"]), max_size=12
).map("".join)
PLAIN = st.lists(
    st.sampled_from([*"ab .,!\n{}[]<>|`'\"=_", "tool", "call", "json"]), max_size=20
).map("".join)


def answer_of(parts: Sequence[str | Sample]) -> str:
    """Join text and sample answers into one answer."""
    return "".join(part.answer if isinstance(part, Sample) else part for part in parts)


@given(
    parts=st.lists(st.one_of(SAFE, st.sampled_from(CALL_SAMPLES)), max_size=6),
    sizes=CHUNK_SIZES,
)
def test_calls_among_text_in_any_chunking(
    parts: Sequence[str | Sample], sizes: list[int]
) -> None:
    """Random chunkings of text and calls give every call and all the text."""
    answer = answer_of(parts)
    expected = Read(
        "".join(part.text if isinstance(part, Sample) else part for part in parts),
        [call for part in parts if isinstance(part, Sample) for call in part.calls],
    )

    assert read([answer]) == expected
    assert read(chunked(answer, sizes)) == expected


@given(
    parts=st.lists(
        st.one_of(PLAIN, st.sampled_from(list(SAMPLES.values()))), max_size=6
    ),
    sizes=CHUNK_SIZES,
)
# Found in CI: the backticks are the fence of the call that follows.
@example(parts=["```", SAMPLES["llama 3 bare object"]], sizes=[1])
def test_any_chunking_gives_the_same_calls_and_text(
    parts: Sequence[str | Sample], sizes: list[int]
) -> None:
    """Whatever the text around the calls, chunking never changes the result."""
    answer = answer_of(parts)
    whole = read([answer])

    assert read(chunked(answer, sizes)) == whole
    assert read(answer) == whole
    # Nothing but calls is taken out: every piece of text is still there,
    # but for backticks just before a call, which open that call's fence
    # ("```" then {"name": …}: a fenced call left unclosed).
    for part, after in zip(parts, [*parts[1:], None], strict=False):
        if isinstance(part, str):
            kept = part.rstrip("`") if isinstance(after, Sample) else part
            assert kept in whole.text


MARKERS = ("<tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "```", "<function=")
MARKERS += ("<function_calls>", "<invoke")


@given(
    text=PLAIN.filter(
        lambda text: (
            not any(marker in text for marker in MARKERS)
            and not text.lstrip().startswith("{")
        )
    ),
    sizes=CHUNK_SIZES,
)
def test_ordinary_text_waits_for_at_most_max_hold(text: str, sizes: list[int]) -> None:
    """After every chunk, all but at most MAX_HOLD characters are out."""
    parser = TextToolCallParser(OFFERED)
    released = ""
    fed = 0
    for chunk in chunked(text, sizes):
        fed += len(chunk)
        for piece in parser.feed(chunk):
            assert isinstance(piece, str)
            released += piece
        assert text.startswith(released)
        assert fed - len(released) <= MAX_HOLD
    released += "".join(str(piece) for piece in parser.finish())

    assert released == text


TOOLS: list[ChatCompletionToolParam] = [
    {
        "type": "function",
        "function": {
            "name": "HassTurnOn",
            "description": "Turns on a device",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
            },
        },
    },
    {"type": "function", "function": {"name": "GetLiveContext"}},
]


def test_the_prompt_lists_the_tools_and_the_call_format() -> None:
    """Tools are listed compactly, one a line, with the Hermes call format."""
    prompt = text_tool_prompt(TOOLS)

    assert (
        '{"name":"HassTurnOn","description":"Turns on a device","parameters":'
        '{"type":"object","properties":{"name":{"type":"string"}}}}\n'
    ) in prompt
    assert '{"name":"GetLiveContext","description":"","parameters":{}}\n' in prompt
    assert (
        '<tool_call>\n{"name": <tool-name>, "arguments": <args-json-object>}\n'
        "</tool_call>"
    ) in prompt
    assert "<tool_response></tool_response>" in prompt


def test_a_model_that_follows_the_prompt_is_understood() -> None:
    """The format the prompt asks for, filled in, reads back as the call."""
    prompt = text_tool_prompt(TOOLS)
    shown = prompt.split("exactly like this:\n")[1].split("\nCall only")[0]
    written = shown.replace("<tool-name>", '"HassTurnOn"').replace(
        "<args-json-object>", '{"name": "Kitchen Light"}'
    )

    assert read(["Turning it on.\n", written]) == Read(
        "Turning it on.\n", [turn_on("Kitchen Light")]
    )


def test_a_number_too_long_to_convert_leaves_the_text_as_it_is() -> None:
    """A call whose integer has more digits than Python converts is no call.

    The text stays as the model wrote it, instead of failing the answer.
    """
    written = '{"name": "HassTurnOn", "arguments": {"n": ' + "7" * 5000 + "}}"

    result = read([written])

    assert result.calls == []
    assert result.text == written
