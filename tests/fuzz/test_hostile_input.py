"""A megabyte of hostile text reads in linear time, in every parser.

Each parser runs on Home Assistant's event loop, so a pattern that backtracks
freezes the whole house while it runs. The shapes are what a model or a server
can send: long runs of whitespace, backticks, dashes, pipes, braces and
quotes, and constructs that never close. A per-test time limit is the
tripwire; no test measures time.
"""

import pytest

from tests.helpers.hostile import (
    SHAPES,
    check_an_ai_tasks_answer,
    make_an_answer_speakable,
    read_a_fence,
    read_an_answer_to_the_question,
    read_calls_written_as_text,
    read_tool_arguments,
    translate_a_servers_error,
)

pytestmark = [
    pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys()),
    pytest.mark.timeout(60),
]


def test_a_fence_is_read(text: str) -> None:
    """A code fence around arguments or an answer is found, or not, at once."""
    read_a_fence(text)


def test_tool_arguments_are_read(text: str) -> None:
    """Native tool arguments are refused with a reason, however they are shaped."""
    read_tool_arguments(text)


def test_an_ai_tasks_answer_is_checked(text: str) -> None:
    """A structured answer that is no JSON object is refused with a reason."""
    check_an_ai_tasks_answer(text)


def test_calls_written_as_text_are_read(text: str) -> None:
    """The text-call parser, fed the stream chunk by chunk, keeps up."""
    read_calls_written_as_text(text)


def test_an_answer_is_made_speakable(text: str) -> None:
    """The speech filter, fed the stream chunk by chunk, keeps up."""
    make_an_answer_speakable(text)


def test_a_servers_error_is_translated(text: str) -> None:
    """An error body of any shape becomes one sentence."""
    translate_a_servers_error(text)


def test_an_answer_to_the_question_is_read(text: str) -> None:
    """A megabyte is no yes."""
    read_an_answer_to_the_question(text)
