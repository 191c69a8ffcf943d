"""How text is cut into sentences and words, the same way for every reader.

Every check reads a message or an answer through these two: a sentence ends
at its marks, but not at a point before a digit ("18.5" is one number, not
two sentences), or at a line break; a word is a run of letters and digits,
folded for comparison ("Dis-moi" is "dis" and "moi", as the phrases of
lang/words are read the same way). Bounded input, linear time.
"""

from functools import lru_cache
import re
from typing import Final, NamedTuple
import unicodedata

# The marks that end a sentence, full-width ones too, but not before a
# digit: the point of "19.5". Not a semicolon: "it was off; it is on now"
# says both of one device. The lookahead fails only at a digit, so a run of
# marks is read once, in linear time.
_SENTENCE_END: Final = re.compile("([.!?\u2026\u3002\uff01\uff1f]+(?!\\d)|\n)")
# Clauses end at a semicolon too, and a Spanish question or exclamation
# opens one: "Enciende la luz, ¿vale?" is a request, then a question.
_CLAUSE_END: Final = re.compile(
    "([.!?;\u00bf\u00a1\u2026\u3002\uff01\uff1f\uff1b]+(?!\\d)|\n)"
)
_QUESTION_MARKS: Final = frozenset("?\uff1f")
_WORD: Final = re.compile(r"\w+")
# Quotes inside a word are dropped in plain words ("don't" reads "dont").
_JOINERS: Final = frozenset("'\u2019`\u00b4\u02bc")


class Sentence(NamedTuple):
    """One sentence of a text, and the marks that end it."""

    text: str
    end: str

    @property
    def asks(self) -> bool:
        """Tell whether the sentence ends with a question mark."""
        return not _QUESTION_MARKS.isdisjoint(self.end)


def sentences(text: str, *, clauses: bool = False) -> list[Sentence]:
    """Cut a text into its sentences, each with the marks that end it.

    With clauses, a semicolon ends one too. Empty sentences are left out;
    the text's own case is kept.
    """
    # split() with a group gives each sentence, then the marks that end it.
    pieces = [*(_CLAUSE_END if clauses else _SENTENCE_END).split(text), ""]
    return [
        Sentence(sentence.strip(), end.strip())
        for sentence, end in zip(pieces[::2], pieces[1::2], strict=True)
        if sentence.strip()
    ]


class Clause(NamedTuple):
    """The words of one clause of a text, and whether it asks."""

    words: tuple[str, ...]
    asks: bool
    """It ends with a question mark."""


def clauses(text: str) -> tuple[Clause, ...]:
    """Cut a text into its clauses' words: a semicolon ends one too.

    Clauses without a word are left out.
    """
    return tuple(
        Clause(words, sentence.asks)
        for sentence in sentences(text, clauses=True)
        if (words := words_in(sentence.text))
    )


@lru_cache(maxsize=4096)
def words_in(text: str) -> tuple[str, ...]:
    """Split text into its words, folded for comparison."""
    return tuple(_WORD.findall(text.casefold().replace("_", " ")))


def plain_words(text: str) -> list[str]:
    """Split text into plain words: no case, accents, quotes or other marks.

    How a short answer is read ("Sí, vas-y" is "si", "vas", "y"), where a
    missing accent or a typed apostrophe must not change a yes.
    """
    plain = "".join(
        char
        for char in unicodedata.normalize("NFKD", text.casefold())
        if not unicodedata.combining(char) and char not in _JOINERS
    )
    return "".join(char if char.isalnum() else " " for char in plain).split()


def word_list(text: str) -> frozenset[str]:
    """Return the words of a list written as one line."""
    return frozenset(text.split())


def phrases(written: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Return phrases as words, read as a message's words are."""
    return tuple(words for phrase in written if (words := words_in(phrase)))
