"""Find the exposed entities, areas and floors that a person's words name.

Names are matched as Home Assistant's intents match them: an entity by its
name or an alias, an area or a floor by its name or an alias. A name counts
when its words stand in the sentence one after the other. Words are compared
ignoring case, accents kept; a word also matches another with the same stem
("light" and "lights", "Küche" and "Küchen", "kuchnia" and "kuchni"): a long
shared start, with at most a few letters of ending each. That covers plurals and
the case endings of German and Polish without a word list per language.

A name that stands inside a longer one said is part of it, as in Home
Assistant's matching, where the longest name wins: "the guest room fan" is
neither the Guest Room nor every device called "Fan". Of an area named, the
devices of the kinds the words name come ("the lights in the attic",
kinds.py), or all of them when they name none.

Only entities exposed to Assist are ever found, and only up to a bound, so a
sentence such as "everything in the house" brings a few dozen entities into
view, not a thousand. It reads the sentence once per name: linear in the
sentence and in the number of names.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import (
    Event,
    EventStateChangedData,
    HomeAssistant,
    State,
    callback,
)
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
)
from homeassistant.helpers.singleton import singleton

from ..const import DOMAIN
from ..lang.kinds import READ_ONLY_DOMAINS, kind_words, kinds_named
from ..lang.text import words_in

# The most entities a sentence brings into view.
MAX_MENTIONED: Final = 40
# The longest sentence read: a spoken request is short, and names are found in
# its first words; a pasted page is not searched to its end.
MAX_SENTENCE_CHARS: Final = 1_000
# Two words have the same stem when they share this many letters at least...
_STEM: Final = 4
# ...and neither has more than this many letters after the shared part.
_ENDING: Final = 3

type Span = tuple[int, int]
"""Where a name stands in a sentence: its first word's place, and its last's + 1."""


@dataclass(frozen=True, slots=True)
class Mentions:
    """What a sentence names: entity ids, in the order first named."""

    named: tuple[str, ...] = ()
    """Entities named themselves, by name or alias, in the order named."""
    areas: tuple[str, ...] = ()
    """Areas named, and the areas of the floors named: their ids."""
    in_areas: tuple[str, ...] = ()
    """The exposed entities of the named areas that were not named themselves,
    of the kinds the sentence names, if it names any."""
    shared: tuple[str, ...] = ()
    """Entities named by a name that others named share: not told apart."""
    of_kinds: bool = False
    """Whether the sentence names kinds of devices, which in_areas keeps to."""
    earlier: bool = False
    """Named by an earlier message, which this one refers back to."""
    carried: frozenset[str] = frozenset()
    """The kinds (domains) that the areas named mean, when the sentence names
    no device nor kind: those the user's message before acted on."""

    @property
    def entities(self) -> tuple[str, ...]:
        """Return every entity the sentence reaches: named, then by area."""
        return self.named + self.in_areas

    @property
    def reporting(self) -> tuple[str, ...]:
        """Return what it reaches that only reports (a thermometer).

        A request reads it, never acts on it. None named earlier: those are
        names a request may refer to, no states it asks about.
        """
        if self.earlier:
            return ()
        return tuple(
            e for e in self.entities if e.split(".", 1)[0] in READ_ONLY_DOMAINS
        )

    @property
    def acted_kinds(self) -> frozenset[str]:
        """Return the kinds (domains) of what the sentence names to act on.

        The devices named, and those of the areas when it names their kinds;
        not what only reports, nor a name that several devices share.
        """
        return frozenset(
            domain
            for e in (*self.named, *(self.in_areas if self.of_kinds else ()))
            if e not in self.shared
            and (domain := e.split(".", 1)[0]) not in READ_ONLY_DOMAINS
        )

    def __bool__(self) -> bool:
        """Tell whether the sentence names anything."""
        return bool(self.named or self.areas)


def find_mentions(
    hass: HomeAssistant, sentence: str, here: str | None = None, *, language: str
) -> Mentions:
    """Return the exposed entities, and the areas, that a sentence names."""
    return mentions_in(
        hass, words_in(sentence[:MAX_SENTENCE_CHARS]), here, language=language
    )


