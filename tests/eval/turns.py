"""One turn said to an agent, as a voice satellite says it, timed and recorded."""

import asyncio
from collections.abc import Callable
import os
import re
import time
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant

from tests.bench.measure import async_converse_as_pipeline

from .proxy import RecordingProxy
from .report import TurnRecord

# A person at a voice satellite has given up on a turn long before a minute;
# the slowest turn that passed in the full runs of 2026-11-22 took 38.6 s
# (16:47 UTC; 22.1 s in the last, without flash attention).
TURN_TIMEOUT = float(os.environ.get("EVAL_TURN_TIMEOUT", "45"))
# Every turn comes from a voice satellite, as a person speaks to Assist. With no
# device and no user, Chatterbox takes a request for an automation's and refuses
# what needs a yes (its default); core asks no one either way.
SATELLITE = "eval0kitchen0satellite"
# Chatterbox's question for a yes, in English (translations/en.json).
YES_QUESTION = re.compile(r"Do you want me to (.+)\?\s*$")
# A prompt's first turn reads the whole of it (instructions, devices, tools):
# untimed, and not a case.
COLD_TIMEOUT = 600.0
WARM_UP = "Hello"

type Listener = Callable[[conversation.ChatLog, dict[str, Any]], None]


async def async_say(
    hass: HomeAssistant,
    proxy: RecordingProxy,
    agent_id: str,
    text: str,
    conversation_id: str | None,
    listener: Listener,
) -> tuple[conversation.ConversationResult | None, TurnRecord]:
    """Say a text to the agent; return its result (None: over the limit) and record.

    The record holds how long the turn took and what the server read for it.
    """
    first = len(proxy.exchanges)
    started = time.perf_counter()
    result: conversation.ConversationResult | None
    try:
        async with asyncio.timeout(TURN_TIMEOUT):
            result = await hass.async_create_task(
                async_converse_as_pipeline(
                    hass, agent_id, text, conversation_id, listener, SATELLITE
                )
            )
    except TimeoutError:
        result = None
    exchanges = proxy.exchanges[first:]
    return result, TurnRecord(
        time.perf_counter() - started,
        len(exchanges),
        sum(e.usage.prompt_tokens for e in exchanges if e.usage),
        sum(e.usage.cached_tokens for e in exchanges if e.usage),
    )


async def async_warm_up(hass: HomeAssistant, agent_id: str) -> float:
    """Have the agent's prompt read once, untimed; return how long it took."""
    started = time.perf_counter()
    async with asyncio.timeout(COLD_TIMEOUT):
        await async_converse_as_pipeline(
            hass, agent_id, WARM_UP, None, lambda _log, _delta: None, SATELLITE
        )
    return time.perf_counter() - started


def speech_of(result: conversation.ConversationResult) -> str:
    """Return what the user hears of a result."""
    return str(result.response.speech.get("plain", {}).get("speech", ""))


def too_long(text: str) -> str:
    """Say that a turn went over the limit."""
    return f"turn {text!r} took over {TURN_TIMEOUT:.0f} s"
