"""A question, a request phrased as one, and a request for an example, by its words.

In the conversation's language and English, through one reader
(lang/questions.py): no model, no Home Assistant.
"""

import pytest

from custom_components.chatterbox.lang.questions import (
    asks_about_state,
    asks_to_be_shown,
    read_question,
)
from custom_components.chatterbox.lang.text import clauses, words_in


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
        ("Er ytterdøren låst", "nb"),
        ("Hvor varmt er det i stua", "nb"),
        ("Fortell meg om ytterdøren er låst", "nb"),
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
        ("Kan du låse ytterdøren?", "nb"),
        ("Lås ytterdøren, er du snill", "nb"),
        ("Slå på lyset i stua", "nb"),
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
        ("Ytterdøren er låst?", "nb"),
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


@pytest.mark.parametrize(
    ("said", "language", "shown"),
    [
        ("Give me an example of what you can do", "en", True),
        ("Erkläre mir, wie ich das Licht einschalte", "de", True),
        ("Gi meg et eksempel", "nb", True),
        ("Turn on the kitchen light", "en", False),
        # Another language's word for an example is not read in this one.
        ("Gi meg et eksempel", "de", False),
    ],
)
def test_a_request_for_an_example_is_no_request_for_a_change(
    said: str, language: str, *, shown: bool
) -> None:
    """An example or an explanation asked for, in the language or English."""
    assert asks_to_be_shown(words_in(said), language) is shown


@pytest.mark.parametrize(
    ("said", "language", "sure"),
    [
        # Every sentence opens as a question: the words are sure.
        ("Er ytterdøren låst?", "nb", True),
        # A question mark alone makes the question: not sure.
        ("Ytterdøren er låst?", "nb", False),
        # A statement in a language of ours: sure it is none.
        ("Ytterdøren er låst", "nb", True),
        # A language without words of ours: never sure.
        ("Etuovi on lukossa", "fi", False),
    ],
)
def test_the_words_say_when_they_are_unsure(
    said: str, language: str, *, sure: bool
) -> None:
    """Home Assistant's sentences are asked only where the words are unsure."""
    assert read_question(clauses(said), language)[1] is sure


@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("Lock the front door, would you?", "en"),
        ("Turn off the kitchen light please?", "en"),
        ("Mach das Licht aus, bitte?", "de"),
        ("Chiudi la porta, per favore?", "it"),
        ("Lås ytterdøren, vær så snill?", "nb"),
    ],
)
def test_a_request_with_a_polite_tag_is_no_question(said: str, language: str) -> None:
    """A question mark after "would you" or "please" still asks for a change."""
    assert not asks_about_state(said, language)
