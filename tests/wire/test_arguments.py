"""The arguments models write: read, repaired, and trimmed of what they did not mean."""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.intent import ONOFF_DEVICE_CLASSES
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.wire.arguments import (
    ToolArgumentsError,
    by_area,
    drop_unmeant_arguments,
    parse_tool_arguments,
    without_missing_places,
    without_record_details,
)
from tests.helpers.common import ask, tool_result
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls


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
            {"name": "Bedroom light", "device_class": ["light"]},
            {"name": "Bedroom light"},
            ["device_class"],
            id="a-value-not-allowed-beside-a-name",
        ),
        pytest.param(
            {"area": "Garage", "device_class": ["light"]},
            {"area": "Garage", "device_class": ["light"]},
            [],
            id="a-value-not-allowed-and-no-name-to-bound-the-call",
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
    """Empty optional ones; lists of every value, or of one not allowed by a name."""
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
            id="a-domain-a-room-has-one-of",
        ),
        pytest.param(
            {"name": "Living room TV", "domain": ["media_player"]},
            None,
            id="one-device-not-every-media-player",
        ),
        # Asked for everything in a room, small models name the room.
        pytest.param(
            {"name": "Kitchen", "domain": ["light"]},
            {"domain": ["light"], "area": "Kitchen"},
            id="room-only",
        ),
        pytest.param({"name": "Garage light", "domain": ["light"]}, None, id="no-room"),
        pytest.param({"name": 3, "domain": ["light"]}, None, id="name-not-text"),
        pytest.param({"name": "Kitchen light", "domain": 3}, None, id="domain-odd"),
    ],
)
def test_by_area(arguments: dict[str, Any], expected: dict[str, Any] | None) -> None:
    """A room's name then a word for its devices names the room's devices."""
    assert by_area(arguments, AREAS, "en") == expected


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"name": "Kitchen"}, {"area": "Kitchen"}, id="the-whole-room"),
        pytest.param(
            {"name": "living room", "domain": ["sensor", "climate"]},
            {"domain": ["sensor", "climate"], "area": "Living Room"},
            id="with-domains",
        ),
        pytest.param({"name": "Kitchen lamp"}, None, id="a-device"),
    ],
)
def test_a_read_may_read_a_whole_room(
    arguments: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    """Asked how warm the kitchen is, the model reads "Kitchen" as a name."""
    assert by_area(arguments, AREAS, "en", reads=True) == expected


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param(
            {"name": "Thermostat", "area": "Living Room", "floor": "Living Room"},
            {"name": "Thermostat"},
            id="a-floor-that-is-an-area",
        ),
        pytest.param(
            {"name": "Lamp", "area": "Attic", "domain": ["light"]},
            {"name": "Lamp", "domain": ["light"]},
            id="an-area-the-home-lacks",
        ),
        pytest.param({"area": "Attic", "domain": ["light"]}, None, id="no-name"),
        pytest.param({"name": "Lamp", "area": "Kitchen"}, None, id="place-found"),
    ],
)
def test_a_place_not_found_beside_a_name_is_left_out(
    arguments: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    """The name finds the device; a place that does not exist goes."""
    # Home Assistant names what it did not find, not whether it was the area.
    assert without_missing_places(arguments, ["Living Room", "Attic"]) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("Front door (lock in Hallway)", "Front door", id="whole-line"),
        pytest.param("Front door (lock): unlocked", "Front door", id="with-state"),
        pytest.param("Lamp(light)", "Lamp", id="no-space"),
        pytest.param("(lock)", None, id="nothing-before"),
        pytest.param("Front door", None, id="a-plain-name"),
    ],
)
def test_a_name_copied_with_the_records_details_is_the_name(
    name: str, expected: str | None
) -> None:
    """The model copies the record's line; the name before the brackets is meant."""
    meant = without_record_details({"name": name, "domain": ["lock"]})
    assert meant == (
        None if expected is None else {"name": expected, "domain": ["lock"]}
    )


# Calls Home Assistant's intents would refuse, read as the user meant them:
# through a real Home Assistant with Assist's tools.


