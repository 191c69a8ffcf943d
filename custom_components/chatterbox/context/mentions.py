"""Find the exposed entities, areas and floors that a person's words name.

Names are matched as Home Assistant's intents match them: an entity by its
name or an alias, an area or a floor by its name or an alias. A name counts
when its words stand in the sentence one after the other. Words are compared
ignoring case, accents kept; a word also matches another with the same stem
("light" and "lights", "Küche" and "Küchen", "kuchnia" and "kuchni"): a long
shared start, with at most a few letters of ending each. That covers plurals and
the case endings of German and Polish without a word list per language.

Only entities exposed to Assist are ever found, and only up to a bound, so a
sentence such as "everything in the house" brings a few dozen entities into
view, not a thousand. It reads the sentence once per name: linear in the
sentence and in the number of names.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
import re
from typing import Final

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
    llm,
)

# The most entities a sentence brings into view.
MAX_MENTIONED: Final = 40
# The longest sentence read: a spoken request is short, and names are found in
# its first words; a pasted page is not searched to its end.
MAX_SENTENCE_CHARS: Final = 1_000
# Two words have the same stem when they share this many letters at least...
_STEM: Final = 4
# ...and neither has more than this many letters after the shared part.
_ENDING: Final = 3
_WORD: Final = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Mentions:
    """What a sentence names: entity ids, in the order first named."""

    named: tuple[str, ...] = ()
    """Entities named themselves, by name or alias."""
    areas: tuple[str, ...] = ()
    """Areas named, and the areas of the floors named: their ids."""
    in_areas: tuple[str, ...] = ()
    """The exposed entities of the named areas that were not named themselves."""

    @property
    def entities(self) -> tuple[str, ...]:
        """Return every entity the sentence reaches: named, then by area."""
        return self.named + self.in_areas

    def __bool__(self) -> bool:
        """Tell whether the sentence names anything."""
        return bool(self.named or self.areas)


def turn_mentions(hass: HomeAssistant, chat_log: conversation.ChatLog) -> Mentions:
    """Return what the user's message of this turn names.

    Only for an agent with the Assist API, which reads and acts on the home:
    nothing is looked up for one without it.
    """
    api = chat_log.llm_api
    said = chat_log.content[-1] if chat_log.content else None
    if (
        api is None
        or llm.LLM_API_ASSIST not in api.api.id.split("|")
        or not isinstance(said, conversation.UserContent)
    ):
        return Mentions()
    return find_mentions(hass, said.content)


def find_mentions(hass: HomeAssistant, sentence: str) -> Mentions:
    """Return the exposed entities, and the areas, that a sentence names."""
    words = _Sentence(_words(sentence[:MAX_SENTENCE_CHARS]))
    if not words.words:
        return Mentions()
    areas = ar.async_get(hass)
    named_areas = [
        area.id
        for area in areas.async_list_areas()
        if _names_any(words, (area.name, *area.aliases))
    ]
    for floor in fr.async_get(hass).async_list_floors():
        if _names_any(words, (floor.name, *floor.aliases)):
            named_areas += [
                area.id
                for area in areas.async_list_areas()
                if area.floor_id == floor.floor_id
            ]
    named_areas = list(dict.fromkeys(named_areas))
    entities = er.async_get(hass)
    devices = dr.async_get(hass)
    named: list[str] = []
    in_areas: list[str] = []
    for state in hass.states.async_all():
        entity_id = state.entity_id
        if not async_should_expose(hass, conversation.DOMAIN, entity_id):
            continue
        entry = entities.async_get(entity_id)
        aliases = [a for a in entry.aliases if isinstance(a, str)] if entry else []
        if _names_any(words, (state.name, *aliases)):
            named.append(entity_id)
        elif named_areas and area_of(entry, devices) in named_areas:
            in_areas.append(entity_id)
    named = named[:MAX_MENTIONED]
    return Mentions(
        tuple(named),
        tuple(named_areas),
        tuple(in_areas[: MAX_MENTIONED - len(named)]),
    )


def area_of(entry: er.RegistryEntry | None, devices: dr.DeviceRegistry) -> str | None:
    """Return an entity's area: its own, or else its device's."""
    if entry is None:
        return None
    if entry.area_id:
        return entry.area_id
    if entry.device_id and (device := devices.async_get(entry.device_id)):
        return device.area_id
    return None


class _Sentence:
    """The words of a sentence, and the starts of its words for a quick check."""

    def __init__(self, words: tuple[str, ...]) -> None:
        """Read the words once."""
        self.words = words
        # Words of the same stem share their first _STEM letters (or are
        # equal): a name whose first word starts otherwise is not looked for.
        self.starts = frozenset(word[:_STEM] for word in words)

    def names(self, name: Sequence[str]) -> bool:
        """Tell whether the name's words stand in the sentence one after another."""
        words = self.words
        if not name or name[0][:_STEM] not in self.starts or len(name) > len(words):
            return False
        first = name[0]
        for start in range(len(words) - len(name) + 1):
            if _same_word(words[start], first) and all(
                _same_word(words[start + i], part) for i, part in enumerate(name[1:], 1)
            ):
                return True
        return False


def _names_any(sentence: _Sentence, names: Iterable[str]) -> bool:
    """Tell whether the sentence names any of the names."""
    return any(sentence.names(_words(name)) for name in names if name)


def _same_word(said: str, name: str) -> bool:
    """Tell whether a word said is a word of a name, or the same word inflected."""
    if said == name:
        return True
    shared = min(len(said), len(name))
    if shared < _STEM or abs(len(said) - len(name)) > _ENDING:
        return False
    stem = max(_STEM, max(len(said), len(name)) - _ENDING)
    return said[:stem] == name[:stem]


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """Split text into its words, folded for comparison."""
    return tuple(_WORD.findall(text.casefold().replace("_", " ")))
