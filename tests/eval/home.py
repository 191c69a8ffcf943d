"""The demo home inside the test harness's Home Assistant, and the agents.

The devices are those of demo/configuration.yaml (template lights, lock, fan,
weather, and a generic thermostat), in the demo's areas, exposed to Assist as
demo/home.py exposes them, and reset to the demo's starting states before
each case. Both agents get the same model, instructions (the demo's),
temperature 0, and the same LLM APIs: Assist plus Chatterbox's weather and
calculator skills, which any agent can select.
"""

from collections.abc import Sequence
import os
from pathlib import Path
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API, CONF_MODEL, CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er, llm
from homeassistant.setup import async_setup_component
from homeassistant.util.yaml import load_yaml_dict

from custom_components.chatterbox.const import (
    CONF_GUIDE,
    CONF_TEMPERATURE,
    CONF_TOOL_MODE,
)
from demo.home import AGENT_PROMPT, AREAS, EXPOSED, HIDDEN, START_STATES
from tests.bench.home import core_entry
from tests.conftest import server_entry

from .cases import EntityState

DEMO_CONFIG = Path(__file__).parents[2] / "demo" / "configuration.yaml"
WATCHED = tuple(entity for entity in EXPOSED if entity not in HIDDEN)
APIS = [llm.LLM_API_ASSIST, "chatterbox_weather", "chatterbox_calc"]
# How a case's `start` puts an entity in a state.
START_SERVICES = {
    ("light", "on"): "turn_on",
    ("light", "off"): "turn_off",
    ("fan", "on"): "turn_on",
    ("fan", "off"): "turn_off",
    ("lock", "locked"): "lock",
    ("lock", "unlocked"): "unlock",
}


async def async_set_up_assist(hass: HomeAssistant) -> None:
    """Set up what Assist needs before any home (conversation brings intents)."""
    for domain in ("homeassistant", "conversation"):
        assert await async_setup_component(hass, domain, {})


async def async_build_demo_home(hass: HomeAssistant) -> None:
    """Set up the demo's devices, areas and Assist exposure."""
    config = await hass.async_add_executor_job(load_yaml_dict, DEMO_CONFIG)
    await hass.config.async_update(time_zone=config["homeassistant"]["time_zone"])
    await async_set_up_assist(hass)
    assert await async_setup_component(
        hass, "template", {"template": config["template"]}
    )
    assert await async_setup_component(hass, "climate", {"climate": config["climate"]})
    await hass.async_block_till_done()
    areas = ar.async_get(hass)
    entities = er.async_get(hass)
    for name, members in AREAS.items():
        area = areas.async_get_or_create(name)
        for entity_id in members:
            entities.async_update_entity(entity_id, area_id=area.id)
    for entity_id in EXPOSED:
        async_expose_entity(
            hass, conversation.DOMAIN, entity_id, should_expose=entity_id not in HIDDEN
        )


# The large-home variant: rooms beyond the demo's, each with devices whose
# names repeat from room to room as in a real home ("Ceiling light" in
# every bedroom, "Fan" and "Ceiling fan"). None is a thermostat or a lock,
# none is in a demo room, and no room is one a case says the home lacks (the
# garage, the garden), so that every case still means what it says.
DISTRACTOR_ROOMS = (
    "Bedroom 2", "Guest room", "Study", "Den", "Attic", "Basement", "Sunroom",
    "Laundry", "Pantry", "Bathroom", "Guest bath", "Nursery", "Playroom", "Gym",
    "Office", "Porch", "Patio", "Hobby room", "Workshop", "Dining room",
)  # fmt: skip
DISTRACTOR_KINDS = (
    ("light", "Ceiling light", 2), ("light", "Wall light", 4),
    ("light", "Floor lamp", 2), ("light", "Spotlight", 4), ("fan", "Fan", 1),
    ("fan", "Ceiling fan", 1), ("switch", "Outlet", 8), ("switch", "Charger", 2),
    ("switch", "Dehumidifier", 1), ("switch", "Speaker", 1),
)  # fmt: skip


