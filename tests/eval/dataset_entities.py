"""The entities of a dataset's synthetic home: simple devices, one class a domain.

They behave as the simple devices the dataset expects: a light turned on
keeps its brightness, a fan turned on without a speed runs at 100 %, a cover
or a valve moves at once, muting a speaker sets its volume to 0.0. Home
Assistant's own components do the rest (brightness_pct to brightness, the
attributes of a light that is off, a to-do list's count). Each takes the
fixture's name, state and attributes (dataset_home.py builds them).
"""

from collections.abc import Callable, Coroutine, Mapping
import enum
from types import MappingProxyType
from typing import Any, ClassVar, override
import uuid

from homeassistant.components.binary_sensor import BinarySensorEntity
from homeassistant.components.button import ButtonEntity
from homeassistant.components.climate import (
    DEFAULT_MAX_TEMP,
    DEFAULT_MIN_TEMP,
    ClimateEntity,
    ClimateEntityFeature as ClimateFeature,
    HVACMode,
)
from homeassistant.components.cover import CoverEntity, CoverEntityFeature
from homeassistant.components.fan import FanEntity, FanEntityFeature
from homeassistant.components.light import ColorMode, LightEntity, LightEntityFeature
from homeassistant.components.lock import LockEntity, LockEntityFeature
from homeassistant.components.media_player import (
    MediaPlayerEntity,
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.components.sensor import SensorEntity
from homeassistant.components.switch import SwitchEntity
from homeassistant.components.todo import (
    TodoItem,
    TodoItemStatus,
    TodoListEntity,
    TodoListEntityFeature,
)
from homeassistant.components.vacuum import (
    StateVacuumEntity,
    VacuumActivity,
    VacuumEntityFeature,
)
from homeassistant.components.valve import ValveEntity, ValveEntityFeature
from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.entity import Entity as HaEntity

from .dataset import Entity

DOMAIN = "eval_home"
type Action = Callable[..., Coroutine[Any, Any, None]]
# Light colour arguments of turn_on, and the colour mode each one means.
COLORS = {
    "color_temp_kelvin": ColorMode.COLOR_TEMP,
    "hs_color": ColorMode.HS,
    "rgb_color": ColorMode.RGB,
    "rgbw_color": ColorMode.RGBW,
    "rgbww_color": ColorMode.RGBWW,
    "xy_color": ColorMode.XY,
}
# What a thermostat's attribute says it can set, when its fixture lists nothing.
CLIMATE_CAN = {
    "temperature": ClimateFeature.TARGET_TEMPERATURE,
    "target_temp_high": ClimateFeature.TARGET_TEMPERATURE_RANGE,
    "fan_modes": ClimateFeature.FAN_MODE,
    "preset_modes": ClimateFeature.PRESET_MODE,
}
# Home Assistant 2026.11 names a thermostat's temperatures "native_"; 2026.10 not.
NATIVE = "native_" if hasattr(ClimateEntity, "native_target_temperature") else ""


def fields(same: str = "", **renamed: str) -> Mapping[str, str]:
    """Return fixture attribute -> `_attr_` name: names kept (spaced), then others."""
    return MappingProxyType({name: name for name in same.split()} | renamed)


def _color_mode(value: Any) -> ColorMode | None:
    """Read a colour mode; a fixture may write it as a one-item list."""
    if isinstance(value, list | tuple):
        value = value[0] if value else None
    return None if value is None else ColorMode(value)


def _todo_items(value: Any) -> list[TodoItem]:
    """Read to-do items written as summaries or as {summary, status, uid}."""
    items = []
    for raw in value or ():
        item = raw if isinstance(raw, Mapping) else {"summary": str(raw)}
        status = TodoItemStatus(item.get("status", TodoItemStatus.NEEDS_ACTION))
        uid = str(item.get("uid") or uuid.uuid4().hex)
        items.append(TodoItem(summary=item.get("summary"), uid=uid, status=status))
    return items


# How a fixture attribute's value becomes an `_attr_` value, where it differs.
CONVERT: dict[str, Callable[[Any], Any]] = {
    "color_mode": _color_mode,
    "supported_color_modes": lambda modes: {ColorMode(mode) for mode in modes},
    **{name: tuple for name in COLORS if name != "color_temp_kelvin"},
    "todo_items": _todo_items,
}


def _sets(**values: Any) -> Action:
    """Return an action that sets `_attr_` values, whatever it is called with."""

    async def act(self: HomeEntity, *_: Any, **__: Any) -> None:
        self.update(**values)

    return act


def _takes(argument: str, attribute: str = "") -> Action:
    """Return an action that sets an `_attr_` to its one argument."""

    async def act(self: HomeEntity, *args: Any, **kwargs: Any) -> None:
        self.update(**{attribute or argument: args[0] if args else kwargs[argument]})

    return act


class HomeEntity(HaEntity):
    """What every entity of the home shares: its fixture, reset and setup."""

    _attr_has_entity_name = False
    _attr_should_poll = False
    # Fixture attribute -> `_attr_` name; the domain's feature flags.
    FIELDS: ClassVar[Mapping[str, str]] = fields()
    FEATURES: ClassVar[type[enum.IntFlag] | None] = None

    def __init__(self, fixture: Entity, unique_id: str, device: str | None) -> None:
        """Take the fixture's entity_id, name and device, and its starting state."""
        self.entity_id = fixture.entity_id
        self._attr_unique_id = unique_id
        self._attr_name = fixture.name
        if device is not None:
            self._attr_device_info = DeviceInfo(identifiers={(DOMAIN, device)})
        self.restart(fixture)

    def restart(self, fixture: Entity) -> None:
        """Forget every value, then take the fixture's starting ones."""
        self._attr_device_class = self._attr_icon = None
        for name in self.FIELDS.values():
            setattr(self, f"_attr_{name}", None)
        if self.FEATURES is not None:
            self._attr_supported_features = self.FEATURES(0)
        self.blank(fixture.attributes)
        self.put(fixture.state, fixture.attributes)

    def blank(self, attributes: Mapping[str, Any]) -> None:
        """Set the values a domain starts from, where None will not do."""

    def put(self, state: str | None, attributes: Mapping[str, Any]) -> None:
        """Take a state and attributes, as a fixture or a case's setup writes them."""
        names = {"device_class": "device_class", "icon": "icon", **self.FIELDS}
        for name, value in attributes.items():
            if name == "supported_features" and self.FEATURES is not None:
                self._attr_supported_features = self.FEATURES(value)
            elif name in names:
                read = CONVERT.get(name, lambda value: value)
                setattr(self, f"_attr_{names[name]}", read(value))
        if state is not None:
            self.put_state(state)

    def put_state(self, state: str) -> None:
        """Take a state; a to-do list or a button has none to take."""

    def update(self, **values: Any) -> None:
        """Set `_attr_` values and write the state: what a device did."""
        for name, value in values.items():
            setattr(self, f"_attr_{name}", value)
        self.async_write_ha_state()


class OnOff(HomeEntity):
    """An entity whose state is on or off."""

    @override
    def put_state(self, state: str) -> None:
        self._attr_is_on = state == "on"

    async_turn_on = _sets(is_on=True)
    async_turn_off = _sets(is_on=False)


class Light(OnOff, LightEntity):
    """A light that keeps its brightness and colour while off."""

    FIELDS = fields(
        "brightness color_mode supported_color_modes effect effect_list"
        f" min_color_temp_kelvin max_color_temp_kelvin {' '.join(COLORS)}"
    )
    FEATURES = LightEntityFeature

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_is_on = (attributes.get("brightness") or 0) > 0

    @override
    def put(self, state: str | None, attributes: Mapping[str, Any]) -> None:
        super().put(state, attributes)
        if not (modes := self._attr_supported_color_modes):
            dims = self._attr_brightness is not None
            modes = {ColorMode.BRIGHTNESS if dims else ColorMode.ONOFF}
            self._attr_supported_color_modes = modes
        if self._attr_color_mode not in modes:
            self._attr_color_mode = min(modes)

    @override
    async def async_turn_on(self, **kwargs: Any) -> None:
        values: dict[str, Any] = {"is_on": True}
        for name, value in kwargs.items():
            if name in self.FIELDS:
                values[name] = CONVERT[name](value) if name in CONVERT else value
            if name in COLORS:
                values["color_mode"] = COLORS[name]
        self.update(**values)


class Switch(OnOff, SwitchEntity):
    """A switch, on or off."""


class BinarySensor(OnOff, BinarySensorEntity):
    """A read-only binary sensor; a fixture without a state leaves it unknown."""


class Fan(HomeEntity, FanEntity):
    """A fan: on at 100 % unless told a speed, off at 0 %; any fan turns on."""

    FIELDS = fields(
        "percentage oscillating preset_mode preset_modes", direction="current_direction"
    )
    FEATURES = FanEntityFeature

    @override
    def put(self, state: str | None, attributes: Mapping[str, Any]) -> None:
        self._attr_percentage = self._attr_percentage or 0
        super().put(state, attributes)
        self._attr_supported_features |= FanEntityFeature.TURN_ON
        self._attr_supported_features |= FanEntityFeature.TURN_OFF

    @override
    def put_state(self, state: str) -> None:
        if state == "off":
            self._attr_percentage, self._attr_preset_mode = 0, None
        elif not self._attr_percentage:
            self._attr_percentage = 100

    @override
    async def async_turn_on(
        self,
        percentage: int | None = None,
        preset_mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        speed = percentage or self._attr_percentage or 100
        self.update(percentage=speed, preset_mode=preset_mode or self.preset_mode)

    async_turn_off = _sets(percentage=0, preset_mode=None)
    async_set_percentage = _takes("percentage")
    async_set_preset_mode = _takes("preset_mode")
    async_oscillate = _takes("oscillating")
    async_set_direction = _takes("direction", "current_direction")


class Cover(HomeEntity, CoverEntity):
    """A cover that moves at once: open is 100, closed is 0."""

    FIELDS = fields(
        current_position="current_cover_position",
        current_tilt_position="current_cover_tilt_position",
    )
    FEATURES = CoverEntityFeature

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_is_closed = None
        if "supported_features" not in attributes:
            self._attr_supported_features = None  # Home Assistant's default

    @override
    def put(self, state: str | None, attributes: Mapping[str, Any]) -> None:
        super().put(state, attributes)
        if (position := self._attr_current_cover_position) is not None:
            self._attr_is_closed = position == 0

    @override
    def put_state(self, state: str) -> None:
        self._attr_is_closed = state in {"closed", "off"}
        position = self._attr_current_cover_position
        if position is not None and self._attr_is_closed:
            self._attr_current_cover_position = 0
        elif position == 0:
            self._attr_current_cover_position = 100

    def move(self, position: int) -> None:
        """Be at a position at once; a cover that reports none opens or closes."""
        if self._attr_current_cover_position is None:
            self.update(is_closed=position == 0)
        else:
            self.update(is_closed=position == 0, current_cover_position=position)

    @override
    async def async_open_cover(self, **kwargs: Any) -> None:
        self.move(100)

    @override
    async def async_close_cover(self, **kwargs: Any) -> None:
        self.move(0)

    @override
    async def async_set_cover_position(self, **kwargs: Any) -> None:
        self.move(kwargs["position"])

    async_stop_cover = _sets()
    async_open_cover_tilt = _sets(current_cover_tilt_position=100)
    async_close_cover_tilt = _sets(current_cover_tilt_position=0)
    async_set_cover_tilt_position = _takes(
        "tilt_position", "current_cover_tilt_position"
    )


def _lock(state: str) -> dict[str, bool | None]:
    """Return a lock's `_attr_is_*` values in a state ("" for none known)."""
    moving = ("open", "jammed", "locking", "unlocking", "opening")
    return {"is_locked": state == "locked" if state else None} | {
        f"is_{name}": state == name for name in moving
    }


class Lock(HomeEntity, LockEntity):
    """A lock: locked, unlocked, open (or jammed, as a fixture says)."""

    FEATURES = LockEntityFeature

    @override
    def put_state(self, state: str) -> None:
        for name, value in _lock(state).items():
            setattr(self, f"_attr_{name}", value)

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self.put_state("")

    async_lock = _sets(**_lock("locked"))
    async_unlock = _sets(**_lock("unlocked"))
    async_open = _sets(**_lock("open"))


class Valve(HomeEntity, ValveEntity):
    """A valve that moves at once: open is 100, closed is 0."""

    FIELDS = fields("reports_position", current_position="current_valve_position")
    FEATURES = ValveEntityFeature

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_is_closed = None
        self._attr_reports_position = "current_position" in attributes

    @override
    def put_state(self, state: str) -> None:
        self._attr_is_closed = closed = state in {"closed", "off"}
        if self._attr_reports_position and (
            closed or not self._attr_current_valve_position
        ):
            self._attr_current_valve_position = 0 if closed else 100

    @override
    async def async_set_valve_position(self, position: int) -> None:
        self.update(current_valve_position=position, is_closed=position == 0)

    @override
    async def async_open_valve(self) -> None:
        await self.async_set_valve_position(100)

    @override
    async def async_close_valve(self) -> None:
        await self.async_set_valve_position(0)

    async_stop_valve = _sets()


class Vacuum(HomeEntity, StateVacuumEntity):
    """A vacuum; a state that is no activity ("off") is kept as the fixture says."""

    FIELDS = fields("fan_speed fan_speed_list")
    FEATURES = VacuumEntityFeature

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_activity, self._attr_fan_speed_list = None, []

    @override
    def put_state(self, state: str) -> None:
        known = state in set(VacuumActivity)
        self._attr_activity = VacuumActivity(state) if known else state  # type: ignore[assignment]

    async_start = async_clean_spot = _sets(activity=VacuumActivity.CLEANING)
    async_pause = _sets(activity=VacuumActivity.PAUSED)
    async_stop = _sets(activity=VacuumActivity.IDLE)
    async_return_to_base = _sets(activity=VacuumActivity.RETURNING)
    async_set_fan_speed = _takes("fan_speed")


class MediaPlayer(HomeEntity, MediaPlayerEntity):
    """A player whose mute sets the volume to 0.0, and unmute brings it back."""

    FIELDS = fields(
        "volume_level is_volume_muted media_track media_title media_artist"
        " media_album_name media_content_id media_content_type source source_list"
    )
    FEATURES = MediaPlayerEntityFeature
    unmuted: float | None = None

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_state = self.unmuted = None

    @override
    def put_state(self, state: str) -> None:
        known = state in set(MediaPlayerState)
        self._attr_state = MediaPlayerState(state) if known else state  # type: ignore[assignment]

    async_turn_on = _sets(state=MediaPlayerState.ON)
    async_turn_off = _sets(state=MediaPlayerState.OFF)
    async_media_play = _sets(state=MediaPlayerState.PLAYING)
    async_media_pause = _sets(state=MediaPlayerState.PAUSED)
    async_media_stop = _sets(state=MediaPlayerState.IDLE)
    async_set_volume_level = _takes("volume", "volume_level")
    async_select_source = _takes("source")

    @override
    async def async_media_next_track(self) -> None:
        self.update(media_track=(self._attr_media_track or 0) + 1)

    @override
    async def async_media_previous_track(self) -> None:
        self.update(media_track=max(1, (self._attr_media_track or 1) - 1))

    @override
    async def async_volume_up(self) -> None:
        self.update(volume_level=min(1.0, round((self.volume_level or 0) + 0.1, 2)))

    @override
    async def async_volume_down(self) -> None:
        self.update(volume_level=max(0.0, round((self.volume_level or 0) - 0.1, 2)))

    @override
    async def async_mute_volume(self, mute: bool) -> None:
        if self._attr_is_volume_muted is not None:  # the fixture reports it
            self._attr_is_volume_muted = mute
        if mute:
            self.unmuted = self.unmuted or self._attr_volume_level
            self.update(volume_level=0.0)
        else:
            volume, self.unmuted = self.unmuted, None
            self.update(volume_level=volume or self._attr_volume_level)


class TodoList(HomeEntity, TodoListEntity):
    """A to-do list; its state is the count of items to do (Home Assistant's)."""

    FIELDS = fields("todo_items")
    FEATURES = TodoListEntityFeature

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_todo_items = []

    @property
    def items(self) -> list[TodoItem]:
        """Return a copy of the items, to change and set back."""
        return list(self._attr_todo_items or ())

    @override
    async def async_create_todo_item(self, item: TodoItem) -> None:
        item.uid = item.uid or uuid.uuid4().hex
        item.status = item.status or TodoItemStatus.NEEDS_ACTION
        self.update(todo_items=[*self.items, item])

    @override
    async def async_update_todo_item(self, item: TodoItem) -> None:
        self.update(todo_items=[item if i.uid == item.uid else i for i in self.items])

    @override
    async def async_delete_todo_items(self, uids: list[str]) -> None:
        self.update(todo_items=[i for i in self.items if i.uid not in uids])


class Climate(HomeEntity, ClimateEntity):
    """A thermostat: its state is its HVAC mode; it reaches its target at once."""

    FIELDS = fields(
        "hvac_modes hvac_action current_humidity target_humidity min_temp max_temp"
        " fan_mode fan_modes preset_mode preset_modes",
        temperature=f"{NATIVE}target_temperature",
        current_temperature=f"{NATIVE}current_temperature",
        target_temp_high=f"{NATIVE}target_temperature_high",
        target_temp_low=f"{NATIVE}target_temperature_low",
        target_temp_step="target_temperature_step",
    )
    FEATURES = ClimateFeature

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_hvac_mode, self._attr_hvac_modes = None, []
        self._attr_min_temp = DEFAULT_MIN_TEMP
        self._attr_max_temp = DEFAULT_MAX_TEMP
        self.keep_units()
        features = ClimateFeature(0)
        for name in set(CLIMATE_CAN) & set(attributes):
            features |= CLIMATE_CAN[name]
        if HVACMode.OFF in attributes.get("hvac_modes", ()):
            features |= ClimateFeature.TURN_OFF | ClimateFeature.TURN_ON
        self._attr_supported_features = features

    def keep_units(self) -> None:
        """Keep temperatures as written: in the house's own unit."""
        unit = self.hass.config.units.temperature_unit if self.hass else "°C"
        setattr(self, f"_attr_{NATIVE}temperature_unit", unit)

    @override
    async def async_added_to_hass(self) -> None:
        self.keep_units()
        await super().async_added_to_hass()

    @override
    def put_state(self, state: str) -> None:
        if state in set(HVACMode):
            self._attr_hvac_mode = HVACMode(state)

    @override
    async def async_set_temperature(self, **kwargs: Any) -> None:
        if (mode := kwargs.pop("hvac_mode", None)) is not None:
            self._attr_hvac_mode = mode
        names = self.FIELDS
        self.update(**{names[name]: v for name, v in kwargs.items() if name in names})

    async_set_hvac_mode = _takes("hvac_mode")
    async_set_fan_mode = _takes("fan_mode")
    async_set_preset_mode = _takes("preset_mode")


class Sensor(HomeEntity, SensorEntity):
    """A read-only sensor with the fixture's value, unit and classes."""

    FIELDS = fields(
        "native_unit_of_measurement state_class options",
        unit_of_measurement="native_unit_of_measurement",
    )

    @override
    def blank(self, attributes: Mapping[str, Any]) -> None:
        self._attr_native_value = None

    @override
    def put_state(self, state: str) -> None:
        self._attr_native_value = state


class Button(HomeEntity, ButtonEntity):
    """A button: Home Assistant records when it was pressed."""

    @override
    async def async_press(self) -> None:
        """Do nothing more than be pressed."""


CLASSES: dict[str, type[HomeEntity]] = {
    "light": Light,
    "switch": Switch,
    "fan": Fan,
    "cover": Cover,
    "lock": Lock,
    "valve": Valve,
    "vacuum": Vacuum,
    "media_player": MediaPlayer,
    "todo": TodoList,
    "climate": Climate,
    "sensor": Sensor,
    "binary_sensor": BinarySensor,
    "button": Button,
}
