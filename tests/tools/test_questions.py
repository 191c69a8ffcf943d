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
@pytest.mark.parametrize(
    ("said", "answer", "pump"),
    [
        # Polite, and read as a question by our words: Home Assistant's
        # sentences find the request after its first words.
        (
            "Do you think you could switch on the pond pump?",
            "Sure, the pond pump is running now.",
            "on",
        ),
        # A question with no request in it.
        ("The pond pump is off?", "Yes, the pond pump is off.", "off"),
    ],
    ids=["polite-request", "question"],
)
async def test_a_question_our_words_read_changes_only_what_holds_a_request(
    hass: HomeAssistant, llm_server: LLMServer, said: str, answer: str, pump: str
) -> None:
    """User speaks of the pond pump; the model switches it on.

    A polite request runs; a question with no request in it refuses the
    call with the pump's state, and the model's answer is heard.
    """
    await hass.services.async_call(
        "switch", "turn_off", {"entity_id": PUMP}, blocking=True
    )
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Pond pump"})]), Text(answer)
    )

    result = await say(hass, said)

    assert heard(result) == answer
    assert state(hass, PUMP) == pump
    assert bool(traced("chatterbox_question_not_command")) == (pump == "off")


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_an_unlock_in_answer_to_a_question_is_refused_not_asked_about(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks whether the door is locked in words Home Assistant does not read.

    The model unlocks: refused at once, never asked about; its answer is heard.
    """
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
