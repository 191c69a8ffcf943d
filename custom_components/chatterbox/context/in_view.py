"""The current states of what a request names, as the model reads them.

A question about the home is answered from the home's state, not from the
model's guess: the states of the entities a request names (mentions.py) go
with the request, so that "is the front door locked?" needs no tool call, and
an answer can only invent a figure by contradicting the one in front of it.
"""

from collections.abc import Sequence
from typing import Final

from homeassistant.const import ATTR_UNIT_OF_MEASUREMENT
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)

from ..prompts import STATES_HEADING, STATES_NOTE
from .mentions import Mentions, area_of
from .summary import as_record

# The attributes that say more than the state, by domain: what a person asks
# about a thermostat, a dimmed light, a half-open blind or a fan.
_ATTRIBUTES: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "climate": (
        ("current_temperature", "current temperature {}"),
        ("temperature", "set to {}"),
        ("hvac_action", "{}"),
    ),
    "water_heater": (
        ("current_temperature", "current temperature {}"),
        ("temperature", "set to {}"),
    ),
    "cover": (("current_position", "position {} %"),),
    "valve": (("current_position", "position {} %"),),
    "fan": (("percentage", "speed {} %"),),
}
# The longest state or attribute value shown: a sensor may hold a page of text.
_MAX_VALUE_CHARS: Final = 80


def states_note(hass: HomeAssistant, mentions: Mentions) -> str | None:
    """Return the note with the states of what the request names, if any."""
    lines = [
        f"- {describe_state(hass, state)}"
        for entity_id in mentions.entities
        if (state := hass.states.get(entity_id)) is not None
    ]
    if not lines:
        return None
    return as_record(STATES_HEADING, "\n".join(lines), STATES_NOTE)


def said_states(hass: HomeAssistant, entity_ids: Sequence[str]) -> str:
    """Say entities' states to the user, briefly: "Bedroom light: off"."""
    said = []
    for entity_id in entity_ids:
        if (state := hass.states.get(entity_id)) is None:
            continue
        said.append(f"{_short(state.name)}: {', '.join(_values(state))}")
    return "; ".join(said)


def describe_state(hass: HomeAssistant, state: State) -> str:
    """Say one entity's state: "Front door (lock in Hallway): locked"."""
    kind = state.domain
    if (area := _area_name(hass, state.entity_id)) is not None:
        kind = f"{kind} in {_short(area)}"
    return f"{_short(state.name)} ({kind}): {', '.join(_values(state))}"


def _values(state: State) -> list[str]:
    """Return the state with its unit, then what its attributes add."""
    value = _short(state.state)
    if unit := state.attributes.get(ATTR_UNIT_OF_MEASUREMENT):
        value = f"{value} {unit}"
    return [value, *_details(state)]


def _details(state: State) -> Sequence[str]:
    """Return what the state's attributes add, for its domain."""
    attributes = state.attributes
    details = [
        template.format(_short(attributes[name]))
        for name, template in _ATTRIBUTES.get(state.domain, ())
        if attributes.get(name) is not None
    ]
    brightness = attributes.get("brightness")
    if state.domain == "light" and isinstance(brightness, int):
        # 0 to 255 in Home Assistant; people say percent.
        details.append(f"brightness {round(brightness * 100 / 255)} %")
    return details


def _area_name(hass: HomeAssistant, entity_id: str) -> str | None:
    """Return the name of an entity's area, its own or its device's."""
    entry = er.async_get(hass).async_get(entity_id)
    area_id = area_of(entry, dr.async_get(hass))
    area = ar.async_get(hass).async_get_area(area_id) if area_id else None
    return area.name if area else None


def _short(value: object) -> str:
    """Return a value as one line of text, cut to a length a note can hold."""
    text = " ".join(str(value)[: _MAX_VALUE_CHARS * 4].split())
    return text if len(text) <= _MAX_VALUE_CHARS else f"{text[:_MAX_VALUE_CHARS]}…"
