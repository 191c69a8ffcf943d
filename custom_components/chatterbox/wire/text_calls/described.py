"""Read the calls that an answer describes instead of making.

Small models, given tools as text in the system prompt, often answer a
request with how to make the call rather than the call:

- To turn on the lamp, call the intent__HassTurnOn tool with the arguments
  {"name": "Lamp", "domain": ["light"]}
- To unlock the door, call HassTurnOff with the name "Front door" and the
  domain "lock".
- You can use the following command: {"name": "HassTurnOff", "arguments": …}

Nothing is done, and the user hears a tool's name. What such an answer says
is read here as the calls it describes: a call object anywhere in the text;
an offered tool's name followed by a JSON object of its parameters; or by its
parameters' names, each before a quoted value. The words between are the
model's, in any language: only the tool's name, its parameters' names and the
quotes are read.
"""

from collections.abc import Callable, Mapping
import json
import re
from typing import Any, Final

from .formats import Call, arguments_text

# Only the start of an answer is read: a described call comes first.
_READ_CHARS: Final = 2_000
# The most JSON objects tried: each is decoded from its brace on.
_MAX_OBJECTS: Final = 16
# A word of code: dotted parts, each a letter or _ and then word characters.
# Linear: no part can start where the one before it could go on.
_CODE_WORD: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# A parameter's name before its value in quotes: the name "Front door".
# Linear: a name starts at a word's start, and each part is bounded.
_NAMED_VALUE: Final = re.compile(
    r"\b(\w{1,64})[^\S\n]{1,4}[\"“„«]([^\"“”„«»\n]{1,100})[\"”“»]"
)
_DECODER: Final = json.JSONDecoder()


def described_calls(
    text: str,
    resolve: Callable[[str], str | None],
    parameters: Mapping[str, frozenset[str]],
) -> list[Call]:
    """Return the calls an answer describes, in order; none when it names none.

    Resolve maps a written name to an offered tool's; parameters holds each
    offered tool's parameter names. A tool named without arguments is a call
    only when it takes none.
    """
    text = text[:_READ_CHARS]
    objects = _objects(text)
    calls: list[tuple[int, Call]] = [
        (start, (name, arguments_text(arguments)))
        for start, _, value in objects
        if (envelope := _envelope(value, resolve)) is not None
        for name, arguments in [envelope]
    ]
    inside = [(start, end) for start, end, _ in objects]
    anchors = [
        (start, end, name)
        for start, end, name in _named(text, resolve)
        if not any(s <= start < e for s, e in inside)
    ]
    for number, (_, end, name) in enumerate(anchors):
        stop = anchors[number + 1][0] if number + 1 < len(anchors) else len(text)
        calls.extend(
            (position, (name, arguments_text(arguments)))
            for position, arguments in _arguments_after(
                text, end, stop, objects, parameters.get(name, frozenset())
            )
        )
    return [call for _, call in sorted(calls, key=lambda item: item[0])]


def _named(
    text: str, resolve: Callable[[str], str | None]
) -> list[tuple[int, int, str]]:
    """Return where the answer names offered tools, and which.

    Only a word that reads as code counts, with an underscore or a capital
    inside it (HassTurnOn, weather_at_place): a tool that ends in __calculate
    is not named by "I calculate".
    """
    found: list[tuple[int, int, str]] = []
    for match in _CODE_WORD.finditer(text[:_READ_CHARS]):
        word = match.group()
        if "_" not in word and word[1:].islower():
            continue
        if (name := resolve(word)) is not None:
            found.append((match.start(), match.end(), name))
    return found


def _objects(text: str) -> list[tuple[int, int, Any]]:
    """Return the JSON objects in the text, with where each starts and ends."""
    found: list[tuple[int, int, Any]] = []
    position = text.find("{")
    tried = 0
    while position >= 0 and tried < _MAX_OBJECTS:
        tried += 1
        try:
            value, end = _DECODER.raw_decode(text, position)
        except ValueError, RecursionError:
            position = text.find("{", position + 1)
            continue
        found.append((position, end, value))
        position = text.find("{", end)
    return found


def _envelope(
    value: Any, resolve: Callable[[str], str | None]
) -> tuple[str, dict[str, Any]] | None:
    """Return the call a {"name": …, "arguments": {…}} object is, if offered."""
    if not isinstance(value, dict) or not isinstance(name := value.get("name"), str):
        return None
    arguments = value.get("arguments", value.get("parameters"))
    if not isinstance(arguments, dict) or (offered := resolve(name)) is None:
        return None
    return offered, arguments


def _arguments_after(
    text: str,
    start: int,
    stop: int,
    objects: list[tuple[int, int, Any]],
    parameters: frozenset[str],
) -> list[tuple[int, dict[str, Any]]]:
    """Return the arguments written after a tool's name, before the next one.

    JSON objects of the tool's parameters, one call each; or else the
    parameters named before quoted values, as one call; or else, for a tool
    that takes no parameters, one call without any.
    """
    written = [
        (position, value)
        for position, end, value in objects
        if start <= position
        and end <= stop
        and isinstance(value, dict)
        and value
        and value.keys() <= parameters
    ]
    if written:
        return written
    named = {
        match.group(1): match.group(2)
        for match in _NAMED_VALUE.finditer(text, start, stop)
        if match.group(1) in parameters
    }
    if named:
        return [(start, named)]
    return [] if parameters else [(start, {})]
