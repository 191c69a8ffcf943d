"""A home of cheap entities exposed to Assist, and the two agents under test.

Chatterbox and Home Assistant's own llama_cpp integration point at the same
scripted server, with the same model, the same exposed entities and the same
Assist API, so that what differs between their requests and timings is theirs.
"""

from dataclasses import dataclass
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
    async_should_expose,
)
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.conftest import API_KEY, server_entry

MODEL = "qwen3:8b"
# llama.cpp's own server reports its context size at /props; both agents see it.
N_CTX = 8192
AREAS = (
    "Kitchen",
    "Living room",
    "Bedroom",
    "Office",
    "Hallway",
    "Bathroom",
    "Garage",
    "Garden",
)
THINGS = ("lamp", "fan", "heater", "plug", "socket", "speaker", "blind", "sprinkler")
PLUGS = ("ceiling light", "wall plug", "floor lamp", "fan", "ceiling fan")
LEVELS = ("thermostat", "fan speed", "blind position", "volume", "brightness")
KITCHEN_LIGHT = "light.kitchen_light"
CHATTERBOX = "conversation.kitchen_helper"
CORE = "conversation.qwen3_8b"
CORE_AGENT_ID = "coresubentry000000000000001"


@dataclass(frozen=True)
class Agent:
    """One agent under test, by the name the table gives it."""

    name: str
    entity_id: str


AGENTS = (Agent("Chatterbox", CHATTERBOX), Agent("core llama_cpp", CORE))


async def async_build_home(hass: HomeAssistant, size: int) -> None:
    """Build a home of size entities in eight areas, all exposed to Assist.

    One template light (the kitchen light of the tests) and switches
    (input_boolean helpers).
    """
    await _async_kitchen_light(hass)
    switches = {
        f"bench_{number:03}": _name(number, THINGS) for number in range(size - 1)
    }
    assert await async_setup_component(
        hass,
        "input_boolean",
        {
            "input_boolean": {
                "kitchen_power": {},
                **{key: {"name": name} for key, name in switches.items()},
            }
        },
    )
    await hass.async_block_till_done()
    _place(hass, KITCHEN_LIGHT, 0)
    async_expose_entity(hass, conversation.DOMAIN, KITCHEN_LIGHT, should_expose=True)
    async_expose_entity(
        hass,
        conversation.DOMAIN,
        "input_boolean.kitchen_power",
        should_expose=False,
    )
    for number, key in enumerate(switches):
        _place(hass, f"input_boolean.{key}", number)


async def async_grow_home(hass: HomeAssistant, size: int) -> None:
    """Grow the home to size entities with thermostat settings (input_number)."""
    have = len(
        [
            entity_id
            for entity_id in hass.states.async_entity_ids()
            if async_should_expose(hass, conversation.DOMAIN, entity_id)
        ]
    )
    levels = {
        f"bench_level_{number:03}": _name(number, LEVELS)
        for number in range(size - have)
    }
    assert await async_setup_component(
        hass,
        "input_number",
        {
            "input_number": {
                key: {"name": name, "min": 0, "max": 30, "initial": 20}
                for key, name in levels.items()
            }
        },
    )
    await hass.async_block_till_done()
    for number, key in enumerate(levels):
        _place(hass, f"input_number.{key}", number)


def add_plugs(hass: HomeAssistant, size: int) -> None:
    """Grow the home to size exposed entities with plugs: bare switch states.

    A registry entry and a state each, without an integration behind them:
    what the Assist API lists and what a turn reads is the same as for a real
    switch, and a thousand of them set up in a moment.
    """
    have = len(
        [
            entity_id
            for entity_id in hass.states.async_entity_ids()
            if async_should_expose(hass, conversation.DOMAIN, entity_id)
        ]
    )
    entities = er.async_get(hass)
    for number in range(have, size):
        name = _name(number, PLUGS)
        entry = entities.async_get_or_create(
            "switch", "bench", f"plug_{number:04}", original_name=name
        )
        hass.states.async_set(entry.entity_id, "off", {"friendly_name": name})
        _place(hass, entry.entity_id, number)


def _name(number: int, things: tuple[str, ...]) -> str:
    """Name an entity by its area, what it is, and its number."""
    area = AREAS[number % len(AREAS)]
    return f"{area} {things[number // len(AREAS) % len(things)]} {number}"


def _place(hass: HomeAssistant, entity_id: str, number: int) -> None:
    """Put an entity in its area and expose it to Assist."""
    area = ar.async_get(hass).async_get_or_create(AREAS[number % len(AREAS)])
    er.async_get(hass).async_update_entity(entity_id, area_id=area.id)
    async_expose_entity(hass, conversation.DOMAIN, entity_id, should_expose=True)


async def _async_kitchen_light(hass: HomeAssistant) -> None:
    """Add the kitchen light of the tests: a template light on a helper."""
    power = {"target": {"entity_id": "input_boolean.kitchen_power"}}
    is_on = "{{ is_state('input_boolean.kitchen_power', 'on') }}"
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "light": [
                        {
                            "name": "Kitchen light",
                            "unique_id": "bench_kitchen_light",
                            "state": is_on,
                            "turn_on": [{"action": "input_boolean.turn_on", **power}],
                            "turn_off": [{"action": "input_boolean.turn_off", **power}],
                        }
                    ]
                }
            ]
        },
    )


def chatterbox_entry(url: str) -> MockConfigEntry:
    """Return Chatterbox's server entry with its one agent."""
    return server_entry(
        url, {CONF_MODEL: MODEL, CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]}
    )


def core_entry(url: str, model: str = MODEL, **options: Any) -> MockConfigEntry:
    """Return the entry that llama_cpp's config flow creates for a streaming server.

    With options, the agent's settings are those (not the recommended ones).
    """
    data: dict[str, Any] = {"base_url": url, CONF_API_KEY: API_KEY, "streaming": True}
    return MockConfigEntry(
        domain="llama_cpp",
        title=url,
        data=data,
        subentries_data=[
            ConfigSubentryData(
                subentry_type="conversation",
                subentry_id=CORE_AGENT_ID,
                title=model.capitalize(),
                data={
                    "recommended": not options,
                    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
                    "chat_model": model,
                    **options,
                },
                unique_id=None,
            )
        ],
    )
