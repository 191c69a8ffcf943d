"""What a request asks to act on: its scope, which no call that changes may leave.

Small models act beyond the request: asked to switch off a room, one also
unlocked the front door, and the question it raised would have turned a
habitual yes into an unlock nobody asked for. When the user's words name
targets, a call that would change something outside them is refused before it
runs, and before anyone is asked about it.

An entity is within the scope when the words name it (or the message it
refers back to did), in whole or by a part ("zet koffie" for the
"Koffiezetapparaat"); or, with areas named (floors name their areas), when it
is in one of them and, if the words name kinds of device, of a kind named;
or, with no area named, when it is of a kind named. Words that name nothing
("I'm cold", "lock up for the night", "yes") set no scope: the model reads
them as it will, and its sensitive calls are asked about as ever.
"""

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from homeassistant.components.conversation import trace
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import area_registry as ar, floor_registry as fr, llm

from ..const import CONF_CONFIRM, CONF_SENSITIVE_KINDS
from ..context.mentions import (
    MAX_SENTENCE_CHARS,
    Mentions,
    area_entry,
    known_names,
    same_word,
)
from ..context.message import Message
from ..lang import WordField, word_set
from ..lang.kinds import READ_ONLY_DOMAINS, kind_words, kinds_named
from ..lang.text import words_in
from ..prompts import NOT_REQUESTED
from .command import call_names
from .outcomes import only_reads
from .own import error_result
from .sensitive import DEFAULT_KINDS, Kind, guarded_kinds, of_kinds
from .targets import Reach, named_action, runs_script

# The most devices a refusal names: a call on a whole floor reaches hundreds.
MAX_NAMED: Final = 10
# The fewest letters of a word that names a device by a part of its name:
# shorter ones are the small words of a sentence ("open", "zet", "aan").
MIN_PART: Final = 5
# The fewest letters after such a word in a compound word of a name: fewer
# are an ending ("schalte", "Schalter"; "close", "Closet").
COMPOUND_REST: Final = 4
# The language's small words, which name no device by a part of its name.
_SMALL_WORDS: Final[tuple[WordField, ...]] = (
    "question_words",
    "showing",
    "everything",
    "besides",
    "back",
    "units",
    "already",
)
# The arguments of Home Assistant's intents that are the user's own text (a
# list's item, a broadcast's message, what to play), not a target.
_FREE_TEXT: Final = ("item", "message", "search_query")


def _within(name: Sequence[str], words: Sequence[str]) -> bool:
    """Tell whether a name's words stand in a text's words, in a row."""
    size = len(name)
    return bool(size) and any(
        tuple(words[start : start + size]) == tuple(name)
        for start in range(len(words) - size + 1)
    )


@dataclass(frozen=True, slots=True)
class Scope:
    """The targets a request names: its devices, areas and kinds."""

    hass: HomeAssistant
    named: frozenset[str]
    """Entities named, or named by the message referred back to."""
    areas: frozenset[str] = frozenset()
    """The ids of the areas named, the areas of the floors named among them."""
    kinds: frozenset[str] = frozenset()
    """The domains the words name, outside the names of what they name."""
    said: tuple[str, ...] = ()
    """The words that name those kinds: a "Ceiling light" switch is a light."""
    guarded: frozenset[Kind] = frozenset()
    """The sensitive kinds, as (domain, device class), when the words say
    everything: "everything in the hallway" asks to unlock no door in it."""
    parts: tuple[str, ...] = ()
    """The words that may name a device by a part of its name: none of a
    name said, of a kind or of a verb, nor the language's small words, of
    MIN_PART letters or more."""
    sensitive: frozenset[Kind] = frozenset()
    """The sensitive kinds, as (domain, device class): named by a part of
    its name, no device of them is within."""

    def covers(self, entity_id: str) -> bool:
        """Tell whether an entity is within the scope.

        A sensitive device is not within by "everything" of its area, nor
        by a part of its name: only by its name, or by its domain's word
        ("all the locks").
        """
        if entity_id in self.named:
            return True
        if (state := self.hass.states.get(entity_id)) is not None:
            if of_kinds(state, self.guarded):
                return state.domain in self.kinds
            if not of_kinds(state, self.sensitive) and self._named_in_part(state):
                return True
        if self.areas:
            area = area_entry(self.hass, entity_id)
            if area is None or area.id not in self.areas:
                return False
            return not self.kinds or self._of_kind(entity_id)
        return bool(self.kinds) and self._of_kind(entity_id)

    def outside(self, entity_ids: Iterable[str]) -> list[str]:
        """Return the entities outside the scope, sorted."""
        return sorted(e for e in entity_ids if not self.covers(e))

    def review(
        self, tool: llm.Tool, args: Mapping[str, Any], reached: Reach | None
    ) -> llm.ToolResult | None:
        """Return why a call that would change something may not run, or None.

        Reached is what the call would act on (None for a read, or when that
        cannot be told). What a script or scene acts on is held to the scope
        too, but for one the request names. A call whose reach cannot be told
        may act anywhere: only a script the request names may run so.
        """
        if only_reads(tool) or self._said_in(tool, args):
            return None
        if reached is None:
            action = named_action(tool, args)
            if runs_script(action) and f"script.{action[1]}" in self.named:
                return None
            outside = ["?"]
        else:
            every = reached.direct if reached.direct <= self.named else reached.every
            if not (outside := self.outside(every)):
                return None
        trace.async_conversation_trace_append(
            trace.ConversationTraceEventType.AGENT_DETAIL,
            {"chatterbox_not_requested": {"tool": tool.name, "entities": outside}},
        )
        names = (
            call_names(self.hass, outside[:MAX_NAMED])
            if reached is not None
            else "what this call would act on"
        )
        return error_result("NotRequested", NOT_REQUESTED.format(names=names))

    def _said_in(self, tool: llm.Tool, args: Mapping[str, Any]) -> bool:
        """Tell whether every target the words named is said in a call's own text.

        "Put tidy the office on my list" names the office inside the item
        the call adds: the words name no target then, and the list is no
        change outside them. Only a text the tool takes counts: a model that
        adds a "message" to an unlock gets no way past the scope.
        """
        schema = getattr(tool.parameters, "schema", None)
        takes = {str(key) for key in schema} if isinstance(schema, Mapping) else set()
        texts = [
            words_in(text[:MAX_SENTENCE_CHARS])
            for slot in _FREE_TEXT
            if slot in takes and isinstance(text := args.get(slot), str)
        ]
        if not texts:
            return False
        areas = ar.async_get(self.hass)
        targets: list[list[str]] = [
            [area.name, *area.aliases]
            for area_id in self.areas
            if (area := areas.async_get_area(area_id)) is not None
        ]
        targets += [
            known_names(self.hass, state)
            for entity_id in self.named
            if (state := self.hass.states.get(entity_id)) is not None
        ]
        targets += [[word] for word in self.said]
        return bool(targets) and all(
            any(_within(words_in(name), words) for name in names for words in texts)
            for names in targets
        )

    def _named_in_part(self, state: State) -> bool:
        """Tell whether a word names a device by a part of its name.

        People name a device by what it makes or holds: "zet koffie" asks
        for the "Koffiezetapparaat", "make a coffee" for the "Coffee
        machine". A word of its name, or the first part of a compound word
        of it (followed by COMPOUND_REST letters or more, not an ending), is
        the user's word for it: the model's call on it stands.
        """
        return any(
            word == part
            or (word.startswith(part) and len(word) - len(part) >= COMPOUND_REST)
            for name in known_names(self.hass, state)
            for word in words_in(name)
            for part in self.parts
        )

    def _of_kind(self, entity_id: str) -> bool:
        """Tell whether an entity is of a kind named: by domain, or by its name."""
        if entity_id.split(".", 1)[0] in self.kinds:
            return True
        state = self.hass.states.get(entity_id)
        return state is not None and any(
            same_word(word, part) for part in words_in(state.name) for word in self.said
        )


