"""Every language Chatterbox promises has every word its checks read.

A language is one module in lang/words: a field left empty would be a check
that silently reads nothing in that language. The phrases read as words, the
patterns compile, and each language says an action with every verb.
"""

from dataclasses import fields
import re

import pytest

from custom_components.chatterbox.lang import (
    ENGLISH,
    LANGUAGES,
    chain,
    has_words,
    word_set,
    words_of,
)
from custom_components.chatterbox.lang.language import Language
from custom_components.chatterbox.lang.text import words_in

# Fields a language may leave empty, and why.
OPTIONAL = {
    "kind_verbs",  # only where a kind word is also a verb ("lock", "lås")
    "verbs",  # English says its verbs as they are named
}
CODES = sorted(LANGUAGES)


@pytest.mark.parametrize("code", CODES)
def test_every_field_of_every_language_is_there(code: str) -> None:
    """No promised language lacks any field the checks read."""
    language = LANGUAGES[code]
    empty = [
        each.name
        for each in fields(Language)
        if each.name not in OPTIONAL and not getattr(language, each.name)
    ]
    assert empty == []
    assert language.kinds.keys() == ENGLISH.kinds.keys()
    assert all(words_in(line) for line in language.kinds.values())


@pytest.mark.parametrize("code", sorted(set(CODES) - {"en"}))
def test_every_language_says_every_verb_of_an_action(code: str) -> None:
    """The question before a sensitive action is said in the language's verbs."""
    verbs = LANGUAGES[code].verbs
    assert set(verbs) == set(LANGUAGES["de"].verbs)
    assert all("{names}" in phrase for phrase in verbs.values())


@pytest.mark.parametrize("code", CODES)
def test_phrases_read_as_words_and_patterns_compile(code: str) -> None:
    """Every phrase is made of words a message can match; every claim compiles."""
    language = LANGUAGES[code]
    for phrase in (*language.asking, *language.polite, *language.yes, *language.no):
        assert words_in(phrase), phrase
    for claim in language.claims:
        re.compile(claim)
    assert "{count}" in language.more
    assert {"{action}", "{names}"} <= set(re.findall(r"\{\w+\}", language.acts_on))
    assert language.decimal in {".", ","}
    assert "{number}" in language.percent


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("de", ["de", "en"]),
        ("de-CH", ["de", "en"]),
        ("pt_BR", ["pt", "en"]),
        # Home Assistant's Norwegian Bokmål is "nb"; Nynorsk is no Bokmål.
        ("nn", ["en"]),
        ("nb-NO", ["nb", "en"]),
        ("en-GB", ["en"]),
        ("fi", ["en"]),
        (None, ["en"]),
    ],
)
def test_one_rule_finds_a_language(language: str | None, expected: list[str]) -> None:
    """The language itself, then its base language, then English."""
    assert [each.code for each in chain(language)] == expected
    assert words_of(language).code == expected[0]


def test_a_language_without_words_of_its_own_reads_english() -> None:
    """Finnish has none: its words are English's, and the checks know it."""
    assert not has_words("fi")
    assert has_words("en-US")
    assert has_words("nb")
    assert word_set("fi", "everything") == word_set("en", "everything")
    assert "alt" in word_set("nb", "everything")
    assert "everything" in word_set("nb", "everything")