def mentions_in(
    hass: HomeAssistant,
    sentence: Sequence[str],
    here: str | None = None,
    *,
    language: str,
) -> Mentions:
    """Return the exposed entities, and the areas, that a sentence's words name.

    A name that stands inside a longer one is part of it: "guest room fan"
    names the Guest room fan, not the Guest Room, nor every "Fan". A name
    that several devices share names the ones in the areas named with it, or
    else in the area here (the satellite's); failing both, all of them, as
    devices not told apart (Mentions.shared). The kinds of devices it names
    are read in the words of its language.
    """
    words = Sentence(tuple(sentence))
    if not words.words:
        return Mentions()
    area_spans = _said_areas(hass, words)
    index = _index(hass).names()
    # Only the names that start as a word of the sentence starts are read,
    # and only the names of what Assist may reach.
    by_span: dict[Span, set[str]] = {}
    for start in words.starts:
        for entity_id, name in index.by_start.get(start, ()):
            if (spans := words.spans(name)) and async_should_expose(
                hass, conversation.DOMAIN, entity_id
            ):
                for span in spans:
                    by_span.setdefault(span, set()).add(entity_id)
    kept = _outermost({*by_span, *(s for spans in area_spans.values() for s in spans)})
    named_areas = [area for area, spans in area_spans.items() if spans & kept]
    # Where each entity is first named: they come in the sentence's order.
    found: dict[str, int] = {}
    shared: set[str] = set()
    for span in sorted(kept & by_span.keys()):
        entities = _told_apart(by_span[span], index.area, named_areas or [here])
        for entity_id in entities:
            found.setdefault(entity_id, span[0])
        if len(entities) > 1:
            shared |= entities
    named = sorted(found, key=lambda e: (found[e], index.order[e]))[:MAX_MENTIONED]
    # "The lights in the attic": of an area, only the kinds the words name
    # beside the names.
    in_names = {place for start, end in kept for place in range(start, end)}
    said = kind_words(
        (w for n, w in enumerate(words.words) if n not in in_names), language
    )
    kinds = kinds_named(said, language)
    in_areas = [
        entity_id
        for entity_id in sorted(
            {e for area in named_areas for e in index.by_area.get(area, ())}
            - found.keys(),
            key=index.order.__getitem__,
        )
        if (not kinds or _of_kind(hass, entity_id, kinds, said))
        and async_should_expose(hass, conversation.DOMAIN, entity_id)
    ][: MAX_MENTIONED - len(named)]
    return Mentions(
        tuple(named),
        tuple(named_areas),
        tuple(in_areas),
        tuple(e for e in named if e in shared),
        of_kinds=bool(kinds),
    )


def _of_kind(
    hass: HomeAssistant, entity_id: str, kinds: set[str], said: Sequence[str]
) -> bool:
    """Tell whether a device is of a kind said: by its domain, or by its name.

    A "Ceiling light" on a smart relay is a switch, and one of "the lights".
    """
    if entity_id.split(".", 1)[0] in kinds:
        return True
    state = hass.states.get(entity_id)
    return state is not None and any(
        same_word(word, part) for part in words_in(state.name) for word in said
    )


def _said_areas(hass: HomeAssistant, words: Sentence) -> dict[str, set[Span]]:
    """Return where each area stands in the sentence, by name or by its floor's."""
    areas = ar.async_get(hass)
    said: dict[str, set[Span]] = {}
    for area in areas.async_list_areas():
        if spans := words.spans_of(area.name, *area.aliases):
            said[area.id] = spans
    for floor in fr.async_get(hass).async_list_floors():
        if spans := words.spans_of(floor.name, *floor.aliases):
            for area in areas.async_list_areas():
                if area.floor_id == floor.floor_id:
                    said.setdefault(area.id, set()).update(spans)
    return said


def _outermost(spans: set[Span]) -> set[Span]:
    """Return the spans that stand inside no longer one.

    Sorted by start, the longest first, a span is inside another exactly when
    one before it ends as late or later: one pass.
    """
    kept: set[Span] = set()
    end = -1
    for span in sorted(spans, key=lambda span: (span[0], -span[1])):
        if span[1] > end:
            kept.add(span)
            end = span[1]
    return kept


def _told_apart(
    entities: set[str], area: Mapping[str, str], places: Sequence[str | None]
) -> set[str]:
    """Return the devices of one name that are in the places, if any are."""
    if len(entities) < 2 or not any(places):  # noqa: PLR2004  # one is told apart
        return entities
    return {e for e in entities if area.get(e) in places} or entities


@dataclass(frozen=True, slots=True)
class _Names:
    """Every entity's names and area, looked up by how the names start."""

    by_start: dict[str, list[tuple[str, tuple[str, ...]]]]
    """Entity ids with the words of each of their names, by the first word's start."""
    by_area: dict[str, list[str]]
    """The entity ids of each area."""
    area: dict[str, str]
    """The area of each entity that is in one."""
    order: dict[str, int]
    """Each entity's place, so that what is found keeps the home's order."""


