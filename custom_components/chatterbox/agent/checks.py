"""The check protocol: an ordered list of checks, and the one gate they pass.

Each check is a value that says what it checks (its key and its finder),
when it applies, its note to the model and its fallback for the user. The
gate runs them in order on a round: the first that finds something decides.
It gives the model the check's note, once in a turn and only while rounds are
left for it; otherwise the check's fallback decides what the user gets. A
fallback that lets the answer stand passes the round on to the next check.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from homeassistant.components import conversation
from homeassistant.helpers import llm

from ..const import LOGGER
from ..tools.command import Command
from ..tools.guard import ToolTally
from ..tools.statements import Contradiction, StateWords
from ..wire.stream import StreamStats
from .outcome import Answered, Decision, RunAgain


@dataclass(frozen=True, slots=True)
class Round:
    """A round as the checks read it: the request, the calls and the answer."""

    chat_log: conversation.ChatLog
    stats: StreamStats
    tally: ToolTally
    command: Command | None
    """What the turn's answer is held to; None for an AI Task's data."""
    tools: Mapping[str, frozenset[str]]
    """Each offered tool's parameter names, by the tool's name."""
    left: int
    """The rounds left after this one."""
    told: frozenset[str]
    """The checks that gave the model their note in this turn already."""
    read: Sequence[Mapping[str, Any]]
    """The messages of the round's request: what the model read."""
    answer: str | None
    """The round's answer; None when it ended on results the model has yet to
    read."""
    words: StateWords | None = None
    """Home Assistant's names of states, in the conversation's language."""
    note: str | None = None
    """The note the round's request ended with: the agent's words, no source."""
    guide: bool = True
    """The turn guides a small model: the checks that only steer one apply."""
    contradictions: Sequence[Contradiction] | None = None
    """What the answer says that the home does not show, when read already
    (while the devices a call acted on were given a moment to report)."""

    @property
    def language(self) -> str:
        """Return the conversation's language."""
        if self.command is not None:
            return self.command.language
        api = self.chat_log.llm_api
        return (api.llm_context.language if api else None) or "en"


@dataclass(frozen=True, slots=True)
class Finding:
    """What a check found: for the note, the trace and the fallback."""

    trace: Mapping[str, Any]
    """What the debug view shows."""
    note: Mapping[str, str] = field(default_factory=dict)
    """The placeholders of the check's note."""
    calls: tuple[llm.ToolInput, ...] = ()
    """Calls to make before the next request."""
    entities: tuple[str, ...] = ()
    """The entities the finding is about, for a fallback that says their states."""


@dataclass(frozen=True, slots=True)
class Check:
    """One check of a round, with everything the gate needs to act on it."""

    key: str
    """Its name: in the turn's record of notes given, and in the log."""
    trace: str
    """The key of its entry in the debug view."""
    applies: Callable[[Round], bool]
    """When it applies."""
    find: Callable[[Round], Finding | None]
    """What it checks: what is wrong with the round, or None."""
    note: str | None
    """Its note to the model, with the finding's placeholders; None: none."""
    fallback: Callable[[Round, Finding], Decision]
    """What the user gets when no note may be given: Answered lets it stand."""
    rounds: int = 2
    """The rounds the note needs: one with tools to act on it, one to answer;
    one, when only an answer is asked for or the calls are made for it."""
    final: bool = False
    """The round after the note is the turn's last, with no tools."""
    aid: bool = False
    """It only steers a small model, when the agent guides one: a capable
    model that left a part out, or answered a question with one, has its
    reasons."""


def stands(_state: Round, _found: Finding) -> Decision:
    """Let the answer stand: the fallback of a check that only asks."""
    return Answered()


def run_checks(state: Round, checks: Sequence[Check]) -> Decision | None:
    """Return what the aids, then the verifier, decide of a round, or None.

    The aids (only when the turn guides a small model) one at a time: the
    first that finds something gives its note, once in a turn, while the
    rounds it needs are left. Then the verifier: every check that is no aid
    reads the answer, and all they find goes to the model in one note, once
    in a turn; after it, the first finding still there decides with its
    fallback (the agent's own sentence).
    """
    if state.guide:
        for check in checks:
            if not check.aid or (found := _found(state, check)) is None:
                continue
            again = (
                (check.note is not None or bool(found.calls))
                and check.key not in state.told
                and state.left >= check.rounds
            )
            decision = (
                RunAgain(
                    check.note.format(**found.note) if check.note else None,
                    check.key,
                    calls=found.calls,
                    final=check.final,
                )
                if again
                else check.fallback(state, found)
            )
            if not isinstance(decision, Answered):
                return _traced(state, check, found, decision, again=again)
    return _verify(state, [check for check in checks if not check.aid])


def _verify(state: Round, checks: Sequence[Check]) -> Decision | None:
    """Hold the answer to the home: one note with every finding, then the home."""
    findings = [
        (check, found)
        for check in checks
        if (found := _found(state, check)) is not None
    ]
    if not findings:
        return None
    if not any(check.key in state.told for check in checks) and state.left >= max(
        check.rounds for check, _found in findings
    ):
        note = "\n\n".join(
            check.note.format(**found.note) for check, found in findings if check.note
        )
        decision = RunAgain(
            note,
            findings[0][0].key,
            final=all(check.final for check, _found in findings),
        )
        for check, found in findings:
            _traced(state, check, found, decision, again=True)
        return decision
    for check, found in findings:
        fallback = check.fallback(state, found)
        if not isinstance(fallback, Answered):
            return _traced(state, check, found, fallback, again=False)
    return None


def _found(state: Round, check: Check) -> Finding | None:
    """Return what a check finds in the round, when it applies."""
    return check.find(state) if check.applies(state) else None


def _traced(
    state: Round, check: Check, found: Finding, decision: Decision, *, again: bool
) -> Decision:
    """Log and trace what a check found and what it decided; return the decision."""
    LOGGER.info(
        "Check %s found %s: %s", check.key, dict(found.trace), type(decision).__name__
    )
    state.chat_log.async_trace({check.trace: {**found.trace, "again": again}})
    return decision
