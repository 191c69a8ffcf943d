"""The device search a model gets in a home too large to list."""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
    llm,
)

from custom_components.chatterbox.const import DOMAIN
from custom_components.chatterbox.skills.finder import FIND_DEVICES, FindDevicesTool

CONTEXT = llm.LLMContext(
    platform=DOMAIN,
    context=None,
    language="en",
    assistant=conversation.DOMAIN,
    device_id=None,
)


@pytest.fixture
async def home(ha_core: HomeAssistant) -> None:
    """Build a two-floor home: a study upstairs, a kitchen downstairs, a hidden safe."""
    hass = ha_core
    upstairs = fr.async_get(hass).async_create("Upstairs", aliases={"first floor"})
    study = ar.async_get(hass).async_create("Study", floor_id=upstairs.floor_id)
    kitchen = ar.async_get(hass).async_create("Kitchen", aliases={"cookery"})
    devices = (
        ("light", "desk", "Desk lamp", "on", study.id, True),
        ("cover", "study_blind", "Study blind", "open", study.id, True),
        ("light", "kitchen_spots", "Spots", "off", kitchen.id, True),
        ("binary_sensor", "pantry_door", "Pantry door", "on", kitchen.id, True),
        ("cover", "kitchen_window", "Kitchen window", "closed", kitchen.id, True),
        ("lock", "safe", "Safe", "locked", study.id, False),
    )
    for domain, key, name, state, area_id, exposed in devices:
        entry = er.async_get(hass).async_get_or_create(
            domain, "test", key, suggested_object_id=key, original_name=name
        )
        er.async_get(hass).async_update_entity(entry.entity_id, area_id=area_id)
        hass.states.async_set(entry.entity_id, state, {"friendly_name": name})
        async_expose_entity(
            hass, conversation.DOMAIN, entry.entity_id, should_expose=exposed
        )


async def find(hass: HomeAssistant, **arguments: str) -> dict[str, Any]:
    """Search as a model would, and return the result's data."""
    result = await FindDevicesTool().async_call(
        hass, llm.ToolInput(tool_name=FIND_DEVICES, tool_args=arguments), CONTEXT
    )
    return dict(result.data)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("arguments", "devices"),
    [
        # A floor by its alias, and everything on it that is exposed.
        (
            {"area": "first floor"},
            ["Desk lamp (light in Study): on", "Study blind (cover in Study): open"],
        ),
        # An area's alias, and a kind said in the plural.
        (
            {"area": "cookery", "domain": "covers"},
            ["Kitchen window (cover in Kitchen): closed"],
        ),
        ({"domain": "cover", "state": "open"}, ["Study blind (cover in Study): open"]),
        ({"name": "lamp"}, ["Desk lamp (light in Study): on"]),
        # A domain of two words, said as words.
        (
            {"domain": "binary sensors", "state": "on"},
            ["Pantry door (binary_sensor in Kitchen): on"],
        ),
        ({"domain": "binary_sensor"}, ["Pantry door (binary_sensor in Kitchen): on"]),
        ({"domain": "sensor"}, []),
        # The safe is not exposed: never found.
        ({"name": "safe"}, []),
        ({"area": "garden"}, []),
    ],
)
async def test_a_search_finds_what_matches_every_part(
    hass: HomeAssistant, arguments: dict[str, str], devices: list[str]
) -> None:
    """Each search part narrows the result; devices come with area and state."""
    assert await find(hass, **arguments) == {"devices": devices}