class _NameIndex:
    """The names of the home, built when first read after the home changed.

    A turn then reads the names that start as the sentence's words do, not
    every entity of a home of a thousand. A new, removed or renamed entity,
    or a change in the entity or device registry (an alias, an area), drops
    the index; the next turn builds it again.
    """

    def __init__(self, hass: HomeAssistant) -> None:
        """Follow the home's changes for as long as Home Assistant runs."""
        self._hass = hass
        self._names: _Names | None = None
        for event_type in (
            er.EVENT_ENTITY_REGISTRY_UPDATED,
            dr.EVENT_DEVICE_REGISTRY_UPDATED,
        ):
            hass.bus.async_listen(event_type, self._drop)
        hass.bus.async_listen(EVENT_STATE_CHANGED, self._drop, event_filter=_renamed)

    @callback
    def _drop(self, _event: Event[Any]) -> None:
        """Forget the index: the home changed."""
        self._names = None

    def names(self) -> _Names:
        """Return the index, built anew if the home changed."""
        if self._names is None:
            self._names = self._build()
        return self._names

    def _build(self) -> _Names:
        """Read every entity's names and area."""
        hass = self._hass
        entities = er.async_get(hass)
        devices = dr.async_get(hass)
        names = _Names({}, {}, {}, {})
        for place, state in enumerate(hass.states.async_all()):
            entity_id = state.entity_id
            names.order[entity_id] = place
            entry = entities.async_get(entity_id)
            for name in names_of(state, entry):
                if words := words_in(name):
                    key = words[0][:_STEM]
                    names.by_start.setdefault(key, []).append((entity_id, words))
            if (area := area_of(entry, devices)) is not None:
                names.by_area.setdefault(area, []).append(entity_id)
                names.area[entity_id] = area
        return names


@callback
def _renamed(data: EventStateChangedData) -> bool:
    """Tell whether a state change adds, removes or renames an entity."""
    old, new = data["old_state"], data["new_state"]
    return old is None or new is None or old.name != new.name


@singleton(f"{DOMAIN}_name_index")
def _index(hass: HomeAssistant) -> _NameIndex:
    """Return the home's index of names."""
    return _NameIndex(hass)


def names_of(state: State, entry: er.RegistryEntry | None) -> list[str]:
    """Return the names Home Assistant's intents know an entity by, first first.

    Its aliases, in which its own name stands (as its state has it) for as
    long as the user keeps it there: an entity given only the alias
    "Fountain" is not found as "Pond pump". One without aliases, or without
    a registry entry, is known by its name.
    """
    aliases = entry.aliases if entry is not None else ()
    names = [
        state.name if alias is er.COMPUTED_NAME else alias
        for alias in aliases
        if alias is er.COMPUTED_NAME or isinstance(alias, str)
    ]
    return names or [state.name]


def known_names(hass: HomeAssistant, state: State) -> list[str]:
    """Return the names an entity is known by, its registry entry read."""
    return names_of(state, er.async_get(hass).async_get(state.entity_id))


def name_of(hass: HomeAssistant, state: State) -> str:
    """Return the name a call finds an entity by: its first (see names_of)."""
    return known_names(hass, state)[0]


def area_entry(hass: HomeAssistant, entity_id: str) -> ar.AreaEntry | None:
    """Return an entity's area: its own, or else its device's."""
    entry = er.async_get(hass).async_get(entity_id)
    area_id = area_of(entry, dr.async_get(hass))
    return ar.async_get(hass).async_get_area(area_id) if area_id else None


def area_of(entry: er.RegistryEntry | None, devices: dr.DeviceRegistry) -> str | None:
    """Return an entity's area: its own, or else its device's, as Home Assistant does.

    A child device without an area of its own is in its parent's.
    """
    if entry is None:
        return None
    if entry.area_id:
        return entry.area_id
    if entry.device_id and (device := devices.async_get(entry.device_id)):
        return dr.async_get_effective_area_id(devices.hass, device)
    return None


class Sentence:
    """The words of a sentence, and the starts of its words for a quick check."""

    def __init__(self, words: tuple[str, ...]) -> None:
        """Read the words once."""
        self.words = words
        # Words of the same stem share their first _STEM letters (or are
        # equal): a name whose first word starts otherwise is not looked for.
        self.starts = frozenset(word[:_STEM] for word in words)

    def names(self, name: Sequence[str]) -> bool:
        """Tell whether the name's words stand in the sentence one after another."""
        return bool(self.spans(name, first=True))

    def spans(self, name: Sequence[str], *, first: bool = False) -> list[Span]:
        """Return every place where the name's words stand one after another."""
        words = self.words
        if not name or name[0][:_STEM] not in self.starts or len(name) > len(words):
            return []
        found: list[Span] = []
        for start in range(len(words) - len(name) + 1):
            if all(same_word(words[start + i], part) for i, part in enumerate(name)):
                found.append((start, start + len(name)))
                if first:
                    break
        return found

    def spans_of(self, *names: str) -> set[Span]:
        """Return every place where any of the names stands."""
        return {span for name in names if name for span in self.spans(words_in(name))}


def names_any(sentence: Sentence, names: Iterable[str]) -> bool:
    """Tell whether the sentence names any of the names."""
    return any(sentence.names(words_in(name)) for name in names if name)


def same_word(said: str, name: str) -> bool:
    """Tell whether a word said is a word of a name, or the same word inflected."""
    if said == name:
        return True
    shared = min(len(said), len(name))
    if shared < _STEM or abs(len(said) - len(name)) > _ENDING:
        return False
    stem = max(_STEM, max(len(said), len(name)) - _ENDING)
    return said[:stem] == name[:stem]
