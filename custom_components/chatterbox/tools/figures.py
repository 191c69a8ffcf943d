"""Figures: numbers with a percent or a degree, as requests and answers say them.

A request sets a figure ("dim it to 20 percent", "auf 18,5 Grad"); an answer
reports one ("it is 19.5 °C in the living room"). Other numbers are times,
durations, counts or labels ("in 5 minutes", "lamp 2"), which are left alone.

A figure an answer gives must come from something the model read: the user's
words, a tool's result, the states that came with the request. A small model
asked for a temperature it was not given says one anyway ("22 degrees"), and
nothing but the home's state can tell it wrong.
"""

from collections.abc import Iterable, Iterator, Mapping
import math
import re
from typing import Any, Final

from ..context.kinds import word_list
from .outcomes import as_number

# A number as a person writes it: 22, 18.5, 18,5, -3.2. A minus counts only
# where no word or number stands before it: "18-20" is 18 and 20.
_SIGNED: Final = r"(?:(?<![\w.,])-)?\d+(?:[.,]\d+)?"
NUMBER: Final = re.compile(_SIGNED)
# A number with a percent or degree sign or word after it ("20 percent",
# "18,5 Grad", "19.5 °C"); the word, if one, is checked against _UNITS.
FIGURE: Final = re.compile(
    rf"({_SIGNED})[^\S\n]{{0,3}}"
    r"(?:[%°]|(?:per|pour|por)[^\S\n]{1,3}(?:cent|ciento|cento)\b|(\w{1,20}))",
    re.IGNORECASE,
)
_UNITS: Final = word_list(
    "percent prozent procent procentów procenty procentach pourcent "
    "degree degrees grad grade graden grader graus grados gradi degré degrés "
    "stopni stopnie stopień stopnia"
)
# The most figures of an answer checked: a spoken answer has a few.
_MAX_FIGURES: Final = 10


def is_figure(match: re.Match[str]) -> bool:
    """Tell whether a match of FIGURE has a percent or a degree after it."""
    return match.group(2) is None or match.group(2).casefold() in _UNITS


def figures_in(text: str) -> list[str]:
    """Return the figures a text gives, as written: "19.5" of "19.5 °C"."""
    found = (m.group(1) for m in FIGURE.finditer(text) if is_figure(m))
    return list(dict.fromkeys(found))[:_MAX_FIGURES]


def unread_figures(
    answer: str, read: Iterable[Mapping[str, Any]], besides: str | None = None
) -> list[str]:
    """Return the figures an answer gives that no message the model read has.

    A figure rounded from one read counts as read ("about 20 degrees" of
    19.5); one the model said in an earlier answer does not, nor one our
    note besides names (the note that told it which figure it read nowhere).
    Only an answer with a figure reads the messages.
    """
    if not (given := figures_in(answer)):
        return []
    numbers = numbers_read(read, besides)
    # Each figure is looked up, not compared with every number read.
    exact = {round(number, 2) for number in numbers}
    wholes = {math.floor(n) for n in numbers} | {math.ceil(n) for n in numbers}
    return [
        figure
        for figure in given
        if (value := as_number(figure)) is not None
        and round(value, 2) not in exact
        and not (value.is_integer() and int(value) in wholes)
    ]


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
