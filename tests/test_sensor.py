"""Each agent's usage sensors: what the server counted, kept across restarts."""

import pytest

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import entity_registry as er, restore_state
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    mock_restore_cache_with_extra_data,
)

from tests.helpers.common import AGENT_ID, SENSOR_PREFIX, ask, sensor_value
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls, Usage


@pytest.fixture
def every_sensor(hass: HomeAssistant) -> None:
    """Enable the sensors that are off by default, as a user would."""
    registry = er.async_get(hass)
    for key in ("last_turn_duration", "last_time_to_first_token"):
        registry.async_get_or_create(
            "sensor",
            "chatterbox",
            f"{AGENT_ID}-{key}",
            suggested_object_id=f"kitchen_helper_{key}",
        )


@pytest.mark.usefixtures("every_sensor", "loaded_entry")
async def test_five_turns_add_up_to_what_the_server_counted(
    hass: HomeAssistant, llm_server: LLMServer, kitchen_light: str
) -> None:
    """Five turns, two with a tool call: every sensor matches the server's usage."""
    prompt = completion = 0
    for turn in range(5):
        if turn % 2:
            llm_server.reply(
                ToolCalls(
                    [Call("HassTurnOn", {"name": "Kitchen light"})],
                    usage=Usage(100 + turn, 9),
                ),
                Text("Done.", usage=Usage(130 + turn, 3)),
            )
            prompt += 230 + 2 * turn
            completion += 12
        else:
            llm_server.reply(Text("Hello.", usage=Usage(80 + turn, 4)))
            prompt += 80 + turn
            completion += 4
        await ask(hass, f"Turn {turn}", "usage")

    assert sensor_value(hass, "prompt_tokens") == prompt
    assert sensor_value(hass, "completion_tokens") == completion
    assert sensor_value(hass, "turns") == 5
    assert sensor_value(hass, "tool_calls") == 2
    assert sensor_value(hass, "last_turn_duration") > 0
    assert (
        0
        < sensor_value(hass, "last_time_to_first_token")
        <= sensor_value(hass, "last_turn_duration")
    )
    state = hass.states.get(SENSOR_PREFIX + "prompt_tokens")
    assert state.attributes["state_class"] == "total_increasing"
    assert state.attributes["unit_of_measurement"] == "tokens"
    assert state.attributes["estimated"] is False


@pytest.mark.usefixtures("loaded_entry")
async def test_the_noisy_sensors_start_disabled(hass: HomeAssistant) -> None:
    """Durations change every turn: they are there, but off until wanted."""
    registry = er.async_get(hass)
    for key in ("last_turn_duration", "last_time_to_first_token"):
        entry = registry.async_get(SENSOR_PREFIX + key)
        assert entry is not None
        assert entry.disabled_by is er.RegistryEntryDisabler.INTEGRATION
    assert hass.states.get(SENSOR_PREFIX + "turns") is not None


def _restore(hass: HomeAssistant, states: dict[str, float]) -> None:
    """Give the sensors their values from before a restart.

    The test plugin (pinned to HA 2026.10) fills restore_state's old index by
    entity_id; HA 2026.11 reads a registered entity's by its registry id.
    """
    mock_restore_cache_with_extra_data(
        hass,
        [
            (
                State(SENSOR_PREFIX + key, str(value)),
                {"native_value": value, "native_unit_of_measurement": None},
            )
            for key, value in states.items()
        ],
    )
    data = restore_state.async_get(hass)
    if hasattr(data, "last_states_by_entity_registry_id"):
        registry = er.async_get(hass)
        for key in states:
            entry = registry.async_get_or_create(
                "sensor",
                "chatterbox",
                f"{AGENT_ID}-{key}",
                suggested_object_id=f"kitchen_helper_{key}",
            )
            stored = data.last_states[entry.entity_id]
            data.last_states_by_entity_registry_id[entry.id] = stored


async def test_totals_survive_a_restart(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The totals go on from where they were before Home Assistant restarted."""
    _restore(hass, {"prompt_tokens": 1000, "turns": 7})
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    assert sensor_value(hass, "prompt_tokens") == 1000

    llm_server.reply(Text("Hi.", usage=Usage(50, 2)))
    await ask(hass, "Hello")

    assert sensor_value(hass, "prompt_tokens") == 1050
    assert sensor_value(hass, "turns") == 8
