"""What the user hears last is held to the home: no false state, no unread figure.

Each story runs a real Home Assistant, the agent, the openai SDK and the
scripted server, with tool calls native and written as text. The model is
told once when its answer contradicts the home or gives a figure it read
nowhere; if it says it again, the user hears the home's states instead.
"""

import json
import re
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component

from custom_components.chatterbox.const import (
    CONF_GUIDE,
    CONF_MAX_ITERATIONS,
    CONF_TOOL_MODE,
    GUIDE_ON,
)
from tests.helpers.common import MODELS, traced
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.sensitive import FRONT, say

NATIVE = {
    CONF_MODEL: MODELS[0],
    CONF_LLM_HASS_API: ["assist"],
    CONF_GUIDE: GUIDE_ON,
    CONF_MAX_ITERATIONS: 10,
}
# Both tool modes: calls as the server's own, and calls written as text.
BOTH_MODES = pytest.mark.parametrize(
    "agent_data",
    [NATIVE, NATIVE | {CONF_TOOL_MODE: "text"}],
    ids=["native", "text"],
)


def calls(agent_data: dict[str, Any], *made: Call) -> ToolCalls | Text:
    """Return the model's calls as the agent's tool mode has it write them."""
    if agent_data.get(CONF_TOOL_MODE) != "text":
        return ToolCalls(list(made))
    return Text(
        "".join(
            "<tool_call>\n"
            + json.dumps({"name": call.name, "arguments": call.arguments})
            + "\n</tool_call>"
            for call in made
        )
    )


def speech(result: conversation.ConversationResult) -> str:
    """Return what the user hears."""
    return str(result.response.speech["plain"]["speech"])


def last_note(llm_server: LLMServer) -> str:
    """Return the last user message of the last request: the agent's note."""
    messages = llm_server.last_chat_request["messages"]
    return str(next(m for m in reversed(messages) if m["role"] == "user")["content"])


@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_false_state_after_a_real_action_is_replaced(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, Any]
) -> None:
    """User asks to unlock the front door; the model locks it instead.

    The user says yes to the question, the door is locked, and the model
    says it is now unlocked, twice: the user hears the door's state.
    """
    await hass.services.async_call(
        "input_boolean", "turn_off", {"entity_id": "input_boolean.front_bolt"}
    )
    await hass.async_block_till_done()
    lock = Call("HassTurnOn", {"name": "Front door"})
    llm_server.reply(calls(agent_data, lock))

    asked = await say(hass, "Unlock the front door")

    assert speech(asked) == "Do you want me to lock Front door?"
    llm_server.reply(
        Text("The front door is now unlocked."),
        Text("Done: the front door is unlocked."),
    )

    result = await say(hass, "Yes")

    assert hass.states.get(FRONT).state == "locked"
    assert speech(result) == "Here is what I see now: Front door: Locked."
    assert "Front door (lock): locked" in last_note(llm_server)
    assert traced("chatterbox_statements_contradicted") == [
        {"entities": [FRONT], "said": ["unlocked / unlocking"], "again": True},
        {"entities": [FRONT], "said": ["unlocked / unlocking"], "again": False},
    ]


@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_false_state_corrected_after_the_note_stands(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, Any]
) -> None:
    """User switches off the pond pump; the model says it is on, then corrects it."""
    llm_server.reply(
        calls(agent_data, Call("HassTurnOff", {"name": "Pond pump"})),
        Text("The pond pump is on."),
        Text("The pond pump is off now."),
    )

    result = await say(hass, "Switch off the pond pump")

    assert hass.states.get("switch.pond_pump").state == "off"
    assert speech(result) == "The pond pump is off now."
    assert last_note(llm_server).startswith("Note: your answer does not match")


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize(
    ("language", "question", "wrong", "right"),
    [
        ("de", "Läuft die Pond pump?", "Die Pond pump ist aus.", "Ein"),
        (
            "fr",
            "La Pond pump tourne-t-elle ?",
            "La Pond pump est désactivée.",
            "Activé",
        ),
        ("pl", "Czy Pond pump działa?", "Pond pump jest wyłączona.", "włączono"),
    ],
)
async def test_a_false_state_is_read_in_home_assistants_words(
    hass: HomeAssistant,
    llm_server: LLMServer,
    language: str,
    question: str,
    wrong: str,
    right: str,
) -> None:
    """User asks whether the pump runs; the model says, in their language, it is off.

    Home Assistant's own names of the switch's states tell the answer wrong,
    twice: the user hears the pump's state, in those names.
    """
    llm_server.reply(Text(wrong), Text(wrong))

    result = await say(hass, question, language=language)

    assert hass.states.get("switch.pond_pump").state == "on"
    assert speech(result).endswith(f"Pond pump: {right}.")
    assert [
        entry["entities"] for entry in traced("chatterbox_statements_contradicted")
    ] == [
        ["switch.pond_pump"],
        ["switch.pond_pump"],
    ]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize(
    "answer",
    [
        "The front door is locked, and the pond pump is running.",
        "I could not unlock the front door; it is still locked.",
        "The front door isn't unlocked.",
    ],
    ids=["true", "said-twice", "negated"],
)
async def test_a_true_answer_goes_to_the_user_as_written(
    hass: HomeAssistant, llm_server: LLMServer, answer: str
) -> None:
    """User asks about the door; an answer the home bears out needs one request."""
    llm_server.reply(Text(answer))

    result = await say(hass, "How are the front door and the pond pump?")

    assert speech(result) == answer
    assert len(llm_server.chat_requests) == 1


