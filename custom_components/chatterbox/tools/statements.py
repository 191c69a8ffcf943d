"""What an answer says about the devices it names, held to their states now.

An answer names a device and says a state of it ("the front door is now
unlocked") or a figure ("the living room is at 22 degrees"). The words for
states are Home Assistant's own: the names its dashboards show for each state
of a domain, or of a device class, in the conversation's language and in
English, which small models drift into. So the check works in every language
Home Assistant translates, with no word list of ours.

What stands between a device's name and the next name in one sentence is
about that device, and so is what comes before the first name ("I unlocked
the front door"). It contradicts the home when it says a state of the device
but not the one it is in now, or a figure that none of its values gives (nor
the request). A sentence with a negation or a hesitation is not read: "not
locked" says the opposite of its words; nor are words in quotes, an example.
State words match by stem, as names do: "opened" is "open", and "locked"
counts for "locking", as a lock on its way there is in neither state yet.
"""

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
import math
import re
from typing import Final

from homeassistant.const import (
    ATTR_SUPPORTED_FEATURES,
    STATE_OFF,
    STATE_ON,
    STATE_UNAVAILABLE,
    STATE_UNKNOWN,
)
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import translation

from ..context.mentions import (
    MAX_SENTENCE_CHARS,
    Sentence,
    find_mentions,
    known_names,
    same_word,
)
from ..lang import base_language
from ..lang.answers import negated
from ..lang.kinds import learn_kind_names
from ..lang.numbers import as_number, figures_in
from ..lang.text import sentences, words_in
from .outcomes import numbers_in

# The domains whose states an answer may get wrong in a word. Not the
# weather (an answer speaks of tomorrow's), nor people and trackers ("home"
# is a word of many sentences about a person who is out).
_STATEFUL: Final = frozenset(
    {
        "alarm_control_panel",
        "binary_sensor",
        "climate",
        "cover",
        "fan",
        "humidifier",
        "input_boolean",
        "lawn_mower",
        "light",
        "lock",
        "media_player",
        "siren",
        "switch",
        "vacuum",
        "valve",
        "water_heater",
    }
)
# The domains whose devices show their figures in their state: a light's
# brightness, a fan's speed, a cover's position. One that shows none now (a
# light that is off, one that only switches) is at 0 or 100 percent, and at
# no other figure. A switch or a lock has none to show: a figure said beside
# it is nobody's.
_FIGURED: Final = frozenset(
    {
        "climate",
        "cover",
        "fan",
        "humidifier",
        "light",
        "media_player",
        "valve",
        "water_heater",
    }
)
# A yes or a no before a comma answers the question; it negates nothing.
_ANSWER_WORD: Final = re.compile(r"^\W*\w+\s*,")
# Words in quotes are an example or a command said back ("say: "Turn on the
# kitchen light""), not what the answer says is so.
_QUOTED: Final = re.compile(
    '"[^"\n]{0,200}"|\u201c[^\u201d\n]{0,200}\u201d'
    "|\u201e[^\u201c\u201d\n]{0,200}[\u201c\u201d]|\u00ab[^\u00bb\n]{0,200}\u00bb"
)
# The shortest other form of a state's name after a slash ("Bloccato/a").
_MIN_ALTERNATIVE: Final = 3
# A figure is the value it stands for when it is this close: "about 20".
_ROUNDING: Final = 1.0


