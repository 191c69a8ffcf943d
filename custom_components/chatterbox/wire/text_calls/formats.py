"""Read the tool calls of a whole block that a model wrote as text.

The JSON envelopes ({"name": ..., "arguments": ...} and the variants models
trained on other APIs write, alone, in lists or one after another) and the
XML forms (<function=name> and <invoke name="...">, with a JSON or
<parameter> body). The readers find where a block starts and ends; these
read what it holds.
"""

import json
import re
from typing import Any, Final

from ..arguments import ToolArgumentsError, parse_tool_arguments
from ..json import fence_body, json_or_text

type Call = tuple[str, str]
"""A call's name as written, and its arguments as JSON text."""

NAME_CHARS: Final = r"[^\s<>\"'/=]"
_XML_CALL: Final = re.compile(
    rf"\s*(?:<function=(?P<fname>{NAME_CHARS}{{1,64}})>(?P<fbody>.*?)</function>"
    r"|<invoke\s+name\s*=\s*(?P<q>[\"'])(?P<iname>[^\"'<>\n]{1,64})(?P=q)\s*>"
    r"(?P<ibody>.*?)</invoke>)\s*",
    re.DOTALL,
)
_XML_PARAMETER: Final = re.compile(
    rf"\s*(?:<parameter=(?P<key>{NAME_CHARS}{{1,64}})>"
    r"|<parameter\s+name\s*=\s*(?P<q>[\"'])(?P<qkey>[^\"'<>\n]{1,64})(?P=q)\s*>)"
    r"(?P<value>.*?)</parameter>\s*",
    re.DOTALL,
)
# A call whose JSON is broken after its name: its arguments are handed on as
# they are, so that the model hears what is wrong with them.
_BROKEN_CALL: Final = re.compile(
    r"\A\s*\{\s*\"name\"\s*:\s*\"([^\"\\]{1,64})\"\s*,\s*"
    r"\"(?:arguments|parameters)\"\s*:\s*(.*)\Z",
    re.DOTALL,
)
_DECODER: Final = json.JSONDecoder(strict=False)
_ENVELOPE_KEYS: Final = frozenset({"name", "function", "type", "id"})


class BracketEnd:
    """Find, resumably, where a JSON or Python-literal value ends."""

    def __init__(self, start: int) -> None:
        """Start scanning at the value's opening bracket."""
        self.position = start
        self._depth = 0
        self._quote = ""
        self._escaped = False

    def scan(self, text: str) -> int | None:
        """Return the index after the value's closing bracket, if it came."""
        for index in range(self.position, len(text)):
            char = text[index]
            if self._quote:
                if self._escaped:
                    self._escaped = False
                elif char == "\\":
                    self._escaped = True
                elif char == self._quote:
                    self._quote = ""
            elif char in "\"'":
                self._quote = char
            elif char in "{[":
                self._depth += 1
            elif char in "}]":
                self._depth -= 1
                if not self._depth:
                    self.position = index + 1
                    return index + 1
        self.position = len(text)
        return None


def calls_in(text: str, *, salvage: bool) -> list[Call] | None:
    """Read the calls of a block's body: JSON or the XML forms."""
    text = text.strip()
    if (body := fence_body(text)) is not None:
        text = body
    if text.startswith("<"):
        return xml_calls(text, salvage=salvage)
    if (calls := _json_calls(text)) is not None:
        return calls
    if salvage and (broken := _BROKEN_CALL.match(text)):
        return [(broken.group(1), broken.group(2))]
    return None


def _json_calls(text: str) -> list[Call] | None:
    """Read call objects, or lists of them, written one after another."""
    values: list[Any] = []
    position = 0
    while position < len(text):
        try:
            value, position = _DECODER.raw_decode(text, position)
        except ValueError, RecursionError:
            # Bad JSON, or an integer longer than Python converts (4,300 digits).
            # Python-style objects, with single quotes or True.
            try:
                values = [parse_tool_arguments(text)]
            except ToolArgumentsError:
                return None
            break
        values.extend(value if isinstance(value, list) else [value])
        position = len(text) - len(text[position:].lstrip().lstrip(",;").lstrip())
    calls = [_envelope(value) for value in values]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _envelope(value: Any) -> Call | None:
    """Return the name and JSON arguments of one call object."""
    if not isinstance(value, dict) or "description" in value:
        # A tool's definition echoed back is not a call.
        return None
    function = value.get("function")
    if isinstance(function, dict):
        # The OpenAI shape: {"type": "function", "function": {...}}.
        return _envelope(function)
    name = function if isinstance(function, str) else value.get("name")
    if not isinstance(name, str) or not name:
        return None
    for key in ("arguments", "parameters"):
        if key in value:
            arguments = value[key]
            break
    else:
        # Small models write the arguments beside the name.
        taken = (
            _ENVELOPE_KEYS - {"name"} if isinstance(function, str) else _ENVELOPE_KEYS
        )
        arguments = {key: item for key, item in value.items() if key not in taken}
    if isinstance(arguments, str):
        return name, arguments
    return name, arguments_text(arguments)


def xml_calls(text: str, *, salvage: bool) -> list[Call] | None:
    """Read <function=name> and <invoke name="..."> calls.

    Without salvage, JSON arguments must be whole.
    """
    calls: list[Call] = []
    position = 0
    while position < len(text):
        if (match := _XML_CALL.match(text, position)) is None:
            return None
        position = match.end()
        if match.group("fname") is not None:
            name, body = match.group("fname"), match.group("fbody")
        else:
            name, body = match.group("iname"), match.group("ibody")
        if (arguments := _xml_arguments(body, salvage=salvage)) is None:
            return None
        calls.append((name, arguments))
    return calls or None


def _xml_arguments(body: str, *, salvage: bool) -> str | None:
    """Return the JSON arguments of an XML call's body."""
    body = body.strip()
    if not body:
        return "{}"
    if body.startswith("{"):
        whole = salvage or BracketEnd(0).scan(body) == len(body)
        return body if whole else None
    arguments: dict[str, Any] = {}
    position = 0
    while position < len(body):
        if (match := _XML_PARAMETER.match(body, position)) is None:
            return None
        position = match.end()
        key = match.group("key") or match.group("qkey")
        arguments[key] = json_or_text(match.group("value").strip())
    return arguments_text(arguments)


def arguments_text(arguments: Any) -> str:
    """Write arguments as JSON text, as a server would hand them over.

    Python's json, spaced: the text is measured against MAX_ARGUMENTS_CHARS
    and read again by parse_tool_arguments, which keeps NaN and Infinity
    (orjson would write null).
    """
    return json.dumps(arguments, ensure_ascii=False)
