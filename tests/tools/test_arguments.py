"""Tests for reading the tool call arguments that models write."""

from typing import Any

import pytest

from custom_components.chatterbox.tools.arguments import (
    ToolArgumentsError,
    by_area,
    drop_unmeant_arguments,
    parse_tool_arguments,
)


def test_a_json_object_is_read_as_is() -> None:
    """Read a well-formed object without changing any value."""
    raw = '{"name": "Kitchen Light", "brightness": 40, "on": true, "area": null}'

    assert parse_tool_arguments(raw) == {
        "name": "Kitchen Light",
        "brightness": 40,
        "on": True,
        "area": None,
    }


@pytest.mark.parametrize("raw", [None, "", "   ", "\n\t", "null", '""', "```\n```"])
def test_no_arguments_are_an_empty_object(raw: str | None) -> None:
    """Read nothing, whitespace, null or an empty string as no arguments."""
    assert parse_tool_arguments(raw) == {}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"a": 1} some words', {"a": 1}),
        ('{"a":1}}', {"a": 1}),
        ('{"name": "den"}</tool_call>', {"name": "den"}),
        ('  {"a": 1}\n\n', {"a": 1}),
    ],
)
def test_text_after_a_complete_object_is_ignored(
    raw: str, expected: dict[str, object]
) -> None:
    """Keep the object when a model keeps writing after closing it."""
    assert parse_tool_arguments(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("{'a': True, 'b': None}", {"a": True, "b": None}),
        ("{'name': 'Kitchen', 'level': -2.5}", {"name": "Kitchen", "level": -2.5}),
        (
            "{'on': true, 'area': null, 'off': false}",
            {"on": True, "area": None, "off": False},
        ),
        ("{'ids': ('a', 'b'), 'n': +3}", {"ids": ["a", "b"], "n": 3}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ("{'nested': {'x': [{'y': 'z'}]}}", {"nested": {"x": [{"y": "z"}]}}),
        (r"{'pattern': '\d+'}", {"pattern": "\\d+"}),
    ],
)
def test_python_literals_are_read_as_json(
    raw: str, expected: dict[str, object]
) -> None:
    """Read single quotes, Python constants and trailing commas."""
    assert parse_tool_arguments(raw) == expected


def test_python_literal_parsing_prints_no_warning(
    recwarn: pytest.WarningsRecorder,
) -> None:
    """Say nothing about a backslash that Python would call an invalid escape."""
    parse_tool_arguments(r"{'path': 'C:\temp\new\d'}")

    assert not [w for w in recwarn if issubclass(w.category, SyntaxWarning)]


@pytest.mark.parametrize(
    "raw",
    [
        '"{\\"entity\\": \\"light.den\\"}"',
        '\'{"entity": "light.den"}\'',
        '"```json\\n{\\"entity\\": \\"light.den\\"}\\n```"',
    ],
)
def test_an_object_encoded_in_a_string_is_decoded(raw: str) -> None:
    """Decode an object that a model encoded a second time."""
    assert parse_tool_arguments(raw) == {"entity": "light.den"}


@pytest.mark.parametrize(
    "raw",
    [
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        '```JSON {"a": 1}```',
        '\n```json\n  {"a": 1}  \n```\n',
    ],
)
def test_code_fences_are_removed(raw: str) -> None:
    """Read the object inside a Markdown code fence."""
    assert parse_tool_arguments(raw) == {"a": 1}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("[1, 2]", "expected a JSON object, got an array"),
        ("42", "expected a JSON object, got a number"),
        ("-1.5", "expected a JSON object, got a number"),
        ("true", "expected a JSON object, got a boolean"),
        ('"kitchen"', "expected a JSON object, got a string"),
        ('"[1]"', "expected a JSON object, got a string"),
        ('"\\"{}\\""', "expected a JSON object, got a string"),
        ("['a']", "expected a JSON object, got an array"),
    ],
)
def test_a_value_that_is_not_an_object_is_refused(raw: str, message: str) -> None:
    """Refuse arguments that are valid JSON but not an object."""
    with pytest.raises(ToolArgumentsError) as err:
        parse_tool_arguments(raw)

    assert str(err.value) == message


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            '{"a": 1 "b": 2}',
            (
                "invalid JSON: Expecting ',' delimiter at position 8 "
                """(near '{"a": 1 "b": 2}')"""
            ),
        ),
        (
            '{"name": "kitchen light", "brightness":',
            "invalid JSON: Expecting value at position 39 (near 'ightness\":')",
        ),
        (
            "turn on the light",
            "invalid JSON: Expecting value at position 0 (near 'turn on the light')",
        ),
    ],
)
def test_invalid_json_is_reported_with_position_and_context(
    raw: str, message: str
) -> None:
    """Say what was expected where, quoting the text around it."""
    with pytest.raises(ToolArgumentsError) as err:
        parse_tool_arguments(raw)

    assert str(err.value) == message


