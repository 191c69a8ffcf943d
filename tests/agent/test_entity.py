"""The agent entity: what it keeps per conversation, and who may talk in one."""

import asyncio

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.helpers.common import ask
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls


@pytest.mark.usefixtures("loaded_entry")
async def test_concurrent_conversations_stay_apart(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Two kitchens talk at once; neither request carries the other's words."""
    llm_server.reply(Text("Answer one.", chunk_delay=0.01), Text("Answer two."))

    await asyncio.gather(
        ask(hass, "Secret of the first kitchen", "first"),
        ask(hass, "Secret of the second kitchen", "second"),
    )

    for request in llm_server.chat_requests:
        users = [m["content"] for m in request["messages"] if m["role"] == "user"]
        assert len(users) == 1
    llm_server.reply(Text("Still the first."))
    await ask(hass, "And now?", "first")
    texts = [m.get("content") for m in llm_server.last_chat_request["messages"]]
    assert "Secret of the first kitchen" in texts
    assert "Secret of the second kitchen" not in texts


async def test_a_second_turn_while_the_first_answers_is_refused(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """Two turns at once in one conversation: the second hears it must wait.

    The first goes on, and its tool call still runs through the agent's guard:
    its result is there when the model answers.
    """
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"})], delay=0.3),
        Text("The light is on."),
    )
    first = hass.async_create_task(ask(hass, "Turn on the kitchen light", "busy"))
    await asyncio.sleep(0.1)

    second = await ask(hass, "And the radio", "busy")
    answered = await first

    assert second.response.response_type is intent.IntentResponseType.ERROR
    assert answered.response.speech["plain"]["speech"] == "The light is on."
    assert hass.states.get(kitchen_light).state == "on"
    assert llm_server.last_chat_request["messages"][-1]["role"] == "tool"
