"""Whether what the user said asks about the home, or asks for a change."""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.tools.questions import (
    StateQuestion,
)
from tests.helpers.common import traced
from tests.helpers.llm_server import LLMServer, Text, ToolCalls
from tests.helpers.sensitive import (
    CONTEXT,
    FRONT,
    PUMP,
    QUESTION,
    UNLOCK,
    FreeTool,
    heard,
    say,
    state,
)


async def test_a_refusal_shows_only_what_assist_may_see(
    hass: HomeAssistant, guarded_home: dict[str, str]
) -> None:
    """A call that names a hidden device by id is refused without its state."""
    async_expose_entity(hass, conversation.DOMAIN, PUMP, should_expose=False)
    question = StateQuestion(hass)

    refused = question.review(FreeTool(), {"entity_id": [PUMP, FRONT]}, CONTEXT)

    assert refused is not None
    told = refused.data["error_text"]
    assert "Front door (lock): locked" in told
    assert "Pond pump" not in told


async def test_a_call_that_only_reads_or_reaches_nothing_runs(
    hass: HomeAssistant, guarded_home: dict[str, str]
) -> None:
    """Reading a state, or a tool that touches no device, answers a question."""
    question = StateQuestion(hass)
    reads = FreeTool(llm.ToolAnnotations(read_only=True))

    assert question.review(reads, {"entity_id": FRONT}, CONTEXT) is None
    assert question.review(FreeTool(), {"expression": "2+2"}, CONTEXT) is None


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_command_home_assistant_reads_is_one_despite_a_question_mark(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User types "Unlock the front door?"; the model calls unlock.

    Home Assistant's sentences read a command, so it is not taken for a
    question: the unlock waits for the user's yes, as any unlock does.
    """
    llm_server.reply(ToolCalls([UNLOCK]))

    result = await say(hass, "Unlock the front door?")

    assert heard(result) == QUESTION
    assert state(hass, FRONT) == "locked"
    assert traced("chatterbox_question_not_command") == []


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_question_home_assistant_reads_needs_no_question_word_or_mark(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks in Finnish, as speech to text writes it, without a question mark.

    Chatterbox has no Finnish words; Home Assistant's Finnish sentences read
    "Onko Front door lukossa" as a question about the lock. The model's
    unlock is refused with the door's state, and the user hears its answer.
    """
    llm_server.reply(ToolCalls([UNLOCK]), Text("Kyllä, se on lukossa."))

    result = await say(hass, "Onko Front door lukossa", language="fi")

    assert heard(result) == "Kyllä, se on lukossa."
    assert state(hass, FRONT) == "locked"
    (refused,) = traced("chatterbox_question_not_command")
    assert refused["states"] == ["Front door (lock): locked"]
