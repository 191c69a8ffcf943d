"""What a round left in the chat log: its answer, and how its calls went."""

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.agent.answer import (
    answer_of,
    last_call_failed,
    tools_ran,
)
from custom_components.chatterbox.tools.guard import REPEATED_CALL

AGENT = "conversation.chatterbox"
DONE = llm.ToolResult({"success": True})
FAILED = llm.ToolResult({"error": "MatchFailedError"}, error=True)
REPEAT = llm.ToolResult({"error": REPEATED_CALL}, error=True)


def chat_log_of(
    hass: HomeAssistant, *content: conversation.Content
) -> conversation.ChatLog:
    """Return a chat log in which the user asked, then the content came."""
    chat_log = conversation.ChatLog(hass, "answer")
    chat_log.content = [
        conversation.SystemContent("You are a voice assistant."),
        conversation.UserContent("Turn on the kitchen light"),
        *content,
    ]
    return chat_log


def called(
    words: str | None, result: llm.ToolResult, number: int = 0
) -> list[conversation.Content]:
    """Return a response with words and one call, and the call's result."""
    call_id = f"call_{number}"
    return [
        conversation.AssistantContent(
            AGENT, words, tool_calls=[llm.ToolInput("HassTurnOn", {}, call_id)]
        ),
        conversation.ToolResultContent(AGENT, call_id, "HassTurnOn", result),
    ]


async def test_the_answer_is_the_last_words(hass: HomeAssistant) -> None:
    """The model answered: its words are the answer; after a result, none."""
    answered = conversation.AssistantContent(AGENT, "The light is on.")

    assert answer_of(chat_log_of(hass, *called(None, DONE), answered)) == (
        "The light is on."
    )
    assert answer_of(chat_log_of(hass, *called("Turning it on.", DONE))) == ""


async def test_words_beside_a_refused_repeat_are_the_answer(
    hass: HomeAssistant,
) -> None:
    """The model answered and repeated a call that ran: its words are the answer.

    Only when they end a sentence: cut off, they wait for the next round.
    """
    first = called(None, DONE)

    whole = chat_log_of(hass, *first, *called("The light is on.", REPEAT, 1))
    cut = chat_log_of(hass, *first, *called("The light is", REPEAT, 1))

    assert answer_of(whole) == "The light is on."
    assert answer_of(cut) == ""


async def test_an_empty_chat_log_has_no_answer(hass: HomeAssistant) -> None:
    """Nothing was said: there is no answer, no tool ran, nothing failed."""
    chat_log = conversation.ChatLog(hass, "empty")
    chat_log.content = []

    assert answer_of(chat_log) == ""
    assert not tools_ran(chat_log)
    assert not last_call_failed(chat_log)


async def test_the_last_call_that_ran_tells_whether_it_failed(
    hass: HomeAssistant,
) -> None:
    """A failed call is the last that ran, even behind a refused repeat of it.

    Before any call, in the turn, none failed and none ran.
    """
    failed = chat_log_of(hass, *called(None, FAILED), *called(None, REPEAT, 1))
    done = chat_log_of(hass, *called(None, FAILED), *called(None, DONE, 1))
    none = chat_log_of(hass)

    assert last_call_failed(failed)
    assert not last_call_failed(done)
    assert not last_call_failed(none)
    assert tools_ran(done)
    assert not tools_ran(none)
