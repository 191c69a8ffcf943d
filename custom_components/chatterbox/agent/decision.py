"""The outcome of a round, as a value: what the turn does next."""

from collections.abc import Mapping
from dataclasses import dataclass
import re
from typing import Final

from homeassistant.components import conversation
from homeassistant.helpers import llm

from ..const import LOGGER
from ..prompts import (
    CLAIM_NOTE,
    FAILED_AGAIN_NOTE,
    MADE_UP_NOTE,
    PARTS_NOTE,
    VALUES_NOTE,
)
from ..tools.arguments import parse_tool_arguments
from ..tools.claims import claims_done
from ..tools.command import Command, left_over, names_of, said_values, values_left
from ..tools.guard import REPEATED_CALL, ToolTally
from ..tools.names import tool_resolver
from ..wire.stream import StreamStats
from ..wire.text_calls.described import described_calls


@dataclass(frozen=True, slots=True)
class Answered:
    """The answer is in the chat log."""


@dataclass(frozen=True, slots=True)
class RunAgain:
    """Tool results wait for the model, or a correction does: another round."""

    note: str | None = None
    """What the model is told in the next request only."""
    why: str | None = None
    """The check that gave the note or the calls: each acts once in a turn."""
    calls: tuple[llm.ToolInput, ...] = ()
    """Calls the answer described instead of making: run before the request."""
    final: bool = False
    """The model is to answer now: the next round is the turn's last."""


@dataclass(frozen=True, slots=True)
class AskUser:
    """Sensitive calls wait for the user's yes: the agent asks for it."""