def turn_scope(
    hass: HomeAssistant,
    options: Mapping[str, Any],
    message: Message | None,
    mentions: Mentions,
    language: str,
) -> Scope | None:
    """Return the scope of the user's message of this turn; None if it has none.

    None without the Assist API too: no names are looked up for the turn
    (turn_mentions), and a device named but not found would be refused.
    The kinds the agent asks about are reached only by name.
    """
    sensitive = (
        options.get(CONF_SENSITIVE_KINDS, DEFAULT_KINDS)
        if options.get(CONF_CONFIRM, True)
        else ()
    )
    if message is None or not message.assist:
        return None
    return request_scope(hass, message.words, mentions, language, sensitive)


def request_scope(
    hass: HomeAssistant,
    words: Sequence[str],
    mentions: Mentions,
    language: str,
    sensitive: Collection[str] = (),
) -> Scope | None:
    """Return what a request names to act on; None when it names nothing.

    What only reports (a thermometer) is named to be read: on its own it is
    no target. A kind word in a name said names that device or area, not the
    kind: the "light" of "kitchen light" asks for no other lights. Kind words
    that are as often the verb of a request name no kind in the singular:
    "lock up for the night" names no locks, "light the candles" no lights.
    """
    in_names = {word for name in _names_said(hass, mentions) for word in words_in(name)}
    verbs = word_set(language, "kind_verbs")
    rest = [w for w in words if w not in in_names | verbs]
    said = kind_words(rest, language)
    kinds = frozenset(kinds_named(said, language))
    acts_on = [e for e in mentions.named if e.split(".", 1)[0] not in READ_ONLY_DOMAINS]
    if not (acts_on or mentions.areas or kinds):
        return None
    guarded = guarded_kinds(sensitive)
    small = frozenset().union(*(word_set(language, field) for field in _SMALL_WORDS))
    return Scope(
        hass,
        frozenset(mentions.named),
        frozenset(mentions.areas),
        kinds,
        tuple(said),
        guarded
        if not word_set(language, "everything").isdisjoint(words)
        else frozenset(),
        tuple(
            dict.fromkeys(
                w
                for w in rest
                if len(w) >= MIN_PART and w not in said and w not in small
            )
        ),
        guarded,
    )


def _names_said(hass: HomeAssistant, mentions: Mentions) -> list[str]:
    """Return the names of what the words name: entities, areas, their floors."""
    names = [
        name
        for entity_id in mentions.named
        if (state := hass.states.get(entity_id)) is not None
        for name in known_names(hass, state)
    ]
    areas, floors = ar.async_get(hass), fr.async_get(hass)
    # An area named by an earlier message may be gone since.
    for area in filter(None, map(areas.async_get_area, mentions.areas)):
        names += [area.name, *area.aliases]
        if area.floor_id and (floor := floors.async_get_floor(area.floor_id)):
            names += [floor.name, *floor.aliases]
    return names