@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_an_unread_figure_never_reaches_the_user(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks how warm the pond is; the thermometer, in view, reads 11 °C.

    The model says 14 degrees, is told it read that nowhere, and says it
    again: the user hears the thermometer instead.
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
        Text("The pond temperature is 14 degrees."),
        Text("It is 14 degrees in the pond."),
    )

    result = await say(hass, "What is the pond temperature?")

    assert speech(result) == "Here is what I see now: Pond temperature: 11 °C."
    assert [entry["again"] for entry in traced("chatterbox_figures_unread")] == [
        True,
        False,
    ]


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize("language", ["en", "de"])
async def test_a_figure_about_nothing_in_the_home_stands(
    hass: HomeAssistant, llm_server: LLMServer, language: str
) -> None:
    """User asks how cold it is in a far town; the model answers with a figure.

    Nothing in the home names the town, so nothing in the home can say the
    figure is wrong: the model's words stand, with no extra request.
    """
    llm_server.reply(Text("It is 22 degrees in Tromsø."))

    result = await say(hass, "How cold is it in Tromsø?", language=language)

    assert speech(result) == "It is 22 degrees in Tromsø."
    assert len(llm_server.chat_requests) == 1
    assert traced("chatterbox_figures_unread") == []


# A change beside an explanation is a request: the change is made, the
# rest answered.
@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize(
    ("said", "answer", "language"),
    [
        (
            "Switch on the kitchen light and explain what a lux is",
            "The kitchen light is on. A lux is one lumen per square metre.",
            "en",
        ),
        (
            "Schalte das Küchenlicht ein und erkläre mir, was ein Lux ist",
            "Das Küchenlicht ist an. Ein Lux ist ein Lumen pro Quadratmeter.",
            "de",
        ),
    ],
)
async def test_a_change_beside_an_explanation_is_made(  # the story's inputs
    hass: HomeAssistant,
    llm_server: LLMServer,
    agent_data: dict[str, Any],
    said: str,
    answer: str,
    language: str,
) -> None:
    """User asks for the light and an explanation; the model does both.

    The light comes on, and the user hears the model's words, untouched.
    """
    llm_server.reply(
        calls(agent_data, Call("HassTurnOn", {"name": "Kitchen light"})),
        Text(answer),
    )

    result = await say(hass, said, language=language)

    assert hass.states.get("light.kitchen_light").state == "on"
    assert speech(result) == answer
    assert len(llm_server.chat_requests) == 2


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_call_described_for_an_example_is_not_made(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for an example; the model describes a call in words.

    Nothing is made of it: the user hears the model's words, and the pump
    keeps running.
    """
    described = (
        'You could say it, and I would call HassTurnOff with the name "Pond pump".'
    )
    llm_server.reply(Text(described))

    result = await say(hass, "Give me an example of what you can switch")

    assert speech(result) == described
    assert hass.states.get("switch.pond_pump").state == "on"
    assert traced("chatterbox_described_calls") == []
    assert len(llm_server.chat_requests) == 1


@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_request_for_a_change_written_as_text_still_acts(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, Any]
) -> None:
    """User asks for the light; the call, native or written, switches it on."""
    llm_server.reply(
        calls(agent_data, Call("HassTurnOn", {"name": "Kitchen light"})),
        Text("The kitchen light is on."),
    )

    result = await say(hass, "Turn on the kitchen light")

    assert hass.states.get("light.kitchen_light").state == "on"
    assert speech(result) == "The kitchen light is on."


def kitchen_thermometer(hass: HomeAssistant, areas: dict[str, str]) -> None:
    """Put a thermometer and a hygrometer in the kitchen, both exposed."""
    entities = er.async_get(hass)
    for key, device_class, state in (
        ("kitchen_thermometer", "temperature", "21.5"),
        ("kitchen_hygrometer", "humidity", "48"),
    ):
        entry = entities.async_get_or_create(
            "sensor", "test", key, suggested_object_id=key
        )
        entities.async_update_entity(entry.entity_id, area_id=areas["Kitchen"])
        unit = "°C" if device_class == "temperature" else "%"
        hass.states.async_set(
            entry.entity_id,
            state,
            {
                "friendly_name": key.replace("_", " ").capitalize(),
                "device_class": device_class,
                "unit_of_measurement": unit,
            },
        )
        async_expose_entity(
            hass, conversation.DOMAIN, entry.entity_id, should_expose=True
        )


# What a request asks to be told is said: "and say what temperature it is".
@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry")
@pytest.mark.parametrize(
    ("second", "heard", "replaced"),
    [
        (
            Text("The kitchen light is off."),
            "Here is what I see now: Kitchen thermometer: 21.5 °C; Kitchen light: Off.",
            True,
        ),
        (
            Text("The light is off, and it is about 22 degrees in the kitchen."),
            "The light is off, and it is about 22 degrees in the kitchen.",
            False,
        ),
        (
            Text("The light is off. Do you mean the thermometer by the window?"),
            "The light is off. Do you mean the thermometer by the window?",
            False,
        ),
    ],
    ids=["still-unsaid", "said-after-the-note", "asked-back"],
)
async def test_what_a_request_asks_to_be_told_is_said(  # the story's inputs
    hass: HomeAssistant,
    llm_server: LLMServer,
    agent_data: dict[str, Any],
    guarded_home: dict[str, str],
    second: Text,
    heard: str,
    replaced: bool,  # noqa: FBT001  # a parameter of the story
) -> None:
    """User asks to switch off the kitchen light and to be told the temperature.

    The model switches it off and answers about the light alone: told what
    the user also asked for (an aid for a small model), it says the
    temperature, or asks which thermometer; or the user hears the
    temperature and the light as Home Assistant shows them, since Home
    Assistant read the request as asking for that reading. The hygrometer
    beside it was not asked for.
    """
    await async_setup_component(hass, "sensor", {})
    kitchen_thermometer(hass, guarded_home)
    await hass.services.async_call(
        "input_boolean", "turn_on", {"entity_id": "input_boolean.kitchen_power"}
    )
    llm_server.reply(
        calls(agent_data, Call("HassTurnOff", {"name": "Kitchen light"})),
        Text("Done, the kitchen light is off."),
        second,
    )

    result = await say(
        hass, "Switch off the kitchen light and say what temperature the kitchen is at"
    )

    assert hass.states.get("light.kitchen_light").state == "off"
    assert speech(result) == heard
    assert last_note(llm_server).startswith(
        "Note: the user also asked to be told this. As Home Assistant shows it "
        "now: Kitchen thermometer (sensor in Kitchen): 21.5 °C. Answer again, and "
        "say it."
    )
    # The round after the note answers: no tools (text mode sends none).
    assert llm_server.last_chat_request.get("tool_choice", "none") == "none"
    # The note, then (still unsaid) the home's own words.
    notes = [entry["again"] for entry in traced("chatterbox_reads_unsaid")]
    assert notes == ([True, False] if replaced else [True])


# A model in a loop writes the same calls until its token limit: the response
# is read up to the first repeat, and the calls before it run.
@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_response_that_loops_on_its_calls_is_cut_at_the_repeat(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, Any]
) -> None:
    """User asks for the kitchen light; the model writes its call three times.

    The light goes on once, the repeats are never read, and the model's next
    answer is what the user hears.
    """
    light = Call("HassTurnOn", {"name": "Kitchen light"})
    llm_server.reply(
        calls(agent_data, light, light, light),
        Text("The kitchen light is on."),
    )

    result = await say(hass, "Switch on the kitchen light")

    assert hass.states.get("light.kitchen_light").state == "on"
    assert speech(result) == "The kitchen light is on."
    (first, _answer) = traced("chatterbox_iteration")
    assert first["looped"]
    assert [name.rsplit("__", 1)[-1] for name in first["tools"]] == ["HassTurnOn"]


# Home Assistant runs a response's calls at once: a read beside a change
# waits for it, so that it reports the home as the change left it.
@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_read_beside_a_change_sees_the_change(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, Any]
) -> None:
    """User asks to switch on the kitchen light and whether it is on.

    The model switches it on and reads the home in the same response: what
    it reads says the light is on, and so does its answer.
    """
    llm_server.reply(
        calls(
            agent_data,
            Call("HassTurnOn", {"name": "Kitchen light"}),
            Call("GetLiveContext", {}),
        ),
        Text("The kitchen light is on."),
    )

    result = await say(hass, "Put the kitchen light on and check its state")

    assert speech(result) == "The kitchen light is on."
    # The result as the model read it: JSON, its newlines escaped.
    read = " ".join(
        str(message.get("content"))
        for message in llm_server.last_chat_request["messages"]
    )
    assert re.search(r"names: Kitchen light\\n\s+domain: light\\n\s+state: '?on", read)


@BOTH_MODES
@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_read_after_a_change_reads_again(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, Any]
) -> None:
    """User asks for the light and whether it took; the model reads, acts, reads.

    The second read repeats the first, but a change ran between them: it
    runs, sees the light on, and the model's answer is heard untouched.
    """
    read = Call("GetLiveContext", {})
    llm_server.reply(
        calls(agent_data, read),
        calls(agent_data, Call("HassTurnOn", {"name": "Kitchen light"})),
        calls(agent_data, read),
        Text("The kitchen light is on now; I checked."),
    )

    result = await say(hass, "Switch on the kitchen light and check that it is on")

    assert hass.states.get("light.kitchen_light").state == "on"
    assert speech(result) == "The kitchen light is on now; I checked."
    assert len(llm_server.chat_requests) == 4
    last_read = llm_server.last_chat_request["messages"][-1]["content"]
    assert "RepeatedCall" not in last_read
    assert "Kitchen light" in last_read
