"""Questions about the home answered from its state, through Home Assistant.

Each story runs a real Home Assistant, the agent, the openai SDK and the
scripted server: what the model reads is the request the server received.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.conversation.trace import async_get_traces
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant

from custom_components.chatterbox.const import CONF_MAX_ITERATIONS, CONF_STATES_IN_VIEW
from tests.helpers.common import MODELS, ask
from tests.helpers.llm_server import LLMServer, Text


def speech(result: conversation.ConversationResult) -> str:
    """Return what the user hears."""
    return str(result.response.speech["plain"]["speech"])


def traced(key: str) -> list[Any]:
    """Return what the last turn's Assist debug trace holds under key."""
    trace = async_get_traces()[-1].as_dict()
    return [
        event["data"][key] for event in trace["events"] if key in event.get("data", {})
    ]


def user_messages(request: dict[str, Any]) -> list[str]:
    """Return the text of each user message of a request."""
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_question_about_a_lock_carries_its_state(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks whether the front door is locked; the model reads that it is.

    The answer needs no tool call: the state is in the request, after the
    question, and the next turn sends it again in the same place.
    """
    llm_server.reply(Text("Yes, the front door is locked."))

    result = await ask(hass, "Is the front door locked?")

    assert speech(result) == "Yes, the front door is locked."
    (question,) = user_messages(llm_server.last_chat_request)
    assert question.startswith("Is the front door locked?\n\n")
    assert "- Front door (lock): locked" in question
    assert traced("chatterbox_states_in_view") == [
        {"entities": ["lock.front_door"], "areas": []}
    ]

    llm_server.reply(Text("You're welcome."))
    await ask(hass, "Thanks", result.conversation_id)

    first, thanks = user_messages(llm_server.last_chat_request)
    assert first == question
    assert thanks == "Thanks"


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_an_area_brings_its_devices_into_view(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks about the garage: its door and its relay are in view."""
    llm_server.reply(Text("The garage door is closed."))

    await ask(hass, "Is everything shut in the garage?")

    (question,) = user_messages(llm_server.last_chat_request)
    assert "- Garage door (cover in Garage): closed" in question
    assert "- Garage relay (button in Garage)" in question
    assert "Front door" not in question


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_an_entity_not_exposed_is_never_shown(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The pond pump is hidden from Assist: its name brings nothing into view."""
    async_expose_entity(
        hass, conversation.DOMAIN, "switch.pond_pump", should_expose=False
    )
    llm_server.reply(Text("I can't see a pond pump."))

    await ask(hass, "Is the pond pump running?")

    assert user_messages(llm_server.last_chat_request) == ["Is the pond pump running?"]


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            CONF_MODEL: MODELS[0],
            CONF_LLM_HASS_API: ["assist"],
            CONF_MAX_ITERATIONS: 10,
            CONF_STATES_IN_VIEW: False,
        },
        {CONF_MODEL: MODELS[0], CONF_MAX_ITERATIONS: 10},
    ],
    ids=["option-off", "no-assist-api"],
)
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_no_states_with_the_option_off_or_without_assist(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """With the option off, or no Assist API, the question goes as it was said."""
    llm_server.reply(Text("I don't know."))

    await ask(hass, "Is the front door locked?")

    assert user_messages(llm_server.last_chat_request) == ["Is the front door locked?"]
