"""Home Assistant's tools described as JSON schemas servers accept."""

from collections.abc import Callable
from typing import Any, override

import probatio as vol
import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import config_validation as cv, llm, selector

from custom_components.chatterbox.wire.schema import format_tool, without_long_lists


class FakeTool(llm.Tool):
    """A tool that only describes itself."""

    def __init__(
        self,
        name: str,
        parameters: vol.Schema,
        description: str | None = "Do the thing.",
    ) -> None:
        """Describe the tool."""
        self.name = name
        self.parameters = parameters
        self.description = description

    @override
    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Do nothing."""
        raise NotImplementedError


def parameters_of(
    tool: llm.Tool, custom_serializer: Callable[[Any], Any] | None
) -> dict[str, Any]:
    """Return the parameter schema that format_tool gives a tool."""
    return dict(format_tool(tool, custom_serializer)["function"]["parameters"])


def test_a_tool_without_parameters() -> None:
    """Describe a tool that takes nothing as an empty object."""
    tool = FakeTool("GetLiveContext", vol.Schema({}), "Get the state of devices.")

    assert format_tool(tool, llm.selector_serializer) == {
        "type": "function",
        "function": {
            "name": "GetLiveContext",
            "description": "Get the state of devices.",
            "parameters": {
                "type": "object",
                "properties": {},
                "additionalProperties": False,
            },
        },
    }


def test_a_tool_without_a_description() -> None:
    """Leave the description out rather than sending null."""
    tool = FakeTool("x", vol.Schema({}), description=None)

    assert "description" not in format_tool(tool, None)["function"]


@pytest.mark.parametrize(
    "parameters",
    [vol.Schema(dict), vol.Schema(object), vol.Schema({}, extra=vol.ALLOW_EXTRA)],
)
def test_an_open_schema_gets_properties(parameters: vol.Schema) -> None:
    """Give every tool an object with properties, which chat templates read."""
    schema = parameters_of(FakeTool("x", parameters), None)

    assert schema["type"] == "object"
    assert schema["properties"] == {}


def test_intent_slots_are_described() -> None:
    """Describe typical intent slots, serializing Home Assistant validators."""
    tool = FakeTool(
        "HassLightSet",
        vol.Schema(
            {
                vol.Optional("name"): cv.string,
                vol.Optional("area"): cv.string,
                vol.Optional("brightness"): vol.All(
                    vol.Coerce(int), vol.Range(min=0, max=100)
                ),
                vol.Optional("color"): vol.Maybe(vol.In(["red", "blue"])),
                vol.Required("on"): cv.boolean,
            }
        ),
    )

    schema = parameters_of(tool, llm.selector_serializer)

    assert schema == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "area": {"type": "string"},
            "brightness": {"type": "integer", "minimum": 0, "maximum": 100},
            "color": {
                "anyOf": [
                    {"type": "null"},
                    {"type": "string", "enum": ["red", "blue"]},
                ]
            },
            "on": {"type": "boolean"},
        },
        "required": ["on"],
        "additionalProperties": False,
    }


def test_keywords_that_servers_choke_on_are_dropped() -> None:
    """Drop presence rules, negations and patterns, at the top and nested."""
    tool = FakeTool(
        "Configure",
        vol.Schema(
            {
                vol.Exclusive("name", "target"): str,
                vol.Exclusive("area", "target"): str,
                vol.Required(vol.Any("level", "step")): int,
                vol.Optional("count", default=3): vol.All(int, vol.NotIn([5])),
                vol.Optional("location"): selector.BackupLocationSelector(),
                vol.Optional("group"): {
                    vol.Inclusive("lat", "coords"): float,
                    vol.Inclusive("lon", "coords"): float,
                },
                # Properties that share a name with a keyword stay.
                vol.Optional("not"): str,
                vol.Optional("pattern"): str,
                vol.Optional("anyOf"): str,
            }
        ),
    )

    schema = parameters_of(tool, llm.selector_serializer)

    assert schema == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "area": {"type": "string"},
            "level": {"type": "integer"},
            "step": {"type": "integer"},
            "count": {"type": "integer", "default": 3},
            "location": {"type": "string"},
            "group": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                "additionalProperties": False,
            },
            "not": {"type": "string"},
            "pattern": {"type": "string"},
            "anyOf": {"type": "string"},
        },
        "additionalProperties": False,
    }


def test_schemas_inside_lists_and_definitions_are_cleaned() -> None:
    """Clean schemas in items, unions and definitions, and no literal data."""

    def serializer(value: Any) -> Any:
        if value is cv.string:
            return {
                "type": "array",
                "items": {"type": "string", "pattern": "^a$"},
                "anyOf": [{"not": {"const": "x"}}, {"enum": [{"not": 1}]}],
                "$defs": {"Node": {"type": "string", "pattern": "b"}},
                "default": [{"pattern": "kept"}],
            }
        return vol.UNSUPPORTED

    tool = FakeTool("x", vol.Schema({vol.Required("tags"): cv.string}))

    schema = parameters_of(tool, serializer)

    assert schema["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "anyOf": [{}, {"enum": [{"not": 1}]}],
        "$defs": {"Node": {"type": "string"}},
        "default": [{"pattern": "kept"}],
    }


def test_the_custom_serializer_is_used() -> None:
    """Render values through the serializer of the LLM API."""

    def serializer(value: Any) -> Any:
        if value is cv.string:
            return {"type": "string", "format": "entity-name"}
        return vol.UNSUPPORTED

    tool = FakeTool("x", vol.Schema({vol.Required("name"): cv.string}))

    schema = parameters_of(tool, serializer)

    assert schema["properties"]["name"] == {"type": "string", "format": "entity-name"}


def test_selectors_are_described_without_a_serializer() -> None:
    """Describe selectors for APIs that give no serializer, such as MCP."""
    tool = FakeTool(
        "PlayMedia",
        vol.Schema(
            {vol.Required("source"): selector.SelectSelector({"options": ["a"]})}
        ),
    )

    schema = parameters_of(tool, None)

    assert schema["properties"]["source"] == {"type": "string", "enum": ["a"]}


def test_a_long_list_of_allowed_values_is_not_sent() -> None:
    """Twenty-one device classes go; three forecast kinds and a lone enum stay."""
    classes = [f"class_{n}" for n in range(21)]
    kinds = ["daily", "hourly", "twice_daily"]
    tool = FakeTool(
        "HassTurnOn",
        vol.Schema(
            {
                vol.Optional("device_class"): [vol.In(classes)],
                vol.Optional("forecast"): [vol.In(kinds)],
                vol.Optional("unit"): vol.In(classes),
            }
        ),
    )
    spec = format_tool(tool, llm.selector_serializer)

    sent = dict(without_long_lists(spec)["function"]["parameters"])["properties"]

    assert sent["device_class"] == {"type": "array", "items": {"type": "string"}}
    assert sent["forecast"]["items"]["enum"] == kinds
    assert sent["unit"]["enum"] == classes
    plain = format_tool(FakeTool("Ping", vol.Schema({})), None)
    assert without_long_lists(plain) is plain
