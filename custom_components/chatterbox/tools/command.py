"""A request for a change, and what its answer is held to.

A request that asks for a change, not a question about the home, is checked
when the model answers:
- an answer that claims a change must come after a call that made one
  (claims.py);
- every part the request names is acted on: each entity it names, and in each
  area it names on its own (no entity it names is there), the area's exposed
  devices of the domains the request names, or of every domain that switches
  on and off when it says "everything". "Switch off everything in the
  kitchen" means the kitchen's lights, switches, fans and media players;
  "the lights in the kitchen and the hall" the lights of both; "now the
  hall as well", after the kitchen light, the hall's lights.
A part left over gets the model one more round, naming it. What only
reports and the request asks to be told ("and say what the hall's
humidity is") is held to be said too (Command.reads).

The words for kinds of devices are data, one entry per domain, in the
languages of the question words (questions.py).
"""

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
import math
from typing import Any, Final

from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)

from ..const import CONF_CHECK_CLAIMS, CONF_EVERY_PART
from ..context.mentions import (
    Mentions,
    area_of,
    known_names,
    name_of,
    same_word,
)
from ..context.message import Message
from ..lang import word_set
from ..lang.kinds import (
    READ_ONLY_DOMAINS,
    SWITCHED_DOMAINS,
    kind_words,
    kinds_named,
)
from ..lang.numbers import FIGURE, NUMBER, as_number, is_figure
from ..lang.questions import asks_to_be_shown
from ..lang.text import words_in
from .statements import StateWords

# The most parts a request is held to: a room of forty lamps is one part.
MAX_PARTS: Final = 20
# The shortest word of a name that tells what a sensor reads: "temperature",
# not the "in" of "Temperature in the hall".
_SHORTEST_READ_WORD: Final = 4


@dataclass(frozen=True, slots=True)
class Command:
    """What a turn's answer is checked against: the request, a change or not."""

    language: str
    check_claims: bool
    """An answer that claims a change must come after a call that made one."""
    parts: tuple[str, ...] = ()
    """The entity ids a request for a change names to act on, in order."""
    asked_about: tuple[str, ...] = ()
    """The entity ids a question names: without an answer, their states are it."""
    values: tuple[str, ...] = ()
    """The numbers a request for a change asks for, as written: 22, 18.5."""
    question: bool = False
    """The request asks how things are, and for no change."""
    reads: tuple[str, ...] = ()
    """What a request for a change asks to be told that only reports (a
    thermometer): "turn off the light and tell me the temperature"."""
    changes: bool = True
    """The request asks for a change: not a question, an example or an
    explanation. A call written in an answer's text is made only for one."""
    checks_statements: bool = True
    """What an answer says of the devices it names is held to their states
    (the claims option, which questions keep too)."""


def command_for(  # noqa: PLR0913  # the turn's inputs, each separate
    hass: HomeAssistant,
    options: Mapping[str, Any],
    message: Message | None,
    mentions: Mentions,
    language: str,
    *,
    question: bool,
    words: StateWords | None = None,
) -> Command | None:
    """Return what the turn's answer is held to; None without tools.

    A question asks for no change: it has no parts, and its answer says how
    things are ("the lamp is switched on"), which is no claim of an action.
    """
    if message is None:
        return None
    every_part = bool(options.get(CONF_EVERY_PART, True)) and not question
    return Command(
        language,
        check_claims=bool(options.get(CONF_CHECK_CLAIMS, True)) and not question,
        # What an earlier message named is for the model to read: which of it
        # the request means ("turn it off") is the model's to tell.
        parts=request_parts(
            hass,
            message.words,
            mentions,
            language,
            carried=mentions.carried,
        )
        if every_part and not mentions.earlier
        else (),
        asked_about=mentions.entities if question else (),
        values=request_values(hass, message.text, mentions, language)
        if every_part
        else (),
        question=question,
        reads=()
        if question
        else asked_reads(hass, message.words, mentions, language, words),
        changes=not question and not asks_to_be_shown(message.words, language),
        checks_statements=bool(options.get(CONF_CHECK_CLAIMS, True)),
    )


