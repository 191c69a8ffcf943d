"""Calls Home Assistant's intents would refuse, read as the user meant them.

Through a real Home Assistant with Assist's tools, the openai SDK and the
scripted server.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component

from .conftest import ask, tool_result
from .llm_server import Call, LLMServer, Text, ToolCalls

LAMP = "light.living_room_lamp"
TURN_OFF = "intent__HassTurnOff"


@pytest.fixture
async def living_room_lamp(ha_core: HomeAssistant) -> str:
    """Add the living room's one light, "Living room lamp", on and exposed."""
    assert await async_setup_component(
        ha_core, "input_boolean", {"input_boolean": {"lamp_power": {"initial": True}}}
    )
    power = {"target": {"entity_id": "input_boolean.lamp_power"}}
    light = {
        "name": "Living room lamp",
        "unique_id": "living-room-lamp",
        "state": "{{ is_state('input_boolean.lamp_power', 'on') }}",
        "turn_on": [{"action": "input_boolean.turn_on", **power}],
        "turn_off": [{"action": "input_boolean.turn_off", **power}],
    }
    assert await async_setup_component(
        ha_core, "template", {"template": [{"light": [light]}]}
    )
    await ha_core.async_block_till_done()
    area = ar.async_get(ha_core).async_create("Living Room", aliases={"Lounge"})
    er.async_get(ha_core).async_update_entity(LAMP, area_id=area.id)
    ar.async_get(ha_core).async_create("Garage")
    async_expose_entity(ha_core, conversation.DOMAIN, LAMP, should_expose=True)
    assert ha_core.states.get(LAMP).state == "on"
    return LAMP


def tool_results(request: dict[str, Any]) -> list[Any]:
    """Return the tool results a request carries, decoded."""
    return [
        tool_result(m["content"]) for m in request["messages"] if m["role"] == "tool"
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_the_lights_of_a_room_named_as_one_light(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """User: "turn off the lights in the living room".

    The model asks for a light called "Living room light"; there is none (the
    room's light is the "Living room lamp"), so the call runs for the living
    room's lights. The lamp is off, and the model reads that it worked.
    """
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "Living room light", "domain": ["light"]})]),
        Text("The living room lamp is off."),
    )

    result = await ask(hass, "Turn off the lights in the living room")

    assert result.response.speech["plain"]["speech"] == "The living room lamp is off."
    assert hass.states.get(living_room_lamp).state == "off"
    (done,) = tool_results(llm_server.chat_requests[1])
    assert done["error"] is False
    # Home Assistant's own answer for the room: the area, then its light.
    assert [(s["type"], s["id"]) for s in done["data"]["data"]["success"]] == [
        ("area", "living_room"),
        ("entity", living_room_lamp),
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_a_room_named_by_its_alias(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """User: "lounge lamps off": the area's alias finds the room."""
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "the lounge lamps", "domain": "light"})]),
        Text("Done."),
    )

    await ask(hass, "Lounge lamps off")

    assert hass.states.get(living_room_lamp).state == "off"


@pytest.mark.usefixtures("loaded_entry")
async def test_a_room_without_the_device_still_fails(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """User: "turn off the garage light": the garage has no light.

    The area's lights are tried and there are none; the model reads the first
    error, about the name it gave, and says so. Nothing else changed.
    """
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "Garage light", "domain": ["light"]})]),
        Text("There is no garage light."),
    )

    result = await ask(hass, "Turn off the garage light")

    assert result.response.speech["plain"]["speech"] == "There is no garage light."
    assert hass.states.get(living_room_lamp).state == "on"
    (failed,) = tool_results(llm_server.chat_requests[1])
    assert failed["error"] is True
    assert "Garage light" in failed["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_no_room_is_guessed_without_a_domain(
    hass: HomeAssistant, llm_server: LLMServer, living_room_lamp: str
) -> None:
    """Without a domain the area alone would switch off all of the room."""
    llm_server.reply(
        ToolCalls([Call(TURN_OFF, {"name": "Living room light"})]),
        Text("I could not find that light."),
    )

    await ask(hass, "Turn off the living room light")

    assert hass.states.get(living_room_lamp).state == "on"
    (failed,) = tool_results(llm_server.chat_requests[1])
    assert failed["data"]["error"] == "MatchFailedError"
