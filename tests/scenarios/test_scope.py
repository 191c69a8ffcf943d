"""A model acts only on what the user asked for, and asks only about that.

Small models reach beyond a request: asked to switch off a room, one also
unlocked the front door, and the user heard "Do you want me to unlock Front
door?". Each story runs a real Home Assistant, the agent, the openai SDK and
the scripted server, with the calls made natively and written as text.
"""

from collections.abc import AsyncGenerator
from functools import partial
import json
from pathlib import Path
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_MAX_ITERATIONS,
    CONF_TOOL_MODE,
    TOOL_MODE_NATIVE,
    TOOL_MODE_TEXT,
)
from tests.helpers.common import MODELS, traced
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.sensitive import QUESTION, heard, say, state

FRONT = "lock.front_door"
GARAGE = "cover.garage_door"
DESK_LAMP = "light.desk_lamp"
PRINTER = "switch.printer"
PORCH = "light.porch_light"
KITCHEN = "light.kitchen_light"
HEATER = "switch.heater"
SHOPPING = "todo.shopping_list"
UNLOCK = Call("HassTurnOff", {"name": "Front door"})

pytestmark = pytest.mark.usefixtures("loaded_entry", "home")


@pytest.fixture(params=[TOOL_MODE_NATIVE, TOOL_MODE_TEXT])
def agent_data(request: pytest.FixtureRequest) -> dict[str, object]:
    """Give the agent Assist, its calls made natively or written as text."""
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: 10,
        CONF_TOOL_MODE: request.param,
    }


def calls(agent_data: dict[str, object], *made: Call) -> ToolCalls | Text:
    """Return the model's calls, as the agent's tool mode has it write them."""
    if agent_data[CONF_TOOL_MODE] == TOOL_MODE_NATIVE:
        return ToolCalls(list(made))
    return Text(
        "".join(
            "<tool_call>"
            + json.dumps({"name": call.name, "arguments": call.arguments})
            + "</tool_call>"
            for call in made
        )
    )


@pytest.fixture
async def home(ha_core: HomeAssistant) -> None:
    """Build a home of four rooms and a heater in none, all exposed.

    A front door and a porch light in the hallway, a garage door in the
    garage, a desk lamp and a printer in the office, a kitchen light in the
    kitchen. The lights, printer and heater are off, the door locked, the
    garage door closed.
    """
    hass = ha_core
    powers = ("front_bolt", "garage_open", "desk", "printer", "porch", "kitchen")
    assert await async_setup_component(
        hass,
        "input_boolean",
        {
            "input_boolean": {
                power: {"initial": power == "front_bolt"}
                for power in (*powers, "heater")
            }
        },
    )

    def flip(power: str, action: str) -> list[dict[str, Any]]:
        entity = {"entity_id": f"input_boolean.{power}"}
        return [{"action": f"input_boolean.{action}", "target": entity}]

    def switched(name: str, power: str) -> dict[str, Any]:
        return {
            "name": name,
            "unique_id": power,
            "state": f"{{{{ is_state('input_boolean.{power}', 'on') }}}}",
            "turn_on": flip(power, "turn_on"),
            "turn_off": flip(power, "turn_off"),
        }

    garage = "{{ 'open' if is_state('input_boolean.garage_open', 'on') else 'closed' }}"
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "lock": [
                        {
                            "name": "Front door",
                            "unique_id": "front_bolt",
                            "state": "{{ is_state('input_boolean.front_bolt', 'on') }}",
                            "lock": flip("front_bolt", "turn_on"),
                            "unlock": flip("front_bolt", "turn_off"),
                        }
                    ],
                    "cover": [
                        {
                            "name": "Garage door",
                            "unique_id": "garage_open",
                            "device_class": "garage",
                            "state": garage,
                            "open_cover": flip("garage_open", "turn_on"),
                            "close_cover": flip("garage_open", "turn_off"),
                            "stop_cover": [],
                        }
                    ],
                    "light": [
                        switched("Desk lamp", "desk"),
                        switched("Porch light", "porch"),
                        switched("Kitchen light", "kitchen"),
                    ],
                    "switch": [
                        switched("Printer", "printer"),
                        switched("Heater", "heater"),
                    ],
                }
            ]
        },
    )
    await hass.async_block_till_done()
    areas = ar.async_get(hass)
    entities = er.async_get(hass)
    for entity_id, area in (
        (FRONT, "Hallway"),
        (PORCH, "Hallway"),
        (GARAGE, "Garage"),
        (DESK_LAMP, "Office"),
        (PRINTER, "Office"),
        (KITCHEN, "Kitchen"),
    ):
        room = areas.async_get_area_by_name(area) or areas.async_create(area)
        entities.async_update_entity(entity_id, area_id=room.id)
    for each in hass.states.async_all():
        async_expose_entity(
            hass,
            conversation.DOMAIN,
            each.entity_id,
            should_expose=each.domain != "input_boolean",
        )
    assert state(hass, FRONT) == "locked"
    assert state(hass, GARAGE) == "closed"


