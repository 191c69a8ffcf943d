"""Whether the figures of an answer come from what the model read.

A figure (lang/numbers.py) an answer gives must come from something the
model read: the user's words, a tool's result, the states that came with the
request. A small model asked for a temperature it was not given says one
anyway ("22 degrees"), and nothing but the home's state can tell it wrong.
"""

from collections.abc import Iterable, Iterator, Mapping
import math
from typing import Any

from ..lang.numbers import NUMBER, as_number, figures_in


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
