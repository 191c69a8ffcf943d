"""A dataset's home, built in a real Home Assistant, behaves as the dataset expects.

The homes here are our own, written in the dataset's format: a cottage with a
den and a porch, and a shed built after the cottage is gone.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    intent,
)
from homeassistant.setup import async_setup_component

from .dataset import Expected, Home, load_home, unexpected_changes
from .dataset_home import (
    BuiltHome,
    async_build_home,
    async_remove_home,
    async_reset,
    async_set_states,
    snapshot,
)

COTTAGE = """
areas:
  - {name: Den, id: den}
  - {name: Porch, id: porch}
devices:
  - name: Den Lamp
    id: den_lamp
    area: den
    info: {manufacturer: Acme, model: Glow 2, sw_version: 1.5}
  - {name: Den Fan, id: den_fan, area: den, info: {manufacturer: Breeze}}
  - name: Den Speaker
    id: den_speaker
    area: den
    info: {manufacturer: Sonos, model: One, sw_version: 2.0.1}
  - {name: Porch Door, id: porch_door, area: porch, info: {manufacturer: Yale}}
  - {name: Porch Blind, id: porch_blind, area: porch}
  - {name: Chores Account, id: chores, info: {manufacturer: Local To-do}}
entities:
  - name: Den Lamp
    id: light.den_lamp
    area: den
    device: den_lamp
    attributes:
      supported_color_modes: [brightness]
      color_mode: brightness
      brightness: 100
  - name: Den Fan
    id: fan.den_fan
    area: den
    device: den_fan
    state: "off"
    attributes:
      supported_features:
        - fan.FanEntityFeature.SET_SPEED
        - fan.FanEntityFeature.OSCILLATE
      oscillating: false
  - name: Den Speaker
    id: media_player.den_speaker
    area: den
    device: den_speaker
    state: playing
    attributes:
      device_class: media_player.MediaPlayerDeviceClass.SPEAKER
      supported_features:
        - media_player.MediaPlayerEntityFeature.PLAY
        - media_player.MediaPlayerEntityFeature.PAUSE
        - media_player.MediaPlayerEntityFeature.STOP
        - media_player.MediaPlayerEntityFeature.VOLUME_STEP
        - media_player.MediaPlayerEntityFeature.VOLUME_MUTE
        - media_player.MediaPlayerEntityFeature.VOLUME_SET
        - media_player.MediaPlayerEntityFeature.TURN_ON
        - media_player.MediaPlayerEntityFeature.TURN_OFF
        - media_player.MediaPlayerEntityFeature.NEXT_TRACK
  - {name: Porch Door, id: lock.porch_door, area: porch, device: porch_door,
     state: locked}
  - name: Porch Door Battery
    id: sensor.porch_door_battery
    area: porch
    device: porch_door
    state: "80"
    attributes:
      device_class: sensor.SensorDeviceClass.BATTERY
      state_class: sensor.SensorStateClass.MEASUREMENT
      native_unit_of_measurement: "%"
  - name: Porch Blind
    id: cover.porch_blind
    device: porch_blind
    state: closed
    attributes:
      current_position: 0
      device_class: cover.CoverDeviceClass.BLIND
      supported_features:
        - cover.CoverEntityFeature.OPEN
        - cover.CoverEntityFeature.CLOSE
        - cover.CoverEntityFeature.SET_POSITION
  - name: Chores
    id: todo.chores
    area: den
    device: chores
    attributes:
      supported_features:
        - todo.TodoListEntityFeature.CREATE_TODO_ITEM
        - todo.TodoListEntityFeature.DELETE_TODO_ITEM
      todo_items: [Water the plants]
  - {name: Porch Camera, id: camera.porch_camera, area: porch}
"""
COTTAGE_CASES = """
category: light
tests:
  - sentences: [Set the den lamp to 50% brightness]
    setup:
      light.den_lamp: {state: "off", attributes: {brightness: 0}}
    expect_changes:
      light.den_lamp:
        state: "on"
        attributes: {brightness: 128, color_mode: brightness}
"""
# Built after the cottage is gone: its lamp has the cottage lamp's entity_id.
SHED = """
areas:
  - {name: Shed, id: shed}
devices:
  - {name: Sprinkler, id: sprinkler, area: shed, info: {manufacturer: Moen}}