@dataclass(frozen=True, slots=True)
class NotFound:
    """The calls found no such device: the agent says what it could not find."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StatesAnswer:
    """A question got no answer from the model: the states it asked about are."""

    entity_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NothingDone:
    """The answer claims a change that no call made, even after a correction."""


@dataclass(frozen=True, slots=True)
class NotSet:
    """The answer says a number was set that no call set, even after a note."""

    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Fail:
    """The turn ends without an answer; the user hears the error of this key."""

    key: str


# The most states the agent says in its own answer: a room of lamps is a
# sentence, not a list read out for a minute.
_MAX_STATES_SAID: Final = 10
# Where a sentence ends inside an answer: a stop, a mark, a colon.
_SENTENCE_END: Final = re.compile("[.!?;:\u3002\uff01\uff1f]\\s|\n")
# The checks that give the model a note, once each in a turn.
_CLAIM: Final = "claim"
_DESCRIBED: Final = "described"
_FAILED_AGAIN: Final = "failed_again"
_MADE_UP: Final = "made_up"
_PARTS: Final = "parts"
_VALUES: Final = "values"

type Decision = (
    Answered
    | RunAgain
    | AskUser
    | NotFound
    | StatesAnswer
    | NothingDone
    | NotSet
    | Fail
)


def decide(  # noqa: PLR0911, PLR0913  # one return per outcome; keyword-only inputs
    stats: StreamStats,
    tally: ToolTally,
    chat_log: conversation.ChatLog,
    *,
    tools: Mapping[str, frozenset[str]],
    left: int,
    command: Command | None = None,
    told: frozenset[str] = frozenset(),
) -> Decision:
    """Decide what a round's response comes to.

    On the last round (no rounds left) the decision is never RunAgain, so a
    turn ends after at most its number of rounds. With a command, the turn
    asked for a change: an answer that claims one must have made it, and
    every part named must be acted on, and calls it describes are made.
    Tools holds each offered tool's parameter names, by the tool's name.
    Told holds the checks that acted in this turn already.
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
    if (described := _described(chat_log, tools, left, told)) is not None:
        return described
    return _checked(chat_log, command, tally, left, told)


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
    tools: the error it did not follow may say what to call instead.
    """
    if not tally.answer_now:
        return RunAgain()
    if command is not None and tally.acted:
        checked = _checked(chat_log, command, tally, left, told)
        if isinstance(checked, RunAgain):
            return checked
    if left > 1 and _FAILED_AGAIN not in told and (name := _failed_again(chat_log)):
        LOGGER.info("The model made a failed call again; telling it so")
        return RunAgain(FAILED_AGAIN_NOTE.format(name=name), _FAILED_AGAIN)
    return RunAgain(final=True)


def _checked(
    chat_log: conversation.ChatLog,
    command: Command,
    tally: ToolTally,
    left: int,
    told: frozenset[str],
) -> Decision:
    """Hold a command's answer to the request: no claim alone, every part done.

    A question about devices answered with nothing but a question back (the
    user's own words, or an example of the prompt's) is answered with the
    states of what it asked about.
    """
    if not tally.acted:
        if command.asked_about and _asks_back(_answer(chat_log)):
            LOGGER.info("The model answered a question with one; saying the states")
            return StatesAnswer(command.asked_about)
        return _checked_claim(chat_log, command, left, told)
    parts = _checked_parts(chat_log, command, tally, left, told)
    if not isinstance(parts, Answered):
        return parts
    return _checked_values(chat_log, command, tally, left, told)


def _checked_claim(
    chat_log: conversation.ChatLog, command: Command, left: int, told: frozenset[str]
) -> Decision:
    """Answer, unless the answer claims a change that no call made.

    The first claim gets one more round to make the call or to say it could
    not; a second one, or one on the last round, is not passed on.
    """
    answer = _answer(chat_log)
    if not command.check_claims or not claims_done(answer, command.language):
        return Answered()
    again = left > 1 and _CLAIM not in told
    LOGGER.info(
        "The answer claims a change no call made; %s",
        "asking again" if again else "saying nothing was done",
    )
    chat_log.async_trace(
        {"chatterbox_claim_without_action": {"answer": answer, "again": again}}
    )
    return RunAgain(CLAIM_NOTE, _CLAIM) if again else NothingDone()


def _described(
    chat_log: conversation.ChatLog,
    tools: Mapping[str, frozenset[str]],
    left: int,
    told: frozenset[str],
) -> RunAgain | None:
    """Make the calls the answer describes instead of making them, once a turn.

    Small models often answer a request with how to call a tool ("call
    HassTurnOn with the name "Lamp""): nothing is done, and the user hears a
    tool's name. The calls run through the turn's guard like any other, so a
    sensitive one still waits for the user's yes, and the model reads their
    results in the next round. None when the answer describes none.

    Only an answer given before any tool ran in the turn: after, the answer
    may be quoting a result (a web page that reads "call HassTurnOn with …"),
    and what a tool result says is never to be done.
    """
    if not left or _DESCRIBED in told or _tools_ran(chat_log):
        return None
    if not (calls := described_calls(_answer(chat_log), tool_resolver(tools), tools)):
        return None
    LOGGER.info("The answer describes %s instead of calling; calling", calls)
    chat_log.async_trace({"chatterbox_described_calls": {"calls": calls}})
    return RunAgain(
        why=_DESCRIBED,
        calls=tuple(
            llm.ToolInput(name, parse_tool_arguments(arguments))
            for name, arguments in calls
        ),
    )


def _checked_parts(
    chat_log: conversation.ChatLog,
    command: Command,
    tally: ToolTally,
    left: int,
    told: frozenset[str],
) -> Decision:
    """Answer, unless parts of the request were left out: then once more."""
    if left <= 1 or _PARTS in told or not (rest := left_over(command, tally.acted_on)):
        return Answered()
    names = names_of(chat_log.hass, rest)
    LOGGER.info("The calls left out %s; asking again", names)
    chat_log.async_trace({"chatterbox_parts_left": {"entities": rest}})
    them = "it" if len(rest) == 1 else "them"
    return RunAgain(PARTS_NOTE.format(names=names, them=them), _PARTS)


def _checked_values(
    chat_log: conversation.ChatLog,
    command: Command,
    tally: ToolTally,
    left: int,
    told: frozenset[str],
) -> Answered | RunAgain | NotSet:
    """Answer, unless a number asked for was set by no call: then once more.

    "Dim the lamp to 20 percent" answered by switching the lamp on. When no
    round is left for it, an answer that says the number anyway ("it is at
    20 percent") is not left standing: the agent says it was not set.
    """
    if not (rest := values_left(command, tally.values)):
        return Answered()
    if left <= 1 or _VALUES in told:
        if claimed := said_values(_answer(chat_log), rest):
            LOGGER.info("The answer says %s, which no call set", claimed)
            chat_log.async_trace({"chatterbox_values_not_set": {"values": claimed}})
            return NotSet(tuple(claimed))
        return Answered()
    LOGGER.info("No call set %s; asking again", rest)
    chat_log.async_trace({"chatterbox_values_left": {"values": rest}})
    it = "it" if len(rest) == 1 else "them"
    return RunAgain(VALUES_NOTE.format(values=", ".join(rest), it=it), _VALUES)


def _answer(chat_log: conversation.ChatLog) -> str:
    """Return the words of the round's answer; none when it ended otherwise."""
    answer = chat_log.content[-1]
    if isinstance(answer, conversation.AssistantContent):
        return answer.content or ""
    return ""


def _asks_back(answer: str) -> bool:
    """Tell whether an answer is one question and nothing else."""
    text = answer.strip()
    return text.endswith("?") and _SENTENCE_END.search(text[:-1]) is None


def _not_done(
    key: str, tally: ToolTally, command: Command | None
) -> NotFound | StatesAnswer | Fail:
    """End a turn that did not get done, as a person would where one can.

    A request for a device the home does not have is no fault of the server
    or of the agent: the user hears what was not found, rather than an error.
    A question about devices the model did not answer is answered with their
    states, which the agent reads itself; so is a request the model acted on
    without a word after: the states of what its calls changed, as they are
    now, say what was done and nothing more.
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
        return StatesAnswer((*named, *rest)[:_MAX_STATES_SAID])
    return Fail(key)


def _unfinished(chat_log: conversation.ChatLog, tally: ToolTally) -> str:
    """Choose what the user hears when the model only ever called tools."""
    if _last_call_failed(chat_log):
        return "could_not"  # asking again would fail again
    if tally.answer_now:
        # It had what it asked for, and called for it again instead of answering.
        return "empty_response"
    return "out_of_steps"


def _tools_ran(chat_log: conversation.ChatLog) -> bool:
    """Tell whether a tool call has a result in the turn."""
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.ToolResultContent):
            return True
        if isinstance(content, conversation.UserContent):
            break
    return False


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
