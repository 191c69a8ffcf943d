"""Tests for converting chat log content and tools to the wire format."""

from collections.abc import Callable
from datetime import UTC, datetime
import json
from pathlib import Path
from typing import Any, override

import probatio as vol
import pytest

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import config_validation as cv, llm, selector

from custom_components.chatterbox.wire.messages import (
    content_to_messages,
    with_text_tool_calls,
)
from custom_components.chatterbox.wire.schema import format_tool

AGENT = "conversation.chatterbox"


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


def test_a_conversation_with_tool_calls() -> None:
    """Send the whole exchange, thinking left out, results as JSON."""
    content: list[conversation.Content] = [
        conversation.SystemContent(content="You are a voice assistant."),
        conversation.UserContent(content="Turn on the kitchen light"),
        conversation.AssistantContent(
            agent_id=AGENT,
            content="",
            thinking_content="The user wants the kitchen light on.",
            tool_calls=[
                llm.ToolInput(
                    tool_name="HassTurnOn",
                    tool_args={"name": "Küchenlicht"},
                    id="call_1",
                )
            ],
        ),
        conversation.ToolResultContent(
            agent_id=AGENT,
            tool_call_id="call_1",
            tool_name="HassTurnOn",
            result=llm.ToolResult(data={"speech": {}, "response_type": "action_done"}),
        ),
        conversation.AssistantContent(
            agent_id=AGENT,
            content="The kitchen light is on.",
            thinking_content="Done, tell the user.",
        ),
    ]

    messages = content_to_messages(content)

    assert messages == [
        {"role": "system", "content": "You are a voice assistant."},
        {"role": "user", "content": "Turn on the kitchen light"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "HassTurnOn",
                        "arguments": '{"name":"Küchenlicht"}',
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": (
                '{"data":{"speech":{},"response_type":"action_done"},"error":false}'
            ),
        },
        {"role": "assistant", "content": "The kitchen light is on."},
    ]
    assert "thinking" not in json.dumps(messages)


def test_the_content_of_an_assistant_tool_call_message_is_kept() -> None:
    """Send the words that came with a tool call alongside it."""
    messages = content_to_messages(
        [
            conversation.AssistantContent(
                agent_id=AGENT,
                content="Let me check.",
                tool_calls=[
                    llm.ToolInput(tool_name="GetLiveContext", tool_args={}, id="c")
                ],
            )
        ]
    )

    assert messages == [
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "GetLiveContext", "arguments": "{}"},
                }
            ],
        }
    ]


def test_an_error_result_says_so() -> None:
    """Send the error flag with the data of a failed tool call."""
    messages = content_to_messages(
        [
            conversation.ToolResultContent(
                agent_id=AGENT,
                tool_call_id="call_9",
                tool_name="HassTurnOn",
                result=llm.ToolResult(
                    data={"error": "HomeAssistantError", "error_text": "No device"},
                    error=True,
                ),
            )
        ]
    )

    assert messages == [
        {
            "role": "tool",
            "tool_call_id": "call_9",
            "content": json.dumps(
                {
                    "data": {"error": "HomeAssistantError", "error_text": "No device"},
                    "error": True,
                },
                separators=(",", ":"),
            ),
        }
    ]


def test_result_data_that_plain_json_cannot_encode() -> None:
    """Encode dates and other Home Assistant values the way Home Assistant does."""
    moment = datetime(2026, 10, 4, 12, 30, tzinfo=UTC)

    messages = content_to_messages(
        [
            conversation.ToolResultContent(
                agent_id=AGENT,
                tool_call_id="t",
                tool_name="GetDateTime",
                result=llm.ToolResult(data={"now": moment, "tags": {"a"}}),  # type: ignore[dict-item]
            )
        ]
    )

    assert json.loads(str(messages[0]["content"])) == {
        "data": {"now": "2026-10-04T12:30:00+00:00", "tags": ["a"]},
        "error": False,
    }


