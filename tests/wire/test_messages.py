"""The chat log as chat completions messages, with calls native or as text."""

import json
from pathlib import Path
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.wire.messages import (
    content_to_messages,
    with_text_tool_calls,
)
from tests.helpers.common import ask
from tests.helpers.llm_server import LLMServer, Text

AGENT = "conversation.chatterbox"


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


def test_calls_left_out_are_not_sent_nor_their_results() -> None:
    """A call left out goes with its result; the calls beside it stay."""

    def call(call_id: str, city: str) -> llm.ToolInput:
        return llm.ToolInput("GetForecast", {"city": city}, id=call_id)

    def result(call_id: str) -> conversation.ToolResultContent:
        return conversation.ToolResultContent(
            agent_id=AGENT,
            tool_call_id=call_id,
            tool_name="GetForecast",
            result=llm.ToolResult({"sky": "sunny"}),
        )

    content: list[conversation.Content] = [
        conversation.UserContent(content="Weather in Nice and Oslo?"),
        conversation.AssistantContent(agent_id=AGENT, tool_calls=[call("a", "Nice")]),
        result("a"),
        conversation.AssistantContent(
            agent_id=AGENT, tool_calls=[call("b", "Nice"), call("c", "Oslo")]
        ),
        result("b"),
        result("c"),
        conversation.AssistantContent(
            agent_id=AGENT, content="Let me look.", tool_calls=[call("d", "Oslo")]
        ),
        result("d"),
        conversation.AssistantContent(agent_id=AGENT, tool_calls=[call("e", "Oslo")]),
        result("e"),
    ]

    messages = content_to_messages(content, leave_out={"b", "d", "e"})

    assert [message["role"] for message in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert [call["id"] for call in messages[3]["tool_calls"]] == ["c"]
    assert messages[4]["tool_call_id"] == "c"
    # Words said with a call left out stay, as an answer of their own.
    assert messages[5] == {"role": "assistant", "content": "Let me look."}


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
    # "Sure." came before the calls: not sent back in text mode, where small
    # models repeat their guess of the answer after the results.
    assert text[2]["content"] == (
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
        '<tool_call>\n{"name":"GetState","arguments":"{broken"}\n</tool_call>'
    )
    assert text[1] == {
        "role": "user",
        "content": "<tool_response>\nE\n</tool_response>",
    }


async def test_history_includes_what_home_assistant_did_itself(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """A local sentence handled by Home Assistant's agent is in the next request."""
    assert await async_setup_component(hass, "intent", {})
    local = await conversation.async_converse(
        hass,
        "turn on the kitchen light",
        "shared",
        Context(),
        agent_id=conversation.HOME_ASSISTANT_AGENT,
        language="en",
    )
    assert local.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert hass.states.get(kitchen_light).state == "on"
    llm_server.reply(Text("It is on, yes."))

    result = await ask(hass, "Is it on now?", "shared")

    assert result.response.speech["plain"]["speech"] == "It is on, yes."
    messages = llm_server.last_chat_request["messages"]
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    (call,) = messages[2]["tool_calls"]
    assert call["function"]["name"] == "HassTurnOn"
    assert messages[3]["tool_call_id"] == call["id"]
    assert messages[1]["content"] == "turn on the kitchen light"


def test_the_assistants_messages_in_a_row_go_as_one() -> None:
    """A claim, then the answer given again with a call: one assistant turn.

    Chat templates of Mistral and Gemma refuse two assistant messages in a
    row; the chat log holds them when the agent speaks after the model, or
    when the model answers again after a note.
    """
    call = llm.ToolInput("HassTurnOn", {"name": "Kitchen light"}, "call_1")
    messages = content_to_messages(
        [
            conversation.UserContent("Turn on the kitchen light"),
            conversation.AssistantContent("agent", "It has been turned on."),
            conversation.AssistantContent("agent", None, tool_calls=[call]),
            conversation.ToolResultContent(
                "agent", "call_1", "HassTurnOn", llm.ToolResult({"success": True})
            ),
            conversation.AssistantContent("agent", "It is on."),
            conversation.AssistantContent("agent", "Sorry, nothing changed."),
        ]
    )

    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["content"] == "It has been turned on."
    assert messages[1]["tool_calls"][0]["id"] == "call_1"
    assert messages[3] == {
        "role": "assistant",
        "content": "It is on.\n\nSorry, nothing changed.",
    }