entities:
  - {name: Den Lamp, id: light.den_lamp, area: shed, state: "off"}
  - name: Sprinkler
    id: valve.sprinkler
    area: shed
    device: sprinkler
    attributes:
      reports_position: true
      current_position: 0
      supported_features:
        - valve.ValveEntityFeature.OPEN
        - valve.ValveEntityFeature.CLOSE
        - valve.ValveEntityFeature.SET_POSITION
  - name: Mower Bot
    id: vacuum.mower_bot
    area: shed
    state: docked
    attributes:
      supported_features:
        - vacuum.VacuumEntityFeature.START
        - vacuum.VacuumEntityFeature.STOP
        - vacuum.VacuumEntityFeature.STATE
        - vacuum.VacuumEntityFeature.RETURN_HOME
  - name: Shed Heater
    id: climate.shed_heater
    area: shed
    state: "off"
    attributes:
      hvac_modes: ["off", heat]
      temperature: 18
      current_temperature: 12
  - {name: Shed Door, id: cover.shed_door, area: shed, state: false}
  - {name: Shed Outlet, id: switch.shed_outlet, area: shed, state: true}
  - name: Shed Leak
    id: binary_sensor.shed_leak
    area: shed
    state: false
    attributes: {device_class: binary_sensor.BinarySensorDeviceClass.MOISTURE}
"""


def write_home(folder: Path, fixtures: str, cases: str = "") -> Home:
    """Write a home in the dataset's format, and read it as the eval does."""
    folder.mkdir()
    (folder / "_fixtures.yaml").write_text(fixtures, "utf-8")
    if cases:
        (folder / "cases.yaml").write_text(cases, "utf-8")
    return load_home(folder)


@pytest.fixture
def cottage(tmp_path: Path) -> Home:
    """Return the cottage and its one case."""
    return write_home(tmp_path / "cottage", COTTAGE, COTTAGE_CASES)


@pytest.fixture
async def built(hass: HomeAssistant, cottage: Home) -> BuiltHome:
    """Build the cottage, with Assist's intents ready to reach it."""
    assert await async_setup_component(hass, "intent", {})
    return await async_build_home(hass, cottage)


async def call(hass: HomeAssistant, action: str, entity_id: str, **data: Any) -> None:
    """Call a Home Assistant action on one entity and wait for it."""
    domain, service = action.split(".")
    await hass.services.async_call(
        domain, service, {"entity_id": entity_id, **data}, blocking=True
    )


async def say(hass: HomeAssistant, intent_type: str, **slots: Any) -> None:
    """Handle an intent as Assist would, for the conversation assistant."""
    await intent.async_handle(
        hass,
        "test",
        intent_type,
        {name: {"value": value} for name, value in slots.items()},
        assistant=conversation.DOMAIN,
    )


