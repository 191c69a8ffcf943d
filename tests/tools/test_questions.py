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
from tests.helpers.sensitive import CONTEXT, FRONT, PUMP, FreeTool


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
    ],
)
def test_a_request_is_not_a_question(said: str, language: str) -> None:
    """A command, a polite one, or a question with a command beside it."""
    assert not asks_about_state(said, language)


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