def read_by_model(llm_server: LLMServer) -> str:
    """Return everything the model read in the turn's last request."""
    return json.dumps(llm_server.last_chat_request["messages"])


async def test_an_unrequested_unlock_is_refused_and_never_asked_about(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, object]
) -> None:
    """User asks for the porch light; the model also unlocks the front door.

    The door is in the same hallway, but the user did not name it: the unlock
    is refused before anyone is asked, the door stays locked, the porch light
    goes off, and the model reads why.
    """
    assert await _switch_on(hass, PORCH) == "on"
    llm_server.reply(
        calls(agent_data, Call("HassTurnOff", {"name": "Porch light"}), UNLOCK),
        Text("The porch light is off."),
    )

    result = await say(hass, "Turn off the porch light")

    assert heard(result) == "The porch light is off."
    assert state(hass, PORCH) == "off"
    assert state(hass, FRONT) == "locked"
    assert "the user did not ask for Front door" in read_by_model(llm_server)
    assert traced("chatterbox_not_requested") == [
        {"tool": "intent__HassTurnOff", "entities": [FRONT]}
    ]


async def test_an_unrequested_light_in_another_room_stays_off(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, object]
) -> None:
    """User asks for the desk lamp; the model also lights the kitchen.

    The desk lamp comes on; the kitchen light, never asked for, stays off.
    """
    llm_server.reply(
        calls(
            agent_data,
            Call("HassTurnOn", {"name": "Desk lamp"}),
            Call("HassTurnOn", {"name": "Kitchen light"}),
        ),
        Text("The desk lamp is on."),
    )

    result = await say(hass, "Switch on the desk lamp")

    assert heard(result) == "The desk lamp is on."
    assert state(hass, DESK_LAMP) == "on"
    assert state(hass, KITCHEN) == "off"
    assert "the user did not ask for Kitchen light" in read_by_model(llm_server)


@pytest.mark.parametrize(
    ("said", "device"),
    [("I'm cold", "Heater"), ("It's too dark in here", "Kitchen light")],
)
async def test_a_request_that_names_nothing_is_still_acted_on(
    hass: HomeAssistant,
    llm_server: LLMServer,
    agent_data: dict[str, object],
    said: str,
    device: str,
) -> None:
    """User names no device; the model picks one: it is switched on."""
    llm_server.reply(
        calls(agent_data, Call("HassTurnOn", {"name": device})),
        Text(f"I turned on the {device.lower()}."),
    )

    result = await say(hass, said)

    assert heard(result) == f"I turned on the {device.lower()}."
    entity_id = {"Heater": HEATER, "Kitchen light": KITCHEN}[device]
    assert state(hass, entity_id) == "on"
    assert traced("chatterbox_not_requested") == []


async def test_an_unlock_asked_for_still_waits_for_yes(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, object]
) -> None:
    """User asks to unlock the front door: the agent asks; a yes unlocks it."""
    llm_server.reply(calls(agent_data, UNLOCK))

    assert heard(await say(hass, "Unlock the front door")) == QUESTION
    assert state(hass, FRONT) == "locked"

    llm_server.reply(Text("The front door is unlocked."))
    assert heard(await say(hass, "Yes")) == "The front door is unlocked."
    assert state(hass, FRONT) == "unlocked"


