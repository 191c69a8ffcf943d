"""Learn from each round what it cost, and record what it did.

The server's prompt_tokens calibrate the token estimator that fits the history;
the turn's usage feeds the agent's sensors; the trace shows each round in the
Assist debug view, the estimate beside the server's count.
"""

import time
from typing import Any

from homeassistant.components import conversation

from ..const import CONF_MAX_TOKENS, LOGGER
from ..usage import TurnUsage
from ..wire.stream import StreamStats
from .stage import Stage
from .turn import Turn


def observe_round(  # noqa: PLR0913  # keyword-only, each one a separate record
    stage: Stage,
    chat_log: conversation.ChatLog,
    *,
    turn: Turn,
    number: int,
    request: dict[str, Any],
    stats: StreamStats,
    added: list[conversation.Content],
    usage: TurnUsage,
) -> None:
    """Calibrate the estimator, count the usage, trace the round, warn of cuts."""
    estimated = stage.learned.estimator.calibrate(
        request["messages"], request.get("tools", ()), stats.prompt_tokens
    )
    usage.add(stats, estimated, stage.learned.estimator.chars_per_token)
    if stats.finish_reason is not None and not stats.cut_short:
        # A response that ended by itself says whether this server sends usage.
        stage.learned.sends_usage = stats.prompt_tokens is not None
    chat_log.async_trace(
        {
            "chatterbox_iteration": {
                "iteration": number,
                "latency": round(time.monotonic() - stats.started, 3),
                "tools": [
                    call.tool_name
                    for item in added
                    if isinstance(item, conversation.AssistantContent)
                    for call in item.tool_calls or ()
                ],
                **stats.as_dict(),
                "estimated_prompt_tokens": estimated,
            }
        }
    )
    if stats.looped:
        LOGGER.info(
            "The answer made a call it had made already, as a model in a loop "
            "does; the repeat and what followed it were not read"
        )
    if stats.cut_short:
        LOGGER.warning(
            "The answer ran past %s characters, the room kept for it in the "
            "context, so the rest was not read; set the agent's Maximum "
            "tokens per answer to choose the limit",
            turn.answer_chars,
        )
    elif stats.finish_reason == "length":
        LOGGER.warning(
            "The answer was cut short at the token limit; the agent's "
            "Maximum tokens per answer is %s",
            stage.options.get(CONF_MAX_TOKENS) or "the server's default",
        )
