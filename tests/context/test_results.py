"""Tool results shortened in what is sent, as valid JSON with a note."""

import json
import random
from typing import Any

import pytest

from custom_components.chatterbox.context.results import MIN_LIMIT, cap_tool_result


def test_short_result_is_left_alone() -> None:
    """A result within the limit comes back as it was."""
    content = json.dumps({"data": {"ok": True}, "error": False})

    assert cap_tool_result(content) is content


def test_long_list_keeps_its_first_items_and_says_so() -> None:
    """A long list is cut item-wise and a sibling key tells the model how."""
    results = [{"name": f"light.lamp_{n}", "state": "on"} for n in range(400)]
    content = json.dumps({"data": {"results": results}, "error": False})

    capped = cap_tool_result(content, 4000)
    data = json.loads(capped)

    assert len(capped) <= 4000
    kept = data["data"]["results"]
    assert kept == results[: len(kept)]
    assert len(kept) > 50  # most of the room is used
    assert data["error"] is False
    assert data["_truncated"] == (
        f"kept {len(kept)} of 400 items of data.results; "
        f"result was {len(content)} chars"
    )
    assert next(iter(data)) == "_truncated"


def test_long_string_is_shortened_with_a_marker() -> None:
    """A long string keeps its start and ends with an ellipsis."""
    content = json.dumps({"data": {"text": "word " * 2000}, "error": False})

    data = json.loads(cap_tool_result(content, 1000))

    assert data["data"]["text"].endswith("…")
    assert data["data"]["text"].startswith("word word")
    assert data["_truncated"].startswith("shortened data.text from 10000 to ")


def test_plain_text_is_cut_with_a_note() -> None:
    """Text that is not JSON keeps its start and a note of what was kept."""
    content = "line of log\n" * 1000

    capped = cap_tool_result(content, 500)

    assert len(capped) <= 500
    assert capped == content[:465] + "\n[… cut: kept 465 of 12000 chars]"


def test_a_list_at_the_top_is_wrapped_with_the_note() -> None:
    """JSON that is not an object gets an object around it to carry the note."""
    content = json.dumps(list(range(2000)))

    data = json.loads(cap_tool_result(content, 300))

    assert data["_truncated"].startswith("kept ")
    assert data["_truncated"].endswith(
        " of 2000 items of result; result was 10890 chars"
    )
    assert data["result"] == list(range(len(data["result"])))


def test_deep_nesting_without_anything_to_cut_falls_back_to_text() -> None:
    """With no list, object or string left to shorten, the text goes in JSON."""
    content = '{"k":' * 300 + '"end"' + "}" * 300

    capped = cap_tool_result(content, 1000)
    data = json.loads(capped)

    assert len(capped) <= 1000
    assert data["_truncated"] == "result was 1805 chars and is shown cut as text"
    assert content.startswith(data["text"])


def test_cuts_inside_dropped_items_are_not_reported() -> None:
    """A note about a string in an item that was later dropped is removed."""
    items = [{"text": "x" * 3000}, {"text": "y" * 3000}, {"text": "z" * 3000}]
    content = json.dumps({"data": items, "error": False})

    data = json.loads(cap_tool_result(content, 400))

    assert "data[2]" not in data["_truncated"]
    assert "data[1]" not in data["_truncated"]


def test_every_capped_result_is_valid_json_within_the_limit() -> None:
    """Random shapes and limits: the result parses and never exceeds the limit."""
    rng = random.Random(7)  # noqa: S311  # seeded for reproducible shapes

    def value(depth: int) -> Any:
        kind = rng.choice(
            ["list", "dict", "str", "num"] if depth < 4 else ["str", "num"]
        )
        if kind == "list":
            return [value(depth + 1) for _ in range(rng.randint(0, 12))]
        if kind == "dict":
            return {f'k{n}"é': value(depth + 1) for n in range(rng.randint(0, 8))}
        if kind == "str":
            return 'ø\n"' * rng.randint(0, 400)
        return rng.random()

    counted = 0
    for _ in range(300):
        content = json.dumps(value(0))
        limit = rng.randint(MIN_LIMIT, 3000)
        capped = cap_tool_result(content, limit)
        json.loads(capped)
        assert len(capped) <= limit
        # Unescaped, some results fit as they are: the data is then unchanged.
        assert json.loads(capped) == json.loads(content) or "_truncated" in capped
        counted += "more cuts; result was" in capped

    # Some shapes needed many cuts: the note lists three and counts the rest.
    assert counted > 0


def test_a_limit_below_the_minimum_is_refused() -> None:
    """No valid JSON with a note fits in a few characters."""
    with pytest.raises(ValueError, match="at least 200"):
        cap_tool_result("x" * 1000, 50)
