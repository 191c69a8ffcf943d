"""A megabyte of hostile text, and each parser that reads what a model or server sends.

Each reader runs the parser on one text and checks that it came back with an
answer; the hostile-input tests run them under a time limit, and
scripts/parser-times times them.
"""

from collections.abc import Iterator

import httpx
import openai
import probatio
import pytest

from custom_components.chatterbox.ai_task import _validated
from custom_components.chatterbox.lang.answers import is_yes
from custom_components.chatterbox.server.errors import translate_request_error
from custom_components.chatterbox.speech import SpeechFilter
from custom_components.chatterbox.tools.names import tool_resolver
from custom_components.chatterbox.wire.arguments import (
    ToolArgumentsError,
    parse_tool_arguments,
)
from custom_components.chatterbox.wire.json import fence_body
from custom_components.chatterbox.wire.text_calls import TextToolCallParser

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
REQUEST = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")


def _chunks(text: str) -> Iterator[str]:
    """Cut a text as a stream would bring it."""
    for start in range(0, len(text), CHUNK):
        yield text[start : start + CHUNK]


def read_a_fence(text: str) -> None:
    """Find a code fence around the text, or find none."""
    body = fence_body(text)

    assert body is None or len(body) < len(text)


def read_tool_arguments(text: str) -> None:
    """Read the text as a call's arguments: it is refused, with a reason."""
    with pytest.raises(ToolArgumentsError):
        parse_tool_arguments(text)


def check_an_ai_tasks_answer(text: str) -> None:
    """Check the text as a structured answer: it is refused, with a reason."""
    with pytest.raises(ValueError, match=r"it is not JSON|expected"):
        _validated(text, probatio.Schema({"n": int}))


def read_calls_written_as_text(text: str) -> None:
    """Feed the text-call parser the text, chunk by chunk."""
    parser = TextToolCallParser(tool_resolver(["HassTurnOn"]))
    pieces = [piece for chunk in _chunks(text) for piece in parser.feed(chunk)]
    pieces += parser.finish()

    assert pieces


def make_an_answer_speakable(text: str) -> None:
    """Feed the speech filter the text, chunk by chunk."""
    speech = SpeechFilter()
    spoken = "".join(speech.feed(chunk) for chunk in _chunks(text))
    spoken += speech.finish()

    assert len(spoken) <= len(text) + 2


def translate_a_servers_error(text: str) -> None:
    """Translate a server's error with the text as its message."""
    response = httpx.Response(404, request=REQUEST)
    err = openai.NotFoundError(text, response=response, body=None)

    assert translate_request_error(err, model="qwen3:8b").translation_key


def read_an_answer_to_the_question(text: str) -> None:
    """Read the text as the answer to the agent's question: it is no yes."""
    assert not is_yes(text, "en")
