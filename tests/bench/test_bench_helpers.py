"""The benchmark's own arithmetic: figures, ratios, and prefix stability."""

import pytest

from custom_components.chatterbox.prompts import SUMMARY_HEADING

from .prefix import COMPACTION, prefix_breaks, prefix_stability
from .report import Figure, Row, Table, percentile

SYSTEM = {"role": "system", "content": "You are a voice assistant."}


def request(*messages: dict[str, object]) -> dict[str, object]:
    """Return a chat request with these messages after the system prompt."""
    return {"messages": [SYSTEM, *messages]}


def user(text: str) -> dict[str, str]:
    """Return a user message."""
    return {"role": "user", "content": text}


def test_percentile_is_the_nearest_rank() -> None:
    """p95 of 1..100 is 95; of a single value, that value."""
    assert percentile(range(1, 101), 0.95) == 95
    assert percentile([7.0], 0.95) == 7.0


def test_a_row_shows_medians_ranges_and_the_paired_ratio() -> None:
    """Runs 10, 12, 11 print as their median with the range; pairs set the ratio."""
    row = Row(
        "Overhead",
        Figure.of([10.0, 12.0, 11.0]),
        Figure.of([10.0, 10.0]),
        " ms",
        1,
        paired_ratios=(1.0, 1.2, 1.1),
    )

    assert row.cells() == ["Overhead", "11.0 ms (10.0 to 12.0)", "10.0 ms", "1.10x"]


def test_a_row_without_core_has_no_ratio() -> None:
    """A measure only Chatterbox has prints a dash for core and the ratio."""
    row = Row("Summary requests", Figure.of([1, 1]), None, digits=0)

    assert row.cells() == ["Summary requests", "1", "-", "-"]
    assert Row("Zero", Figure.of([1]), Figure.of([0])).ratio is None


def test_a_figure_needs_runs() -> None:
    """No runs, no figure."""
    with pytest.raises(ValueError, match="at least one run"):
        Figure.of([])


def test_the_table_is_markdown_with_sections() -> None:
    """A heading row, the alignment row, then sections and rows."""
    table = Table()
    table.add("Growth")
    table.add(Row("Bytes", Figure.of([2.0]), Figure.of([4.0]), digits=0))

    assert table.markdown().splitlines() == [
        "| Measure | Chatterbox | core llama_cpp | ratio |",
        "| --- | ---: | ---: | ---: |",
        "| **Growth** |  |  |  |",
        "| Bytes | 2 | 4 | 0.50x |",
    ]


def test_appending_keeps_the_prefix() -> None:
    """A conversation that only grows keeps every prefix."""
    first = request(user("Hi"))
    second = request(user("Hi"), {"role": "assistant", "content": "Hello"})

    assert prefix_stability([first, second]) == 100
    assert prefix_breaks([first, second]) == {}


def test_each_kind_of_break_is_named() -> None:
    """Key order, rewritten messages, dropped turns and summaries are told apart."""
    call = {"id": "1", "type": "function", "function": {"name": "f"}}
    reordered = {"type": "function", "id": "1", "function": {"name": "f"}}
    turn = [user("Hi"), {"role": "assistant", "content": None, "tool_calls": [call]}]
    summary = {"role": "system", "content": f"Prompt\n\n{SUMMARY_HEADING}\nEarlier."}
    bodies = [
        request(*turn),
        request(
            user("Hi"),
            {"role": "assistant", "content": None, "tool_calls": [reordered]},
            user("Again"),
        ),
        request(user("Hi"), {"role": "assistant", "content": "x"}, user("Again")),
        request(user("Again")),
        request(user("Again"), {"role": "assistant", "content": "Ok"}, user("Third")),
        {"messages": [summary, user("Third"), {"role": "tool", "content": "{}"}]},
        {"messages": [SYSTEM, user("Third"), {"role": "tool", "content": "{}"}]},
    ]

    assert prefix_stability(bodies) == pytest.approx(100 / 6)
    assert prefix_breaks(bodies) == {
        "an earlier assistant message in another key order, at a new turn": 1,
        "an earlier assistant message rewritten, at a new turn": 1,
        "system prompt changed, within a turn": 1,
        f"{COMPACTION}, at a new turn": 1,
        f"{COMPACTION}, summary updated in the system prompt, within a turn": 1,
    }
