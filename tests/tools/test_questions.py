"""Whether what the user said asks about the home, or asks for a change."""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.tools.intents import Recognized
from custom_components.chatterbox.tools.questions import (
    StateQuestion,
)
from tests.helpers.common import traced
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
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

# What Home Assistant's sentences read in a question about a state.
READS = Recognized("HassGetState")


async def test_a_refusal_shows_only_what_assist_may_see(
    hass: HomeAssistant, guarded_home: dict[str, str]
) -> None:
    """A call that names a hidden device by id is refused without its state.

    The question is Home Assistant's reading of "is the front door locked".
    """
    async_expose_entity(hass, conversation.DOMAIN, PUMP, should_expose=False)
    question = StateQuestion(hass, "Is the front door locked?", READS)

    refused = await question.async_review(
        FreeTool(), {"entity_id": [PUMP, FRONT]}, CONTEXT
    )

    assert refused is not None
    told = refused.data["error_text"]
    assert "Front door (lock): locked" in told
    assert "Pond pump" not in told


async def test_a_call_that_only_reads_or_reaches_nothing_runs(
    hass: HomeAssistant, guarded_home: dict[str, str]
) -> None:
    """Reading a state, or a tool that touches no device, answers a question."""
    question = StateQuestion(hass, "Is the front door locked?", READS)
    reads = FreeTool(llm.ToolAnnotations(read_only=True))

    assert await question.async_review(reads, {"entity_id": FRONT}, CONTEXT) is None
    assert (
        await question.async_review(FreeTool(), {"expression": "2+2"}, CONTEXT) is None
    )


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_question_our_words_read_changes_only_what_is_not_sensitive(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks "do you think the pond pump could run a bit?"; the model runs it.

    Our words read a question; Home Assistant's sentences read nothing. The
    model's call stands: the pump runs, and its answer is heard. An unlock
    in answer to such a question is refused, not asked about.
    """
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Pond pump"})]),
        Text("Sure, the pond pump is running now."),
    )

    result = await say(hass, "Do you think the pond pump could run a bit?")

    assert heard(result) == "Sure, the pond pump is running now."
    assert state(hass, PUMP) == "on"
    assert traced("chatterbox_question_not_command") == []

    llm_server.reply(ToolCalls([UNLOCK]), Text("The front door stays locked."))

    result = await say(hass, "Do you think the front door is locked?")

    assert heard(result) == "The front door stays locked."
    assert state(hass, FRONT) == "locked"
    assert len(traced("chatterbox_question_not_command")) == 1


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
