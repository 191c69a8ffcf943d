"""Whether a message asks about the home, or for an example, in its words.

A sentence is a question when it starts with a question word or a verb that
opens a question in the conversation's language or in English ("is", "what",
"ist", "czy", "est-ce"), or asks to be told ("tell me", "sag mir"), or, in
any language, ends with a question mark: in Italian, Portuguese, the
Scandinavian languages a yes/no question may keep the order of a statement.
A request phrased as a question is still a request: one that starts or ends
with "can you", "kannst du", "czy możesz", "would you?", "please" is not a
question. A message with a command beside its question ("Is it cold? Turn on
the heater.") is not a question either.

Where the words are unsure (a question mark alone makes the question, or
the language is none of ours), tools/questions.py asks Home Assistant's own
sentences (tools/intents.py).
"""

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from . import chain, has_words, word_set
from .text import Clause, clauses, phrases

# The longest message read: a question is short.
MAX_CHARS: Final = 500


def read_question(said: Sequence[Clause], language: str) -> tuple[bool, bool]:
    """Tell whether a message's clauses ask a question, and whether the words are sure.

    Sure: every sentence opens as a question, or one opens as a request, in
    a language of ours. Not sure: a question mark alone makes a sentence a
    question, or the language is none of ours. The clauses are those of the
    message's first MAX_CHARS characters.
    """
    if not said or any(_polite(words, language) for words, _ in said):
        return False, True
    opened = all(_opens_question(words, language) for words, _ in said)
    question = all(marked or _opens_question(words, language) for words, marked in said)
    return question, opened or (has_words(language) and not question)


def asks_about_state(text: str, language: str) -> bool:
    """Tell whether everything said is a question, none of it a request."""
    return read_question(clauses(text[:MAX_CHARS]), language)[0]


def asks_to_be_shown(words: Sequence[str], language: str) -> bool:
    """Tell whether a message's words ask for an example or an explanation."""
    return not word_set(language, "showing").isdisjoint(words)


@lru_cache(maxsize=64)
def _phrases(language: str) -> tuple[frozenset[tuple[str, ...]], ...]:
    """Return the phrases that ask to be told, and those of polite requests."""
    languages = chain(language)
    return (
        frozenset(p for each in languages for p in phrases(each.asking)),
        frozenset(p for each in languages for p in phrases(each.polite)),
    )


def _polite(words: Sequence[str], language: str) -> bool:
    """Tell whether a sentence opens or ends as a request phrased as a question.

    "Can you lock the door?", "Lock the door, would you?", "… please?"
    """
    said = tuple(words)
    return any(
        said[: len(polite)] == polite or said[-len(polite) :] == polite
        for polite in _phrases(language)[1]
    )


def _opens_question(words: Sequence[str], language: str) -> bool:
    """Tell whether a sentence opens with a question word, or asks to be told."""
    start = tuple(words)
    return words[0] in word_set(language, "question_words") or any(
        start[: len(asking)] == asking for asking in _phrases(language)[0]
    )
