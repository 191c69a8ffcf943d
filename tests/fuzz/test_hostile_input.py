"""A megabyte of hostile text reads in linear time, in every parser.

Each parser runs on Home Assistant's event loop, so a pattern that backtracks
freezes the whole house while it runs. The shapes are what a model or a server
can send: long runs of whitespace, backticks, dashes, pipes, braces and
quotes, and constructs that never close. A per-test time limit is the
tripwire; no test measures time.
"""

from collections.abc import Iterator

import httpx
import openai
import probatio
import pytest

from custom_components.chatterbox.ai_task import _validated
from custom_components.chatterbox.server.errors import translate_request_error
from custom_components.chatterbox.speech import SpeechFilter
from custom_components.chatterbox.tools.answers import is_yes
from custom_components.chatterbox.tools.arguments import (
    ToolArgumentsError,
    parse_tool_arguments,
)
from custom_components.chatterbox.tools.names import tool_resolver
from custom_components.chatterbox.wire.json import fence_body
from custom_components.chatterbox.wire.text_calls import (
    TextToolCallParser,
)

MEGABYTE = 1_000_000
SHAPES = {
    "spaces after a fence": "```json" + " " * MEGABYTE + "x",
    "spaces in a fence": "```" + " " * MEGABYTE + "x```",
    "backticks": "`" * MEGABYTE,
    "dashes after a pipe": "|" + "-" * MEGABYTE + "x",
    "pipes": "|" * MEGABYTE,
    "dashes": "-" * MEGABYTE + "x",
    "braces": "{" * MEGABYTE,
    "quotes": '"' * MEGABYTE,
    "unclosed call": '{"name": "HassTurnOn", "arguments": {"name": "' + "a" * MEGABYTE,
    "unclosed function tag": "<function=" + "a" * MEGABYTE,
    "newlines": "\n" * MEGABYTE,
    "model, again and again": "model " * (MEGABYTE // 6) + "x",
}
# A streamed answer arrives a few characters at a time.
CHUNK = 64
pytestmark = [
    pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys()),
    pytest.mark.timeout(60),
]
REQUEST = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")


def _chunks(text: str) -> Iterator[str]:
    """Cut a text as a stream would bring it."""
    for start in range(0, len(text), CHUNK):
        yield text[start : start + CHUNK]


def test_a_fence_is_read(text: str) -> None:
    """A code fence around arguments or an answer is found, or not, at once."""
    body = fence_body(text)

    assert body is None or len(body) < len(text)


def test_tool_arguments_are_read(text: str) -> None:
    """Native tool arguments are refused with a reason, however they are shaped."""
    with pytest.raises(ToolArgumentsError):
        parse_tool_arguments(text)


def test_an_ai_tasks_answer_is_checked(text: str) -> None:
    """A structured answer that is no JSON object is refused with a reason."""
    with pytest.raises(ValueError, match=r"it is not JSON|expected"):
        _validated(text, probatio.Schema({"n": int}))


def test_calls_written_as_text_are_read(text: str) -> None:
    """The text-call parser, fed the stream chunk by chunk, keeps up."""
    parser = TextToolCallParser(tool_resolver(["HassTurnOn"]))
    pieces = [piece for chunk in _chunks(text) for piece in parser.feed(chunk)]
    pieces += parser.finish()

    assert pieces


def test_an_answer_is_made_speakable(text: str) -> None:
    """The speech filter, fed the stream chunk by chunk, keeps up."""
    speech = SpeechFilter()
    spoken = "".join(speech.feed(chunk) for chunk in _chunks(text))
    spoken += speech.finish()

    assert len(spoken) <= len(text) + 2


def test_a_servers_error_is_translated(text: str) -> None:
    """An error body of any shape becomes one sentence."""
    response = httpx.Response(404, request=REQUEST)
    err = openai.NotFoundError(text, response=response, body=None)

    assert translate_request_error(err, model="qwen3:8b").translation_key


def test_an_answer_to_the_question_is_read(text: str) -> None:
    """A megabyte is no yes."""
    assert not is_yes(text, "en")
