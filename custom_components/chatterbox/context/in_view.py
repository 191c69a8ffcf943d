"""The current states of what a request names, as the model reads them.

A question about the home is answered from the home's state, not from the
model's guess: the states of the entities a request names (mentions.py) go
with the request, so that "is the front door locked?" needs no tool call, and
an answer can only invent a figure by contradicting the one in front of it.
"""

from collections.abc import Callable, Sequence
from typing import Final

from homeassistant.const import ATTR_UNIT_OF_MEASUREMENT
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import (
    entity_registry as er,
    translation,
)

from ..lang.kinds import READ_ONLY_DOMAINS, SWITCHED_DOMAINS
from ..lang.numbers import say_numbers
from ..prompts import (
    DEVICES_HEADING,
    DEVICES_NOTE,
    EARLIER_HEADING,
    STATES_HEADING,
    STATES_NOTE,
)
from .mentions import Mentions, area_entry, name_of
from .summary import as_record

# The attributes that say more than the state, by domain: what a person asks
# about a thermostat, a dimmed light, a half-open blind or a fan. Each with the
# English label the model reads (none: the value says it) and its unit.
_ATTRIBUTES: Final[dict[str, tuple[tuple[str, str, str], ...]]] = {
    "climate": (
        ("current_temperature", "current temperature", ""),
        ("temperature", "set to", ""),
        ("hvac_action", "", ""),
    ),
    "water_heater": (
        ("current_temperature", "current temperature", ""),
        ("temperature", "set to", ""),
    ),
    "cover": (("current_position", "position", " %"),),
    "valve": (("current_position", "position", " %"),),
    "fan": (("percentage", "speed", " %"),),
    "light": (("brightness", "brightness", " %"),),
    "weather": (
        ("temperature", "temperature", ""),
        ("humidity", "humidity", " %"),
        ("wind_speed", "wind", ""),
    ),
}
# Attributes whose unit another attribute names, as a weather entity's do.
_UNIT_OF: Final = {"temperature": "temperature_unit", "wind_speed": "wind_speed_unit"}
# The longest state or attribute value shown: a sensor may hold a page of text.
_MAX_VALUE_CHARS: Final = 80


def states_note(
    hass: HomeAssistant, mentions: Mentions, *, with_states: bool = True
) -> str | None:
    """Return the note with what the request names, if any: states, or names.

    Names are for a command: of an area's devices, the ones it asks to act
    on, as the check of its parts reads it. Those of the kinds it names, or
    with none named, those that switch on and off ("switch off everything in
    the study" leaves its thermostat as it is). What only reports (a
    temperature sensor) is no name to act on: it comes with its state, for
    the part of a request that asks ("switch off the fan and say how warm the
    bedroom is"), as nothing switches or sets it.
    """
    if with_states:
        return _record(hass, mentions.entities, STATES_HEADING, STATES_NOTE)
    acted = mentions.named + tuple(
        entity_id
        for entity_id in mentions.in_areas
        if (domain := entity_id.split(".", 1)[0]) in SWITCHED_DOMAINS
        or (mentions.of_kinds and domain not in READ_ONLY_DOMAINS)
    )
    names = _record(
        hass,
        [e for e in acted if e.split(".", 1)[0] not in READ_ONLY_DOMAINS],
        EARLIER_HEADING if mentions.earlier else DEVICES_HEADING,
        DEVICES_NOTE,
        with_state=False,
    )
    read = _record(hass, mentions.reporting, STATES_HEADING, STATES_NOTE)
    return "\n\n".join(note for note in (names, read) if note) or None


def _record(
    hass: HomeAssistant,
    entity_ids: Sequence[str],
    heading: str,
    note: str,
    *,
    with_state: bool = True,
) -> str | None:
    """Return a record of the entities, one line each; None without any."""
    lines = [
        f"- {describe_state(hass, state, with_state=with_state)}"
        for entity_id in entity_ids
        if (state := hass.states.get(entity_id)) is not None
    ]
    return as_record(heading, "\n".join(lines), note) if lines else None


