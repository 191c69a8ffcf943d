"""The checks that hold what an answer says to the home: the finders and fallbacks.

What the answer says of the devices it names is what they show now; a figure
it gives is one the model read; what the request asked to be told is said.
When the model does not mend its answer, the user hears the agent's own
states answer, in Home Assistant's words. The order and the gate are in
answer_checks.py and checks.py.
"""

import asyncio
from collections.abc import Collection, Sequence
import json
from typing import Any, Final

from homeassistant.components import conversation
from homeassistant.core import Event, EventStateChangedData, HomeAssistant, callback
from homeassistant.helpers.event import async_track_state_change_event

from ..context.in_view import describe_state
from ..context.mentions import find_mentions
from ..lang.numbers import as_number, figures_in
from ..lang.text import sentences
from ..prompts import FIGURES_NOTE
from ..tools.command import Command, values_left
from ..tools.figures import gives_figure, numbers_read, unread_figures
from ..tools.guard import ToolTally
from ..tools.statements import Contradiction, StateWords, contradictions
from .checks import Finding, Round
from .outcome import Answered, Decision, NotRead, StatesAnswer

# How the figures note starts: the figures it names were read nowhere.
_FIGURES_SAID: Final = FIGURES_NOTE.split("{", 1)[0]
# The most states the agent says in its own answer: a room of lamps is a
# sentence, not a list read out for a minute.
MAX_STATES_SAID: Final = 10
# How long a device a call acted on may take to report its new state before
# what the answer says of it counts as a contradiction: a media player
# buffers before it plays, a cover reports "opening" first.
SETTLE_SECONDS: Final = 2.0


async def async_settle(  # noqa: PLR0913  # the answer, and what it is held to
    hass: HomeAssistant,
    answer: str,
    words: StateWords,
    *,
    known: Collection[float],
    language: str,
    acted_on: Collection[str],
) -> list[Contradiction] | None:
    """Wait a moment for the devices the answer gets wrong that a call acted on.

    Only those: a device no call touched has nothing on its way. Waits until
    the first new state of one of them, or SETTLE_SECONDS. Returns what the
    answer contradicts when it did not wait, for the statements check to
    read again at no cost; None when it waited, or read nothing.
    """
    if not acted_on or not answer:
        return None
    found = contradictions(
        hass, answer, words, known=known, language=language, acted_on=acted_on
    )
    late = {item.entity_id for item in found}.intersection(acted_on)
    if not late:
        return found
    changed = asyncio.Event()

    @callback
    def _changed(_event: Event[EventStateChangedData]) -> None:
        changed.set()

    unsubscribe = async_track_state_change_event(hass, late, _changed)
    try:
        async with asyncio.timeout(SETTLE_SECONDS):
            await changed.wait()
    except TimeoutError:
        pass
    finally:
        unsubscribe()
    return None


def statement_known(
    read: Sequence[Any], command: Command, tally: ToolTally
) -> list[float]:
    """Return the numbers an answer may say of something else: those read.

    Not a value the request asked for that no call set: said of a device
    ("the fan is now at 50 percent"), the device must show it.
    """
    unset = {
        number
        for value in values_left(command, tally.values)
        if (number := as_number(value)) is not None
    }
    return [number for number in numbers_read(read) if number not in unset]


def contradicted(state: Round) -> Finding | None:
    """Find what the answer says of devices it names that they do not show now."""
    if state.words is None:
        return None
    hass = state.chat_log.hass
    assert state.command is not None  # noqa: S101  # the check applies so
    found = (
        state.contradictions
        if state.contradictions is not None
        else contradictions(
            hass,
            state.answer or "",
            state.words,
            known=statement_known(state.read, state.command, state.tally),
            language=state.command.language,
            acted_on=state.tally.acted_on or (),
        )
    )
    if not found:
        return None
    entities = tuple(item.entity_id for item in found)
    return Finding(
        {"entities": list(entities), "said": [item.said for item in found]},
        {"states": _described(hass, entities)},
        entities=entities,
    )


