"""One turn of an agent, top to bottom, in the seven states of the agent loop.

RECEIVE_INPUT → LLM_INFERENCE → TOOL_DECISION → TOOL_EXECUTION →
RESULT_AGGREGATION → (LLM_INFERENCE …) → RESPONSE_COMPOSITION → OUTPUT

A turn has three parts. Prepare (plan.py) reads the user's message once, into
a Plan. The rounds run here: each builds a request (request.py) and sends it
(transport.py); the response streams into the chat log, which hands every
complete tool call to the turn's tool guard: the guard decides the call
(runs it, refuses it, or holds it for the user's yes), runs it, and the chat
log keeps its result. Each round comes to a Decision, a value (decision.py);
only RunAgain starts another. Compose (compose.py) turns the Ending into what
the user hears.
"""

from pathlib import Path
from typing import Any

from homeassistant.components import conversation

from ..const import CONF_MAX_ITERATIONS, CONF_SPEECH, DEFAULT_MAX_ITERATIONS
from ..tools.confirm import confirmed_calls
from ..tools.guard import ToolGuard, ToolTally, guard_tools
from ..tools.statements import Contradiction
from ..usage import TurnUsage
from ..wire.stream import StreamStats
from .answer import answer_of
from .compose import async_compose
from .decision import decide
from .home_checks import async_settle, statement_known
from .observe import observe_round
from .outcome import Decision, Ending, RunAgain
from .plan import Plan, async_prepare
from .request import async_build_request, note_states
from .response import read_response, text_call_parser
from .stage import Stage
from .transport import async_send, async_stream_and_run_tools
from .turn import Turn, read_images


async def async_run_turn(  # noqa: PLR0913  # keyword-only, each a separate input
    stage: Stage,
    chat_log: conversation.ChatLog,
    *,
    recalled: str | None,
    structure: dict[str, Any] | None,
    usage: TurnUsage,
    attended: bool,
    language: str = "en",
) -> None:
    """Answer the turn in the chat log, or raise the error the user hears."""
    # RECEIVE_INPUT: the user's message is in the chat log; what it asks and
    # what the turn is held to are read once.
    plan = await async_prepare(
        stage, chat_log, structure=structure, attended=attended, language=language
    )
    with guard_tools(
        chat_log,
        plan.confirmation,
        plan.state_question,
        own=plan.own_tools,
        scope=plan.scope,
        guide=stage.guide.on,
    ) as guard:
        note_states(
            stage,
            chat_log,
            plan.mentions,
            question=bool(plan.state_question),
            listed=plan.overview is None,
        )
        turn = await _async_start(
            stage,
            chat_log,
            guard,
            plan,
            recalled=recalled,
            structure=structure,
            language=language,
        )
        # TOOL_EXECUTION → LLM_INFERENCE → TOOL_DECISION → TOOL_EXECUTION →
        # RESULT_AGGREGATION, round after round, until one ends the turn; the
        # first round starts with the calls the user's yes answered.
        first = RunAgain(calls=tuple(confirmed_calls(plan.confirmation)))
        ending = await _async_rounds(stage, chat_log, turn, guard, usage, first=first)
        # RESPONSE_COMPOSITION
        await async_compose(stage, chat_log, ending, plan, language)
    # OUTPUT: the answer is the chat log's last message, for the caller.