def add_distractors(hass: HomeAssistant) -> int:
    """Add the large home's devices, exposed, all off; return how many.

    Bare states with registry entries: the Assist API lists them and a turn
    reads them as any device; an action on one fails as on a device that is
    unplugged, which a case's checks then count.
    """
    areas = ar.async_get(hass)
    entities = er.async_get(hass)
    added = 0
    for room in DISTRACTOR_ROOMS:
        area = areas.async_get_or_create(room)
        for domain, kind, count in DISTRACTOR_KINDS:
            for number in range(1, count + 1):
                name = kind if count == 1 else f"{kind} {number}"
                key = f"{room}_{kind}_{number}".lower().replace(" ", "_")
                entry = entities.async_get_or_create(
                    domain, "eval_large_home", key, original_name=name
                )
                entities.async_update_entity(entry.entity_id, area_id=area.id)
                hass.states.async_set(entry.entity_id, "off", {"friendly_name": name})
                async_expose_entity(
                    hass, conversation.DOMAIN, entry.entity_id, should_expose=True
                )
                added += 1
    return added


async def async_reset(hass: HomeAssistant, start: dict[str, str]) -> None:
    """Put the devices in the demo's starting states, then in the case's."""
    for domain, service, data in START_STATES:
        await hass.services.async_call(domain, service, data, blocking=True)
    for entity_id, state in start.items():
        domain = entity_id.split(".")[0]
        await hass.services.async_call(
            domain,
            START_SERVICES[domain, state],
            {"entity_id": entity_id},
            blocking=True,
        )
    await hass.async_block_till_done()


def snapshot(hass: HomeAssistant) -> dict[str, EntityState]:
    """Return the state of every demo device a case may look at."""
    found = {}
    for entity_id in WATCHED:
        if (state := hass.states.get(entity_id)) is not None:
            found[entity_id] = EntityState(state.state, dict(state.attributes))
    return found


def agent_options(
    model: str, tool_mode: str, apis: Sequence[str] = APIS
) -> dict[str, Any]:
    """Return Chatterbox's agent settings for a column.

    Guide a small model is the agent's default (Auto), or $EVAL_GUIDE (on,
    off): a capable model's replay with the aids on shows they cost it nothing.
    """
    return {
        CONF_MODEL: model,
        CONF_LLM_HASS_API: list(apis),
        CONF_PROMPT: AGENT_PROMPT,
        CONF_TEMPERATURE: 0,
        CONF_TOOL_MODE: tool_mode,
        **({CONF_GUIDE: guide} if (guide := os.environ.get("EVAL_GUIDE")) else {}),
    }


async def async_add_agents(
    hass: HomeAssistant,
    url: str,
    model: str,
    tool_mode: str,
    *,
    apis: Sequence[str] = APIS,
    api_key: str | None = None,
) -> tuple[ConfigEntry, str, str]:
    """Add Chatterbox and core's llama_cpp for the server; return their agents.

    Returns Chatterbox's entry and both conversation entity ids. With an API
    key, both agents send it (a user's own server).
    """
    ours = server_entry(url, agent_options(model, tool_mode, apis))
    core = core_entry(
        url,
        model,
        **{
            CONF_LLM_HASS_API: list(apis),
            CONF_PROMPT: AGENT_PROMPT,
            "temperature": 0,
        },
    )
    for entry in (ours, core):
        entry.add_to_hass(hass)
        if api_key is not None:
            hass.config_entries.async_update_entry(
                entry, data={**entry.data, CONF_API_KEY: api_key}
            )
        assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return ours, _agent(hass, ours), _agent(hass, core)


def _agent(hass: HomeAssistant, entry: ConfigEntry) -> str:
    """Return the conversation entity of an entry's agent."""
    return next(
        item.entity_id
        for item in er.async_entries_for_config_entry(
            er.async_get(hass), entry.entry_id
        )
        if item.domain == conversation.DOMAIN
    )


async def async_set_tool_mode(
    hass: HomeAssistant,
    entry: ConfigEntry,
    model: str,
    tool_mode: str,
    apis: Sequence[str] = APIS,
) -> None:
    """Switch Chatterbox's agent to a tool mode (the entry reloads)."""
    subentry = next(iter(entry.subentries.values()))
    hass.config_entries.async_update_subentry(
        entry, subentry, data=agent_options(model, tool_mode, apis)
    )
    await hass.async_block_till_done()


def probed(entry: ConfigEntry, model: str) -> bool:
    """Tell whether Chatterbox's capability probe of the model has finished."""
    runtime = getattr(entry, "runtime_data", None)
    return runtime is not None and model in runtime.capabilities
