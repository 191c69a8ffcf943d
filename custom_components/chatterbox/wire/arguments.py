"""Parse and repair the tool call arguments that models write."""

import ast
from collections.abc import Iterable
from dataclasses import dataclass
import json
from typing import Any, Final
import warnings

from homeassistant.helpers import llm

from ..lang.kinds import words_of_kind
from .json import fence_body

# A JSON literal written in otherwise Python-style arguments: {'on': true}.
_JSON_NAMES: Final[dict[str, Any]] = {"true": True, "false": False, "null": None}
# Arguments longer than this are no tool's: refused before any parsing, which
# tries up to _MAX_BRACES prefixes of them.
MAX_ARGUMENTS_CHARS: Final = 65_536
_DECODER: Final = json.JSONDecoder()
_EXCERPT: Final = 20
# How many closing braces to try when trimming text after a Python-style object.
_MAX_BRACES = 64


class ToolArgumentsError(ValueError):
    """Tool call arguments that cannot be read as a JSON object."""


@dataclass(slots=True)
class UnreadableCall(llm.ToolInput):
    """A tool call whose arguments could not be read.

    It is still handed to the chat log, so that it gets a result: the guard
    answers it with the problem instead of running it. The chat log starts a
    call as soon as it is read, so the problem travels with the call itself.
    """

    problem: str = ""


class _NotLiteralError(Exception):
    """Text that is not a plain Python literal."""


def parse_tool_arguments(raw: str | None) -> dict[str, Any]:
    """Return tool call arguments as a dict, repairing where the intent is clear.

    Accepted besides a JSON object: nothing or whitespace and JSON null (no
    arguments), a code fence around the object, text after a complete object,
    single-quoted or Python-literal objects, and an object encoded inside a JSON
    string. Anything else raises ToolArgumentsError with a short message that
    says what is wrong and where, for the model to correct itself.
    """
    if raw is not None and len(raw) > MAX_ARGUMENTS_CHARS:
        msg = (
            f"the arguments are {len(raw):,} characters long, more than any tool takes"
        )
        raise ToolArgumentsError(msg)
    return _parse(raw or "", nested=False)


def _parse(text: str, *, nested: bool) -> dict[str, Any]:
    """Parse one level of arguments."""
    text = text.strip()
    if (body := fence_body(text)) is not None:
        text = body
    if not text:
        return {}
    try:
        value, end = _DECODER.raw_decode(text)
    except json.JSONDecodeError as err:
        try:
            value = _literal_prefix(text)
        except _NotLiteralError:
            raise ToolArgumentsError(_describe(err, text)) from err
    except RecursionError as err:
        msg = "invalid JSON: nested too deeply"
        raise ToolArgumentsError(msg) from err
    except ValueError as err:
        # Python's limit on the digits of an integer; the advice after the
        # semicolon is for programmers.
        msg = f"invalid JSON: {str(err).partition(';')[0]}"
        raise ToolArgumentsError(msg) from err
    else:
        _check_rest(text, end)
    return _as_object(value, nested=nested)


def _check_rest(text: str, end: int) -> None:
    """Refuse more JSON after the object; other trailing text is noise."""
    rest = text[end:].lstrip()
    if rest.startswith(("{", "[")):
        # Two objects back to back are two calls merged into one, typically by
        # a server that gives every call of a response the same index.
        msg = (
            "expected one JSON object, found more JSON at position "
            f"{len(text) - len(rest)}"
        )
        raise ToolArgumentsError(msg)


def _as_object(value: Any, *, nested: bool) -> dict[str, Any]:
    """Return the parsed value as the arguments dict."""
    if isinstance(value, dict):
        return value
    if value is None:
        return {}
    if isinstance(value, str) and not nested:
        # The object was encoded twice: "{\"name\": \"kitchen\"}".
        try:
            return _parse(value, nested=True)
        except ToolArgumentsError as err:
            msg = "expected a JSON object, got a string"
            raise ToolArgumentsError(msg) from err
    msg = f"expected a JSON object, got {_kind(value)}"
    raise ToolArgumentsError(msg)


