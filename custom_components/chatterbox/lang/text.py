"""How text is cut into sentences and words, the same way for every reader.

Every check reads a message or an answer through these two: a sentence ends
at its marks followed by a space or the end ("18.5" is one number, not two
sentences), or at a line break; a word is a run of letters and digits,
folded for comparison ("Dis-moi" is "dis" and "moi", as the phrases of
lang/words are read the same way). Bounded input, linear time.
"""

from functools import lru_cache
import re
from typing import Final, NamedTuple
import unicodedata

# The marks that end a sentence, full-width ones too. Not the point of
# "19.5", nor a semicolon: "it was off; it is on now" says both of one device.
_SENTENCE_END: Final = re.compile("([.!?\u2026\u3002\uff01\uff1f]+(?=\\s|$)|\n)")
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


def sentences(text: str) -> list[Sentence]:
    """Cut a text into its sentences, each with the marks that end it.

    Empty sentences are left out; the text's own case is kept.
    """
    # split() with a group gives each sentence, then the marks that end it.
    pieces = [*_SENTENCE_END.split(text), ""]
    return [
        Sentence(sentence.strip(), end.strip())
        for sentence, end in zip(pieces[::2], pieces[1::2], strict=True)
        if sentence.strip()
    ]


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
