"""The checks that hold a round to the request and to the home, in order.

Each is a Check (checks.py): what it checks, when it applies, its note to
the model and its fallback for the user; the one gate runs them. A request
for a change: a claim needs a call that made it, every part is acted on and
every value set, and calls the answer describes are made. A question: an
answer that is only a question back is no answer. Any answer: what it says
of the devices it names is what they show now, a figure it gives is one it
read, and what the request asked to be told is said (home_checks.py).
"""

from typing import Final

from homeassistant.helpers import llm

from ..context.mentions import find_mentions
from ..lang.claims import claims_done
from ..lang.text import sentences
from ..prompts import (
    ASKED_BACK_NOTE,
    CLAIM_NAMED,
    CLAIM_NOTE,
    CLAIM_UNNAMED,
    FAILED_AGAIN_NOTE,
    FIGURES_NOTE,
    MADE_UP_NOTE,
    PARTS_NOTE,
    READS_NOTE,
    SETTER,
    STATEMENTS_NOTE,
    VALUES_NOTE,
)
from ..tools.command import call_names, left_over, values_left
from ..tools.guard import refused_repeat
from ..tools.names import tool_resolver
from ..wire.arguments import parse_tool_arguments
from ..wire.text_calls.described import described_calls
from .answer import acted_on_before, last_call_failed, tools_ran
from .checks import Check, Finding, Round, stands
from .home_checks import (
    changed_and_read,
    contradicted,
    contradicted_states,
    reads_unsaid,
    states_or_not_read,
    unread,
)
from .outcome import NothingDone

# The longest answer read as a question asked back: one question is short.
_MAX_ASKED_BACK: Final = 500
# The parameters that say which devices a call is for, not what it sets.
_TARGETING: Final = frozenset(
    {"name", "area", "floor", "domain", "device_class", "preferred_area_id"}
    | {"preferred_floor_id"}
)
# The most tools a note names as the ones that set a value.
_MAX_SETTERS: Final = 3


def _answered(state: Round) -> bool:
    """Tell whether the round ended in an answer to a conversation's request."""
    return state.command is not None and bool(state.answer)


def _settled(state: Round) -> bool:
    """Tell whether a request was acted on and the model is done calling."""
    return (
        state.command is not None
        and state.tally.acted
        and (bool(state.answer) or (state.answer is None and state.tally.answer_now))
    )


def _made_up(state: Round) -> Finding | None:
    """Find a tool's result the model wrote itself, in place of the call."""
    return Finding({"made_up": True}) if state.stats.made_up else None


def _parts_left(state: Round) -> Finding | None:
    """Find the parts of the request that no call acted on."""
    assert state.command is not None  # noqa: S101  # _settled says so
    if not (rest := left_over(state.command, state.tally.acted_on)):
        return None
    them = "it" if len(rest) == 1 else "them"
    names = call_names(state.chat_log.hass, rest)
    return Finding({"entities": rest}, {"names": names, "them": them})


def _values_left(state: Round) -> Finding | None:
    """Find the numbers asked for that no call which acted ran with."""
    assert state.command is not None  # noqa: S101  # _settled says so
    if not (rest := values_left(state.command, state.tally.values)):
        return None
    it = "it" if len(rest) == 1 else "them"
    setter = " or ".join(_setters(state)) or SETTER.format(it=it)
    return Finding(
        {"values": rest}, {"values": ", ".join(rest), "it": it, "setter": setter}
    )


def _setters(state: Round) -> list[str]:
    """Return the offered tools that set a value on the request's devices.

    Home Assistant names an integration's intent tools after its domain
    (fan__HassFanSetSpeed); of those, the ones that take more than targets.
    A small model that only switched a device on is more likely to make the
    call it missed when the note names the tool.
    """
    assert state.command is not None  # noqa: S101  # _settled says so
    targets = (*state.command.parts, *(state.tally.acted_on or ()))
    domains = {entity_id.split(".", 1)[0] for entity_id in targets}
    return [
        name
        for name, parameters in state.tools.items()
        if name.split("__", 1)[0] in domains and parameters - _TARGETING
    ][:_MAX_SETTERS]


def _failed_again(state: Round) -> Finding | None:
    """Find the round's repeat of a call that had failed: its error went unread."""
    last = state.chat_log.content[-1]
    if refused_repeat(last) and last_call_failed(state.chat_log):
        return Finding({"tool": last.tool_name}, {"name": last.tool_name})
    return None


def _asks_for_change(state: Round) -> bool:
    """Tell whether the round answered a request for a change."""
    return _answered(state) and state.command is not None and state.command.changes


def _described(state: Round) -> Finding | None:
    """Find calls the answer describes instead of making them.

    Small models often answer with how to call a tool ("call HassTurnOn with
    the name "Lamp""). Only before any tool ran in the turn: after, the answer
    may quote a result, and what a tool result says is never to be done. The
    calls run through the turn's guard like any other.
    """
    if tools_ran(state.chat_log):
        return None
    tools = state.tools
    if not (calls := described_calls(state.answer or "", tool_resolver(tools), tools)):
        return None
    return Finding(
        {"calls": calls},
        calls=tuple(
            llm.ToolInput(name, parse_tool_arguments(arguments))
            for name, arguments in calls
        ),
    )


