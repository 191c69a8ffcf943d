"""One turn of an agent, top to bottom, in the seven states of the agent loop.

RECEIVE_INPUT → LLM_INFERENCE → TOOL_DECISION → TOOL_EXECUTION →
RESULT_AGGREGATION → (LLM_INFERENCE …) → RESPONSE_COMPOSITION → OUTPUT

The chat log holds the input and the history. In each round the model's
response streams into the chat log, which hands every complete tool call to
the turn's tool guard: the guard decides the call (runs it, refuses it, or holds
it for the user's yes), runs it, and the chat log keeps its result. The round
ends in a Decision, a value; only RunAgain starts another round.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeassistant.components import conversation

from ..const import (
    CONF_ANSWER_NOT_FOUND,
    CONF_MAX_ITERATIONS,
    CONF_SPEECH,
    DEFAULT_MAX_ITERATIONS,
    SUBENTRY_CONVERSATION,
)
from ..context.finder import FindDevicesTool
from ..context.in_view import async_said_states
from ..context.overview import Overview
from ..context.turn_mentions import turn_mentions
from ..phrases import async_phrase, async_say
from ..server.errors import user_error
from ..tools.command import Command, command_for
from ..tools.confirm import (
    async_ask_for_yes,
    confirmation_for,
    confirmed_calls,
)
from ..tools.guard import ToolGuard, ToolTally, async_make_calls, guard_tools
from ..tools.questions import async_state_question_for
from ..tools.scope import turn_scope
from ..tools.statements import async_state_words
from ..usage import TurnUsage
from ..wire.stream import StreamStats
from .decision import decide
from .observe import observe_round
from .outcome import (
    AskUser,
    Decision,
    Fail,
    NotFound,
    NothingDone,
    NotRead,
    NotSet,
    RunAgain,
    StatesAnswer,
)
from .request import async_build_request, home_overview, note_states
from .response import read_response, text_call_parser
from .transport import async_send, async_stream_into_log
from .turn import Turn, keep_recent, read_images

if TYPE_CHECKING:
    from .entity import ChatterboxLLMEntity


async def async_run_turn(  # noqa: PLR0913  # keyword-only, each a separate input
    agent: ChatterboxLLMEntity,
    chat_log: conversation.ChatLog,
    *,
    recalled: str | None,
    structure: dict[str, Any] | None,
    usage: TurnUsage,
    attended: bool,
    language: str = "en",
) -> None:
    """Answer the turn in the chat log, or raise the error the user hears."""
    # RECEIVE_INPUT: the user's message is in the chat log. A question asked in
    # the turn before lives for this turn only, whatever becomes of it.
    question = agent.conversations.pending.pop(chat_log.conversation_id, None)
    confirmation = confirmation_for(
        agent.hass, agent.subentry.data, chat_log, question, attended=attended
    )
    options = agent.subentry.data
    # An answer to the agent's own question ("Do it") asks nothing.
    asked = (
        await async_state_question_for(agent.hass, options, chat_log)
        if question is None
        else None
    )
    # A request for a change may refer back ("turn it off again").
    mentions = turn_mentions(
        agent.hass, chat_log, request=question is None and asked is None
    )
    # An AI Task's answer is data, not a claim to check.
    command = (
        command_for(agent.hass, options, chat_log, mentions, question=bool(asked))
        if agent.subentry.subentry_type == SUBENTRY_CONVERSATION and structure is None
        else None
    )
    # A home too large to list gets an overview, and the tool to find the rest
    # when the server reads calls natively (see home_overview).
    overview = home_overview(agent, chat_log)
    own = [FindDevicesTool()] if overview is not None and overview.search else []
    # A change to what the words did not name is refused (tools/scope.py).
    scope = turn_scope(agent.hass, options, chat_log, mentions)
    # An example or an explanation asked for changes nothing, even when the
    # model makes or writes the call of its example (a question: see asked).
    changes = command is None or command.question or command.changes
    with guard_tools(
        chat_log, confirmation, asked, own=own, scope=scope, changes=changes
    ) as guard:
        # The calls a yes answered run first, through the guard.
        await async_make_calls(chat_log, agent.entity_id, confirmed_calls(confirmation))
        note_states(
            agent, chat_log, mentions, question=bool(asked), listed=overview is None
        )
        turn = await _async_start(
            agent,
            chat_log,
            guard,
            command=command,
            recalled=recalled,
            structure=structure,
            language=language,
            overview=overview,
        )
        decision = await _async_rounds(agent, chat_log, turn, guard, usage)
        # RESPONSE_COMPOSITION
        match decision:
            case AskUser() if confirmation is not None:
                # The agent's own question, naming every held call, is the
                # last thing the user hears, whatever the model said before.
                keep_recent(
                    agent.conversations.pending,
                    chat_log.conversation_id,
                    await async_ask_for_yes(
                        chat_log, agent.entity_id, confirmation, language
                    ),
                )
            case NotFound(names) if options.get(CONF_ANSWER_NOT_FOUND, True):
                # Not an error: the home has no such device.
                chat_log.async_trace({"chatterbox_not_found": {"names": list(names)}})
                await _async_say_phrase(
                    agent, chat_log, language, "not_found", names=", ".join(names)
                )
            case NotFound():
                raise user_error("could_not")
            case StatesAnswer(entity_ids):
                chat_log.async_trace(
                    {"chatterbox_states_answer": {"entities": list(entity_ids)}}
                )
                await _async_say_phrase(
                    agent,
                    chat_log,
                    language,
                    "states_now",
                    states=await async_said_states(agent.hass, entity_ids, language),
                )
            case NothingDone():
                # The model's claim stays in the history; the last words say
                # that it was not so.
                await _async_say_phrase(agent, chat_log, language, "nothing_done")
            case NotSet(values):
                await _async_say_phrase(
                    agent,
                    chat_log,
                    language,
                    "values_not_set",
                    values=", ".join(values),
                )
            case NotRead():
                await _async_say_phrase(agent, chat_log, language, "not_read")
            case Fail(key):
                raise user_error(key)
    # OUTPUT: the answer is the chat log's last message, for the caller.


async def _async_say_phrase(
    agent: ChatterboxLLMEntity,
    chat_log: conversation.ChatLog,
    language: str,
    key: str,
    **placeholders: str,
) -> None:
    """End the turn with the agent's own sentence, in the conversation's language."""
    sentence = await async_phrase(agent.hass, language, key, **placeholders)
    await async_say(chat_log, agent.entity_id, sentence)


async def _async_rounds(
    agent: ChatterboxLLMEntity,
    chat_log: conversation.ChatLog,
    turn: Turn,
    guard: ToolGuard | None,
    usage: TurnUsage,
) -> Decision:
    """Run rounds until one comes to something other than RunAgain."""
    decision: Decision = RunAgain()
    number = 0
    told: set[str] = set()
    while isinstance(decision, RunAgain):
        number += 1
        if decision.why is not None:
            told.add(decision.why)
        # TOOL_EXECUTION of the calls the last answer described.
        await async_make_calls(chat_log, agent.entity_id, decision.calls)
        # A model told to answer now would call again until the last round:
        # minutes on a local server.
        left = 0 if decision.final else turn.rounds - number
        # LLM_INFERENCE
        stats = StreamStats()
        note = decision.note
        request = await async_build_request(agent, chat_log, turn, left, note)
        chunks = await async_send(agent, request, turn)
        start = len(chat_log.content)
        deltas = read_response(
            chunks,
            stats,
            turn,
            allow_tools=left > 0 and bool(turn.tools),
            text_tools=text_call_parser(guard, turn),
            usage_expected=agent.server_sends_usage,
        )
        # TOOL_DECISION and TOOL_EXECUTION: the chat log hands each call to
        # the guard as soon as it is read, while the answer streams on.
        await async_stream_into_log(agent, chat_log, chunks, deltas)
        # RESULT_AGGREGATION: the results are in the chat log.
        observe_round(
            agent,
            chat_log,
            turn=turn,
            number=number,
            request=request,
            stats=stats,
            added=chat_log.content[start:],
            usage=usage,
        )
        tally = _tally(guard)
        decision = decide(
            stats,
            tally,
            chat_log,
            tools=turn.parameters,
            left=left,
            command=turn.command,
            told=frozenset(told),
            read=request["messages"],
            words=turn.state_words,
            note=note,
        )
    return decision


async def _async_read_images(
    agent: ChatterboxLLMEntity, chat_log: conversation.ChatLog
) -> dict[Path, str]:
    """Read the conversation's images from disk, in an executor when it has any.

    Most turns have none: a trip to the executor for nothing would cost every
    turn a thread hop, and many turns at once a queue for the pool.
    """
    if not any(
        isinstance(item, conversation.UserContent) and item.attachments
        for item in chat_log.content
    ):
        return {}
    return await agent.hass.async_add_executor_job(read_images, chat_log.content)


def _tally(guard: ToolGuard | None) -> ToolTally:
    """Return what the turn's calls have come to; nothing without tools."""
    return guard.tally() if guard is not None else ToolTally()


