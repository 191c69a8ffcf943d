"""A home whose devices are named in the language of the people who live in it.

The capable-model corpus (tests/scenarios/capable) plays every conversation
in a home of its own language: a German family says "Deckenlampe", and so
does the model. The entity ids are the same in every language, so a story's
expected states read alike. Every device is a real entity of its domain,
exposed to Assist, that acts when Home Assistant's services call it; two of
them (the hallway light and the living room speaker) report their new state
a moment after the call, as a Zigbee bulb or a network speaker does.
"""

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.climate import ClimateEntity
from homeassistant.components.climate.const import ClimateEntityFeature, HVACMode
from homeassistant.components.cover import (
    CoverDeviceClass,
    CoverEntity,
    CoverEntityFeature,
)
from homeassistant.components.fan import FanEntity
from homeassistant.components.fan.const import FanEntityFeature
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.light import LightEntity
from homeassistant.components.light.const import ColorMode
from homeassistant.components.lock import LockEntity
from homeassistant.components.media_player import MediaPlayerEntity
from homeassistant.components.media_player.const import (
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.components.sensor import SensorDeviceClass, SensorEntity
from homeassistant.components.switch import SwitchEntity
from homeassistant.const import PERCENTAGE, UnitOfPower, UnitOfTemperature
from homeassistant.core import HomeAssistant, State, callback
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.helpers.discovery import async_load_platform
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.event import async_call_later
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import (
    setup_test_component_platform,
)

from tests.helpers.capable_names import AREAS, DEVICES, GARAGE, MORE_AREAS, name

# How long the late devices take to report their new state, in seconds, and
# where the reports still to come wait.
LATE = 0.4
REPORTS = "capable_home_reports"


def _later(entity: Entity, delay: float, change: Callable[[], None]) -> None:
    """Make a change now, or when the device reports it, a moment later."""
    if not delay:
        change()
        entity.async_write_ha_state()
        return
    reported = entity.hass.loop.create_future()
    entity.hass.data.setdefault(REPORTS, []).append(reported)

    @callback
    def report(_now: datetime) -> None:
        change()
        entity.async_write_ha_state()
        reported.set_result(None)

    async_call_later(entity.hass, delay, report)


async def settle(hass: HomeAssistant) -> None:
    """Wait until every late device has reported its new state."""
    await hass.async_block_till_done()
    await asyncio.gather(*hass.data.pop(REPORTS, ()))
    await hass.async_block_till_done()


class Light(LightEntity):
    """A dimmable light."""

    _attr_should_poll = False
    _attr_color_mode = ColorMode.BRIGHTNESS

    def __init__(self, *, on: bool, brightness: int = 255, late: float = 0) -> None:
        """Start on or off, at a brightness."""
        self._attr_supported_color_modes = {ColorMode.BRIGHTNESS}
        self._attr_is_on = on
        self._attr_brightness = brightness
        self._late = late

    async def async_turn_on(self, **kwargs: Any) -> None:
        """Switch on, at the brightness asked for."""

        def change() -> None:
            self._attr_is_on = True
            self._attr_brightness = kwargs.get("brightness", self._attr_brightness)

        _later(self, self._late, change)

    async def async_turn_off(self, **_: Any) -> None:
        """Switch off."""
        _later(self, self._late, lambda: setattr(self, "_attr_is_on", False))


class Switch(SwitchEntity):
    """A plug switch."""

    _attr_should_poll = False
    _attr_is_on = False

    async def async_turn_on(self, **_: Any) -> None:
        """Switch on."""
        _later(self, 0, lambda: setattr(self, "_attr_is_on", True))

    async def async_turn_off(self, **_: Any) -> None:
        """Switch off."""
        _later(self, 0, lambda: setattr(self, "_attr_is_on", False))


class Fan(FanEntity):
    """A fan with speeds in percent."""

    _attr_should_poll = False
    _attr_supported_features = (
        FanEntityFeature.SET_SPEED
        | FanEntityFeature.TURN_ON
        | FanEntityFeature.TURN_OFF
    )
    _attr_is_on = False
    _attr_percentage = 0

    async def async_turn_on(
        self,
        percentage: int | None = None,
        preset_mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Switch on, at a speed."""
        del preset_mode, kwargs  # no presets, nothing else to set
        await self.async_set_percentage(percentage or 50)

    async def async_turn_off(self, **_: Any) -> None:
        """Switch off."""
        await self.async_set_percentage(0)

    async def async_set_percentage(self, percentage: int) -> None:
        """Run at a speed, or stop at 0."""
        self._attr_percentage = percentage
        _later(self, 0, lambda: setattr(self, "_attr_is_on", bool(percentage)))


class Lock(LockEntity):
    """A door lock."""

    _attr_should_poll = False
    _attr_is_locked = True

    async def async_lock(self, **_: Any) -> None:
        """Lock."""
        _later(self, 0, lambda: setattr(self, "_attr_is_locked", True))

    async def async_unlock(self, **_: Any) -> None:
        """Unlock."""
        _later(self, 0, lambda: setattr(self, "_attr_is_locked", False))


class Cover(CoverEntity):
    """A cover that opens, closes and, for blinds, goes to a position."""

    _attr_should_poll = False

    def __init__(self, device_class: CoverDeviceClass) -> None:
        """Start closed."""
        self._attr_device_class = device_class
        self._attr_supported_features = CoverEntityFeature.OPEN | (
            CoverEntityFeature.CLOSE
        )
        if device_class is CoverDeviceClass.BLIND:
            self._attr_supported_features |= CoverEntityFeature.SET_POSITION
            self._attr_current_cover_position = 0
        self._attr_is_closed = True

    async def async_open_cover(self, **_: Any) -> None:
        """Open all the way."""
        await self.async_set_cover_position(position=100)

    async def async_close_cover(self, **_: Any) -> None:
        """Close."""
        await self.async_set_cover_position(position=0)

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        """Go to a position."""
        position: int = kwargs["position"]

        def change() -> None:
            self._attr_is_closed = position == 0
            if self._attr_current_cover_position is not None:
                self._attr_current_cover_position = position

        _later(self, 0, change)


class Thermostat(ClimateEntity):
    """A heating thermostat."""

    _attr_should_poll = False
    _attr_hvac_modes = [HVACMode.HEAT, HVACMode.OFF]  # noqa: RUF012  # HA's type
    _attr_hvac_mode = HVACMode.HEAT
    _attr_supported_features = (
        ClimateEntityFeature.TARGET_TEMPERATURE
        | ClimateEntityFeature.TURN_ON
        | ClimateEntityFeature.TURN_OFF
    )
    _attr_temperature_unit = UnitOfTemperature.CELSIUS
    _attr_target_temperature = 20.0
    _attr_current_temperature = 19.5
    _attr_target_temperature_step = 0.5

    async def async_set_temperature(self, **kwargs: Any) -> None:
        """Heat to a temperature."""
        temperature = kwargs["temperature"]
        _later(self, 0, lambda: setattr(self, "_attr_target_temperature", temperature))

    async def async_set_hvac_mode(self, hvac_mode: HVACMode) -> None:
        """Heat, or stop."""
        _later(self, 0, lambda: setattr(self, "_attr_hvac_mode", hvac_mode))


class Speaker(MediaPlayerEntity):
    """A network speaker, paused; it says it plays a moment after being told."""

    _attr_should_poll = False
    _attr_state = MediaPlayerState.PAUSED
    _attr_volume_level = 0.3
    _attr_supported_features = (
        MediaPlayerEntityFeature.PLAY
        | MediaPlayerEntityFeature.PAUSE
        | MediaPlayerEntityFeature.VOLUME_SET
    )

    async def async_media_play(self) -> None:
        """Play, reported late."""
        _later(
            self, LATE, lambda: setattr(self, "_attr_state", MediaPlayerState.PLAYING)
        )

    async def async_media_pause(self) -> None:
        """Pause, reported late."""
        _later(
            self, LATE, lambda: setattr(self, "_attr_state", MediaPlayerState.PAUSED)
        )

    async def async_set_volume_level(self, volume: float) -> None:
        """Set the volume."""
        _later(self, 0, lambda: setattr(self, "_attr_volume_level", volume))


SENSORS: dict[str, tuple[SensorDeviceClass, str, float]] = {
    "sensor.living_room_temperature": (
        SensorDeviceClass.TEMPERATURE,
        UnitOfTemperature.CELSIUS,
        19.5,
    ),
    "sensor.outdoor_temperature": (
        SensorDeviceClass.TEMPERATURE,
        UnitOfTemperature.CELSIUS,
        14.0,
    ),
    "sensor.bathroom_humidity": (SensorDeviceClass.HUMIDITY, PERCENTAGE, 64),
    "sensor.phone_battery": (SensorDeviceClass.BATTERY, PERCENTAGE, 75),
    "sensor.solar_power": (SensorDeviceClass.POWER, UnitOfPower.WATT, 1250),
    "sensor.house_consumption": (SensorDeviceClass.POWER, UnitOfPower.WATT, 830),
}


class Sensor(SensorEntity):
    """A sensor that reads a fixed value."""

    _attr_should_poll = False

    def __init__(self, entity_id: str) -> None:
        """Read this sensor's value, in its unit."""
        device_class, unit, value = SENSORS[entity_id]
        self._attr_device_class = device_class
        self._attr_native_unit_of_measurement = unit
        self._attr_native_value = value


def _devices() -> dict[str, Entity]:
    """Return a fresh entity for each device, by entity id."""
    return {
        "light.ceiling": Light(on=False),
        "light.floor_lamp": Light(on=True, brightness=153),
        "light.desk_lamp": Light(on=False),
        "light.kitchen": Light(on=True),
        "light.hallway": Light(on=False, late=LATE),
        "light.bedside": Light(on=True, brightness=77),
        "switch.coffee_machine": Switch(),
        "fan.bedroom_fan": Fan(),
        "cover.blinds": Cover(CoverDeviceClass.BLIND),
        "cover.garage_door": Cover(CoverDeviceClass.GARAGE),
        "lock.front_door": Lock(),
        "climate.thermostat": Thermostat(),
        "media_player.speaker": Speaker(),
    } | {entity_id: Sensor(entity_id) for entity_id in SENSORS}


async def build_home(hass: HomeAssistant, language: str) -> list[str]:
    """Set up the home in a language, every device exposed; return their ids."""
    devices = _devices()
    by_domain: dict[str, list[Entity]] = {}
    for entity_id, entity in devices.items():
        entity.entity_id = entity_id
        entity._attr_name = name(entity_id, language)
        entity._attr_unique_id = entity_id
        by_domain.setdefault(entity_id.split(".")[0], []).append(entity)
    for domain, entities in by_domain.items():
        setup_test_component_platform(hass, domain, entities)
        if domain in hass.config.components:  # the agent's own sensors
            await async_load_platform(hass, domain, "test", {}, {})
        else:
            config = {domain: {"platform": "test"}}
            assert await async_setup_component(hass, domain, config)
    await hass.async_block_till_done()
    rooms = AREAS[language] | MORE_AREAS[language] | {"garage": GARAGE[language]}
    areas = ar.async_get(hass)
    area_ids = {role: areas.async_create(room).id for role, room in rooms.items()}
    registry = er.async_get(hass)
    for entity_id, (room, _names) in DEVICES.items():
        if room is not None:
            registry.async_update_entity(entity_id, area_id=area_ids[room])
        async_expose_entity(hass, conversation.DOMAIN, entity_id, should_expose=True)
    return list(devices)


def look(state: State) -> str:
    """Say a device's state with the figure a call may set: "on 40%", "heat 21°"."""
    attributes = state.attributes
    figure = {
        "light": lambda: (
            f"{round(attributes['brightness'] * 100 / 255)}%"
            if attributes.get("brightness") is not None
            else None
        ),
        "fan": lambda: f"{attributes.get('percentage')}%",
        "cover": lambda: (
            f"{attributes['current_position']}%"
            if "current_position" in attributes
            else None
        ),
        "climate": lambda: f"{float(attributes['temperature']):g}°",
        "media_player": lambda: f"vol {round(attributes['volume_level'] * 100)}%",
    }.get(state.domain, lambda: None)()
    return state.state if figure is None else f"{state.state} {figure}"
