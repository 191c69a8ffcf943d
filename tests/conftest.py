"""Fixtures shared by the tests: a real Home Assistant, a scripted LLM server."""

import asyncio
from collections.abc import AsyncGenerator, Generator
import gc
import json
import logging
import os
from typing import Any

from hypothesis import settings
import pytest

from homeassistant.components import conversation
from homeassistant.components.conversation.trace import async_get_traces
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

# Import the integration before the hass fixture runs: the test plugin puts its
# own testing package under the name custom_components, and the loader must find
# ours instead.
import custom_components.chatterbox  # noqa: F401
from custom_components.chatterbox.agent import entity
from custom_components.chatterbox.const import CONF_GUIDE, CONF_MAX_ITERATIONS, GUIDE_ON
from custom_components.chatterbox.diagnostics import async_get_config_entry_diagnostics
from tests.helpers import faults
from tests.helpers.common import (
    API_KEY,
    KITCHEN_LIGHT,
    MODELS,
    server_entry,
)
from tests.helpers.llm_server import LLMServer, Text
from tests.helpers.tools import FakeTool, weather_tools

# Every property runs 1,000 examples in CI; HYPOTHESIS_PROFILE=dev runs 100 while
# iterating. No deadline: this machine's timing varies too much to be a check.
settings.register_profile("ci", max_examples=1000, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> None:
    """Let Home Assistant load custom integrations in every test."""


@pytest.fixture(autouse=True)
async def let_stream_finalizers_run() -> AsyncGenerator[None]:
    """Let the event loop finish closing the streams a test left behind.

    With httpx/httpcore (openai 3.10 on HA 2026.10) the SDK stops reading at
    [DONE] and leaves a chain of async generators suspended (decoder, httpx,
    httpcore's PoolByteStream.__aiter__). The event loop closes them through
    its async-generator finalizer, one layer per task, each scheduled by the
    one before: a test that ends right after a turn would see one of those
    short-lived tasks in the plugin's lingering-task check. So garbage is
    collected and the loop turns until no such task has appeared for a while.
    A generator that does not finish closing still fails the check.
    """
    yield
    gc.collect()
    quiet = 0
    for _ in range(100):
        await asyncio.sleep(0)
        busy = any(
            "athrow" in repr(task) and not task.done() for task in asyncio.all_tasks()
        )
        quiet = 0 if busy else quiet + 1
        if quiet >= 5:
            break


@pytest.fixture(autouse=True)
def the_key_never_leaks(caplog: pytest.LogCaptureFixture) -> Generator[None]:
    """After every test: the API key is in no log record, message or traceback.

    Nor in a conversation trace (the Assist debug view). The diagnostics are
    checked by loaded_entry, while Home Assistant still runs.
    """
    yield
    for record in caplog.get_records("call") + caplog.get_records("setup"):
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += repr(record.exc_info[1]) + str(record.exc_info[1])
        assert API_KEY not in text, f"{record.name}: the API key was logged"
    for trace in async_get_traces():
        assert API_KEY not in json.dumps(trace.as_dict(), default=repr)


@pytest.fixture
async def ha_core(hass: HomeAssistant) -> HomeAssistant:
    """Set up Home Assistant's core integration, which conversation relies on."""
    assert await async_setup_component(hass, "homeassistant", {})
    return hass


@pytest.fixture
async def llm_server(socket_enabled: None) -> AsyncGenerator[LLMServer]:
    """Run an OpenAI-compatible server on 127.0.0.1 that expects API_KEY."""
    async with LLMServer(models=MODELS, api_key=API_KEY) as server:
        yield server


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Return the settings of the entry's one agent; tests may override it.

    It guides a small model, as the demo's: the stories of a small model's
    failures need its aids. The capable model's stories (tests/scenarios/
    capable) set their own.
    """
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: 10,
        CONF_GUIDE: GUIDE_ON,
    }


@pytest.fixture
def config_entry(
    ha_core: HomeAssistant, llm_server: LLMServer, agent_data: dict[str, object]
) -> MockConfigEntry:
    """Add a server entry for the test server, with one agent."""
    entry = server_entry(llm_server.url, agent_data)
    entry.add_to_hass(ha_core)
    return entry


@pytest.fixture
async def loaded_entry(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> AsyncGenerator[MockConfigEntry]:
    """Set up the server entry and its agents.

    After the test, whatever it did, the key is not in the diagnostics.
    """
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    yield config_entry
    # Adding or changing an agent reloads the entry in a task; a test that ends
    # on the flow's result must not leave that reload running into teardown.
    await hass.async_block_till_done()
    if config_entry.state is ConfigEntryState.LOADED:
        diagnostics = await async_get_config_entry_diagnostics(hass, config_entry)
        assert config_entry.data[CONF_URL] in json.dumps(diagnostics)
        assert API_KEY not in json.dumps(diagnostics, default=repr)


@pytest.fixture
def tools() -> dict[str, FakeTool]:
    """Return the fake weather tools by name; an agent_data may offer them."""
    return weather_tools()


@pytest.fixture
async def talking(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> MockConfigEntry:
    """Have one good exchange in the conversation, and log from INFO on."""
    caplog.set_level(logging.INFO)
    llm_server.reply(Text(faults.FIRST_ANSWER))
    result = await faults.ask(hass, faults.FIRST_QUESTION)
    assert faults.speech(result) == faults.FIRST_ANSWER
    caplog.clear()
    return loaded_entry


@pytest.fixture
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    """Make the agent wait only briefly for a silent server."""
    monkeypatch.setattr(entity, "REQUEST_TIMEOUT", faults.SHORT_TIMEOUT)
    return faults.SHORT_TIMEOUT


@pytest.fixture
async def sse_server(socket_enabled: None) -> AsyncGenerator[LLMServer]:
    """Run the test server without a key, for replies written event by event."""
    async with LLMServer() as server:
        yield server


@pytest.fixture
async def kitchen_light(ha_core: HomeAssistant) -> str:
    """Add a real light entity, exposed to Assist, that starts off."""
    assert await async_setup_component(
        ha_core, "input_boolean", {"input_boolean": {"kitchen_power": {}}}
    )
    power = {"target": {"entity_id": "input_boolean.kitchen_power"}}
    is_on = "{{ is_state('input_boolean.kitchen_power', 'on') }}"
    assert await async_setup_component(
        ha_core,
        "template",
        {
            "template": [
                {
                    "light": [
                        {
                            "name": "Kitchen light",
                            "state": is_on,
                            "turn_on": [{"action": "input_boolean.turn_on", **power}],
                            "turn_off": [{"action": "input_boolean.turn_off", **power}],
                        }
                    ]
                }
            ]
        },
    )
    await ha_core.async_block_till_done()
    for entity_id, exposed in (
        (KITCHEN_LIGHT, True),
        ("input_boolean.kitchen_power", False),
    ):
        async_expose_entity(
            ha_core, conversation.DOMAIN, entity_id, should_expose=exposed
        )
    assert ha_core.states.get(KITCHEN_LIGHT).state == "off"
    return KITCHEN_LIGHT


@pytest.fixture
async def guarded_home(ha_core: HomeAssistant) -> dict[str, str]:
    """Build a home with sensitive and everyday devices, all exposed to Assist.

    Locks (the front door, and two side doors of one name, in the kitchen and
    the hallway), a garage door with its relay button in the garage, a
    kitchen light, a pond pump switch; a script and a scene that unlock the
    front door, a script that unlocks the door a template names, and a script
    that only lights the kitchen. Returns the areas'
    ids by name. Every device works through an input boolean, its state.
    """
    hass = ha_core
    bolts = ("front_bolt", "side_bolt", "hall_bolt")
    assert await async_setup_component(
        hass,
        "input_boolean",
        {
            "input_boolean": {
                **{bolt: {"initial": True} for bolt in bolts},
                "kitchen_power": {},
                "pond_pump": {"initial": True},
                "garage_open": {},
            }
        },
    )

    def flip(boolean: str, action: str) -> list[dict[str, Any]]:
        entity = {"entity_id": f"input_boolean.{boolean}"}
        return [{"action": f"input_boolean.{action}", "target": entity}]

    def on(boolean: str) -> str:
        return f"{{{{ is_state('input_boolean.{boolean}', 'on') }}}}"

    locks = [
        {
            "name": name,
            "unique_id": bolt,
            "state": on(bolt),
            "lock": flip(bolt, "turn_on"),
            "unlock": flip(bolt, "turn_off"),
        }
        for name, bolt in zip(
            ("Front door", "Side door", "Side door"), bolts, strict=True
        )
    ]
    garage = "{{ 'open' if is_state('input_boolean.garage_open', 'on') else 'closed' }}"
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "lock": locks,
                    "light": [
                        {
                            "name": "Kitchen light",
                            "state": on("kitchen_power"),
                            "turn_on": flip("kitchen_power", "turn_on"),
                            "turn_off": flip("kitchen_power", "turn_off"),
                        }
                    ],
                    "switch": [
                        {
                            "name": "Pond pump",
                            "state": on("pond_pump"),
                            "turn_on": flip("pond_pump", "turn_on"),
                            "turn_off": flip("pond_pump", "turn_off"),
                        }
                    ],
                    "cover": [
                        {
                            "name": "Garage door",
                            "unique_id": "garage_door",
                            "device_class": "garage",
                            "state": garage,
                            "open_cover": flip("garage_open", "turn_on"),
                            "close_cover": flip("garage_open", "turn_off"),
                        }
                    ],
                    "button": [
                        {
                            "name": "Garage relay",
                            "unique_id": "garage_relay",
                            "press": flip("garage_open", "turn_on"),
                        }
                    ],
                }
            ]
        },
    )
    front = {"entity_id": "lock.front_door"}
    assert await async_setup_component(
        hass,
        "script",
        {
            "script": {
                "leave_home": {
                    "alias": "Leave home",
                    "sequence": [{"action": "lock.unlock", "target": front}],
                },
                "open_for": {
                    "alias": "Open for",
                    "fields": {"door": {"selector": {"text": {}}}},
                    "sequence": [
                        {
                            "action": "lock.unlock",
                            "target": {"entity_id": "lock.{{ door }}"},
                        }
                    ],
                },
                "evening": {
                    "alias": "Evening",
                    "sequence": [
                        {"delay": 0},
                        {
                            "action": "light.turn_on",
                            "target": {"entity_id": "light.kitchen_light"},
                        },
                    ],
                },
            }
        },
    )
    assert await async_setup_component(
        hass,
        "scene",
        {"scene": [{"name": "Welcome", "entities": {"lock.front_door": "unlocked"}}]},
    )
    await hass.async_block_till_done()
    areas = ar.async_get(hass)
    ids = {
        name: areas.async_create(name).id for name in ("Kitchen", "Hallway", "Garage")
    }
    entities = er.async_get(hass)
    for entity_id, area in (
        ("lock.side_door", "Kitchen"),
        ("lock.side_door_2", "Hallway"),
        ("cover.garage_door", "Garage"),
        ("button.garage_relay", "Garage"),
    ):
        entities.async_update_entity(entity_id, area_id=ids[area])
    for state in hass.states.async_all():
        async_expose_entity(
            hass,
            conversation.DOMAIN,
            state.entity_id,
            should_expose=state.domain != "input_boolean",
        )
    assert hass.states.get("lock.front_door").state == "locked"
    assert hass.states.get("cover.garage_door").state == "closed"
    return ids