def _asked_back(state: Round) -> Finding | None:
    """Find a question answered with nothing but a question back."""
    if not asks_back(state.answer or ""):
        return None
    return Finding({"answer": state.answer})


def _asks_back_first(state: Round) -> bool:
    """Tell a question answered before any call acted or any tool ran.

    A question back after a result ("which Springfield?") stands.
    """
    command = state.command
    return (
        _answered(state)
        and command is not None
        and command.question
        and not state.tally.acted
        and not tools_ran(state.chat_log)
    )


def _claim(state: Round) -> Finding | None:
    """Find an answer that claims a change that no call made."""
    assert state.command is not None  # noqa: S101  # _answered says so
    answer = state.answer or ""
    if not claims_done(answer, state.command.language):
        return None
    # A recap of earlier turns ("so far I dimmed the lamp") claims what
    # earlier calls did: it stands when each device it names was acted on.
    hass = state.chat_log.hass
    named = find_mentions(hass, answer, language=state.command.language).named
    if named and set(named) <= acted_on_before(state.chat_log):
        return None
    # Naming what the request names helps a small model make the call it
    # skipped, as the parts note does.
    parts = state.command.parts
    then = (
        CLAIM_NAMED.format(
            names=call_names(state.chat_log.hass, parts),
            them="it" if len(parts) == 1 else "them",
        )
        if parts
        else CLAIM_UNNAMED
    )
    return Finding({"answer": state.answer}, {"then": then})


def _claims_apply(state: Round) -> bool:
    """Tell a request for a change answered without a call that changed anything.

    A question whose change was refused too: the model may still say it did.
    """
    command = state.command
    return (
        _answered(state)
        and command is not None
        and (
            command.check_claims or (command.checks_statements and state.tally.refused)
        )
        and not state.tally.acted
    )


def _tells_of_the_home(state: Round) -> bool:
    """Tell whether the answer is to a question or a request for a change.

    Not to a request for an example or an explanation: "to switch on the fan,
    say: switch on the fan" says no state.
    """
    command = state.command
    return (
        _answered(state)
        and command is not None
        and command.checks_statements
        and (command.question or command.changes)
    )


def _asks_to_be_told(state: Round) -> bool:
    """Tell a request for a change that also asks to be told what reports."""
    command = state.command
    return _asks_for_change(state) and command is not None and bool(command.reads)


# In order: the first that finds something decides the round. The aids only
# steer a small model, with a note and a round more; only `reads` replaces
# an answer, with what Home Assistant read the request as asking to be told,
# when the answer still leaves it out. The last three hold every model's
# answer to the home: a claim to the calls, a state and a figure to what Home
# Assistant shows.
CHECKS: Final = (
    Check(
        "made_up",
        "chatterbox_made_up",
        lambda state: not state.stats.tool_calls,
        _made_up,
        MADE_UP_NOTE,
        stands,
        aid=True,
    ),
    Check(
        "parts",
        "chatterbox_parts_left",
        _settled,
        _parts_left,
        PARTS_NOTE,
        stands,
        aid=True,
    ),
    Check(
        "values",
        "chatterbox_values_left",
        _settled,
        _values_left,
        VALUES_NOTE,
        stands,
        aid=True,
    ),
    Check(
        "failed_again",
        "chatterbox_failed_again",
        lambda state: state.answer is None and state.tally.answer_now,
        _failed_again,
        FAILED_AGAIN_NOTE,
        stands,
        aid=True,
    ),
    Check(
        "described",
        "chatterbox_described_calls",
        _asks_for_change,
        _described,
        None,
        stands,
        rounds=1,
        aid=True,
    ),
    Check(
        "asked_back",
        "chatterbox_asked_back",
        _asks_back_first,
        _asked_back,
        ASKED_BACK_NOTE,
        stands,
        aid=True,
    ),
    Check(
        "reads",
        "chatterbox_reads_unsaid",
        _asks_to_be_told,
        reads_unsaid,
        READS_NOTE,
        changed_and_read,
        rounds=1,
        final=True,
        aid=True,
    ),
    Check(
        "claim",
        "chatterbox_claim_without_action",
        _claims_apply,
        _claim,
        CLAIM_NOTE,
        lambda _state, _found: NothingDone(),
    ),
    Check(
        "statements",
        "chatterbox_statements_contradicted",
        _tells_of_the_home,
        contradicted,
        STATEMENTS_NOTE,
        contradicted_states,
        rounds=1,
        # Told the states, the model answers: with tools it would make its
        # words true ("now locked") rather than say what is.
        final=True,
    ),
    Check(
        "figures",
        "chatterbox_figures_unread",
        _answered,
        unread,
        FIGURES_NOTE,
        states_or_not_read,
    ),
)


def asks_back(answer: str) -> bool:
    """Tell whether an answer is one question and nothing else."""
    said = sentences(answer[:_MAX_ASKED_BACK], clauses=True)
    return len(said) == 1 and said[0].asks
