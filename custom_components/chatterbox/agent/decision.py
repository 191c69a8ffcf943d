"""What a round's response comes to: the turn's next step, as a value."""

from collections.abc import Mapping, Sequence
from typing import Any, Final

from homeassistant.components import conversation

from ..const import LOGGER
from ..prompts import FAILED_AGAIN_NOTE, MADE_UP_NOTE
from ..tools.command import Command
from ..tools.guard import REPEATED_CALL, ToolTally
from ..wire.stream import StreamStats
from .answer_checks import checked, described
from .outcome import (
    Answered,
    AskUser,
    Decision,
    Fail,
    NotFound,
    RunAgain,
    StatesAnswer,
)

# The most states the agent says in its own answer: a room of lamps is a
# sentence, not a list read out for a minute.
_MAX_STATES_SAID: Final = 10
# The checks that give the model a note, once each in a turn.
_FAILED_AGAIN: Final = "failed_again"
_MADE_UP: Final = "made_up"


def decide(  # noqa: PLR0911, PLR0913  # one return per outcome; keyword-only inputs
    stats: StreamStats,
    tally: ToolTally,
    chat_log: conversation.ChatLog,
    *,
    tools: Mapping[str, frozenset[str]],
    left: int,
    command: Command | None = None,
    told: frozenset[str] = frozenset(),
    read: Sequence[Mapping[str, Any]] = (),
) -> Decision:
    """Decide what a round's response comes to.

    On the last round (no rounds left) the decision is never RunAgain, so a
    turn ends after at most its number of rounds. With a command, the turn
    asked for a change: an answer that claims one must have made it, and
    every part named must be acted on, and calls it describes are made.
    Tools holds each offered tool's parameter names, by the tool's name.
    Told holds the checks that acted in this turn already; read, the
    messages of the round's request.
    """
    if tally.held:
        return AskUser()
    if (unsound := _unsound(stats, left, told)) is not None:
        return unsound
    if stats.content_chars or not stats.tool_calls:
        if not stats.content_chars:
            LOGGER.warning(
                "The model answered nothing to say (finish reason %s)",
                stats.finish_reason,
            )
            return _not_done("empty_response", tally, command)
    elif not tools:
        LOGGER.warning("The model called tools, but this agent has none")
        return Fail("empty_response")
    elif not left:
        LOGGER.warning("The model still called tools on the turn's last round")
        return _not_done(_unfinished(chat_log, tally), tally, command)
    if left and chat_log.unresponded_tool_results:
        return _next_round(chat_log, command, tally, left, told)
    if command is None:
        return Answered()
    if (calls := described(chat_log, tools, left, told)) is not None:
        return calls
    return checked(chat_log, command, tally, left, told, read=read)


def _unsound(stats: StreamStats, left: int, told: frozenset[str]) -> Decision | None:
    """Return what an answer that cannot stand comes to; None for any other.

    The server's filter stopped it; or the model wrote a tool's result itself
    in place of the call that would give one, which it is told once.
    """
    if stats.finish_reason == "content_filter":
        LOGGER.warning("The server's content filter stopped the answer")
        return Fail("content_filtered")
    if stats.made_up and not stats.tool_calls and left > 1 and _MADE_UP not in told:
        LOGGER.info("The model made up a tool result; asking it to call")
        return RunAgain(MADE_UP_NOTE, _MADE_UP)
    return None


def _next_round(
    chat_log: conversation.ChatLog,
    command: Command | None,
    tally: ToolTally,
    left: int,
    told: frozenset[str],
) -> RunAgain:
    """Give the model its results; with no tools if it is going round in circles.

    It repeated a call, or its calls failed too often, or it tried to change
    what it was only asked about: then it is asked for its answer. But when
    it acted on a request and left a part of it out, or a value asked for
    unset, it is told so once, with its tools: the repeat is often of the
    call it made for the first part, or of a call that set no value. And
    when it repeated a call that had failed, it is told that, once, with its
    tools: the error it did not follow may say what to call instead. A
    repeat of a call that worked asks for the answer: its result is above.
    """
    if not tally.answer_now:
        return RunAgain()
    if command is not None and tally.acted:
        held = checked(chat_log, command, tally, left, told)
        if isinstance(held, RunAgain):
            return held
    if left > 1 and _FAILED_AGAIN not in told and (name := _failed_again(chat_log)):
        LOGGER.info("The model made a failed %s call again; telling it so", name)
        return RunAgain(FAILED_AGAIN_NOTE.format(name=name), _FAILED_AGAIN)
    return RunAgain(final=True)


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
        return StatesAnswer((*named, *rest, *command.reads)[:_MAX_STATES_SAID])
    return Fail(key)


def _unfinished(chat_log: conversation.ChatLog, tally: ToolTally) -> str:
    """Choose what the user hears when the model only ever called tools."""
    if _last_call_failed(chat_log):
        return "could_not"  # asking again would fail again
    if tally.answer_now:
        # It had what it asked for, and called for it again instead of answering.
        return "empty_response"
    return "out_of_steps"


def _failed_again(chat_log: conversation.ChatLog) -> str | None:
    """Return the tool of the round's repeat, when the call it repeats had failed.

    The round ends on a repeat the guard refused, and the last call that
    ran failed.
    """
    last = chat_log.content[-1]
    if (
        isinstance(last, conversation.ToolResultContent)
        and last.result.data.get("error") == REPEATED_CALL
        and _last_call_failed(chat_log)
    ):
        return last.tool_name
    return None


def _last_call_failed(chat_log: conversation.ChatLog) -> bool:
    """Tell whether the turn's last tool call that ran failed.

    A refused repeat says nothing of the call: the call it repeats ran.
    """
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.ToolResultContent):
            if content.result.data.get("error") == REPEATED_CALL:
                continue
            return content.result.error
        if isinstance(content, conversation.UserContent):
            break
    return False