@dataclass(slots=True)
class StateWords:
    """Home Assistant's names of states, in a language and in English."""

    names: Sequence[Mapping[str, str]]
    """The translations of the states of each domain: the language's, English's."""
    _tables: dict[tuple[str, str | None], dict[str, list[tuple[str, ...]]]] = field(
        default_factory=dict
    )

    def of(self, state: State) -> dict[str, list[tuple[str, ...]]]:
        """Return the words of each state an entity of its kind can be in."""
        device_class = state.attributes.get("device_class")
        kind = (state.domain, device_class if isinstance(device_class, str) else None)
        if (table := self._tables.get(kind)) is None:
            table = self._tables[kind] = self._table(*kind)
        return table

    def kind_names(self, state: State) -> list[str]:
        """Return Home Assistant's names of an entity's device class: "Temperatur"."""
        device_class = state.attributes.get("device_class")
        if not isinstance(device_class, str):
            return []
        key = f"component.{state.domain}.entity_component.{device_class}.name"
        return [name for names in self.names if (name := names.get(key))]

    def _table(
        self, domain: str, device_class: str | None
    ) -> dict[str, list[tuple[str, ...]]]:
        """Collect the words of each state, the device class's and the domain's."""
        component = f"component.{domain}.entity_component"
        prefixes = [f"{component}._.state."]
        if device_class is not None:
            prefixes.insert(0, f"{component}.{device_class}.state.")
        table: dict[str, list[tuple[str, ...]]] = {}
        for names in self.names:
            for key, name in names.items():
                for prefix in prefixes:
                    if not key.startswith(prefix):
                        continue
                    # "Bloccato/a": a word and its other ending, which the
                    # stem matches anyway.
                    first, *others = name.split("/")
                    table.setdefault(key.removeprefix(prefix), []).extend(
                        words
                        for alternative in (
                            first,
                            *(o for o in others if len(o.strip()) >= _MIN_ALTERNATIVE),
                        )
                        if (words := words_in(alternative))
                    )
        return table


async def async_state_words(hass: HomeAssistant, language: str) -> StateWords:
    """Load Home Assistant's names of states for a language, and English's.

    Home Assistant keeps its translations once loaded: after the first turn in
    a language, this reads its cache.
    """
    # A sensor's states are figures; its device class's name names what it
    # reads ("the temperature"), for a request that asks to be told it.
    domains = (_STATEFUL | {"sensor"}) & hass.config.components
    own = await translation.async_get_translations(
        hass, language, "entity_component", domains
    )
    if base_language(language) == "en":
        return StateWords([own])
    english = await translation.async_get_translations(
        hass, "en", "entity_component", domains
    )
    # The same translations name the kinds of devices in the language.
    learn_kind_names(
        language,
        {
            domain: name
            for domain in domains
            if (name := own.get(f"component.{domain}.entity_component._.name"))
            and name != english.get(f"component.{domain}.entity_component._.name")
        },
    )
    return StateWords([own, english])


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A device an answer says something of that its state now does not show."""

    entity_id: str
    said: str
    """What the answer says: a state's words, or a figure."""


def contradictions(  # noqa: PLR0913  # the answer, and what it is held to
    hass: HomeAssistant,
    answer: str,
    words: StateWords,
    *,
    known: Collection[float] = (),
    language: str = "en",
    acted_on: Collection[str] = (),
) -> list[Contradiction]:
    """Return what an answer says of the devices it names that is not so now.

    Known are numbers the model read (the request, a tool's result): a figure
    among them may be said of something else ("you asked for 22 degrees", "it
    is 5 degrees outside"). Acted on are the devices the turn's calls changed:
    of devices that share a name ("Smart Lock", the lock and its door
    sensor), the one a call acted on is the one the answer speaks of.
    """
    answer = _QUOTED.sub(" ", answer[:MAX_SENTENCE_CHARS])
    mentions = find_mentions(hass, answer, language=language)
    states = [
        state
        for entity_id in mentions.named
        if (state := hass.states.get(entity_id)) is not None
        and state.domain in _STATEFUL
        and state.state not in (STATE_UNAVAILABLE, STATE_UNKNOWN)
    ]
    if not states:
        return []
    found: list[Contradiction] = []
    # A question ("Do you want me to turn it on?") states nothing.
    for sentence in sentences(answer):
        if sentence.asks or negated(_ANSWER_WORD.sub("", sentence.text), language):
            continue
        about = list(_about(hass, sentence.text, states, acted_on))
        for index, (state, said) in enumerate(about):
            wrong = _state_contradicted(state, said, words)
            if (
                wrong is not None
                and index + 1 < len(about)
                and _says_state_of(about[index + 1][0], said, words)
            ):
                # The words before the next name may be its own: "I switched
                # on the lamp and off the fan", "encendí la luz y apagué la
                # lámpara". When they say the state the next device is in,
                # they are not held against this one.
                wrong = None
            if wrong is None and len(about) == 1:
                # A figure is a device's only when the sentence names no other.
                wrong = _figure_contradicted(state, sentence.text, known, language)
            if wrong is not None:
                found.append(Contradiction(state.entity_id, wrong))
    return list({item.entity_id: item for item in found}.values())


