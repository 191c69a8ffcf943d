"""The chunk readers: what a server wrote, each field checked for its type."""

from typing import Any

import pytest

from custom_components.chatterbox.wire.chunks import (
    count,
    delta_of,
    fields,
    finish_reason,
    first_choice,
    fragment_index,
    text,
    tool_call_fragments,
)

LLAMA_CPP_CHUNK = {
    "id": "chatcmpl-7",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "qwen3",
    "choices": [
        {
            "index": 0,
            "delta": {
                "content": "The light",
                "reasoning_content": "The user wants",
                "tool_calls": [
                    {"index": 0, "id": "call_1", "function": {"name": "HassTurnOn"}}
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
}


def test_a_well_formed_chunk_reads_as_the_server_wrote_it() -> None:
    """Content, reasoning, a call fragment and the finish reason, as sent."""
    choice = first_choice(LLAMA_CPP_CHUNK)
    assert choice is not None
    delta = delta_of(choice)

    assert text(delta, "content") == "The light"
    assert text(delta, "reasoning_content") == "The user wants"
    assert finish_reason(choice) == "tool_calls"
    (fragment,) = tool_call_fragments(delta)
    assert fragment_index(fragment) == 0
    assert text(fragment, "id") == "call_1"
    assert text(fields(fragment["function"]), "name") == "HassTurnOn"


@pytest.mark.parametrize(
    "chunk",
    [
        None,
        "data",
        [1, 2],
        {},
        {"choices": None},
        {"choices": "abc"},
        {"choices": []},
        {"choices": [7]},
        {"usage": {"prompt_tokens": 3}, "choices": []},
    ],
)
def test_a_chunk_without_a_readable_choice_has_none(chunk: object) -> None:
    """A usage chunk, or anything that is not a chunk, has no choice to read."""
    assert first_choice(chunk) is None


@pytest.mark.parametrize(
    "delta",
    [
        {"content": 5, "tool_calls": "call", "refusal": ["no"]},
        {"content": None, "tool_calls": [None, 3, "x"]},
    ],
)
def test_fields_of_the_wrong_type_read_as_absent(delta: dict[str, Any]) -> None:
    """A number for the content or a string for the calls is no content or call."""
    choice = {"delta": delta, "finish_reason": 0}

    assert text(delta_of(choice), "content") == ""
    assert text(delta_of(choice), "refusal") == ""
    assert tool_call_fragments(delta_of(choice)) == []
    assert finish_reason(choice) is None


def test_a_choice_without_a_delta_reads_as_an_empty_one() -> None:
    """Azure's content filter annotations come as choices without a delta."""
    assert delta_of({"content_filter_results": {}}) == {}
    assert delta_of({"delta": "oops"}) == {}


@pytest.mark.parametrize(
    ("index", "expected"),
    [(2, 2), (None, None), (True, None), ("1", None), ([0], None)],
)
def test_only_a_whole_number_is_a_fragment_index(
    index: object, expected: int | None
) -> None:
    """An index that is not a whole number counts as none: calls keep their ids."""
    assert fragment_index({"index": index}) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(12, 12), (0, 0), (-1, None), (1.5, None), (float("nan"), None), (True, None)],
)
def test_only_a_whole_number_is_a_token_count(
    value: object, expected: int | None
) -> None:
    """A NaN learnt by the token estimator would fail every later turn."""
    assert count(value) == expected