@pytest.mark.parametrize(
    "raw",
    [
        "{'a': {1: 2}}",
        "{'a': b'bytes'}",
        "{'a': 1j}",
        "{'a': -True}",
        "{'a': {'b', 'c'}}",
        "{**defaults}",
        "{'a': f'{x}'}",
        "{'a': open('x')}",
        "{'a': 1 + 2}",
    ],
)
def test_python_that_is_not_plain_data_is_refused(raw: str) -> None:
    """Evaluate no expression: refuse anything but literals, with the JSON error."""
    with pytest.raises(ToolArgumentsError, match=r"^invalid JSON: Expecting "):
        parse_tool_arguments(raw)


@pytest.mark.parametrize("raw", ['{"a": 1}{"b": 2}', '{"a": 1} {"b"', '{"a": 1}\n[2]'])
def test_merged_calls_are_refused(raw: str) -> None:
    """Refuse a second JSON value: its arguments would be lost otherwise."""
    with pytest.raises(
        ToolArgumentsError, match=r"^expected one JSON object, found more JSON at"
    ):
        parse_tool_arguments(raw)


@pytest.mark.parametrize(
    "raw",
    [
        '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "{" + " " * 1_000_000 + "}",
        "```" + " " * 1_000_000 + "x",
    ],
    ids=["nested", "spaces", "fence"],
)
@pytest.mark.timeout(10)
def test_arguments_longer_than_any_tool_takes_are_refused(raw: str) -> None:
    """Say how long they are, before any parsing: no tool takes 64 KB."""
    with pytest.raises(ToolArgumentsError, match=r"characters long, more than any"):
        parse_tool_arguments(raw)


def test_deep_nesting_within_the_limit_is_read() -> None:
    """Nesting as deep as the limit allows parses without crashing."""
    assert parse_tool_arguments('{"a": ' + "[" * 32_000 + "]" * 32_000 + "}")


def test_a_number_too_long_to_convert_is_refused() -> None:
    """Report an integer over Python's digit limit without the advice for coders."""
    with pytest.raises(ToolArgumentsError) as err:
        parse_tool_arguments('{"n": ' + "1" * 5000 + "}")

    assert str(err.value).startswith("invalid JSON: Exceeds the limit")
    assert "set_int_max_str_digits" not in str(err.value)


def test_the_error_is_a_value_error() -> None:
    """Let callers catch the error as a ValueError."""
    with pytest.raises(ValueError, match="got an array"):
        parse_tool_arguments("[]")


def test_python_literal_with_chatter_after_it() -> None:
    """A Python-style object followed by words is read up to its closing brace."""
    assert parse_tool_arguments("{'city': 'Lisbon'} I hope that helps") == {
        "city": "Lisbon"
    }
    assert parse_tool_arguments("{'a': {'b': None}} done") == {"a": {"b": None}}


def test_python_literal_followed_by_a_second_object_is_refused() -> None:
    """Two Python-style objects are two calls merged, not one to trim."""
    with pytest.raises(ToolArgumentsError, match="found more JSON"):
        parse_tool_arguments("{'a': 1} {'b': 2}")


