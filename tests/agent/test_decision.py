"""Tests of what a round's response comes to: the turn's next step, as a value."""

import pytest

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.agent.decision import (
    Answered,
    AskUser,
    Fail,
    RunAgain,
    decide,
)
from custom_components.chatterbox.tools.confirm import PendingCall
from custom_components.chatterbox.tools.guard import REPEATED_CALL, ToolTally
from custom_components.chatterbox.wire.stream import StreamStats

AGENT = "conversation.chatterbox"


def log_of(hass: HomeAssistant, *results: llm.ToolResult) -> conversation.ChatLog:
    """Return a chat log in which the user asked and the model's calls answered."""
    content: list[conversation.Content] = [
        conversation.SystemContent("You are a voice assistant."),
        conversation.UserContent("Turn on the kitchen light"),
    ]
    for number, result in enumerate(results):
        call_id = f"call_{number}"
        content += [
            conversation.AssistantContent(
                AGENT, tool_calls=[llm.ToolInput("HassTurnOn", {}, call_id)]
            ),
            conversation.ToolResultContent(AGENT, call_id, "HassTurnOn", result),
        ]
    return conversation.ChatLog(hass, "conversation", content=content)


DONE = llm.ToolResult({"success": True})
FAILED = llm.ToolResult({"error": "MatchFailedError"}, error=True)
REPEAT = llm.ToolResult({"error": REPEATED_CALL}, error=True)


def spoke(chars: int = 0, calls: int = 0, finish: str = "stop") -> StreamStats:
    """Return the stats of a response with so many characters and calls."""
    return StreamStats(finish_reason=finish, content_chars=chars, tool_calls=calls)


async def test_an_answer_ends_the_turn(hass: HomeAssistant) -> None:
    """The model said something and called nothing: the turn is answered."""
    decision = decide(spoke(12), ToolTally(), log_of(hass), has_tools=True, left=3)

    assert decision == Answered()


async def test_results_waiting_for_the_model_run_another_round(
    hass: HomeAssistant,
) -> None:
    """The model called a tool and its result is in: the model reads it next."""
    chat_log = log_of(hass, DONE)

    decision = decide(spoke(calls=1), ToolTally(), chat_log, has_tools=True, left=2)

    assert decision == RunAgain()


async def test_words_beside_calls_still_run_another_round(
    hass: HomeAssistant,
) -> None:
    """Words and a call together: the result still goes back to the model."""
    chat_log = log_of(hass, DONE)

    decision = decide(spoke(11, 1), ToolTally(), chat_log, has_tools=True, left=2)

    assert decision == RunAgain()


async def test_held_calls_ask_the_user_first(hass: HomeAssistant) -> None:
    """A call held for the user's yes ends the turn with the question."""
    held = (PendingCall("HassTurnOff", {"name": "Front door"}, "unlock Front door"),)

    decision = decide(
        spoke(calls=1), ToolTally(held), log_of(hass, FAILED), has_tools=True, left=2
    )

    assert decision == AskUser()


async def test_a_filtered_answer_fails(hass: HomeAssistant) -> None:
    """The server's content filter stopped the answer: the user hears so."""
    decision = decide(
        spoke(5, finish="content_filter"),
        ToolTally(),
        log_of(hass),
        has_tools=True,
        left=3,
    )

    assert decision == Fail("content_filtered")


async def test_nothing_said_fails(hass: HomeAssistant) -> None:
    """No words and no calls is no answer."""
    decision = decide(spoke(), ToolTally(), log_of(hass), has_tools=True, left=3)

    assert decision == Fail("empty_response")


async def test_calls_from_an_agent_without_tools_fail(hass: HomeAssistant) -> None:
    """Calls alone, from an agent that has no tools, are no answer."""
    decision = decide(
        spoke(calls=1), ToolTally(), log_of(hass), has_tools=False, left=3
    )

    assert decision == Fail("empty_response")


@pytest.mark.parametrize(
    ("results", "tally", "key"),
    [
        pytest.param((DONE,), ToolTally(), "out_of_steps", id="still-working"),
        pytest.param((FAILED,), ToolTally(), "could_not", id="last-call-failed"),
        pytest.param(
            (FAILED, REPEAT), ToolTally(), "could_not", id="repeat-of-a-failure"
        ),
        pytest.param(
            (DONE, REPEAT),
            ToolTally(answer_now=True),
            "empty_response",
            id="told-to-answer",
        ),
    ],
)
async def test_calls_on_the_last_round_fail_with_what_fits(
    hass: HomeAssistant,
    results: tuple[llm.ToolResult, ...],
    tally: ToolTally,
    key: str,
) -> None:
    """The model only called tools when none were left: the user hears why."""
    chat_log = log_of(hass, *results)

    decision = decide(spoke(calls=1), tally, chat_log, has_tools=True, left=0)

    assert decision == Fail(key)


async def test_the_last_round_never_runs_again(hass: HomeAssistant) -> None:
    """With words and results on the last round, the turn ends answered."""
    chat_log = log_of(hass, DONE)

    decision = decide(spoke(8, 1), ToolTally(), chat_log, has_tools=True, left=0)

    assert decision == Answered()