async def test_a_filter_copied_whole_from_the_schema_is_dropped(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """A small model lists every device class HassTurnOn knows: the light goes on.

    As written, the call matches nothing (a light has no device class), and
    small models try it again and again. The request does not list the
    classes, so as not to invite the copy, but a model may know them.
    """
    every_class = [
        str(device_class)
        for classes in ONOFF_DEVICE_CLASSES
        for device_class in classes
    ]
    copied = {"name": "Kitchen light", "domain": ["light"], "device_class": every_class}
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", copied)]),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    assert "Kitchen light" in llm_server.last_chat_request["messages"][-1]["content"]
    sent = next(
        tool["function"]["parameters"]
        for tool in llm_server.last_chat_request["tools"]
        if tool["function"]["name"] == "intent__HassTurnOn"
    )
    assert sent["properties"]["device_class"] == {
        "type": "array",
        "items": {"type": "string"},
    }


async def test_a_device_class_made_up_beside_a_name_is_dropped(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """The model gives the kitchen light the device class "light": it goes on.

    Home Assistant refuses the class as invalid; the name picks the light.
    """
    made_up = {"name": "Kitchen light", "domain": ["light"], "device_class": ["light"]}
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", made_up)]),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."


LAMP = "light.living_room_lamp"


TURN_OFF = "intent__HassTurnOff"


@pytest.fixture
async def living_room_lamp(ha_core: HomeAssistant) -> str:
    """Add the living room's one light, "Living room lamp", on and exposed."""
    assert await async_setup_component(
        ha_core, "input_boolean", {"input_boolean": {"lamp_power": {"initial": True}}}
    )
    power = {"target": {"entity_id": "input_boolean.lamp_power"}}
    light = {
        "name": "Living room lamp",
        "unique_id": "living-room-lamp",
        "state": "{{ is_state('input_boolean.lamp_power', 'on') }}",
        "turn_on": [{"action": "input_boolean.turn_on", **power}],
        "turn_off": [{"action": "input_boolean.turn_off", **power}],
    }
    assert await async_setup_component(
        ha_core, "template", {"template": [{"light": [light]}]}
    )
    await ha_core.async_block_till_done()
    area = ar.async_get(ha_core).async_create("Living Room", aliases={"Lounge"})
    er.async_get(ha_core).async_update_entity(LAMP, area_id=area.id)
    ar.async_get(ha_core).async_create("Garage")
    async_expose_entity(ha_core, conversation.DOMAIN, LAMP, should_expose=True)
    assert ha_core.states.get(LAMP).state == "on"
    return LAMP


def tool_results(request: dict[str, Any]) -> list[Any]:
    """Return the tool results a request carries, decoded."""
    return [
        tool_result(m["content"]) for m in request["messages"] if m["role"] == "tool"
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_the_lights_of_a_room_named_as_one_light(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """User: "turn off the lights in the living room".

    The model asks for a light called "Living room light"; there is none (the
    room's light is the "Living room lamp"), so the call runs for the living
    room's lights. The lamp is off, and the model reads that it worked.
    """
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "Living room light", "domain": ["light"]})]),
        Text("The living room lamp is off."),
    )

    result = await ask(hass, "Turn off the lights in the living room")

    assert result.response.speech["plain"]["speech"] == "The living room lamp is off."
    assert hass.states.get(living_room_lamp).state == "off"
    (done,) = tool_results(llm_server.chat_requests[1])
    assert done["error"] is False
    # Home Assistant's own answer for the room: the area, then its light.
    assert [(s["type"], s["id"]) for s in done["data"]["data"]["success"]] == [
        ("area", "living_room"),
        ("entity", living_room_lamp),
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_a_room_named_by_its_alias(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """User: "lounge lamps off": the area's alias finds the room."""
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "the lounge lamps", "domain": "light"})]),
        Text("Done."),
    )

    await ask(hass, "Lounge lamps off")

    assert hass.states.get(living_room_lamp).state == "off"


@pytest.mark.usefixtures("loaded_entry")
async def test_a_room_without_the_device_still_fails(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """User: "turn off the garage light": the garage has no light.

    The area's lights are tried and there are none; the model reads the first
    error, about the name it gave, and says so. Nothing else changed.
    """
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "Garage light", "domain": ["light"]})]),
        Text("There is no garage light."),
    )

    result = await ask(hass, "Turn off the garage light")

    assert result.response.speech["plain"]["speech"] == "There is no garage light."
    assert hass.states.get(living_room_lamp).state == "on"
    (failed,) = tool_results(llm_server.chat_requests[1])
    assert failed["error"] is True
    assert "Garage light" in failed["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_no_room_is_guessed_without_a_domain(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """Without a domain the area alone would switch off all of the room."""
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "Living room light"})]),
        Text("I could not find that light."),
    )

    await ask(hass, "Turn off the living room light")

    assert hass.states.get(living_room_lamp).state == "on"
    (failed,) = tool_results(llm_server.chat_requests[1])
    assert failed["data"]["error"] == "MatchFailedError"


@pytest.mark.usefixtures("loaded_entry")
async def test_a_floor_the_home_lacks_beside_a_name_is_left_out(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """The model gives the lamp's room as its floor too: the lamp goes off."""
    place = {"area": "Living Room", "floor": "Living Room"}
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "Living room lamp", **place})]),
        Text("The living room lamp is off."),
    )

    await ask(hass, "Turn off the living room lamp")

    assert hass.states.get(living_room_lamp).state == "off"
    (done,) = tool_results(llm_server.chat_requests[1])
    assert done["error"] is False