def test_python_literal_that_never_closes_is_refused() -> None:
    """Without a closing brace that makes a literal, the JSON error is reported."""
    with pytest.raises(ToolArgumentsError, match="invalid JSON"):
        parse_tool_arguments("{'a': } and {'b'}")


CLASSES = ["door", "garage", "gate", "window", "shade", "blind"]
TURN_ON = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "domain": {"type": "array", "items": {"type": "string"}},
        "device_class": {"type": "array", "items": {"type": "string", "enum": CLASSES}},
        "mode": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
    },
}


@pytest.mark.parametrize(
    ("arguments", "kept", "dropped"),
    [
        pytest.param(
            {"name": "Kitchen light", "device_class": CLASSES},
            {"name": "Kitchen light"},
            ["device_class"],
            id="every-value",
        ),
        pytest.param(
            {"name": "Kitchen light", "device_class": [*CLASSES[:0:-1], "tv"]},
            {"name": "Kitchen light"},
            ["device_class"],
            id="nearly-every-value-in-another-order",
        ),
        pytest.param(
            {"name": "Garage", "device_class": ["garage", "door"]},
            {"name": "Garage", "device_class": ["garage", "door"]},
            [],
            id="a-choice",
        ),
        pytest.param(
            {"mode": ["a", "b"], "domain": ["light", "switch", "fan", "cover"]},
            {"mode": ["a", "b"], "domain": ["light", "switch", "fan", "cover"]},
            [],
            id="short-enum-and-no-enum",
        ),
        pytest.param(
            {"name": "", "area": "", "floor": None, "domain": ["light"]},
            {"name": "", "domain": ["light"]},
            ["area", "floor"],
            id="optional-and-empty",
        ),
        pytest.param(
            {"device_class": "door", "unknown": CLASSES},
            {"device_class": "door", "unknown": CLASSES},
            [],
            id="not-a-list-or-not-in-the-schema",
        ),
    ],
)
def test_arguments_filled_in_without_meaning_are_dropped(
    arguments: dict[str, object], kept: dict[str, object], dropped: list[str]
) -> None:
    """An empty optional one, or a list naming (nearly) every allowed value."""
    assert drop_unmeant_arguments(arguments, TURN_ON) == (kept, dropped)


AREAS = ("Kitchen", "Living Room", "Lounge")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param(
            {"name": "Living room light", "domain": ["light"]},
            {"domain": ["light"], "area": "Living Room"},
            id="room-then-light",
        ),
        pytest.param(
            {"name": "the  kitchen LAMPS", "domain": "light", "brightness": 50},
            {"domain": "light", "brightness": 50, "area": "Kitchen"},
            id="article-case-spacing-and-other-arguments-kept",
        ),
        pytest.param(
            {"name": "Lounge fans", "domain": ["fan", "light"]},
            {"domain": ["fan", "light"], "area": "Lounge"},
            id="any-of-the-domains",
        ),
        pytest.param({"name": "Living room light"}, None, id="no-domain"),
        pytest.param(
            {"name": "Living room light", "domain": ["light"], "area": "Kitchen"},
            None,
            id="area-given",
        ),
        pytest.param(
            {"name": "Living room reading lamp", "domain": ["light"]},
            None,
            id="a-device-not-a-group",
        ),
        pytest.param(
            {"name": "Living room fan", "domain": ["light"]}, None, id="other-domain"
        ),
        pytest.param(
            {"name": "Kitchen thermostat", "domain": ["climate"]},
            None,
            id="domain-without-group-words",
        ),
        pytest.param({"name": "Kitchen", "domain": ["light"]}, None, id="room-only"),
        pytest.param({"name": "Garage light", "domain": ["light"]}, None, id="no-room"),
        pytest.param({"name": 3, "domain": ["light"]}, None, id="name-not-text"),
        pytest.param({"name": "Kitchen light", "domain": 3}, None, id="domain-odd"),
    ],
)
def test_by_area(arguments: dict[str, Any], expected: dict[str, Any] | None) -> None:
    """A room's name then a word for its devices names the room's devices."""
    assert by_area(arguments, AREAS) == expected
