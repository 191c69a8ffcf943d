"""What goes on the wire: the request bodies of whole turns, snapshotted.

Each test tells a short story through Home Assistant and the scripted server,
then compares every JSON body the server received with the snapshot taken
before the redesign of issue 22: the model, the messages in their order, the
tools, tool_choice, response_format and the rest.

Only one thing is scrubbed. Home Assistant words the third step of its
live-context instructions differently from one version to the next (2026.10
and 2026.11 differ), and the Assist API puts them in the system prompt: that
one line becomes a marker, the rest of the prompt stays as sent. The clock is
stopped, for without the Assist API (an AI Task, a chat-only agent) Home
Assistant's prompt tells the time and date. Nothing else varies between runs:
the server numbers tool call ids itself (call_1, call_2, ...), and each
entry's capability probe finishes before the first turn. JSON objects are
shown with sorted keys, as the snapshot serializer writes every dict (the
SDKs of the two venvs put them in different orders); lists keep their order.
"""

import json
import math
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest
from syrupy.assertion import SnapshotAssertion

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.homeassistant.llm import DYNAMIC_CONTEXT_PROMPT
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API, CONF_MODEL, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_CONTEXT_WINDOW,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_TOOL_MODE,
    DOMAIN,
    SUBENTRY_AI_TASK,
    TOOL_MODE_TEXT,
)
from tests.helpers.common import API_KEY, MODELS, ask, server_entry
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls

OUTDOOR = "sensor.outdoor_temperature"
TASK_ENTITY = "ai_task.camera_describer"

# The one line of Home Assistant's own prompt that changes between versions.
STEP_THREE = next(
    line
    for line in DYNAMIC_CONTEXT_PROMPT.splitlines(keepends=True)
    if line.lstrip().startswith("3.")
)
STEP_THREE_MARKER = "    3.  <worded by the Home Assistant version>\n"


@pytest.fixture(autouse=True)
def a_fixed_clock(freezer: FrozenDateTimeFactory) -> None:
    """Stop the clock: without the Assist API the prompt tells the time."""
    freezer.move_to("2026-06-20 18:30:00+00:00")


def _scrubbed(value: Any) -> Any:
    """Return a body with the version-worded line of the prompt replaced."""
    if isinstance(value, str):
        return value.replace(STEP_THREE, STEP_THREE_MARKER)
    if isinstance(value, list):
        return [_scrubbed(item) for item in value]
    if isinstance(value, dict):
        return {key: _scrubbed(item) for key, item in value.items()}
    return value


def wire(server: LLMServer) -> list[Any]:
    """Return the chat request bodies the server received, in order, scrubbed."""
    return _scrubbed(server.chat_requests)


async def _set_up(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    """Add the entry and let the capability probe finish before any turn."""
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)


async def kitchen_helper(
    hass: HomeAssistant, server: LLMServer, **options: Any
) -> None:
    """Set up the kitchen helper agent, on the Assist API unless options say."""
    data = {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: 10,
        **options,
    }
    await _set_up(hass, server_entry(server.url, data))


@pytest.fixture
async def outdoor_sensor(ha_core: HomeAssistant) -> str:
    """Add an outdoor temperature sensor, exposed to Assist."""
    ha_core.states.async_set(
        OUTDOOR,
        "12.5",
        {
            "friendly_name": "Outdoor temperature",
            "device_class": "temperature",
            "unit_of_measurement": "°C",
        },
    )
    async_expose_entity(ha_core, conversation.DOMAIN, OUTDOOR, should_expose=True)
    return OUTDOOR


async def test_a_plain_question(
    hass: HomeAssistant,
    llm_server: LLMServer,
    kitchen_light: str,
    outdoor_sensor: str,
    snapshot: SnapshotAssertion,
) -> None:
    """The server is probed at setup; the user asks; the model answers at once.

    The light and the outdoor sensor are exposed: the system prompt lists
    them, and the Assist API's tools go along.
    """
    await kitchen_helper(hass, llm_server)
    llm_server.reply(Text("Bread, milk and eggs."))

    result = await ask(hass, "What is on the shopping list?")

    assert result.response.speech["plain"]["speech"] == "Bread, milk and eggs."
    assert [probe.json for probe in llm_server.probes] == snapshot(name="probes")
    assert wire(llm_server) == snapshot(name="requests")


