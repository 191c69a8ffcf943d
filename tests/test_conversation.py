"""Talking to a Chatterbox agent: what the user hears, what happens at home."""

from homeassistant.components import conversation
from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT, MATCH_ALL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.helpers.common import AGENT_ENTITY_ID, AGENT_ID, MODELS, ask
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls


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


async def test_home_assistant_refusal_reaches_the_model(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """An intent that matches nothing comes back as an error the model explains."""
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", {"name": "Garage door"})]),
        Text("I can't find a garage door."),
    )

    result = await ask(hass, "Open the garage door")

    assert result.response.speech["plain"]["speech"] == "I can't find a garage door."
    tool_message = llm_server.last_chat_request["messages"][-1]
    assert '"error":true' in tool_message["content"]
    assert "MatchFailedError" in tool_message["content"]
    assert hass.states.get(kitchen_light).state == "off"


async def test_agent_without_tools_only_chats(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """With no LLM API selected, no tools are sent and the agent cannot control."""
    subentry = loaded_entry.subentries[AGENT_ID]
    hass.config_entries.async_update_subentry(
        loaded_entry,
        subentry,
        data={key: v for key, v in subentry.data.items() if key != CONF_LLM_HASS_API},
    )
    await hass.async_block_till_done()
    llm_server.reply(Text("Hello!"))

    result = await ask(hass, "Hi")

    assert result.response.speech["plain"]["speech"] == "Hello!"
    assert "tools" not in llm_server.last_chat_request
    state = hass.states.get(AGENT_ENTITY_ID)
    assert state is not None
    assert not state.attributes.get("supported_features")


async def test_agent_speaks_every_language_and_may_control(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """The agent offers all languages, and control when the Assist API is set."""
    state = hass.states.get(AGENT_ENTITY_ID)
    assert state is not None
    assert state.attributes["supported_features"] == (
        conversation.ConversationEntityFeature.CONTROL
    )
    assert conversation.async_get_conversation_languages(hass, AGENT_ENTITY_ID) == (
        MATCH_ALL
    )


async def test_broken_prompt_template_is_reported(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A prompt template that does not render ends the turn before any request."""
    subentry = loaded_entry.subentries[AGENT_ID]
    hass.config_entries.async_update_subentry(
        loaded_entry, subentry, data={**subentry.data, CONF_PROMPT: "{{ broken"}
    )
    await hass.async_block_till_done()

    result = await ask(hass, "Hi")

    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert "template" in result.response.speech["plain"]["speech"]
    assert llm_server.chat_requests == []


async def test_a_question_keeps_the_conversation_open(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """An answer that asks something lets a voice satellite listen again."""
    llm_server.reply(Text("Which room do you mean?"), Text("Okay."))

    asking = await ask(hass, "Turn on the light")
    done = await ask(hass, "The hall", asking.conversation_id)

    assert asking.continue_conversation is True
    assert done.continue_conversation is False