async def _async_rounds(  # noqa: PLR0913  # each a separate input
    stage: Stage,
    chat_log: conversation.ChatLog,
    turn: Turn,
    guard: ToolGuard | None,
    usage: TurnUsage,
    *,
    first: RunAgain,
) -> Ending:
    """Run rounds until one comes to something other than RunAgain."""
    decision: Decision = first
    number = 0
    told: set[str] = set()
    while isinstance(decision, RunAgain):
        number += 1
        if decision.why is not None:
            told.add(decision.why)
        # TOOL_EXECUTION of the calls the user's yes answered, or that the
        # answer before described in words: the chat log hands them to the
        # guard like any call, and the model reads their results.
        if decision.calls:
            async for _result in chat_log.async_add_assistant_content(
                conversation.AssistantContent(
                    agent_id=stage.agent_id, tool_calls=list(decision.calls)
                )
            ):
                pass
        # A model told to answer now would call again until the last round:
        # minutes on a local server.
        left = 0 if decision.final else turn.rounds - number
        # LLM_INFERENCE. The request sent may be another than the one built:
        # one the server takes, when it refused a part of it.
        stats = StreamStats()
        note = decision.note
        built = await async_build_request(stage, chat_log, turn, left, note)
        chunks, request = await async_send(stage, built, turn)
        start = len(chat_log.content)
        deltas = read_response(
            chunks,
            stats,
            turn,
            allow_tools=left > 0 and bool(turn.tools),
            text_tools=text_call_parser(guard, turn, native="tools" in request),
            usage_expected=stage.learned.sends_usage,
        )
        # TOOL_DECISION and TOOL_EXECUTION: the chat log hands each call to
        # the guard as soon as it is read, which decides and runs it, while
        # the answer streams on.
        await async_stream_and_run_tools(stage, chat_log, chunks, deltas)
        # RESULT_AGGREGATION: the results are in the chat log.
        observe_round(
            stage,
            chat_log,
            turn=turn,
            number=number,
            request=request,
            stats=stats,
            added=chat_log.content[start:],
            usage=usage,
        )
        # The calls' tally is read once: waiting for states changes no call.
        tally = _tally(guard)
        contradictions = await _async_settle(stage, chat_log, turn, tally, request)
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
            guide=turn.guide,
            contradictions=contradictions,
        )
    return decision


async def _async_read_images(
    stage: Stage, chat_log: conversation.ChatLog
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
    return await stage.hass.async_add_executor_job(read_images, chat_log.content)


async def _async_settle(
    stage: Stage,
    chat_log: conversation.ChatLog,
    turn: Turn,
    tally: ToolTally,
    request: dict[str, Any],
) -> list[Contradiction] | None:
    """Give the devices the round's answer speaks of a moment to report.

    Returns what the answer contradicts, when read without waiting.
    """
    if turn.state_words is None or turn.command is None:
        return None
    # Most rounds act on nothing, or end on results: nothing to wait for.
    if not tally.acted_on or not (answer := answer_of(chat_log)):
        return None
    return await async_settle(
        stage.hass,
        answer,
        turn.state_words,
        known=statement_known(request["messages"], turn.command, tally),
        language=turn.language,
        acted_on=tally.acted_on,
    )


def _tally(guard: ToolGuard | None) -> ToolTally:
    """Return what the turn's calls have come to; nothing without tools."""
    return guard.tally() if guard is not None else ToolTally()


async def _async_start(  # noqa: PLR0913  # each a separate input
    stage: Stage,
    chat_log: conversation.ChatLog,
    guard: ToolGuard | None,
    plan: Plan,
    *,
    recalled: str | None,
    structure: dict[str, Any] | None,
    language: str,
) -> Turn:
    """Settle what every request of the turn shares."""
    options = stage.options
    return Turn(
        # At least one: the rounds count down to the last, which ends the turn.
        rounds=max(1, int(options.get(CONF_MAX_ITERATIONS, DEFAULT_MAX_ITERATIONS))),
        # The same tools, formatted once, go out in every request of the turn:
        # identical bytes keep the server's prompt cache valid.
        tools=guard.specs if guard is not None else [],
        recalled=recalled,
        # Only what a conversation agent says may be spoken.
        speech=stage.conversational and bool(options.get(CONF_SPEECH, True)),
        structure=structure,
        answer_chars=stage.answer_chars(),
        images=await _async_read_images(stage, chat_log),
        command=plan.command,
        language=language,
        overview=plan.overview,
        # What the answers say of the home is read in Home Assistant's words.
        state_words=plan.state_words,
        guide=stage.guide.on,
    )