async def test_one_tool_call(
    hass: HomeAssistant,
    llm_server: LLMServer,
    kitchen_light: str,
    outdoor_sensor: str,
    snapshot: SnapshotAssertion,
) -> None:
    """The model calls HassTurnOn; the light is on; the model says so.

    Two requests: the second carries the call and Home Assistant's result.
    """
    await kitchen_helper(hass, llm_server)
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", {"name": "Kitchen light"})]),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    assert len(llm_server.chat_requests) == 2
    assert wire(llm_server) == snapshot


async def test_the_last_round(
    hass: HomeAssistant,
    llm_server: LLMServer,
    kitchen_light: str,
    outdoor_sensor: str,
    snapshot: SnapshotAssertion,
) -> None:
    """Three requests allowed; the model looks, then acts, then must answer.

    The second request notes the one tool round left; the third, that none
    is left, with tool_choice "none"; the model answers.
    """
    await kitchen_helper(hass, llm_server, **{CONF_MAX_ITERATIONS: 3})
    llm_server.reply(
        ToolCalls([Call("homeassistant__GetLiveContext", {"domain": "light"})]),
        ToolCalls([Call("intent__HassTurnOn", {"name": "Kitchen light"})]),
        Text("The kitchen light was off; it is on now."),
    )

    result = await ask(hass, "Is the kitchen light on? If not, turn it on.")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == (
        "The kitchen light was off; it is on now."
    )
    assert [body.get("tool_choice") for body in llm_server.chat_requests] == [
        None,
        None,
        "none",
    ]
    assert wire(llm_server) == snapshot


