"""What a round's response comes to: the turn's next step, as a value."""

from collections.abc import Mapping, Sequence
from typing import Any

from homeassistant.components import conversation

from ..const import LOGGER
from ..tools.command import Command
from ..tools.guard import ToolTally
from ..tools.statements import Contradiction, StateWords
from ..wire.stream import StreamStats
from .answer import answer_of, last_call_failed
from .answer_checks import CHECKS
from .checks import Round, run_checks
from .home_checks import MAX_STATES_SAID
from .outcome import (
    Answered,
    AskUser,
    Decision,
    Fail,
    NotFound,
    RunAgain,
    StatesAnswer,
)


def decide(  # noqa: PLR0911, PLR0913  # one return per outcome; the round's facts
    stats: StreamStats,
    tally: ToolTally,
    chat_log: conversation.ChatLog,
    *,
    tools: Mapping[str, frozenset[str]],
    left: int,
    command: Command | None = None,
    told: frozenset[str] = frozenset(),
    read: Sequence[Mapping[str, Any]] = (),
    words: StateWords | None = None,
    note: str | None = None,
    guide: bool = True,
    contradictions: Sequence[Contradiction] | None = None,
) -> Decision:
    """Decide what a round's response comes to.

    Held calls ask the user; a filtered answer fails. Then the checks
    (answer_checks.py) hold the round to the request and to the home, in
    order, each with its note or its fallback. Then results wait for the
    model; an answer is the answer; a round that ended in neither did not
    get done. On the last round (no rounds left) the decision is never
    RunAgain, so a turn ends after at most its number of rounds. Tools holds
    each offered tool's parameter names, by the tool's name; told, the
    checks that gave their note in this turn; read, the messages of the
    round's request, which ended with the note, if any; words, Home
    Assistant's names of states; guide, whether the checks that only steer
    a small model apply; contradictions, what the answer says that the home
    does not show, when read already.
    """
    if tally.held:
        return AskUser()
    if stats.finish_reason == "content_filter":
        LOGGER.warning("The server's content filter stopped the answer")
        return Fail("content_filtered")
    # A response with nothing in it did not get done, whatever waits.
    spoke = bool(stats.content_chars or stats.tool_calls)
    # Words beside calls that only repeated calls that ran are the answer.
    said = answer_of(chat_log) if spoke else ""
    ends_on_results = chat_log.unresponded_tool_results
    results = bool(left and spoke and ends_on_results and not said)
    state = Round(
        chat_log,
        stats,
        tally,
        command,
        tools,
        left,
        told,
        read,
        answer=None if results else said,
        words=words,
        note=note,
        guide=guide,
        contradictions=contradictions,
    )
    if (checked := run_checks(state, CHECKS)) is not None:
        return checked
    if results:
        # The model reads its results; with no tools when it is going round
        # in circles (a repeat, failures, a change refused for good).
        return RunAgain(final=tally.answer_now)
    if stats.content_chars and not ends_on_results:
        return Answered()
    if said:
        return Answered(said)  # the chat log ends on the refused repeats
    if not stats.tool_calls:
        LOGGER.warning(
            "The model answered nothing to say (finish reason %s)", stats.finish_reason
        )
        return _not_done("empty_response", tally, command)
    if not tools:
        LOGGER.warning("The model called tools, but this agent has none")
        return Fail("empty_response")
    LOGGER.warning("The model still called tools on the turn's last round")
    return _not_done(_unfinished(chat_log, tally), tally, command)


def _not_done(
    key: str, tally: ToolTally, command: Command | None
) -> NotFound | StatesAnswer | Fail:
    """End a turn that did not get done, as a person would where one can.

    A request for a device the home does not have is no fault of the server
    or of the agent: the user hears what was not found, rather than an error.
    A question about devices the model did not answer is answered with their
    states, which the agent reads itself; so is a request the model acted on
    without a word after: the states of what its calls changed, as they are
    now, say what was done and nothing more, then what only reports that
    the request named (a thermometer: "and how warm is it?").
    """
    if tally.missing and not tally.acted:
        LOGGER.info("Nothing matched %s; saying so", ", ".join(tally.missing))
        return NotFound(tally.missing)
    if command is not None and command.asked_about:
        LOGGER.info("The model did not answer the question; saying the states")
        return StatesAnswer(command.asked_about)
    if command is not None and tally.acted and tally.acted_on:
        LOGGER.info("The model acted, then gave no answer; saying the states")
        named = [part for part in command.parts if part in tally.acted_on]
        rest = sorted(tally.acted_on.difference(named))
        return StatesAnswer((*named, *rest, *command.reads)[:MAX_STATES_SAID])
    return Fail(key)


def _unfinished(chat_log: conversation.ChatLog, tally: ToolTally) -> str:
    """Choose what the user hears when the model only ever called tools."""
    if last_call_failed(chat_log):
        return "could_not"  # asking again would fail again
    if tally.answer_now:
        # It had what it asked for, and called for it again instead of answering.
        return "empty_response"
    return "out_of_steps"
