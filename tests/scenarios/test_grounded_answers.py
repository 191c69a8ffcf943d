"""Questions about the home answered from its state, through Home Assistant.

Each story runs a real Home Assistant, the agent, the openai SDK and the
scripted server: what the model reads is the request the server received.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er, intent
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_mock_service

from custom_components.chatterbox.const import (
    CONF_ANSWER_NOT_FOUND,
    CONF_ANSWER_QUESTIONS,
    CONF_CHECK_CLAIMS,
    CONF_EVERY_PART,
    CONF_GUIDE,
    CONF_MAX_ITERATIONS,
    CONF_STATES_IN_VIEW,
    GUIDE_ON,
)
from tests.helpers.common import MODELS, ask, tool_result, traced
from tests.helpers.faults import sentence
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.sensitive import UNLOCK, say

# The conftest's agent: the Assist API and 10 rounds; tests change one option.
ASSIST_AGENT = {
    CONF_MODEL: MODELS[0],
    CONF_LLM_HASS_API: ["assist"],
    CONF_GUIDE: GUIDE_ON,
    CONF_MAX_ITERATIONS: 10,
}


def speech(result: conversation.ConversationResult) -> str:
    """Return what the user hears."""
    return str(result.response.speech["plain"]["speech"])


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
        {
            "entities": ["lock.front_door"],
            "areas": [],
            "named": ["lock.front_door"],
            "in_areas": [],
            "earlier": False,
            "with_states": True,
        }
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
@pytest.mark.parametrize(
    ("question", "name", "found"),
    [
        ("What is open in the garage?", "Garage", "Garage door"),
        ("Is the front door locked?", "Front door (lock in Hallway)", "Front door"),
    ],
    ids=["a-room-as-a-name", "the-records-line"],
)
async def test_a_read_by_what_is_no_name_is_made_again_as_meant(
    hass: HomeAssistant, llm_server: LLMServer, question: str, name: str, found: str
) -> None:
    """User asks; the model reads by a room's name, or by the record's line.

    No device has that name, so the read is made again for the room, or
    for the name before the brackets, and the model reads the state.
    """
    llm_server.reply(
        ToolCalls([Call("GetLiveContext", {"name": name})]), Text("Here it is.")
    )

    result = await ask(hass, question)

    assert speech(result) == "Here it is."
    read = tool_result(llm_server.last_chat_request["messages"][-1]["content"])
    assert read["error"] is False
    assert found in read["data"]["result"]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_sensitive_call_by_the_records_line_still_waits_for_yes(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks to unlock; the model names the door as the record writes it.

    The call made again by the name alone is checked like any other: the
    user is asked first, and the door stays locked.
    """
    llm_server.reply(
        ToolCalls([Call("HassTurnOff", {"name": "Front door (lock in Hallway)"})])
    )

    result = await say(hass, "Unlock the front door")

    assert speech(result) == "Do you want me to unlock Front door?"
    assert hass.states.get("lock.front_door").state == "locked"


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
        ASSIST_AGENT | {CONF_STATES_IN_VIEW: False},
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


# A question is not a command


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_question_answered_with_an_unlock_is_answered(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks whether the door is locked; the model calls unlock.

    The call is refused before any question about confirmation, the model
    reads what was asked and the door's state, and the user hears the answer.
    The door stays locked, and nobody is asked "Do you want me to unlock …?",
    though the question comes from a voice satellite, where a yes could be said.
    """
    llm_server.reply(ToolCalls([UNLOCK]), Text("Yes, the front door is locked."))

    result = await say(hass, "Is the front door locked?")

    assert speech(result) == "Yes, the front door is locked."
    assert hass.states.get("lock.front_door").state == "locked"
    answer_request = llm_server.last_chat_request
    (refusal,) = [m for m in answer_request["messages"] if m["role"] == "tool"]
    told = tool_result(refusal["content"])["data"]
    assert told["error"] == "QuestionNotCommand"
    assert "It is now: Front door (lock): locked." in told["error_text"]
    # Asked for the answer, without tools.
    assert answer_request["tool_choice"] == "none"
    (detail,) = traced("chatterbox_question_not_command")
    # HA 2026.11 names intent tools intent__HassTurnOff; 2026.10 HassTurnOff.
    assert detail["tool"].endswith("HassTurnOff")
    assert detail["states"] == ["Front door (lock): locked"]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_polite_command_is_still_a_command(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks "Can you turn on the kitchen light?": the light goes on."""
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"})]),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Can you turn on the kitchen light?")

    assert speech(result) == "The kitchen light is on."
    assert hass.states.get("light.kitchen_light").state == "on"