async def test_text_tool_mode(
    hass: HomeAssistant,
    llm_server: LLMServer,
    kitchen_light: str,
    outdoor_sensor: str,
    snapshot: SnapshotAssertion,
) -> None:
    """Tools in the prompt: the model writes the call as text; the light is on.

    No tools field goes out; the call and its result come back as text.
    """
    await kitchen_helper(hass, llm_server, **{CONF_TOOL_MODE: TOOL_MODE_TEXT})
    written = '<tool_call>\n{"name": "HassTurnOn", "arguments": %s}\n</tool_call>'
    llm_server.reply(
        Text(written % json.dumps({"name": "Kitchen light"})),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    assert not any("tools" in body for body in llm_server.chat_requests)
    assert wire(llm_server) == snapshot


@pytest.mark.usefixtures("ha_core")
async def test_an_ai_task_with_a_structure(
    hass: HomeAssistant, llm_server: LLMServer, snapshot: SnapshotAssertion
) -> None:
    """An automation asks for data of a structure: it goes as a JSON schema."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="127.0.0.1",
        data={CONF_URL: llm_server.url, CONF_API_KEY: API_KEY},
        subentries_data=[
            ConfigSubentryData(
                subentry_type=SUBENTRY_AI_TASK,
                subentry_id="aitask0subentry000000000001",
                title="Camera describer",
                data={CONF_MODEL: MODELS[0]},
                unique_id=None,
            )
        ],
    )
    await _set_up(hass, entry)
    llm_server.reply(Text('{"count": 3, "animal": "cat"}'))

    response = await hass.services.async_call(
        "ai_task",
        "generate_data",
        {
            "task_name": "Count animals",
            "entity_id": TASK_ENTITY,
            "instructions": "Count the animals in the garden",
            "structure": {
                "count": {"selector": {"number": {}}, "required": True},
                "animal": {"selector": {"text": {}}, "required": True},
            },
        },
        blocking=True,
        return_response=True,
    )

    assert response is not None
    assert response["data"] == {"count": 3, "animal": "cat"}
    assert wire(llm_server) == snapshot


async def test_a_follow_up_in_the_same_conversation(
    hass: HomeAssistant,
    llm_server: LLMServer,
    kitchen_light: str,
    outdoor_sensor: str,
    snapshot: SnapshotAssertion,
) -> None:
    """The light goes on; then the user asks about it, and the history goes along."""
    await kitchen_helper(hass, llm_server)
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", {"name": "Kitchen light"})]),
        Text("The kitchen light is on."),
        Text("Yes, you turned it on a moment ago."),
    )

    await ask(hass, "Turn on the kitchen light", "kitchen-chat")
    assert hass.states.get(kitchen_light).state == "on"
    result = await ask(hass, "Did I just turn it on?", "kitchen-chat")

    assert result.response.speech["plain"]["speech"] == (
        "Yes, you turned it on a moment ago."
    )
    assert len(llm_server.chat_requests) == 3
    assert wire(llm_server) == snapshot


SUMMARY = "Summary: the user is planning a dinner party for six on Saturday."
# The user plans a dinner party, one question after another.
DINNER = [
    (
        "I am having six friends over on Saturday. What main course should I make?",
        (
            "For six people, a roast chicken with lemon and thyme is easy to scale: "
            "two chickens, about one and a half kilos each, two hours in the oven in "
            "all, with potatoes and carrots roasting underneath in the juices."
        ),
    ),
    (
        "And a starter to go with it?",
        (
            "Start with a simple green salad with a mustard dressing, or a chilled "
            "cucumber soup if the evening is warm. Both can be made in the morning, "
            "so nothing but the chicken needs you while the guests arrive."
        ),
    ),
    (
        "What about dessert?",
        (
            "A lemon tart keeps the citrus theme and can be baked the day before. "
            "Serve it with whipped cream or crème fraîche, and some berries on top if "
            "they are in season at the market."
        ),
    ),
    (
        "Can you give me the shopping list for all of it?",
        (
            "Buy the chickens, potatoes, carrots, lemons, thyme, cucumbers, salad, "
            "eggs, butter, flour, sugar, cream and berries. Check that you have "
            "mustard, olive oil and vinegar for the dressing."
        ),
    ),
    (
        "When should I start cooking?",
        (
            "Bake the tart on Friday. On Saturday, make the starter by noon, put the "
            "chickens in at five for dinner at seven, and let them rest for fifteen "
            "minutes while you dress the salad and warm the plates."
        ),
    ),
]


def _tokens(body: dict[str, Any]) -> int:
    """Count a request's prompt tokens as a model might: 3.5 characters each."""
    text = json.dumps(body["messages"]) + json.dumps(body.get("tools", []))
    return math.ceil(len(text) / 3.5)


def _is_summary_request(body: dict[str, Any]) -> bool:
    """Tell the side request that summarizes dropped history."""
    return "running summary" in body["messages"][0]["content"]


@pytest.mark.usefixtures("ha_core")
async def test_a_conversation_that_outgrows_the_window(
    hass: HomeAssistant, llm_server: LLMServer, snapshot: SnapshotAssertion
) -> None:
    """A chat-only agent with a small window; the user plans a dinner party.

    The history soon does not fit: the oldest exchanges are summarized in a
    side request, and the turn's request carries the summary and what is left.
    """
    await kitchen_helper(
        hass,
        llm_server,
        **{CONF_LLM_HASS_API: [], CONF_CONTEXT_WINDOW: 1024, CONF_MAX_TOKENS: 600},
    )
    llm_server.tokenizer = _tokens
    llm_server.responder = lambda body: (
        Text(SUMMARY) if _is_summary_request(body) else None
    )

    for question, answer in DINNER:
        llm_server.reply(Text(answer))
        result = await ask(hass, question, "dinner-party")
        assert result.response.speech["plain"]["speech"] == answer

    summaries = [body for body in llm_server.chat_requests if _is_summary_request(body)]
    assert summaries
    assert SUMMARY in llm_server.last_chat_request["messages"][0]["content"]
    assert wire(llm_server) == snapshot