async def test_switching_off_a_room_asks_about_nothing_outside_it(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, object]
) -> None:
    """User switches off the office; the model also reaches for three doors.

    It unlocks the front door, opens and stops the garage door, and cancels
    the hallway's timers. The office goes dark; nobody is asked anything; the
    doors stay as they were; the timers, which are no devices, are cancelled.
    """
    await _switch_on(hass, DESK_LAMP)
    await _switch_on(hass, PRINTER)
    llm_server.reply(
        calls(
            agent_data,
            Call("HassTurnOff", {"area": "Office"}),
            UNLOCK,
            Call("HassTurnOn", {"name": "Garage door"}),
            Call("HassStopMoving", {"name": "Garage door"}),
            Call("HassCancelAllTimers", {"area": "Hallway"}),
        ),
        Text("The office is switched off."),
    )

    result = await say(hass, "Switch off everything in the office")

    assert heard(result) == "The office is switched off."
    assert state(hass, DESK_LAMP) == state(hass, PRINTER) == "off"
    assert state(hass, FRONT) == "locked"
    assert state(hass, GARAGE) == "closed"
    refused = traced("chatterbox_not_requested")
    assert [entry["entities"] for entry in refused] == [[FRONT], [GARAGE], [GARAGE]]
    assert "ConfirmationNeeded" not in read_by_model(llm_server)


async def test_a_question_names_the_same_deed_once(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, object]
) -> None:
    """User asks to unlock; the model unlocks by name, and again by room.

    Both calls unlock the front door: the question says it once, and a yes
    unlocks it.
    """
    llm_server.reply(
        calls(
            agent_data,
            UNLOCK,
            Call("HassTurnOff", {"area": "Hallway", "domain": "lock"}),
        )
    )

    assert heard(await say(hass, "Unlock the front door")) == QUESTION

    llm_server.reply(Text("The front door is unlocked."))
    assert heard(await say(hass, "Yes please")) == "The front door is unlocked."
    assert state(hass, FRONT) == "unlocked"


async def _switch_on(hass: HomeAssistant, entity_id: str) -> str:
    """Switch a device on before the story starts; return its state."""
    domain = entity_id.split(".", 1)[0]
    await hass.services.async_call(
        domain, "turn_on", {"entity_id": entity_id}, blocking=True
    )
    return state(hass, entity_id)


@pytest.fixture
async def shopping_list(hass: HomeAssistant, home: None) -> AsyncGenerator[None]:
    """Add Home Assistant's shopping list, empty, exposed; remove its file after.

    The list keeps its items in a file of the configuration folder, which the
    test harness shares between tests.
    """
    kept = Path(hass.config.path(".shopping_list.json"))
    await hass.async_add_executor_job(partial(kept.unlink, missing_ok=True))
    entry = MockConfigEntry(domain="shopping_list")
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, SHOPPING, should_expose=True)
    yield
    await hass.async_add_executor_job(partial(kept.unlink, missing_ok=True))


@pytest.mark.usefixtures("shopping_list")
async def test_an_item_that_names_a_room_goes_on_the_list(
    hass: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, object]
) -> None:
    """User puts "tidy the office" on "my list"; it goes on the shopping list.

    The words name the office only inside the item, and not the list, which
    is in no room: the list is no change outside the request, and nothing in
    the office changes.
    """
    add = Call("HassListAddItem", {"item": "tidy the office", "name": "Shopping List"})
    llm_server.reply(calls(agent_data, add), Text("I added it to your shopping list."))

    result = await say(hass, "Put tidy the office on my list")

    assert heard(result) == "I added it to your shopping list."
    assert state(hass, SHOPPING) == "1"
    assert state(hass, DESK_LAMP) == "off"
    assert state(hass, PRINTER) == "off"
    assert traced("chatterbox_not_requested") == []