def _described(hass: HomeAssistant, entity_ids: Sequence[str]) -> str:
    """Describe the states of entities for a note: "Front door (lock): locked"."""
    return "; ".join(
        describe_state(hass, current)
        for entity_id in entity_ids
        if (current := hass.states.get(entity_id)) is not None
    )


def unread(state: Round) -> Finding | None:
    """Find the figures the answer gives of the home that nothing read gives.

    A figure is of the home when its sentence names a device of it, or
    when the question names the devices the answer is about ("how
    warm is the living room?" answered "22 degrees"). Any other figure is
    the model's own knowledge ("a sauna runs at 80 to 90 degrees"), and
    stands. One worked out from a figure read (the other scale, a
    percentage, a sum) counts as read (tools/figures.py).
    """
    # The figures' own note names them: no source of them.
    note = state.note if state.note and state.note.startswith(_FIGURES_SAID) else None
    hass = state.chat_log.hass
    command = state.command
    asked = (
        *(command.asked_about if command else ()),
        *(command.reads if command else ()),
    )
    named: list[str] = []
    of_home: list[str] = []
    for sentence in sentences(state.answer or ""):
        if not figures_in(sentence.text, state.language):
            continue
        mentions = find_mentions(hass, sentence.text, language=state.language)
        # A room's name alone is a word of many sentences of general
        # knowledge ("a child's bedroom wants 40 to 60 %"): a device's
        # name, or the question's, ties a figure to the home.
        if mentions.named or asked:
            named.extend(mentions.named)
            of_home.append(sentence.text)
    if not of_home:
        return None
    # What the model's own calls set is read too: the home shows it, and a
    # call written as text is in no message's arguments.
    made = [
        {"role": "tool", "content": json.dumps(call.tool_args, default=str)}
        for content in state.chat_log.content
        if isinstance(content, conversation.AssistantContent)
        for call in content.tool_calls or ()
    ]
    if not (
        figures := unread_figures(
            " ".join(of_home), [*state.read, *made], state.language, note
        )
    ):
        return None
    return Finding(
        {"figures": figures},
        {"figures": ", ".join(figures)},
        entities=tuple(dict.fromkeys((*named, *asked))),
    )


def reads_unsaid(state: Round) -> Finding | None:
    """Find what the request asked to be told that the answer gives no figure of.

    Only a state that is a figure: "turn off the light and tell me the
    temperature" answered "the light is off" leaves the temperature unsaid.
    """
    assert state.command is not None  # noqa: S101  # the check applies so
    hass = state.chat_log.hass
    reads = state.command.reads
    if not (
        unsaid := [
            entity_id
            for entity_id in reads
            if (current := hass.states.get(entity_id)) is not None
            and (value := as_number(current.state)) is not None
            and not gives_figure(state.answer or "", value)
        ]
    ):
        return None
    return Finding(
        {"entities": unsaid},
        {"states": _described(hass, unsaid)},
        entities=tuple(unsaid),
    )


def states_or_not_read(_state: Round, found: Finding) -> Decision:
    """Say the states the figures were about, or that they could not be read."""
    if not found.entities:
        return NotRead()
    return StatesAnswer(found.entities[:MAX_STATES_SAID])


def changed_and_read(state: Round, found: Finding) -> Decision:
    """Say the reads the request asked for and what the calls changed, as they are.

    Home Assistant read the request as asking to be told them, a call acted,
    and the answer gives no figure of them even after the note: the user
    hears the home, not an answer that leaves out what was asked. An answer
    that asks back, or one after no change (it says why), stands.
    """
    if not state.tally.acted or any(
        sentence.asks for sentence in sentences(state.answer or "")
    ):
        return Answered()
    acted = sorted(state.tally.acted_on or ())
    return StatesAnswer(
        tuple(dict.fromkeys((*found.entities, *acted)))[:MAX_STATES_SAID]
    )


def contradicted_states(state: Round, found: Finding) -> Decision:
    """Say what the answer got wrong as it is, then what the question asked about."""
    asked = state.command.asked_about if state.command else ()
    return StatesAnswer(
        tuple(dict.fromkeys((*found.entities, *asked)))[:MAX_STATES_SAID]
    )
