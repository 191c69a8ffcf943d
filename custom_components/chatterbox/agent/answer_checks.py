"""The checks that hold an answer to the request it answers.

A request for a change: an answer that claims one must come after a call that
made it, every part the request names is acted on, every value it asks for
set, and calls the answer describes are made. A question: an answer that is
only a question back is no answer. Each check gives the model one note in a
turn, then lets the answer stand or says what is true instead.
"""

from collections.abc import Mapping, Sequence
import re
from typing import Any, Final

from homeassistant.components import conversation
from homeassistant.helpers import llm

from ..const import LOGGER
from ..prompts import (
    ASKED_BACK_NOTE,
    CLAIM_NOTE,
    FIGURES_NOTE,
    PARTS_NOTE,
    VALUES_NOTE,
)
from ..tools.arguments import parse_tool_arguments
from ..tools.claims import claims_done
from ..tools.command import Command, call_names, left_over, said_values, values_left
from ..tools.figures import unread_figures
from ..tools.guard import ToolTally
from ..tools.names import tool_resolver
from ..wire.text_calls.described import described_calls
from .outcome import Answered, Decision, NothingDone, NotSet, RunAgain, StatesAnswer

# Where a sentence ends inside an answer: a stop, a mark, a colon.
_SENTENCE_END: Final = re.compile("[.!?;:\u3002\uff01\uff1f]\\s|\n")
# The checks that give the model a note, once each in a turn.
_ASKED_BACK: Final = "asked_back"
_CLAIM: Final = "claim"
_DESCRIBED: Final = "described"
_FIGURES: Final = "figures"
_PARTS: Final = "parts"
_VALUES: Final = "values"


def checked(  # noqa: PLR0913  # the round's inputs, each a separate one
    chat_log: conversation.ChatLog,
    command: Command,
    tally: ToolTally,
    left: int,
    told: frozenset[str],
    *,
    read: Sequence[Mapping[str, Any]] = (),
) -> Decision:
    """Hold an answer to the request: no claim alone, every part done.

    An answer that changed nothing is checked for what it claims; a question
    answered with nothing but a question back, for what it asked. An answer
    that stands is checked for figures it did not read (read: the messages
    of the round's request).
    """
    decision = _held(chat_log, command, tally, left, told)
    if not isinstance(decision, Answered):
        return decision
    return _checked_figures(chat_log, read, left, told)


def _held(
    chat_log: conversation.ChatLog,
    command: Command,
    tally: ToolTally,
    left: int,
    told: frozenset[str],
) -> Decision:
    """Hold an answer to what the request asked for, or asked about."""
    if tally.acted:
        parts = _checked_parts(chat_log, command, tally, left, told)
        if not isinstance(parts, Answered):
            return parts
        return _checked_values(chat_log, command, tally, left, told)
    answer = answer_of(chat_log)
    if command.question:
        return _checked_question(chat_log, command, answer, left, told)
    return _checked_claim(chat_log, command, answer, left, told)


def _checked_figures(
    chat_log: conversation.ChatLog,
    read: Sequence[Mapping[str, Any]],
    left: int,
    told: frozenset[str],
) -> Answered | RunAgain:
    """Answer, unless the answer gives a figure that nothing it read gives.

    "The living room is at 22 degrees" when its thermometer, in the record
    after the request, reads 19.5: the model is told once which figure it
    read nowhere, with its tools, to read it or to answer without it.
    """
    if left <= 1 or _FIGURES in told:
        return Answered()
    if not (unread := unread_figures(answer_of(chat_log), read)):
        return Answered()
    LOGGER.info("The answer gives %s, which the model read nowhere", unread)
    chat_log.async_trace({"chatterbox_figures_unread": {"figures": unread}})
    return RunAgain(FIGURES_NOTE.format(figures=", ".join(unread)), _FIGURES)


def _checked_question(
    chat_log: conversation.ChatLog,
    command: Command,
    answer: str,
    left: int,
    told: frozenset[str],
) -> Decision:
    """Answer a question, unless the answer is only a question back.

    Small models say the user's question back, or an example question of the
    prompt's, in place of an answer. A question about devices is then
    answered with their states; any other, before any tool ran, gets one
    more round to call the tool that tells. A question back after a result
    ("which Springfield?") stands.
    """
    if not asks_back(answer):
        return Answered()
    if command.asked_about:
        LOGGER.info("The model answered a question with one; saying the states")
        return StatesAnswer(command.asked_about)
    if left <= 1 or _ASKED_BACK in told or tools_ran(chat_log):
        return Answered()
    LOGGER.info("The model answered a question with one; asking again")
    chat_log.async_trace({"chatterbox_asked_back": {"answer": answer}})
    return RunAgain(ASKED_BACK_NOTE, _ASKED_BACK)


def _checked_claim(
    chat_log: conversation.ChatLog,
    command: Command,
    answer: str,
    left: int,
    told: frozenset[str],
) -> Decision:
    """Answer, unless the answer claims a change that no call made.

    The first claim gets one more round to make the call or to say it could
    not; a second one, or one on the last round, is not passed on.
    """
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


def described(
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
    if not left or _DESCRIBED in told or tools_ran(chat_log):
        return None
    if not (calls := described_calls(answer_of(chat_log), tool_resolver(tools), tools)):
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
    names = call_names(chat_log.hass, rest)
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
        if claimed := said_values(answer_of(chat_log), rest):
            LOGGER.info("The answer says %s, which no call set", claimed)
            chat_log.async_trace({"chatterbox_values_not_set": {"values": claimed}})
            return NotSet(tuple(claimed))
        return Answered()
    LOGGER.info("No call set %s; asking again", rest)
    chat_log.async_trace({"chatterbox_values_left": {"values": rest}})
    it = "it" if len(rest) == 1 else "them"
    return RunAgain(VALUES_NOTE.format(values=", ".join(rest), it=it), _VALUES)


def answer_of(chat_log: conversation.ChatLog) -> str:
    """Return the words of the round's answer; none when it ended otherwise."""
    answer = chat_log.content[-1]
    if isinstance(answer, conversation.AssistantContent):
        return answer.content or ""
    return ""


def asks_back(answer: str) -> bool:
    """Tell whether an answer is one question and nothing else."""
    text = answer.strip()
    return text.endswith("?") and _SENTENCE_END.search(text[:-1]) is None


def tools_ran(chat_log: conversation.ChatLog) -> bool:
    """Tell whether a tool call has a result in the turn."""
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.ToolResultContent):
            return True
        if isinstance(content, conversation.UserContent):
            break
    return False
