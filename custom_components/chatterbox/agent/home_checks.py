"""The checks that hold what an answer says to the home: the finders and fallbacks.

What the answer says of the devices it names is what they show now; a figure
it gives is one the model read; what the request asked to be told is said.
When the model does not mend its answer, the user hears the agent's own
states answer, in Home Assistant's words. The order and the gate are in
answer_checks.py and checks.py.
"""

from collections.abc import Sequence
from typing import Final

from homeassistant.core import HomeAssistant

from ..context.in_view import describe_state
from ..context.mentions import find_mentions
from ..lang.numbers import as_number
from ..prompts import FIGURES_NOTE
from ..tools.figures import gives_figure, numbers_read, unread_figures
from ..tools.statements import contradictions
from .checks import Finding, Round
from .outcome import Decision, NotRead, StatesAnswer

# How the figures note starts: the figures it names were read nowhere.
_FIGURES_SAID: Final = FIGURES_NOTE.split("{", 1)[0]
# The most states the agent says in its own answer: a room of lamps is a
# sentence, not a list read out for a minute.
MAX_STATES_SAID: Final = 10


def contradicted(state: Round) -> Finding | None:
    """Find what the answer says of devices it names that they do not show now."""
    if state.words is None:
        return None
    hass = state.chat_log.hass
    assert state.command is not None  # noqa: S101  # the check applies so
    found = contradictions(
        hass,
        state.answer or "",
        state.words,
        known=numbers_read(state.read),
        language=state.command.language,
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
    """Find the figures the answer gives that nothing the model read gives."""
    # The figures' own note names them: no source of them.
    note = state.note if state.note and state.note.startswith(_FIGURES_SAID) else None
    answer = state.answer or ""
    if not (figures := unread_figures(answer, state.read, state.language, note)):
        return None
    command = state.command
    named = find_mentions(state.chat_log.hass, answer, language=state.language).named
    entities = (
        *named,
        *(command.asked_about if command else ()),
        *(command.reads if command else ()),
    )
    return Finding(
        {"figures": figures},
        {"figures": ", ".join(figures)},
        entities=tuple(dict.fromkeys(entities)),
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
    # What the request named to change, as it is now: done or not.
    return Finding(
        {"entities": unsaid},
        {"states": _described(hass, unsaid)},
        entities=tuple(dict.fromkeys((*state.command.parts, *reads))),
    )


def states(_state: Round, found: Finding) -> Decision:
    """Say the states of what the finding is about, in Home Assistant's words."""
    return StatesAnswer(found.entities[:MAX_STATES_SAID])


def states_or_not_read(state: Round, found: Finding) -> Decision:
    """Say the states the figures were about, or that they could not be read."""
    return states(state, found) if found.entities else NotRead()


def contradicted_states(state: Round, found: Finding) -> Decision:
    """Say what the answer got wrong as it is, then what the question asked about."""
    asked = state.command.asked_about if state.command else ()
    return StatesAnswer(
        tuple(dict.fromkeys((*found.entities, *asked)))[:MAX_STATES_SAID]
    )
