"""Each agent's usage: tokens, turns, tool calls and latency, kept across restarts."""

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, override

from homeassistant.components.sensor import (
    RestoreSensor,
    SensorDeviceClass,
    SensorEntityDescription,
    SensorStateClass,
)
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EntityCategory, UnitOfTime
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .const import DOMAIN
from .runtime import ChatterboxConfigEntry
from .usage import TurnUsage, usage_signal

# Sensors only listen; nothing is fetched.
PARALLEL_UPDATES = 0
TOKENS = "tokens"


@dataclass(frozen=True, kw_only=True)
class UsageSensorDescription(SensorEntityDescription):
    """A figure of each turn, and whether the sensor adds it up."""

    value: Callable[[TurnUsage], float | None]
    adds_up: bool


def _total(
    key: str, value: Callable[[TurnUsage], float | None], unit: str | None = None
) -> UsageSensorDescription:
    """Describe a sensor that adds up a figure of every turn."""
    return UsageSensorDescription(
        key=key,
        translation_key=key,
        native_unit_of_measurement=unit,
        state_class=SensorStateClass.TOTAL_INCREASING,
        value=value,
        adds_up=True,
    )


def _last_seconds(
    key: str, value: Callable[[TurnUsage], float | None]
) -> UsageSensorDescription:
    """Describe a sensor that shows how long the last turn took for something.

    It changes with every turn, so it is off until the user wants it.
    """
    return UsageSensorDescription(
        key=key,
        translation_key=key,
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.SECONDS,
        state_class=SensorStateClass.MEASUREMENT,
        suggested_display_precision=2,
        entity_registry_enabled_default=False,
        value=value,
        adds_up=False,
    )


SENSORS: tuple[UsageSensorDescription, ...] = (
    _total("prompt_tokens", lambda usage: usage.prompt_tokens, TOKENS),
    _total("completion_tokens", lambda usage: usage.completion_tokens, TOKENS),
    _total("turns", lambda _usage: 1),
    _total("tool_calls", lambda usage: usage.tool_calls),
    _last_seconds("last_turn_duration", lambda usage: usage.duration),
    _last_seconds("last_time_to_first_token", lambda usage: usage.time_to_first_token),
)


async def async_setup_entry(
    hass: HomeAssistant,  # noqa: ARG001
    entry: ChatterboxConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the usage sensors of every agent."""
    for subentry in entry.subentries.values():
        async_add_entities(
            [UsageSensor(subentry, description) for description in SENSORS],
            config_subentry_id=subentry.subentry_id,
        )


class UsageSensor(RestoreSensor):
    """One usage figure of one agent."""

    _attr_has_entity_name = True
    _attr_entity_category = EntityCategory.DIAGNOSTIC
    # Updated by the agent's turns, never polled.
    _attr_should_poll = False
    entity_description: UsageSensorDescription

    def __init__(
        self, subentry: ConfigSubentry, description: UsageSensorDescription
    ) -> None:
        """Attach the sensor to its agent's device."""
        self.entity_description = description
        self._subentry_id = subentry.subentry_id
        self._attr_unique_id = f"{subentry.subentry_id}-{description.key}"
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, subentry.subentry_id)}
        )
        self._estimated = False

    @property
    @override
    def extra_state_attributes(self) -> dict[str, Any]:
        """Say whether the last turn's figure is an estimate."""
        return {"estimated": self._estimated}

    @override
    async def async_added_to_hass(self) -> None:
        """Restore the figure, then follow the agent's turns."""
        await super().async_added_to_hass()
        if (last := await self.async_get_last_sensor_data()) is not None:
            value = last.native_value
            # Numbers come back as Decimal.
            if isinstance(value, Decimal):
                value = int(value) if value == value.to_integral() else float(value)
            self._attr_native_value = value
        self.async_on_remove(
            async_dispatcher_connect(
                self.hass, usage_signal(self._subentry_id), self._async_turn_ended
            )
        )

    @callback
    def _async_turn_ended(self, usage: TurnUsage) -> None:
        """Take in what a turn cost."""
        value = self.entity_description.value(usage)
        if value is None:
            return
        if self.entity_description.adds_up:
            previous = self._attr_native_value
            total = previous if isinstance(previous, int | float) else 0
            value += total
        self._attr_native_value = value
        self._estimated = usage.estimated
        self.async_write_ha_state()