def asked_reads(
    hass: HomeAssistant,
    said: Sequence[str],
    mentions: Mentions,
    language: str,
    words: StateWords | None = None,
) -> tuple[str, ...]:
    """Return what only reports that a request asks to be told.

    Each named itself ("the Hall thermometer"), or in an area named when a
    word of its name or of Home Assistant's name of its device class is said
    beside the names ("the temperature in the hall": a "Hall temperature",
    or a "Flur Thermometer" of the class Temperatur). Not the rest of a
    room's sensors: "switch off everything in the hall" asks for none.
    """
    areas = ar.async_get(hass)
    named = {
        *words_in(" ".join(_names_named(hass, mentions))),
        *(
            word
            for area_id in mentions.areas
            if (area := areas.async_get_area(area_id))
            for word in words_in(" ".join((area.name, *area.aliases)))
        ),
    }
    # A kind's word asks for devices of the kind, not for a reading: "the
    # lights" reads no "Hall light level".
    named.update(kind_words(said, language))
    rest = [w for w in said if w not in named and len(w) >= _SHORTEST_READ_WORD]
    return tuple(
        entity_id
        for entity_id in mentions.reporting
        if entity_id in mentions.named
        or (
            (state := hass.states.get(entity_id)) is not None
            and any(
                same_word(word, part)
                for name in (state.name, *(words.kind_names(state) if words else ()))
                for part in words_in(name)
                if len(part) >= _SHORTEST_READ_WORD
                for word in rest
            )
        )
    )


def left_over(command: Command, acted_on: frozenset[str] | None) -> list[str]:
    """Return the parts no call has acted on; none when that cannot be told."""
    if acted_on is None:
        return []
    return [part for part in command.parts if part not in acted_on]


def request_parts(
    hass: HomeAssistant,
    said: Sequence[str],
    mentions: Mentions,
    language: str,
    *,
    carried: Collection[str] = frozenset(),
) -> tuple[str, ...]:
    """Return the entities a request names to act on.

    None when it takes something out ("everything but the fridge"): which
    named device is meant to stay as it is cannot be told from the words.
    Said holds the request's words; carried, the kinds (domains) that areas
    named without one mean.
    """
    words = set(said)
    if not word_set(language, "besides").isdisjoint(words):
        return ()
    entities = er.async_get(hass)
    devices = dr.async_get(hass)
    # A name several devices share, not told apart by an area, is no part:
    # which of them is meant is the model's to ask.
    named = [
        e
        for e in mentions.named
        if e.split(".", 1)[0] not in READ_ONLY_DOMAINS and e not in mentions.shared
    ]
    named_in = {area_of(entities.async_get(e), devices) for e in mentions.named}
    # A kind word in a device's name names that device, not the kind: the
    # "light" of "kitchen light" asks for no lights in another room.
    kinds = words.difference(words_in(" ".join(_names_named(hass, mentions))))
    everything = not word_set(language, "everything").isdisjoint(kinds)
    domains = kinds_named(kinds, language) or (
        SWITCHED_DOMAINS if everything else set(carried)
    )
    by_area = [
        entity_id
        for entity_id in mentions.in_areas
        if entity_id.split(".", 1)[0] in domains
        and area_of(entities.async_get(entity_id), devices) not in named_in
    ]
    return (*named, *by_area)[:MAX_PARTS]


def request_values(
    hass: HomeAssistant, sentence: str, mentions: Mentions, language: str
) -> tuple[str, ...]:
    """Return the numbers a request sets: "22" of "set it to 22 degrees".

    Only numbers with a percent or degree after them; one in the name of a
    device or area the request names is none ("Lamp 2 to 30 percent").
    """
    areas = ar.async_get(hass)
    names = _names_named(hass, mentions) + [
        area.name
        for area_id in mentions.areas
        if (area := areas.async_get_area(area_id))
    ]
    in_names = set(NUMBER.findall(" ".join(names)))
    values = (
        match.group(1)
        for match in FIGURE.finditer(sentence)
        if is_figure(match, language)
    )
    return tuple(dict.fromkeys(n for n in values if n not in in_names))[:MAX_PARTS]


def values_left(command: Command, used: frozenset[float]) -> list[str]:
    """Return the numbers asked for that no call which acted ran with."""
    return [
        value
        for value in command.values
        if (number := as_number(value)) is not None and not _among(number, used)
    ]


def _among(number: float, numbers: Iterable[float]) -> bool:
    """Tell whether a number is one of the numbers, as floats compare."""
    return any(math.isclose(number, other) for other in numbers)


def _names_named(hass: HomeAssistant, mentions: Mentions) -> list[str]:
    """Return every name of every entity the request names, as it may say it."""
    return [
        name
        for entity_id in mentions.named
        if (state := hass.states.get(entity_id)) is not None
        for name in known_names(hass, state)
    ]


def call_names(hass: HomeAssistant, entity_ids: Sequence[str]) -> str:
    """Name entities for the model: "Kitchen light, Hall lamp"."""
    return ", ".join(
        name_of(hass, state) if (state := hass.states.get(entity_id)) else entity_id
        for entity_id in entity_ids
    )
