"""Whether the figures of an answer come from what the model read.

A figure (lang/numbers.py) an answer gives of the home must come from
something the model read: the user's words, a tool's result, the states that
came with the request. A small model asked for a temperature it was not given
says one anyway ("22 degrees"), and nothing but the home's state can tell it
wrong. A figure worked out from one read is read too: a temperature in the
other scale, a fraction as a percentage, a sum or a difference of two.
"""

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
import math
from typing import Any, Final

from ..lang.numbers import NUMBER, as_number, figures_in

# How far a figure may be from the one it is worked out from: a person
# rounds "70.7 °F" to "71" or to "about 70".
_ROUNDING: Final = 1.0
# The most numbers read that a figure is held to, and the most that a sum
# or a difference is made of: a long tool result is read in its first
# numbers, so a figure is looked up in bounded time. A sum of any two of
# thousands of numbers would explain any figure at all.
_MAX_READ: Final = 2000
_MAX_OPERANDS: Final = 200
# How far a sum or a difference may be from the figure: rounded to a whole.
_SUM_ROUNDING: Final = 0.5


def unread_figures(
    answer: str,
    read: Iterable[Mapping[str, Any]],
    language: str | None,
    besides: str | None = None,
) -> list[str]:
    """Return the figures an answer gives that no message the model read has.

    A figure rounded from one read counts as read ("about 20 degrees" of
    19.5); one the model said in an earlier answer does not, nor one our
    note besides names (the note that told it which figure it read nowhere).
    Only an answer with a figure reads the messages.
    """
    if not (given := figures_in(answer, language)):
        return []
    read = list(read)
    numbers = sorted(numbers_read(read, besides)[:_MAX_READ])
    # What the system prompt holds (the home's list, the date) makes no sums:
    # what was asked and what the tools said does.
    operands = sorted(
        numbers_read((m for m in read if m.get("role") != "system"), besides)[
            :_MAX_OPERANDS
        ]
    )
    return [
        figure
        for figure in given
        if (value := as_number(figure)) is not None
        and not worked_out(value, numbers, operands)
    ]


def worked_out(value: float, numbers: list[float], operands: list[float]) -> bool:
    """Tell whether a figure is a number read, or one worked out from them.

    Both lists are sorted. A number read, rounded ("about 20" of 19.5); the
    same temperature in the other scale (°C and °F); a fraction as a
    percentage and back; the sum or the difference of two operands. Each is
    looked up in a sorted list, so a figure costs O(n log n), not O(n²).
    """
    if _near(value, numbers, _ROUNDING):
        return True
    for number in numbers:
        if any(
            abs(value - other) <= _ROUNDING
            for other in (
                number * 9 / 5 + 32,
                (number - 32) * 5 / 9,
                number * 100,
                number / 100,
            )
        ):
            return True
    # A sum (value = number + other) or a difference (value = number - other).
    return any(
        _near(value - number, operands, _SUM_ROUNDING)
        or _near(number - value, operands, _SUM_ROUNDING)
        for number in operands
    )


def _near(value: float, numbers: list[float], rounding: float) -> bool:
    """Tell whether a sorted list holds a number within rounding of a value."""
    at = bisect_left(numbers, value - rounding)
    return at < len(numbers) and numbers[at] <= value + rounding


def gives_figure(answer: str, value: float) -> bool:
    """Tell whether an answer gives a value, or a figure rounded from it.

    "About 20 degrees" gives 19.5; so does "19,5".
    """
    return any(
        (number := as_number(text)) is not None and abs(number - value) < 1
        for text in NUMBER.findall(answer)
    )


def numbers_read(
    read: Iterable[Mapping[str, Any]], besides: str | None = None
) -> list[float]:
    """Return every number in the messages the model read, but in besides."""
    return [
        number
        for text in _texts(read)
        for text in ([text.replace(besides, "")] if besides else [text])
        for number in map(as_number, NUMBER.findall(text))
        if number is not None and math.isfinite(number)
    ]


def _texts(messages: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """Yield the text of each message: its content, and its calls' arguments.

    Not what the model said itself: a figure it made up in an earlier answer
    is no source for the next.
    """
    for message in messages:
        content = message.get("content") if message.get("role") != "assistant" else None
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            yield from (
                part["text"]
                for part in content
                if isinstance(part, Mapping) and isinstance(part.get("text"), str)
            )
        for call in message.get("tool_calls") or ():
            yield str(call.get("function", {}).get("arguments", ""))