async def async_said_states(
    hass: HomeAssistant, entity_ids: Sequence[str], language: str
) -> str:
    """Say entities' states to the user in their language: "Schlafzimmer: Aus".

    The words are Home Assistant's own for each state and attribute, as its
    dashboards show them; a word without a translation stays as it is. The
    numbers are written as the language writes them ("18,5 °C").
    """
    states = [
        state
        for entity_id in entity_ids
        if (state := hass.states.get(entity_id)) is not None
    ]
    registry = er.async_get(hass)
    entries = {state.entity_id: registry.async_get(state.entity_id) for state in states}
    platforms = {entry.platform for entry in entries.values() if entry is not None}
    words = await translation.async_get_translations(
        hass, language, "entity_component", {state.domain for state in states}
    ) | await translation.async_get_translations(hass, language, "entity", platforms)
    return "; ".join(
        f"{_short(state.name)}: "
        + ", ".join(
            say_numbers(value, language)
            for value in _values(state, _finder(words, state, entries[state.entity_id]))
        )
        for state in states
    )


def describe_state(
    hass: HomeAssistant, state: State, *, with_state: bool = True
) -> str:
    """Say one entity's state: "Front door (lock in Hallway): locked".

    By the name a call finds it by, which the model passes on.
    """
    kind = state.domain
    if (area := _area_name(hass, state.entity_id)) is not None:
        kind = f"{kind} in {_short(area)}"
    name = _short(name_of(hass, state))
    if not with_state:
        return f"{name} ({kind})"
    return f"{name} ({kind}): {', '.join(_values(state))}"


# Finds the word for a path under an entity's translations ("state.on"), or
# gives back the English it was handed.
type _Word = Callable[[str, str], str]


def _as_is(_path: str, english: str) -> str:
    """Keep the English word: the model reads English best."""
    return english


def _finder(
    words: dict[str, str], state: State, entry: er.RegistryEntry | None
) -> _Word:
    """Return the word finder for one entity, as Home Assistant looks words up.

    Its integration's words for its translation key first, then its domain's
    for its device class, then its domain's for any entity.
    """
    component = f"component.{state.domain}.entity_component"
    places = [f"{component}._"]
    if isinstance(device_class := state.attributes.get("device_class"), str):
        places.insert(0, f"{component}.{device_class}")
    if entry is not None and entry.translation_key:
        places.insert(
            0,
            f"component.{entry.platform}.entity.{state.domain}.{entry.translation_key}",
        )

    def word(path: str, english: str) -> str:
        found = (words.get(f"{place}.{path}") for place in places)
        return next((text for text in found if text), english)

    return word


def _values(state: State, word: _Word = _as_is) -> list[str]:
    """Return the state with its unit, then what its attributes add."""
    value = _short(state.state)
    value = word(f"state.{value}", value)
    if unit := state.attributes.get(ATTR_UNIT_OF_MEASUREMENT):
        value = f"{value} {unit}"
    details = []
    for name, label, unit in _ATTRIBUTES.get(state.domain, ()):
        if (raw := state.attributes.get(name)) is None:
            continue
        if name == "brightness":
            if not isinstance(raw, int):
                continue
            # 0 to 255 in Home Assistant; people say percent.
            raw = round(raw * 100 / 255)
        said = word(f"state_attributes.{name}.state.{raw}", _short(raw))
        if label:
            said = f"{word(f'state_attributes.{name}.name', label)} {said}"
        if named := state.attributes.get(_UNIT_OF.get(name, "")):
            said = f"{said} {_short(named)}"
        details.append(said + unit)
    return [value, *details]


def _area_name(hass: HomeAssistant, entity_id: str) -> str | None:
    """Return the name of an entity's area, its own or its device's."""
    area = area_entry(hass, entity_id)
    return area.name if area else None


def _short(value: object) -> str:
    """Return a value as one line of text, cut to a length a note can hold."""
    text = " ".join(str(value)[: _MAX_VALUE_CHARS * 4].split())
    return text if len(text) <= _MAX_VALUE_CHARS else f"{text[:_MAX_VALUE_CHARS]}…"
