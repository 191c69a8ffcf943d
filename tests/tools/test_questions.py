"""Whether what the user said asks about the home, or asks for a change."""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.tools.questions import (
    StateQuestion,
    asks_about_state,
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


@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("Is the front door locked?", "en"),
        ("what's the temperature in the nursery", "en"),
        ("Are any windows open? Which ones?", "en"),
        ("Ist die Haustür abgeschlossen?", "de"),
        ("Wie warm ist es im Bad?", "de-CH"),
        ("Czy drzwi wejściowe są zamknięte?", "pl"),
        ("Ile stopni jest w salonie?", "pl"),
        ("Est-ce que la porte est fermée ?", "fr"),
        ("¿Está encendida la luz de la cocina?", "es"),
        ("Is the heating on?", "de"),
        ("Está trancada a porta da frente?", "pt"),
        ("Är ytterdörren låst", "sv"),
        ("Hvad er temperaturen i stuen", "da"),
    ],
)
def test_a_question_about_the_home_is_a_question(said: str, language: str) -> None:
    """Question words and verbs that open a question, in the language or English."""
    assert asks_about_state(said, language)


@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("Lock the front door", "en"),
        ("Can you lock the front door?", "en"),
        ("Could you check whether the door is locked and lock it", "en"),
        ("Please, is it possible to close the blinds?", "en"),
        ("Is it cold in here? Turn on the heater.", "en"),
        ("Kannst du die Haustür abschließen?", "de"),
        ("Mach das Licht in der Küche an", "de"),
        ("Czy możesz zamknąć drzwi?", "pl"),
        ("Zamknij drzwi wejściowe", "pl"),
        ("Pourriez-vous fermer la porte ?", "fr"),
        ("", "en"),
        ("?!", "en"),
        ("Pode trancar a porta da frente?", "pt"),
        ("Kan du låsa ytterdörren?", "sv"),
        ("Var snäll och tänd lampan i köket", "sv"),
        ("Vær sød at låse hoveddøren?", "da"),
        ("Kan du låse hoveddøren?", "da"),
        ("Hoveddøren er låst. Lås den op", "da"),
    ],
)
def test_a_request_is_not_a_question(said: str, language: str) -> None:
    """A command, a polite one, or a question with a command beside it."""
    assert not asks_about_state(said, language)


@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("The front door is locked?", "en"),
        ("La porta d'ingresso è chiusa a chiave?", "it"),
        ("A porta da frente está trancada?", "pt"),
        ("Ytterdörren är låst?", "sv"),
        ("Hoveddøren er låst?", "da"),
        ("¿La puerta principal está cerrada con llave?", "es"),
        ("Onko etuovi lukossa?", "fi"),
        ("玄関は施錠されていますか\uff1f", "ja"),
        ("Die Haustür ist zu? Und das Garagentor?", "de"),
    ],
)
def test_a_sentence_ending_in_a_question_mark_asks_in_any_language(
    said: str, language: str
) -> None:
    """No question word, only the order of a statement and a question mark."""
    assert asks_about_state(said, language)


def test_a_question_word_of_another_language_counts_only_in_it() -> None:
    """Polish "czy" opens a question in Polish, not in German."""
    assert asks_about_state("czy światło jest włączone", "pl")
    assert not asks_about_state("czy światło jest włączone", "de")


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


@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("Lock the front door, would you?", "en"),
        ("Turn off the kitchen light please?", "en"),
        ("Mach das Licht aus, bitte?", "de"),
        ("Chiudi la porta, per favore?", "it"),
    ],
)
def test_a_request_with_a_polite_tag_is_no_question(said: str, language: str) -> None:
    """A question mark after "would you" or "please" still asks for a change."""
    assert not asks_about_state(said, language)