def _kind(value: Any) -> str:
    """Name the JSON type of a value."""
    match value:
        case str():
            return "a string"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case _:
            return "an array"


def _describe(err: json.JSONDecodeError, text: str) -> str:
    """Say where and why the JSON is invalid, quoting the text around it."""
    start = max(err.pos - _EXCERPT // 2, 0)
    excerpt = text[start : start + _EXCERPT]
    return f"invalid JSON: {err.msg} at position {err.pos} (near {excerpt!r})"


def _literal_prefix(text: str) -> Any:
    """Evaluate a Python-literal object, allowing text after its closing brace."""
    try:
        return _literal_eval(text)
    except _NotLiteralError:
        pass
    # A Python-style object followed by chatter: try each closing brace in turn.
    for end in [i + 1 for i, char in enumerate(text) if char == "}"][:_MAX_BRACES]:
        try:
            value = _literal_eval(text[:end])
        except _NotLiteralError:
            continue
        _check_rest(text, end)
        return value
    raise _NotLiteralError


def _literal_eval(text: str) -> Any:
    """Evaluate text made of Python literals and JSON keywords only."""
    try:
        # Models write regular expressions and Windows paths with backslashes
        # that are invalid Python escapes; the parser would print a warning.
        with warnings.catch_warnings(action="ignore", category=SyntaxWarning):
            tree = ast.parse(text, mode="eval")
        return _literal(tree.body)
    except (SyntaxError, ValueError, RecursionError) as err:
        raise _NotLiteralError from err


def _literal(node: ast.expr) -> Any:
    """Return the JSON value of a literal node."""
    match node:
        case ast.Constant(value=None | str() | bool() | int() | float() as value):
            return value
        case ast.Name(id=name) if name in _JSON_NAMES:
            return _JSON_NAMES[name]
        case ast.UnaryOp(
            op=ast.USub() | ast.UAdd() as op,
            operand=ast.Constant(value=int() | float() as number),
        ) if not isinstance(number, bool):
            return -number if isinstance(op, ast.USub) else number
        case ast.List(elts=items) | ast.Tuple(elts=items):
            return [_literal(item) for item in items]
        case ast.Dict(keys=keys, values=values):
            result: dict[str, Any] = {}
            for key_node, value_node in zip(keys, values, strict=True):
                # A None key is a ** unpacking.
                key = None if key_node is None else _literal(key_node)
                if not isinstance(key, str):
                    raise _NotLiteralError
                result[key] = _literal(value_node)
            return result
    raise _NotLiteralError


# A list naming at least this share of the values its schema allows was copied
# from the schema, not chosen.
_COPIED_ENUM_SHARE: Final = 0.75
# Short enums are left alone: naming both of two values can be meant.
_MIN_COPIED_ENUM: Final = 4


def drop_unmeant_arguments(
    arguments: dict[str, Any], parameters: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Drop the arguments a small model filled in without meaning anything.

    - An optional argument left empty ("" or null): small models ask the
      calculator for a product with from_unit and to_unit "", which reads as
      a conversion with no units.
    - A list that names (nearly) every value its schema allows: small models
      turn on a light with every one of HassTurnOn's device classes, a filter
      that matches no light.
    - Beside a name, a list with a value its schema does not allow: small
      models give a light the device class "light", which Home Assistant
      refuses as invalid. The name picks the device; without one, the call
      goes as it is, since without its filter it would reach more devices.

    Either way the call fails however often it is tried. An argument that is
    no parameter of a tool that takes no others goes too: an intent tool would
    still pass it on to its handler (`preferred_area_id`, which chooses
    between two locks of one name). Returns the arguments without them, and
    their names.
    """
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())
    closed = parameters.get("additionalProperties") is False
    dropped = [
        name
        for name, value in arguments.items()
        if (closed and name not in properties)
        or (value in ("", None) and name not in required)
        or (
            isinstance(value, list)
            and isinstance(prop := properties.get(name), dict)
            and isinstance(enum := (prop.get("items") or {}).get("enum"), list)
            and (
                _names_nearly_all(value, enum)
                or (bool(arguments.get("name")) and _names_other(value, enum))
            )
        )
    ]
    if not dropped:
        return arguments, []
    return {k: v for k, v in arguments.items() if k not in dropped}, dropped


def _names_other(values: list[Any], enum: list[Any]) -> bool:
    """Tell whether a list names a value that an enum does not allow."""
    allowed = {json.dumps(option) for option in enum}
    return any(json.dumps(value) not in allowed for value in values)


def _names_nearly_all(values: list[Any], enum: list[Any]) -> bool:
    """Tell whether a list names nearly every value of an enum."""
    if len(enum) < _MIN_COPIED_ENUM:
        return False
    allowed = {json.dumps(option) for option in enum}
    named = {json.dumps(value) for value in values} & allowed
    return len(named) >= _COPIED_ENUM_SHARE * len(allowed)


# The domains whose devices a room's name with a kind word stands for.
_GROUPED: Final = frozenset({"light", "fan", "cover", "switch"})


def by_area(
    arguments: dict[str, Any],
    areas: Iterable[str],
    language: str,
    *,
    reads: bool = False,
) -> dict[str, Any] | None:
    """Read a name like "Living room light", or "Living room", as an area.

    Asked to "turn off the lights in the living room", small models pass
    the name "Living room light" (Qwen2.5 1.5B does), which matches no device
    when the room's light is called "Living room lamp"; asked for everything
    in a room, or how warm it is there, they pass the room's name as a
    device's. When the name is an area's name, alone or followed by a word
    for the devices of the call's domain, the arguments are returned with
    that area in place of the name; else None. Without a domain nothing is
    guessed for a tool that acts: the area alone would switch everything in
    the room. A tool that only reads (reads) may read the whole room.
    """
    name, domains = arguments.get("name"), arguments.get("domain")
    if not isinstance(name, str) or "area" in arguments:
        return None
    if isinstance(domains, str):
        domains = [domains]
    if domains is None and reads:
        domains = []
    if not isinstance(domains, list):
        return None
    # The words for the devices of a domain (lang/words), and its own name:
    # "the living room lights", "Living room switch". Only of the domains a
    # room has several of, each much like the other: a "Living room TV"
    # that matches nothing is one device, not every media player there.
    words = {
        word
        for domain in domains
        if domain in _GROUPED
        for word in {domain, *words_of_kind(domain, language)}
    }
    said = _folded(name).removeprefix("the ")
    for area in areas:
        room = _folded(area)
        if said == room or (
            said.startswith(f"{room} ") and said[len(room) + 1 :] in words
        ):
            return {
                **{key: value for key, value in arguments.items() if key != "name"},
                "area": area,
            }
    return None


def without_missing_places(
    arguments: dict[str, Any], missing: Iterable[str]
) -> dict[str, Any] | None:
    """Leave out an area or floor the home does not have, beside a name.

    Small models fill in a device's area as its floor too ("Living Room"),
    told nothing of floors: the match fails on the floor, though the name
    finds the device. With a name, the arguments are returned without the
    place that was not found; else None.
    """
    if not isinstance(arguments.get("name"), str):
        return None
    gone = [key for key in ("area", "floor") if arguments.get(key) in set(missing)]
    if not gone:
        return None
    return {key: value for key, value in arguments.items() if key not in gone}


def without_record_details(arguments: dict[str, Any]) -> dict[str, Any] | None:
    """Read a name copied with what the record said after it as the name alone.

    The states and names after a request read "Front door (lock in Hallway):
    unlocked", and small models pass the whole line, or its first part, as
    the name. With such a name the arguments are returned with the name
    before the brackets; else None.
    """
    name = arguments.get("name")
    if not isinstance(name, str) or "(" not in name:
        return None
    if not (bare := name.split("(", 1)[0].strip()):
        return None
    return {**arguments, "name": bare}


def _folded(text: str) -> str:
    """Return text as compared: case and spacing ignored."""
    return " ".join(text.casefold().split())
