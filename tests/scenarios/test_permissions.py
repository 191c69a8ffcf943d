"""Who may do what through the agent: admin-only tools, conversations, entities.

Everything goes through a real Home Assistant, the agent, the openai SDK and
the scripted server: what a user may not see must never reach the model.
"""

import json

import pytest

from homeassistant.auth.const import GROUP_ID_USER
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockUser

from custom_components.chatterbox.const import CONF_MAX_ITERATIONS
from tests.helpers.common import MODELS, ask
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.skills import offered_tools

# HA 2026.11 added admin-only LLM APIs (the "homeassistant" API) and chat
# sessions owned by the user who started them; 2026.10 has neither.
ADMIN_ONLY_APIS = hasattr(llm.API, "requires_admin")
LLM_API_HOME_ASSISTANT = "homeassistant"
ADMIN_TOOLS = ("homeassistant__call_action", "homeassistant__render_template")


def as_user(user: MockUser) -> Context:
    """Return the context of a request made by a signed-in user."""
    return Context(user_id=user.id)


@pytest.fixture
async def family_member(hass: HomeAssistant, local_auth: object) -> MockUser:
    """Add a user who is not an admin and may control the home."""
    users = await hass.auth.async_get_group(GROUP_ID_USER)
    return MockUser(name="Family member", groups=[users]).add_to_hass(hass)


def speech(result: conversation.ConversationResult) -> str:
    """Return what the user hears."""
    return str(result.response.speech["plain"]["speech"])


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent Assist and, where Home Assistant has it, the admin-only API."""
    apis = [llm.LLM_API_ASSIST]
    if ADMIN_ONLY_APIS:
        apis.append(LLM_API_HOME_ASSISTANT)
    return {CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: apis, CONF_MAX_ITERATIONS: 10}


# Admin-only tools


@pytest.mark.skipif(
    not ADMIN_ONLY_APIS, reason="HA 2026.10 has no admin-only LLM API to withhold"
)
@pytest.mark.usefixtures("loaded_entry", "kitchen_light")
async def test_only_an_admin_gets_the_admin_only_api(
    hass: HomeAssistant,
    llm_server: LLMServer,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    """An admin's turn offers the homeassistant API's tools; a user's never does."""
    llm_server.reply(Text("Hello, admin."))

    result = await ask(hass, "Hi", context=as_user(hass_admin_user))

    assert speech(result) == "Hello, admin."
    assert set(ADMIN_TOOLS) <= set(offered_tools(llm_server.last_chat_request))

    sent = len(llm_server.chat_requests)
    llm_server.reply(Text("Hello, user."))

    result = await ask(hass, "Hi", context=as_user(hass_read_only_user))

    # Home Assistant would refuse the whole turn; the agent leaves the
    # admin-only API out, and the user talks with Assist's tools alone.
    assert speech(result) == "Hello, user."
    assert len(llm_server.chat_requests) == sent + 1
    tools = offered_tools(llm_server.last_chat_request)
    assert "intent__HassTurnOn" in tools
    assert not set(ADMIN_TOOLS) & set(tools)


@pytest.mark.usefixtures("loaded_entry", "kitchen_light")
async def test_a_read_only_user_gets_only_the_assist_tools(
    hass: HomeAssistant, llm_server: LLMServer, hass_read_only_user: MockUser
) -> None:
    """A non-admin's turn goes out with Assist's tools alone, none admin-only."""
    llm_server.reply(Text("The kitchen light is off."))

    result = await ask(
        hass, "Is the kitchen light on?", context=as_user(hass_read_only_user)
    )

    # The agent also has the admin-only API where Home Assistant has one.
    assert speech(result) == "The kitchen light is off."
    tools = offered_tools(llm_server.last_chat_request)
    assert "intent__HassTurnOn" in tools
    assert not [tool for tool in tools if tool in ADMIN_TOOLS]


# Whose conversation

ASSIST_ONLY = {
    CONF_MODEL: MODELS[0],
    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
    CONF_MAX_ITERATIONS: 10,
}
PRIVATE = "my sister visits on Friday"


