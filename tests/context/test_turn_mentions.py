"""Tests of the words that refer back to what a conversation named."""

import pytest

from custom_components.chatterbox.context.turn_mentions import refers_back
from custom_components.chatterbox.lang.text import words_in


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("Turn it off again", "en"),
        ("And the other one too", "en"),
        ("Mach es wieder aus", "de"),
        ("Wyłącz to", "pl"),
        ("Éteins-la aussi", "fr-FR"),
        ("Apágalo también", "es"),
        ("Spegnilo anche", "it"),
        ("Zet hem weer uit", "nl"),
        ("Turn them off", "de"),
    ],
)
def test_a_word_that_refers_back_is_found(sentence: str, language: str) -> None:
    """A pronoun, "too" or "again", in the conversation's language or English."""
    assert refers_back(words_in(sentence), language)


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("Tell me a joke", "en"),
        ("Switch to the news", "en"),
        ("Erzähl mir einen Witz", "de"),
        ("Allume la lumière", "fr"),
    ],
)
def test_a_request_that_refers_to_nothing_before(sentence: str, language: str) -> None:
    """No such word: the request means nothing named before.

    The Polish "to" ("it") is the English "to", and counts only in Polish;
    a word that is also an article ("la") counts in no language.
    """
    assert not refers_back(words_in(sentence), language)