def test_the_deprecated_tool_result_is_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read result, not the tool_result shim that reports deprecated use."""

    def fail(self: conversation.ToolResultContent) -> None:
        raise AssertionError

    monkeypatch.setattr(
        conversation.ToolResultContent, "tool_result", property(fail), raising=True
    )

    messages = content_to_messages(
        [
            conversation.ToolResultContent(
                agent_id=AGENT,
                tool_call_id="t",
                tool_name="X",
                result=llm.ToolResult(data={"ok": 1}),
            )
        ]
    )

    assert messages[0]["content"] == '{"data":{"ok":1},"error":false}'


def test_external_tool_calls_are_sent_like_any_other() -> None:
    """Send the calls that the default agent made itself, with their results."""
    messages = content_to_messages(
        [
            conversation.UserContent(content="What time is it?"),
            conversation.AssistantContent(
                agent_id="conversation.home_assistant",
                tool_calls=[
                    llm.ToolInput(
                        tool_name="HassGetCurrentTime",
                        tool_args={},
                        id="ext_1",
                        external=True,
                    )
                ],
            ),
            conversation.ToolResultContent(
                agent_id="conversation.home_assistant",
                tool_call_id="ext_1",
                tool_name="HassGetCurrentTime",
                result=llm.ToolResult(data={"time": "12:30"}),
            ),
            conversation.AssistantContent(
                agent_id="conversation.home_assistant", content="It is 12:30."
            ),
        ]
    )

    assert [message["role"] for message in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "ext_1",
                "type": "function",
                "function": {"name": "HassGetCurrentTime", "arguments": "{}"},
            }
        ],
    }
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "ext_1",
        "content": '{"data":{"time":"12:30"},"error":false}',
    }


def test_the_placeholder_system_prompt_is_left_out() -> None:
    """Skip the empty system message a chat log starts with."""
    messages = content_to_messages(
        [
            conversation.SystemContent(content=""),
            conversation.UserContent(content="Hi"),
        ]
    )

    assert messages == [{"role": "user", "content": "Hi"}]


def test_an_answer_without_words_keeps_its_turn() -> None:
    """Send an empty answer, so user and assistant turns still alternate."""
    messages = content_to_messages(
        [
            conversation.UserContent(content="Hmm"),
            conversation.AssistantContent(agent_id=AGENT, thinking_content="Silence."),
            conversation.UserContent(content="Hello?"),
            conversation.AssistantContent(agent_id=AGENT, content=""),
        ]
    )

    assert messages == [
        {"role": "user", "content": "Hmm"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "Hello?"},
        {"role": "assistant", "content": ""},
    ]


def test_attachments_are_not_sent(tmp_path: Path) -> None:
    """Send the text of a message with an attachment."""
    messages = content_to_messages(
        [
            conversation.UserContent(
                content="What is this?",
                attachments=[
                    conversation.Attachment(
                        media_content_id="media-source://camera/front",
                        mime_type="image/jpeg",
                        path=tmp_path / "front.jpg",
                    )
                ],
            )
        ]
    )

    assert messages == [{"role": "user", "content": "What is this?"}]


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


def test_text_mode_writes_calls_and_results_as_text() -> None:
    """For a server without tool support, calls and results become plain turns.

    The user asked for two lights; the model called two tools in one round and
    then answered. Results of one round share one user message, so the roles
    still alternate.
    """
    messages = content_to_messages(
        [
            conversation.SystemContent("Be brief."),
            conversation.UserContent("Lights on in the hall and kitchen"),
            conversation.AssistantContent(
                AGENT,
                "Sure.",
                tool_calls=[
                    llm.ToolInput("HassTurnOn", {"name": "hall"}, id="c1"),
                    llm.ToolInput("HassTurnOn", {"name": "kitchen"}, id="c2"),
                ],
            ),
            conversation.ToolResultContent(
                AGENT, "c1", "HassTurnOn", llm.ToolResult(data={"ok": 1})
            ),
            conversation.ToolResultContent(
                AGENT, "c2", "HassTurnOn", llm.ToolResult(data={"ok": 2})
            ),
            conversation.AssistantContent(AGENT, "Both are on."),
        ]
    )

    text = with_text_tool_calls(messages)

    assert [m["role"] for m in text] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert text[2]["content"] == (
        "Sure.\n"
        '<tool_call>\n{"name":"HassTurnOn","arguments":{"name":"hall"}}\n</tool_call>\n'
        '<tool_call>\n{"name":"HassTurnOn","arguments":{"name":"kitchen"}}\n</tool_call>'
    )
    assert text[3]["content"] == (
        '<tool_response>\n{"data":{"ok":1},"error":false}\n</tool_response>\n'
        '<tool_response>\n{"data":{"ok":2},"error":false}\n</tool_response>'
    )
    assert text[4] == messages[-1]
    # The native messages are left as they were.
    assert messages[3]["role"] == "tool"


def test_text_mode_keeps_arguments_that_are_not_json() -> None:
    """A call whose arguments never parsed is written with them as text."""
    messages: list[Any] = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Trying."}],
            "tool_calls": [
                {
                    "type": "function",
                    "id": "c1",
                    "function": {"name": "GetState", "arguments": "{broken"},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [{"type": "text", "text": "E"}],
        },
    ]

    text = with_text_tool_calls(messages)

    assert text[0]["content"] == (
        'Trying.\n<tool_call>\n{"name":"GetState","arguments":"{broken"}\n</tool_call>'
    )
    assert text[1] == {
        "role": "user",
        "content": "<tool_response>\nE\n</tool_response>",
    }