def _about(
    hass: HomeAssistant,
    sentence: str,
    states: Sequence[State],
    acted_on: Collection[str],
) -> Iterator[tuple[State, Sentence]]:
    """Yield each device the sentence names, with the words said of it.

    Of devices named by the same words, those a call acted on, when any was.
    """
    said = Sentence(words_in(sentence))
    starts: list[tuple[int, int, State]] = []
    for state in states:
        spans = said.spans_of(*known_names(hass, state))
        if spans:
            first = min(spans)
            starts.append((first[0], first[1], state))
    acted = {
        (start, end) for start, end, state in starts if state.entity_id in acted_on
    }
    starts = [
        (start, end, state)
        for start, end, state in starts
        if (start, end) not in acted or state.entity_id in acted_on
    ]
    starts.sort(key=lambda start: start[0])
    for index, (start, end, state) in enumerate(starts):
        until = starts[index + 1][0] if index + 1 < len(starts) else len(said.words)
        before = (
            said.words[:start] if index == 0 and state.entity_id not in acted_on else ()
        )
        yield state, Sentence((*before, *said.words[end:until]))


def _state_contradicted(state: State, said: Sentence, words: StateWords) -> str | None:
    """Return the state words said of a device that is in none of them, or None."""
    table = words.of(state)
    stated = [
        key
        for key, names in table.items()
        if any(said.names(name) for name in names)
        # "On" is any state but off: a player that is playing is on, and
        # "on" is also the word before a name ("the next track on the
        # speakers").
        and not (key == STATE_ON and state.state != STATE_OFF and STATE_OFF in table)
    ]
    if not stated or state.state in stated:
        return None
    # A word of the state it is in, or of the state on the way to it, says
    # the state may be meant: "låst upp" (unlocked, in Swedish) holds "låst"
    # (locked) and "upp" of "låser upp" (unlocking).
    now = {
        word
        for key, names in table.items()
        if same_word(key, state.state)
        for name in names
        for word in name
    }
    if any(same_word(word, known) for word in said.words for known in now):
        return None
    return " / ".join(" ".join(table[key][0]) for key in stated if table[key])


def _says_state_of(state: State, said: Sentence, words: StateWords) -> bool:
    """Tell whether words say the state a device is in, in its kind's words."""
    return any(
        said.names(name)
        for key, names in words.of(state).items()
        if same_word(key, state.state)
        for name in names
    )


def _figure_contradicted(
    state: State, sentence: str, known: Collection[float], language: str
) -> str | None:
    """Return a figure a sentence gives of a device that none of its values is."""
    if not (values := _values(state)):
        if state.domain not in _FIGURED:
            return None
        values = [0.0, 100.0]
    for figure in figures_in(sentence, language):
        number = as_number(figure)
        if number is not None and all(
            abs(number - value) > _ROUNDING for value in (*values, *known)
        ):
            return figure
    return None


def _values(state: State) -> list[float]:
    """Return the numbers a device shows: its state, its attributes' numbers.

    A light's brightness as people say it too, in percent.
    """
    values = _numbers([state.state])
    for name, value in state.attributes.items():
        # The features a device supports are bits of a mask, not a figure
        # it shows: a fan's 49 is no speed of 49 percent.
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or name == ATTR_SUPPORTED_FEATURES
        ):
            continue
        values.extend(numbers_in(value))
        if name == "brightness":
            values.append(round(value * 100 / 255))
    return [value for value in values if math.isfinite(value)]


def _numbers(texts: Iterable[str]) -> list[float]:
    """Return the numbers among texts."""
    return [number for text in texts if (number := as_number(text)) is not None]
