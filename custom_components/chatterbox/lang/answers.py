"""Whether a person's answer to the agent's question is a clear yes.

An answer confirms only when, after normalising, it is a yes phrase followed by
nothing but more yes phrases or polite words ("yes", "yes please", "ja
bitte", "tak, zrób to"). Any negation or hesitation anywhere drops the held
calls ("okay, never mind", "si no", "do it later"), and so does anything else
("ok thanks"), a question above all ("Yes? What do you mean?"): a held unlock
runs only on a yes.

The words are each language's (lang/words). The yes and polite words that
count are those of the conversation's language and English ("ok" is said
everywhere), as lang/ reads every language's words: a yes of one language can
be another's thanks ("tak" in Polish and Danish). The negations of every
language count in every conversation, the one exception, on the safe side: a
"nein" in an English conversation still drops a held unlock.
"""

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final

from . import LANGUAGES, chain
from .text import plain_words

# A longer answer is a sentence, not a yes; and the check stays bounded.
MAX_ANSWER_CHARS: Final = 200


class _Read:
    """The phrases of a conversation's languages, as answers are read."""

    __slots__ = ("follows", "longest", "no", "starts")

    def __init__(self, language: str | None) -> None:
        languages = chain(language)
        self.starts = _phrases(p for each in languages for p in each.yes)
        self.follows = self.starts | _phrases(
            p for each in languages for p in each.after_yes
        )
        self.no = _phrases(p for each in languages for p in each.no)
        self.longest = max(map(len, self.follows | self.no))


def _phrases(written: Iterable[str]) -> frozenset[tuple[str, ...]]:
    """Return phrases as tuples of plain words, as answers are read."""
    return frozenset(
        words for phrase in written if (words := tuple(plain_words(phrase)))
    )


# A no of any language drops the held calls.
_EVERY_NO: Final = _phrases(p for each in LANGUAGES.values() for p in each.no)
_LONGEST_NO: Final = max(map(len, _EVERY_NO))


@lru_cache(maxsize=64)
def _read(language: str | None) -> _Read:
    """Return the phrases of a conversation's languages."""
    return _Read(language)


def negated(text: str, language: str | None) -> bool:
    """Tell whether a text holds a negation or a hesitation of its language."""
    read = _read(language)
    words = plain_words(text)
    return any(
        _lengths_at(words, start, read.no, read.longest) for start in range(len(words))
    )


def is_yes(text: str, language: str | None = None) -> bool:
    """Tell whether an answer clearly confirms the question it answers."""
    if len(text) > MAX_ANSWER_CHARS or "?" in text or "\u00bf" in text:
        return False
    words = plain_words(text)
    if not words or any(
        _lengths_at(words, start, _EVERY_NO, _LONGEST_NO) for start in range(len(words))
    ):
        return False
    read = _read(language)
    # Whether the words up to each position read as yes and polite phrases.
    # Every split is tried, not only the longest phrase first: "tak tak" is a
    # phrase, yet "okej tak tak jest" reads as "okej", "tak", "tak jest".
    done = [True] + [False] * len(words)
    for start in range(len(words)):
        if not done[start]:
            continue
        phrases = read.starts if start == 0 else read.follows
        for length in _lengths_at(words, start, phrases, read.longest):
            done[start + length] = True
    return done[-1]


def _lengths_at(
    words: Sequence[str],
    start: int,
    phrases: frozenset[tuple[str, ...]],
    longest: int,
) -> list[int]:
    """Return the length of every phrase that starts at a word."""
    return [
        length
        for length in range(1, min(longest, len(words) - start) + 1)
        if tuple(words[start : start + length]) in phrases
    ]