@pytest.mark.parametrize("agent_data", [ASSIST_ONLY])
@pytest.mark.usefixtures("loaded_entry")
async def test_another_user_cannot_continue_a_conversation(
    hass: HomeAssistant,
    llm_server: LLMServer,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    """A tells the agent something private; B, with A's conversation, can't see it.

    Home Assistant 2026.11 refuses B itself; on 2026.10 the agent does.
    """
    llm_server.reply(Text("Noted."))
    first = await ask(hass, f"Remember: {PRIVATE}.", context=as_user(hass_admin_user))
    assert speech(first) == "Noted."
    assert PRIVATE in json.dumps(llm_server.last_chat_request)
    sent = len(llm_server.chat_requests)

    # The answer that would repeat it waits at the server.
    llm_server.reply(Text("You said your sister visits on Friday."))
    second = await ask(
        hass,
        "What did I tell you?",
        first.conversation_id,
        context=as_user(hass_read_only_user),
    )

    # B's turn is refused before the model is asked: the answer still waits.
    assert second.response.response_type == intent.IntentResponseType.ERROR
    assert PRIVATE not in speech(second)
    assert len(llm_server.chat_requests) == sent
    assert llm_server.pending == 1

    # A's conversation goes on for A, with its history.
    third = await ask(
        hass,
        "What did I tell you?",
        first.conversation_id,
        context=as_user(hass_admin_user),
    )
    assert speech(third) == "You said your sister visits on Friday."
    assert PRIVATE in json.dumps(llm_server.last_chat_request)


LOCK = "lock.front_door"
BACK_DOOR = "lock.back_door"


@pytest.fixture
async def doors(ha_core: HomeAssistant) -> None:
    """Add two real locks that start locked: Front door exposed, Back door not."""
    bolts = {"front_bolt": {"initial": True}, "back_bolt": {"initial": True}}
    assert await async_setup_component(
        ha_core, "input_boolean", {"input_boolean": bolts}
    )
    locks = []
    for name, bolt in (("Front door", "front_bolt"), ("Back door", "back_bolt")):
        target = {"target": {"entity_id": f"input_boolean.{bolt}"}}
        locks.append(
            {
                "name": name,
                "state": f"{{{{ is_state('input_boolean.{bolt}', 'on') }}}}",
                "lock": [{"action": "input_boolean.turn_on", **target}],
                "unlock": [{"action": "input_boolean.turn_off", **target}],
            }
        )
    assert await async_setup_component(
        ha_core, "template", {"template": [{"lock": locks}]}
    )
    await ha_core.async_block_till_done()
    for entity_id, exposed in (
        (LOCK, True),
        (BACK_DOOR, False),
        ("input_boolean.front_bolt", False),
        ("input_boolean.back_bolt", False),
    ):
        async_expose_entity(
            ha_core, conversation.DOMAIN, entity_id, should_expose=exposed
        )
    assert ha_core.states.get(LOCK).state == "locked"
    assert ha_core.states.get(BACK_DOOR).state == "locked"


@pytest.mark.parametrize("agent_data", [ASSIST_ONLY])
@pytest.mark.usefixtures("loaded_entry", "doors")
async def test_another_user_cannot_say_yes_to_a_held_unlock(
    hass: HomeAssistant,
    llm_server: LLMServer,
    hass_admin_user: MockUser,
    family_member: MockUser,
) -> None:
    """A asks to unlock and is asked first; B's yes in A's conversation does nothing."""
    question = "Do you want me to unlock Front door?"
    llm_server.reply(
        ToolCalls([Call("HassTurnOff", {"name": "Front door"})]), Text(question)
    )
    held = await ask(hass, "Unlock the front door", context=as_user(hass_admin_user))
    assert speech(held) == question
    sent = len(llm_server.chat_requests)

    llm_server.reply(Text("Yes to what?"))
    await ask(hass, "Yes.", held.conversation_id, context=as_user(family_member))

    assert hass.states.get(LOCK).state == "locked"
    # B's turn is refused (by HA 2026.11, or by the agent on 2026.10), and A's
    # held call is not B's to confirm: no unlock was run either way.
    results = [
        message["content"]
        for request in llm_server.chat_requests[sent:]
        for message in request["messages"][-1:]
        if message["role"] == "tool"
    ]
    assert not results


# Only exposed entities


@pytest.mark.parametrize("agent_data", [ASSIST_ONLY])
@pytest.mark.usefixtures("loaded_entry")
async def test_an_unexposed_switch_cannot_be_turned_on_or_read(
    hass: HomeAssistant, llm_server: LLMServer, kitchen_light: str
) -> None:
    """The light is exposed, its power switch is not: the model can't touch it."""
    power = "input_boolean.kitchen_power"
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen power"})]),
        ToolCalls([Call("GetLiveContext", {})]),
        Text("I can only see the kitchen light."),
    )

    result = await ask(hass, "Switch on the kitchen power")

    assert speech(result) == "I can only see the kitchen light."
    assert hass.states.get(power).state == "off"
    turned_on, live_context = (
        json.loads(request["messages"][-1]["content"])
        for request in llm_server.chat_requests[1:]
    )
    # Refused as if it did not exist, and missing from the live context.
    assert turned_on["error"] is True
    assert turned_on["data"]["error"] == "MatchFailedError"
    assert "Kitchen light" in json.dumps(live_context)
    assert "Kitchen power" not in json.dumps(live_context)
    # No request names the switch's entity or its domain.
    assert "input_boolean" not in json.dumps(llm_server.chat_requests)


@pytest.mark.parametrize("agent_data", [ASSIST_ONLY])
@pytest.mark.usefixtures("loaded_entry", "doors")
async def test_an_unexposed_lock_is_neither_unlocked_nor_named(
    hass: HomeAssistant, llm_server: LLMServer, hass_admin_user: MockUser
) -> None:
    """The back door is not exposed: no question names it and it stays locked."""
    llm_server.reply(
        ToolCalls([Call("HassTurnOff", {"name": "Back door"})]),
        Text("I can't find a back door."),
    )

    result = await ask(hass, "Unlock the back door", context=as_user(hass_admin_user))

    assert speech(result) == "I can't find a back door."
    assert hass.states.get(BACK_DOOR).state == "locked"
    answered = json.loads(llm_server.last_chat_request["messages"][-1]["content"])
    assert answered["error"] is True
    # The sensitive-action check matches only exposed entities, as the intent
    # does: the refusal is the intent's, not a question that names the door.
    assert "ConfirmationNeeded" not in json.dumps(answered)

    # Even after a yes, nothing is held that could unlock it.
    llm_server.reply(Text("There is nothing to confirm."))
    await ask(hass, "Yes", result.conversation_id, context=as_user(hass_admin_user))
    assert hass.states.get(BACK_DOOR).state == "locked"
