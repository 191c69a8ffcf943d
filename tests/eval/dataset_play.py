"""A dataset's homes played with an agent, each case scored as upstream scores it.

Each home is built alone in the harness's Home Assistant, so that the agent
sees only that home; each case starts from the home's starting states with
the case's setup over them, in a new conversation, with its one sentence.
When the agent asks for a yes before a sensitive action (Chatterbox's
question), the user says "yes" in a second turn: the record has two turns,
and the table counts them. The case passes when the home's states at the end
are the states before with the expected changes, and nothing else changed.
"""

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant

from .cases import Case
from .dataset import DatasetCase, Home, describe, unexpected_changes
from .dataset_home import (
    BuiltHome,
    async_build_home,
    async_remove_home,
    async_reset,
    async_set_states,
    snapshot,
)
from .proxy import RecordingProxy
from .report import CaseRecord, TurnRecord
from .turns import YES_QUESTION, async_say, async_warm_up, speech_of, too_long

YES = "Yes"


async def async_play_homes(
    hass: HomeAssistant,
    proxy: RecordingProxy,
    agent_id: str,
    homes: Sequence[Home],
    column: str,
    repeat: int,
    *,
    only: Sequence[str] = (),
    warm_ups: list[float] | None = None,
    ended: Callable[[CaseRecord], Awaitable[None]] | None = None,
) -> list[CaseRecord]:
    """Play every case of every home with an agent; return their records.

    Each home's prompt is read first in an untimed turn, as each column's is
    for the demo home: a case is not held to the time it takes to read a new
    home. How long each took goes to warm_ups; each record goes to ended as
    its case ends.
    """
    records = []
    for home in homes:
        cases = [case for case in home.cases if not only or case.id in only]
        if not cases:
            continue
        built = await async_build_home(hass, home)
        try:
            took = await async_warm_up(hass, agent_id)
            if warm_ups is not None:
                warm_ups.append(took)
            for case in cases:
                await async_reset(hass, built, home)
                await async_set_states(hass, built, case.setup)
                reasons, answers, tools, turns = await async_play_case(
                    hass, proxy, agent_id, case, built
                )
                record = CaseRecord(
                    column, as_case(case), repeat, reasons, answers, tools, turns
                )
                records.append(record)
                if ended is not None:
                    await ended(record)
        finally:
            await async_remove_home(hass, built)
    return records


async def async_play_case(
    hass: HomeAssistant,
    proxy: RecordingProxy,
    agent_id: str,
    case: DatasetCase,
    built: BuiltHome,
) -> tuple[list[str], list[str], list[str], list[TurnRecord]]:
    """Say the case's sentence, and "yes" if asked; return what it came to.

    Returns the reasons it failed (none: passed), the answers, the tools
    called and the turns.
    """
    before = snapshot(hass, built)
    tools: list[str] = []
    answers: list[str] = []
    turns: list[TurnRecord] = []
    reasons: list[str] = []

    def listener(_chat_log: conversation.ChatLog, delta: dict[str, Any]) -> None:
        tools.extend(call.tool_name for call in delta.get("tool_calls") or [])

    conversation_id: str | None = None
    text = case.sentence
    while True:
        result, turn = await async_say(
            hass, proxy, agent_id, text, conversation_id, listener
        )
        turns.append(turn)
        if result is None:
            reasons.append(too_long(text))
            break
        answers.append(speech := speech_of(result))
        conversation_id = result.conversation_id
        if text == YES or not YES_QUESTION.match(speech):
            break
        text = YES
    await asyncio.sleep(0.1)  # a device writes its state after the call returns
    await hass.async_block_till_done()
    reasons.extend(describe(unexpected_changes(before, snapshot(hass, built), case)))
    return reasons, answers, tools, turns


def as_case(case: DatasetCase) -> Case:
    """Return a dataset case as the table's records hold cases."""
    return Case(case.id, case.category, (case.sentence,))