async def _async_start(  # noqa: PLR0913  # keyword-only, each a separate input
    agent: ChatterboxLLMEntity,
    chat_log: conversation.ChatLog,
    guard: ToolGuard | None,
    *,
    command: Command | None,
    recalled: str | None,
    structure: dict[str, Any] | None,
    language: str,
    overview: Overview | None,
) -> Turn:
    """Settle what every request of the turn shares."""
    options = agent.subentry.data
    return Turn(
        # At least one: the rounds count down to the last, which ends the turn.
        rounds=max(1, int(options.get(CONF_MAX_ITERATIONS, DEFAULT_MAX_ITERATIONS))),
        # The same tools, formatted once, go out in every request of the turn:
        # identical bytes keep the server's prompt cache valid.
        tools=guard.specs if guard is not None else [],
        recalled=recalled,
        # Only what a conversation agent says may be spoken.
        speech=agent.subentry.subentry_type == SUBENTRY_CONVERSATION
        and bool(options.get(CONF_SPEECH, True)),
        structure=structure,
        answer_chars=agent.answer_chars(),
        images=await _async_read_images(agent, chat_log),
        command=command,
        language=language,
        overview=overview,
        # What the answers say of the home is read in Home Assistant's words.
        state_words=await async_state_words(agent.hass, language)
        if command is not None
        else None,
    )
