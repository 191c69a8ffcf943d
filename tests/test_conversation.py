"""Talking to a Chatterbox agent: what the user hears, what happens at home."""

from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from pytest_homeassistant_custom_component.common import MockConfigEntry

from .conftest import MODELS, ask
from .llm_server import Call, LLMServer, Text, ToolCalls


async def test_plain_answer(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The user asks a question; the model answers; the user hears it."""
    llm_server.reply(Text("Bread, milk and eggs."))

    result = await ask(hass, "What is on the shopping list?")

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert result.response.speech["plain"]["speech"] == "Bread, milk and eggs."
    request = llm_server.last_chat_request
    assert request["model"] == MODELS[0]
    assert request["stream"] is True
    assert request["messages"][0]["role"] == "system"
    assert request["messages"][-1] == {
        "role": "user",
        "content": "What is on the shopping list?",
    }


async def test_turn_on_the_kitchen_light(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """The model calls HassTurnOn; the light is on; the model confirms."""
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", {"name": "Kitchen light"})]),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    first, second = llm_server.chat_requests
    assert "intent__HassTurnOn" in {tool["function"]["name"] for tool in first["tools"]}
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == "call_1"
    assert "Kitchen light" in tool_message["content"]