@pytest.mark.parametrize(
    "agent_data",
    [ASSIST_AGENT | {CONF_ANSWER_QUESTIONS: False}],
)
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_with_the_option_off_a_question_may_act(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """With the option off, the call goes on to the confirmation, as before."""
    llm_server.reply(ToolCalls([UNLOCK]))

    result = await say(hass, "Is the front door locked?")

    assert speech(result) == "Do you want me to unlock Front door?"
    assert hass.states.get("lock.front_door").state == "locked"


# An impossible request gets an answer

SHORT_TURN = ASSIST_AGENT | {CONF_MAX_ITERATIONS: 2}


@pytest.mark.parametrize("agent_data", [SHORT_TURN])
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_device_the_home_does_not_have_is_answered(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks to turn on the hot tub; the model calls for it until the end.

    No device matches. The user hears what was not found, as an answer, not
    the error response of a fault.
    """
    hot_tub = ToolCalls([Call("HassTurnOn", {"name": "Hot tub"})])
    llm_server.reply(hot_tub, hot_tub)

    result = await ask(hass, "Turn on the hot tub")

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "I couldn't find anything called Hot tub in your home."
    assert hass.states.get("light.kitchen_light").state == "off"
    assert traced("chatterbox_not_found") == [{"names": ["Hot tub"]}]


@pytest.mark.parametrize(
    "agent_data", [SHORT_TURN | {CONF_ANSWER_NOT_FOUND: False}], ids=["option-off"]
)
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_with_the_option_off_a_missing_device_is_an_error(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """With the option off, the user hears that it could not be done."""
    hot_tub = ToolCalls([Call("HassTurnOn", {"name": "Hot tub"})])
    llm_server.reply(hot_tub, hot_tub)

    result = await ask(hass, "Turn on the hot tub")

    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert speech(result) == sentence("could_not")


# No claim without an action

TURN_ON_LIGHT = ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"})])


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_claim_without_a_call_gets_one_more_round(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the light; the model says it is on, without a call.

    It is told that nothing changed, calls the tool, and the light is on.
    """
    llm_server.reply(
        Text("The kitchen light has been turned on."),
        TURN_ON_LIGHT,
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert speech(result) == "The kitchen light is on."
    assert hass.states.get("light.kitchen_light").state == "on"
    corrected = llm_server.chat_requests[1]["messages"]
    assert corrected[-2] == {
        "role": "assistant",
        "content": "The kitchen light has been turned on.",
    }
    assert corrected[-1]["role"] == "user"
    assert "no tool call did it" in corrected[-1]["content"]
    assert "call the tool for it now, then answer" in corrected[-1]["content"]
    assert "The user asked for Kitchen light" in corrected[-1]["content"]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_claim_made_twice_is_not_passed_on(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The model claims it again: the user hears that nothing was changed."""
    llm_server.reply(
        Text("Done, the kitchen light has been turned on."),
        Text("I've turned the kitchen light on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert speech(result) == "Sorry, I did not change anything just now."
    assert hass.states.get("light.kitchen_light").state == "off"
    assert len(llm_server.chat_requests) == 2
    assert [check["again"] for check in traced("chatterbox_claim_without_action")] == [
        True,
        False,
    ]


@pytest.mark.parametrize(
    "agent_data",
    [SHORT_TURN | {CONF_CHECK_CLAIMS: False}],
    ids=["option-off"],
)
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_with_the_option_off_a_claim_is_passed_on(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """With the option off, the answer goes to the user as the model wrote it."""
    llm_server.reply(Text("The kitchen light has been turned on."))

    result = await ask(hass, "Turn on the kitchen light")

    assert speech(result) == "The kitchen light has been turned on."
    assert len(llm_server.chat_requests) == 1


# A call described, not made


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_call_described_in_words_is_made(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the light; the model says which tool to call, with what.

    The call it describes is made, the light is on, and the model reads the
    result and answers.
    """
    llm_server.reply(
        Text(
            "To turn on the kitchen light, call HassTurnOn with the name "
            '"Kitchen light" and the domain "light".'
        ),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert speech(result) == "The kitchen light is on."
    assert hass.states.get("light.kitchen_light").state == "on"
    read = llm_server.last_chat_request["messages"]
    (made,) = [m for m in read if m["role"] == "assistant" and m.get("tool_calls")]
    assert made["content"].startswith("To turn on the kitchen light")
    assert read[-1]["role"] == "tool"
    assert "Kitchen light" in read[-1]["content"]
    (detail,) = traced("chatterbox_described_calls")
    ((tool, arguments),) = detail["calls"]
    assert tool.endswith("HassTurnOn")
    assert arguments == '{"name": "Kitchen light", "domain": "light"}'


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_described_unlock_still_waits_for_a_yes(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The model describes an unlock as JSON: the call is held like any other.

    The door stays locked, and the user is asked.
    """
    llm_server.reply(
        Text(
            'You can use: {"name": "HassTurnOff", "arguments": {"name": "Front door"}}'
        ),
        Text("I need your yes first."),
    )

    result = await say(hass, "Unlock the front door")

    assert speech(result) == "Do you want me to unlock Front door?"
    assert hass.states.get("lock.front_door").state == "locked"


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_call_described_after_a_tool_ran_is_not_made(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The model reads the home, then answers with words that read as a call.

    After a tool ran, the answer may be quoting its result (a fetched page
    that says "call HassTurnOn with …"): nothing is made of it, the light
    stays off, and the words go to the user as they are.
    """
    quoted = 'The page says: call HassTurnOn with the name "Kitchen light".'
    llm_server.reply(ToolCalls([Call("GetLiveContext", {})]), Text(quoted))

    result = await ask(hass, "What does the page say?")

    assert speech(result) == quoted
    assert hass.states.get("light.kitchen_light").state == "off"
    assert len(llm_server.chat_requests) == 2
    assert traced("chatterbox_described_calls") == []


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_call_described_twice_is_made_once(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """After the described call ran, a second description runs nothing more."""
    described = Text('Call HassTurnOff with the name "Pond pump".')
    llm_server.reply(described, described)

    result = await ask(hass, "Turn off the pond pump")

    assert speech(result) == described.content
    assert hass.states.get("switch.pond_pump").state == "off"
    assert len(llm_server.chat_requests) == 2
    assert len(traced("chatterbox_described_calls")) == 1


# Every part of the request


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_the_second_part_of_a_request_follows(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for two things; the model does one and answers.

    It is told which device it left out, and switches it too.
    """
    pump_off = ToolCalls([Call("HassTurnOff", {"name": "Pond pump"})])
    llm_server.reply(
        TURN_ON_LIGHT,
        Text("Done, the kitchen light is on."),
        pump_off,
        Text("The kitchen light is on and the pond pump is off."),
    )

    result = await ask(hass, "Turn on the kitchen light and turn off the pond pump")

    assert speech(result) == "The kitchen light is on and the pond pump is off."
    assert hass.states.get("light.kitchen_light").state == "on"
    assert hass.states.get("switch.pond_pump").state == "off"
    told = llm_server.chat_requests[2]["messages"][-1]
    assert told["role"] == "user"
    assert "Pond pump" in told["content"]
    assert "Kitchen light" not in told["content"]
    assert traced("chatterbox_parts_left") == [
        {"entities": ["switch.pond_pump"], "again": True}
    ]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_the_second_part_follows_a_repeat_of_the_first(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for two things; the model does one, then makes that call again.

    The repeat is refused; rather than being asked for its answer at once,
    the model is told the part it left out, with its tools, and does it.
    """
    llm_server.reply(
        TURN_ON_LIGHT,
        TURN_ON_LIGHT,
        ToolCalls([Call("HassTurnOff", {"name": "Pond pump"})]),
        Text("The kitchen light is on and the pond pump is off."),
    )

    result = await ask(hass, "Turn on the kitchen light and turn off the pond pump")

    assert speech(result) == "The kitchen light is on and the pond pump is off."
    assert hass.states.get("switch.pond_pump").state == "off"
    told = llm_server.chat_requests[2]
    assert "tool_choice" not in told
    assert "Pond pump" in told["messages"][-1]["content"]
    # Once it has done every part, it is asked for its answer.
    assert llm_server.chat_requests[3]["tool_choice"] == "none"


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_words_beside_a_repeat_are_the_answer(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for two things; the model does both, then answers and repeats one.

    The repeat is refused, and its words are the answer: the user hears
    them without waiting for another request, and the chat log ends on
    them, after the refusal.
    """
    llm_server.reply(
        TURN_ON_LIGHT,
        ToolCalls([Call("HassTurnOff", {"name": "Pond pump"})]),
        ToolCalls(
            [Call("HassTurnOff", {"name": "Pond pump"})],
            content="The kitchen light is on and the pond pump is off.",
        ),
    )

    result = await ask(hass, "Turn on the kitchen light and turn off the pond pump")

    assert speech(result) == "The kitchen light is on and the pond pump is off."
    assert hass.states.get("light.kitchen_light").state == "on"
    assert hass.states.get("switch.pond_pump").state == "off"
    assert len(llm_server.chat_requests) == 3


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize(
    ("request_", "replies", "words"),
    [
        (
            "Turn on the kitchen light",
            [
                TURN_ON_LIGHT,
                ToolCalls(
                    [Call("HassTurnOn", {"name": "Kitchen light"})],
                    content="The kitchen light is",
                ),
            ],
            "The kitchen light is",
        ),
        (
            "Turn on the kitchen light and turn off the pond pump",
            [TURN_ON_LIGHT, Text("The kitchen light is on."), TURN_ON_LIGHT],
            "The kitchen light is on.",
        ),
    ],
    ids=["words-beside-a-repeat", "told-a-part-then-a-repeat"],
)
async def test_the_last_round_is_asked_after_the_models_own_words(
    hass: HomeAssistant,
    llm_server: LLMServer,
    request_: str,
    replies: list[Text | ToolCalls],
    words: str,
) -> None:
    """User asks; the model says some words, and its last call is a repeat.

    The repeat is refused and not shown, so the conversation ends on the
    model's words: the note to answer now comes after them as the user's,
    not in the system prompt (the server's prompt cache holds), and the
    server is asked for an answer rather than to go on with those words.
    """
    llm_server.reply(*replies, Text("Done as far as I could."))

    result = await ask(hass, request_)

    assert speech(result) == "Done as far as I could."
    assert hass.states.get("light.kitchen_light").state == "on"
    first, *_, last = llm_server.chat_requests
    assert last["tool_choice"] == "none"
    assert last["messages"][0] == first["messages"][0]
    said, told = last["messages"][-2:]
    assert said == {"role": "assistant", "content": words}
    assert told["role"] == "user"
    assert "Answer the user now" in told["content"]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_model_that_does_a_done_part_again_is_asked_for_its_answer(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the light and the pump; the model does both, then the light again.

    Its second call on the light asks for nothing new: the next request is
    the last, without tools, rather than another round of redoing.
    """
    llm_server.reply(
        ToolCalls(
            [
                Call("HassTurnOn", {"name": "Kitchen light"}),
                Call("HassTurnOff", {"name": "Pond pump"}),
            ]
        ),
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light", "domain": ["light"]})]),
        Text("The kitchen light is on and the pond pump is off."),
    )

    result = await ask(hass, "Turn on the kitchen light and turn off the pond pump")

    assert speech(result) == "The kitchen light is on and the pond pump is off."
    _, second, last = llm_server.chat_requests
    assert "tool_choice" not in second
    assert last["tool_choice"] == "none"


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_value_asked_for_is_set(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the light at 40 percent; the model only switches it on.

    It is told that 40 was not set, and sets it. (The home's kitchen light
    has no brightness: the light's action is recorded instead.)
    """
    turned_on = async_mock_service(hass, "light", "turn_on")
    llm_server.reply(
        TURN_ON_LIGHT,
        Text("The kitchen light is on."),
        ToolCalls([Call("HassLightSet", {"name": "Kitchen light", "brightness": 40})]),
        Text("The kitchen light is at 40 percent."),
    )

    result = await ask(hass, "Set the kitchen light to 40 percent")

    assert speech(result) == "The kitchen light is at 40 percent."
    assert [call.data.get("brightness_pct") for call in turned_on] == [None, 40]
    told = llm_server.chat_requests[2]["messages"][-1]
    assert told["role"] == "user"
    assert "the user asked for 40" in told["content"]
    # The note names the light's own tool that sets a value.
    assert "Call light__HassLightSet now" in told["content"]
    assert traced("chatterbox_values_left") == [{"values": ["40"], "again": True}]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_value_said_but_never_set_is_not_left_standing(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the light at 40 percent; the model only ever switches it on.

    Told that 40 was not set, it repeats its call, then says the light is at
    40 percent, which no call set and the light does not show: the user
    hears the light as it is. The agent sets no value of its own.
    """
    turned_on = async_mock_service(hass, "light", "turn_on")
    llm_server.reply(
        TURN_ON_LIGHT,
        Text("The kitchen light is on."),
        TURN_ON_LIGHT,
        Text("The kitchen light is at 40 percent."),
    )

    result = await ask(hass, "Set the kitchen light to 40 percent")

    assert speech(result) == "Here is what I see now: Kitchen light: Off."
    assert [call.data.get("brightness_pct") for call in turned_on] == [None]
    assert traced("chatterbox_values_left") == [{"values": ["40"], "again": True}]
    assert traced("chatterbox_statements_contradicted")[-1] == {
        "entities": ["light.kitchen_light"],
        "said": ["40"],
        "again": False,
    }


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_value_asked_for_is_set_after_a_repeat(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the light at 40 percent; the model switches it on, twice.

    The repeat is refused, and the model is told that 40 was not set, with
    its tools, rather than being asked for its answer at once.
    """
    turned_on = async_mock_service(hass, "light", "turn_on")
    llm_server.reply(
        TURN_ON_LIGHT,
        TURN_ON_LIGHT,
        ToolCalls([Call("HassLightSet", {"name": "Kitchen light", "brightness": 40})]),
        Text("The kitchen light is at 40 percent."),
    )

    result = await ask(hass, "Set the kitchen light to 40 percent")

    assert speech(result) == "The kitchen light is at 40 percent."
    assert [call.data.get("brightness_pct") for call in turned_on] == [None, 40]
    told = llm_server.chat_requests[2]
    assert "tool_choice" not in told
    assert "the user asked for 40" in told["messages"][-1]["content"]


@pytest.fixture
async def office(ha_core: HomeAssistant) -> list[str]:
    """Build an office of three switched devices, all on and exposed."""
    devices = {"desk_lamp": "Desk lamp", "printer": "Printer", "monitor": "Monitor"}
    assert await async_setup_component(
        ha_core,
        "input_boolean",
        {
            "input_boolean": {
                key: {"name": name, "initial": True} for key, name in devices.items()
            }
        },
    )
    office_id = ar.async_get(ha_core).async_create("Office").id
    entities = er.async_get(ha_core)
    entity_ids = [f"input_boolean.{key}" for key in devices]
    for entity_id in entity_ids:
        entities.async_update_entity(entity_id, area_id=office_id)
        async_expose_entity(ha_core, conversation.DOMAIN, entity_id, should_expose=True)
    return entity_ids


@pytest.mark.usefixtures("loaded_entry")
async def test_everything_in_a_room_means_every_device_there(
    hass: HomeAssistant, llm_server: LLMServer, office: list[str]
) -> None:
    """User switches off the office; the model switches one device of three.

    It is told of the other two, switches off the room, and all are off.
    """
    llm_server.reply(
        ToolCalls([Call("HassTurnOff", {"name": "Desk lamp"})]),
        Text("The office is off."),
        ToolCalls([Call("HassTurnOff", {"area": "Office"})]),
        Text("Everything in the office is off."),
    )

    result = await ask(hass, "Switch off everything in the office")

    assert speech(result) == "Everything in the office is off."
    assert [hass.states.get(entity_id).state for entity_id in office] == ["off"] * 3
    told = llm_server.chat_requests[2]["messages"][-1]["content"]
    assert "Printer, Monitor" in told


@pytest.mark.parametrize(
    "agent_data",
    [ASSIST_AGENT | {CONF_EVERY_PART: False}],
    ids=["option-off"],
)
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_with_the_option_off_one_part_is_the_answer(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """With the option off, the model's answer after one part ends the turn."""
    llm_server.reply(TURN_ON_LIGHT, Text("Done, the kitchen light is on."))

    result = await ask(hass, "Turn on the kitchen light and turn off the pond pump")

    assert speech(result) == "Done, the kitchen light is on."
    assert hass.states.get("switch.pond_pump").state == "on"


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_yes_that_starts_like_a_question_still_runs_the_held_call(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks to unlock; the agent asks; "Do it" is a yes, not a question."""
    llm_server.reply(ToolCalls([UNLOCK]))
    assert speech(await say(hass, "Unlock the front door")) == (
        "Do you want me to unlock Front door?"
    )

    llm_server.reply(Text("The front door is unlocked."))
    result = await say(hass, "Do it")

    assert speech(result) == "The front door is unlocked."
    assert hass.states.get("lock.front_door").state == "unlocked"


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_request_done_without_a_word_gets_the_states(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the light and the pump; the model does both, then goes silent.

    It repeats its last call, and told to answer, writes the call again as
    text. The user hears the states of what was changed, as they are now,
    rather than that the model gave no answer.
    """
    pump_off = ToolCalls([Call("HassTurnOff", {"name": "Pond pump"})])
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"}), *pump_off.calls]),
        pump_off,
        Text('{"name": "HassTurnOff", "arguments": {"name": "Pond pump"}}'),
    )

    result = await say(hass, "Turn on the kitchen light and turn off the pond pump")

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == (
        "Here is what I see now: Kitchen light: On; Pond pump: Off."
    )
    assert llm_server.last_chat_request["tool_choice"] == "none"
    assert traced("chatterbox_states_answer") == [
        {"entities": ["light.kitchen_light", "switch.pond_pump"]}
    ]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize(
    ("answer", "heard"),
    [
        ("Is the front door locked?", "Is the front door locked?"),
        (
            "The front door is locked. Anything else?",
            "The front door is locked. Anything else?",
        ),
    ],
    ids=["asked-back", "answered-then-asked"],
)
async def test_a_question_answered_with_a_question_gets_the_state(
    hass: HomeAssistant, llm_server: LLMServer, answer: str, heard: str
) -> None:
    """User asks about the door; the model says the question back, twice.

    Told once to answer it (an aid for a small model), it asks again: a
    question back is not false, and stands. An answer that says something
    before its question stands at once.
    """
    llm_server.reply(Text(answer), Text(answer))

    result = await say(hass, "Is the front door locked?")

    assert speech(result) == heard


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_question_on_no_device_answered_with_a_question_is_asked_again(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks the day; the model says the question back, and calls nothing.

    It is told to answer, calls the clock, and the user hears the day.
    """
    llm_server.reply(
        Text("What day is it?"),
        ToolCalls([Call("llm__GetDateTime", {})]),
        Text("It is Friday."),
    )

    result = await say(hass, "What day is it?")

    assert speech(result) == "It is Friday."
    told = user_messages(llm_server.chat_requests[1])[-1]
    assert told.startswith("Note: you answered the user's question with a question")
    assert traced("chatterbox_asked_back") == [
        {"answer": "What day is it?", "again": True}
    ]
    assert tool_result(llm_server.last_chat_request["messages"][-1]["content"])["data"][
        "time"
    ]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_figure_the_model_read_nowhere_is_told_once(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks the pond's temperature; the thermometer, in view, reads 11 °C.

    The model says 14 degrees, which it read nowhere: told so, it says 11.
    """
    hass.states.async_set(
        "sensor.pond_temperature",
        "11",
        {"friendly_name": "Pond temperature", "unit_of_measurement": "°C"},
    )
    async_expose_entity(
        hass, conversation.DOMAIN, "sensor.pond_temperature", should_expose=True
    )
    llm_server.reply(
        Text("The pond is at 14 degrees."), Text("The pond is at 11 degrees.")
    )

    result = await say(hass, "What is the pond temperature?")

    assert speech(result) == "The pond is at 11 degrees."
    told = user_messages(llm_server.last_chat_request)[-1]
    assert told.startswith("Note: your answer says 14, which nothing above says")
    assert traced("chatterbox_figures_unread") == [{"figures": ["14"], "again": True}]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_question_the_model_leaves_unanswered_gets_the_state(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks about the door; the model says nothing: the agent reads it out."""
    llm_server.reply(Text(""))

    result = await say(hass, "Is the front door locked?")

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "Here is what I see now: Front door: Locked."
    assert traced("chatterbox_states_answer") == [{"entities": ["lock.front_door"]}]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_an_answer_to_a_question_says_how_things_are_and_is_no_claim(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks about the light; "it is switched off" is the answer, as it is."""
    llm_server.reply(Text("The kitchen light is switched off."))

    result = await say(hass, "Is the kitchen light on?")

    assert speech(result) == "The kitchen light is switched off."
    assert len(llm_server.chat_requests) == 1


@pytest.fixture
async def two_rooms(ha_core: HomeAssistant) -> None:
    """Build a kitchen and a study, each with a light; the study has a heater.

    The lights start off, the heater on; all are exposed to Assist.
    """
    rooms = {"kitchen": "Kitchen", "study": "Study"}
    assert await async_setup_component(
        ha_core,
        "input_boolean",
        {
            "input_boolean": {
                **{f"{room}_power": {} for room in rooms},
                "study_heater": {"name": "Study heater", "initial": True},
            }
        },
    )

    def light(room: str, name: str) -> dict[str, Any]:
        power = {"target": {"entity_id": f"input_boolean.{room}_power"}}
        return {
            "name": f"{name} light",
            "unique_id": f"{room}_light",
            "state": f"{{{{ is_state('input_boolean.{room}_power', 'on') }}}}",
            "turn_on": [{"action": "input_boolean.turn_on", **power}],
            "turn_off": [{"action": "input_boolean.turn_off", **power}],
        }

    assert await async_setup_component(
        ha_core,
        "template",
        {"template": [{"light": [light(*room) for room in rooms.items()]}]},
    )
    await ha_core.async_block_till_done()
    areas = ar.async_get(ha_core)
    entities = er.async_get(ha_core)
    for room, name in rooms.items():
        area_id = areas.async_create(name).id
        for entity_id in (f"light.{room}_light", f"input_boolean.{room}_heater"):
            if entities.async_get(entity_id) is not None:
                entities.async_update_entity(entity_id, area_id=area_id)
    for entity_id in ("light.kitchen_light", "light.study_light"):
        async_expose_entity(ha_core, conversation.DOMAIN, entity_id, should_expose=True)
    for room in rooms:
        async_expose_entity(
            ha_core,
            conversation.DOMAIN,
            f"input_boolean.{room}_power",
            should_expose=False,
        )
    async_expose_entity(
        ha_core, conversation.DOMAIN, "input_boolean.study_heater", should_expose=True
    )


@pytest.mark.usefixtures("loaded_entry", "two_rooms")
async def test_a_room_said_after_a_request_means_the_same_kind_there(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User turns on the kitchen light, then says "now the study as well".

    The model claims the study light is on without a call. It is told
    that nothing changed, and which device the request means there: the
    study's light, the kind asked for before, not its heater. It calls the
    tool, and the light is on; the heater stays as it was.
    """
    llm_server.reply(TURN_ON_LIGHT, Text("The kitchen light is on."))
    before = await ask(hass, "Turn on the kitchen light")
    llm_server.reply(
        Text("The study light has been turned on."),
        ToolCalls([Call("HassTurnOn", {"name": "Study light"})]),
        Text("The study light is on as well."),
    )

    result = await ask(hass, "Now the study as well", before.conversation_id)

    assert speech(result) == "The study light is on as well."
    assert hass.states.get("light.study_light").state == "on"
    assert hass.states.get("input_boolean.study_heater").state == "on"
    told = llm_server.chat_requests[3]["messages"][-1]["content"]
    assert "no tool call did it" in told
    assert "The user asked for Study light: call the tool for it now" in told


@pytest.fixture
async def thermostat(ha_core: HomeAssistant) -> str:
    """Add a thermostat that heats with the pond pump, exposed, to the guarded home."""
    ha_core.states.async_set(
        "sensor.pond_temperature", "17", {"unit_of_measurement": "°C"}
    )
    assert await async_setup_component(
        ha_core,
        "climate",
        {
            "climate": {
                "platform": "generic_thermostat",
                "name": "Thermostat",
                "heater": "switch.pond_pump",
                "target_sensor": "sensor.pond_temperature",
                "target_temp": 18,
                "initial_hvac_mode": "heat",
            }
        },
    )
    await ha_core.async_block_till_done()
    entity_id = "climate.thermostat"
    async_expose_entity(ha_core, conversation.DOMAIN, entity_id, should_expose=True)
    return entity_id