def has(values: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    """Tell whether values hold every expected one."""
    return {name: values.get(name) for name in expected} == dict(expected)


def effective_area(hass: HomeAssistant, entity_id: str) -> str | None:
    """Return the name of an entity's area, its own or its device's."""
    entry = er.async_get(hass).async_get(entity_id)
    assert entry is not None
    area_id = entry.area_id
    if area_id is None and entry.device_id is not None:
        device = dr.async_get(hass).async_get(entry.device_id)
        assert device is not None
        area_id = device.area_id
    area = ar.async_get(hass).async_get_area(area_id) if area_id else None
    return area.name if area else None


async def test_the_cottage_is_built_as_its_fixtures_say(
    hass: HomeAssistant, built: BuiltHome
) -> None:
    """Each entity has its id, name, area, device and first state; no camera."""
    assert built.skipped == ("camera.porch_camera",)
    assert built.entity_ids == (
        "light.den_lamp",
        "fan.den_fan",
        "media_player.den_speaker",
        "lock.porch_door",
        "sensor.porch_door_battery",
        "cover.porch_blind",
        "todo.chores",
    )
    assert hass.states.get("camera.porch_camera") is None
    areas = {eid: effective_area(hass, eid) for eid in built.entity_ids}
    assert areas == {
        "light.den_lamp": "Den",
        "fan.den_fan": "Den",
        "media_player.den_speaker": "Den",
        "lock.porch_door": "Porch",
        "sensor.porch_door_battery": "Porch",
        "cover.porch_blind": "Porch",  # through its device
        "todo.chores": "Den",  # its own, though its device has none
    }
    for entity_id in built.entity_ids:
        assert async_should_expose(hass, conversation.DOMAIN, entity_id)

    lamp = er.async_get(hass).async_get("light.den_lamp")
    assert lamp is not None
    assert lamp.config_entry_id == built.entry.entry_id
    device = dr.async_get(hass).async_get(lamp.device_id or "")
    assert device is not None
    assert (device.name, device.manufacturer, device.model, device.sw_version) == (
        "Den Lamp",
        "Acme",
        "Glow 2",
        "1.5",
    )
    assert ar.async_get(hass).async_get_area(device.area_id or "").name == "Den"

    states = snapshot(hass, built)
    assert states["light.den_lamp"]["friendly_name"] == "Den Lamp"
    assert has(
        states["light.den_lamp"],
        {
            "state": "on",  # no state in the fixture, but a brightness
            "brightness": 100,
            "color_mode": "brightness",
        },
    )
    fan = {"state": "off", "percentage": 0, "oscillating": False}
    assert has(states["fan.den_fan"], fan)
    assert states["media_player.den_speaker"]["state"] == "playing"
    assert states["media_player.den_speaker"]["device_class"] == "speaker"
    assert states["lock.porch_door"]["state"] == "locked"
    assert has(
        states["cover.porch_blind"],
        {
            "state": "closed",
            "current_position": 0,
            "device_class": "blind",
            "supported_features": 7,
        },
    )
    assert states["todo.chores"]["state"] == "1"
    assert has(
        states["sensor.porch_door_battery"],
        {
            "state": "80",
            "unit_of_measurement": "%",
            "device_class": "battery",
            "state_class": "measurement",
        },
    )


async def test_a_lamp_keeps_its_brightness_and_learns_percentages(
    hass: HomeAssistant, built: BuiltHome
) -> None:
    """Off at brightness 0, it comes on at 0; 50 % is 128; off drops the rest."""
    await async_set_states(
        hass, built, {"light.den_lamp": Expected("off", {"brightness": 0})}
    )
    assert snapshot(hass, built)["light.den_lamp"]["brightness"] is None

    await call(hass, "light.turn_on", "light.den_lamp")
    lamp = snapshot(hass, built)["light.den_lamp"]
    assert (lamp["state"], lamp["brightness"], lamp["color_mode"]) == (
        "on",
        0,
        "brightness",
    )

    await call(hass, "light.turn_on", "light.den_lamp", brightness_pct=50)
    assert snapshot(hass, built)["light.den_lamp"]["brightness"] == 128

    await say(hass, "HassTurnOff", name="Den Lamp")
    lamp = snapshot(hass, built)["light.den_lamp"]
    assert (lamp["state"], lamp["brightness"], lamp["color_mode"]) == (
        "off",
        None,
        None,
    )


async def test_the_fan_runs_full_speed_unless_told_otherwise(
    hass: HomeAssistant, built: BuiltHome
) -> None:
    """Turned on it runs at 100 %, set to 40 % it does, turned off it is at 0."""
    await say(hass, "HassTurnOn", name="Den Fan")
    fan = snapshot(hass, built)["fan.den_fan"]
    assert (fan["state"], fan["percentage"]) == ("on", 100)

    await say(hass, "HassFanSetSpeed", name="Den Fan", percentage=40)
    assert snapshot(hass, built)["fan.den_fan"]["percentage"] == 40

    await call(hass, "fan.turn_off", "fan.den_fan")
    fan = snapshot(hass, built)["fan.den_fan"]
    assert (fan["state"], fan["percentage"]) == ("off", 0)


async def test_the_blind_moves_at_once(hass: HomeAssistant, built: BuiltHome) -> None:
    """Opened it is at 100, set to 30 it is open at 30, closed it is at 0."""
    await say(hass, "HassTurnOn", name="Porch Blind")
    blind = snapshot(hass, built)["cover.porch_blind"]
    assert (blind["state"], blind["current_position"]) == ("open", 100)

    await say(hass, "HassSetPosition", name="Porch Blind", position=30)
    blind = snapshot(hass, built)["cover.porch_blind"]
    assert (blind["state"], blind["current_position"]) == ("open", 30)

    await call(hass, "cover.close_cover", "cover.porch_blind")
    blind = snapshot(hass, built)["cover.porch_blind"]
    assert (blind["state"], blind["current_position"]) == ("closed", 0)


async def test_the_door_unlocks_and_locks_by_assist(
    hass: HomeAssistant, built: BuiltHome
) -> None:
    """Turning the lock off unlocks it; turning it on locks it again."""
    await say(hass, "HassTurnOff", name="Porch Door")
    assert hass.states.get("lock.porch_door").state == "unlocked"
    await say(hass, "HassTurnOn", name="Porch Door")
    assert hass.states.get("lock.porch_door").state == "locked"


async def test_the_speaker_skips_sets_volume_and_mutes_to_zero(
    hass: HomeAssistant, built: BuiltHome
) -> None:
    """Tracks count up; mute is volume 0.0 and unmute brings the volume back."""
    speaker = "media_player.den_speaker"
    await async_set_states(
        hass,
        built,
        {speaker: Expected("playing", {"volume_level": 0.9, "media_track": 1})},
    )
    await say(hass, "HassMediaNext", name="Den Speaker")
    assert snapshot(hass, built)[speaker]["media_track"] == 2

    await say(hass, "HassSetVolume", name="Den Speaker", volume_level=50)
    assert snapshot(hass, built)[speaker]["volume_level"] == 0.5
    await call(hass, "media_player.volume_up", speaker)
    assert snapshot(hass, built)[speaker]["volume_level"] == 0.6

    await say(hass, "HassMediaPlayerMute", name="Den Speaker")
    assert snapshot(hass, built)[speaker]["volume_level"] == 0.0
    assert "is_volume_muted" not in snapshot(hass, built)[speaker]  # not reported
    await say(hass, "HassMediaPlayerUnmute", name="Den Speaker")
    assert snapshot(hass, built)[speaker]["volume_level"] == 0.6

    await say(hass, "HassMediaPause", name="Den Speaker")
    assert snapshot(hass, built)[speaker]["state"] == "paused"
    await say(hass, "HassMediaUnpause", name="Den Speaker")
    assert snapshot(hass, built)[speaker]["state"] == "playing"
    await call(hass, "media_player.turn_off", speaker)
    off = snapshot(hass, built)[speaker]
    assert off["state"] == "off"
    assert "volume_level" not in off  # Home Assistant shows none while off


async def test_the_todo_list_counts_what_is_left_to_do(
    hass: HomeAssistant, built: BuiltHome, cottage: Home
) -> None:
    """An item added by Assist is one more to do; a reset forgets it."""
    await say(hass, "HassListAddItem", name="Chores", item="Sweep the porch")
    assert hass.states.get("todo.chores").state == "2"

    await async_reset(hass, built, cottage)
    assert hass.states.get("todo.chores").state == "1"


async def test_a_case_scores_as_upstream(
    hass: HomeAssistant, built: BuiltHome, cottage: Home
) -> None:
    """Reset, setup, the agent's intent: only the expected change; a stray one fails."""
    (case,) = cottage.cases
    await async_reset(hass, built, cottage)
    await async_set_states(hass, built, case.setup)
    before = snapshot(hass, built)
    await say(hass, "HassLightSet", name="Den Lamp", brightness=50)
    assert unexpected_changes(before, snapshot(hass, built), case) == {}

    await async_reset(hass, built, cottage)
    await async_set_states(hass, built, case.setup)
    before = snapshot(hass, built)
    await say(hass, "HassLightSet", area="Den", brightness=50)
    await say(hass, "HassTurnOn", name="Den Fan")
    assert set(unexpected_changes(before, snapshot(hass, built), case)) == {
        "fan.den_fan"
    }


async def test_a_reset_puts_back_the_starting_states(
    hass: HomeAssistant, built: BuiltHome, cottage: Home
) -> None:
    """After a case has changed much, the cottage is as it started."""
    start = snapshot(hass, built)
    await async_set_states(
        hass,
        built,
        {
            "media_player.den_speaker": Expected("paused", {"media_track": 3}),
            "cover.porch_blind": Expected("open", {"current_position": 60}),
        },
    )
    await say(hass, "HassTurnOff", name="Den Lamp")
    await say(hass, "HassTurnOn", name="Den Fan")
    await say(hass, "HassTurnOff", name="Porch Door")
    await say(hass, "HassListAddItem", name="Chores", item="Sweep the porch")
    assert snapshot(hass, built) != start

    await async_reset(hass, built, cottage)
    assert snapshot(hass, built) == start
    assert "media_track" not in start["media_player.den_speaker"]


async def test_a_removed_home_leaves_an_empty_house_for_the_next(
    hass: HomeAssistant, built: BuiltHome, tmp_path: Path
) -> None:
    """No entity, device or area of the cottage stays; the shed reuses its ids."""
    entry_id = built.entry.entry_id
    await async_remove_home(hass, built)

    entities, devices = er.async_get(hass), dr.async_get(hass)
    assert er.async_entries_for_config_entry(entities, entry_id) == []
    assert dr.async_entries_for_config_entry(devices, entry_id) == []
    assert list(ar.async_get(hass).async_list_areas()) == []
    assert all(hass.states.get(eid) is None for eid in built.entity_ids)

    shed = write_home(tmp_path / "shed", SHED)
    again = await async_build_home(hass, shed)
    assert again.skipped == ()
    assert hass.states.get("light.den_lamp").state == "off"
    assert effective_area(hass, "light.den_lamp") == "Shed"
    assert [area.name for area in ar.async_get(hass).async_list_areas()] == ["Shed"]
    await async_remove_home(hass, again)
    assert hass.states.async_entity_ids() == []


async def test_the_shed_valve_mower_heater_door_outlet_and_leak(
    hass: HomeAssistant, tmp_path: Path
) -> None:
    """The other simple devices do what the dataset expects of them."""
    assert await async_setup_component(hass, "intent", {})
    shed = write_home(tmp_path / "shed", SHED)
    built = await async_build_home(hass, shed)
    start = snapshot(hass, built)
    assert has(start["valve.sprinkler"], {"state": "closed", "current_position": 0})
    assert start["vacuum.mower_bot"]["state"] == "docked"
    assert has(start["climate.shed_heater"], {"state": "off", "temperature": 18})
    assert start["cover.shed_door"]["state"] == "closed"  # YAML's false
    assert "current_position" not in start["cover.shed_door"]
    assert start["switch.shed_outlet"]["state"] == "on"
    leak = {"state": "off", "device_class": "moisture"}
    assert has(start["binary_sensor.shed_leak"], leak)

    await say(hass, "HassTurnOn", name="Sprinkler")
    valve = snapshot(hass, built)["valve.sprinkler"]
    assert (valve["state"], valve["current_position"]) == ("open", 100)
    await say(hass, "HassSetPosition", name="Sprinkler", position=50)
    assert snapshot(hass, built)["valve.sprinkler"]["current_position"] == 50
    await call(hass, "valve.close_valve", "valve.sprinkler")
    valve = snapshot(hass, built)["valve.sprinkler"]
    assert (valve["state"], valve["current_position"]) == ("closed", 0)

    await async_set_states(hass, built, {"vacuum.mower_bot": Expected("off")})
    assert hass.states.get("vacuum.mower_bot").state == "off"  # as the dataset says
    await say(hass, "HassVacuumStart", name="Mower Bot")
    assert hass.states.get("vacuum.mower_bot").state == "cleaning"
    await say(hass, "HassVacuumReturnToBase", name="Mower Bot")
    assert hass.states.get("vacuum.mower_bot").state == "returning"

    await say(hass, "HassTurnOn", name="Shed Heater")
    await say(hass, "HassClimateSetTemperature", name="Shed Heater", temperature=21)
    heater = snapshot(hass, built)["climate.shed_heater"]
    assert (heater["state"], heater["temperature"]) == ("heat", 21)

    await say(hass, "HassTurnOn", name="Shed Door")
    assert hass.states.get("cover.shed_door").state == "open"
    await say(hass, "HassTurnOff", name="Shed Outlet")
    assert hass.states.get("switch.shed_outlet").state == "off"

    await async_reset(hass, built, shed)
    assert snapshot(hass, built) == start
    await async_remove_home(hass, built)
