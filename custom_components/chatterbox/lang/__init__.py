"""The languages Chatterbox reads and speaks, and the one rule that finds them.

A conversation's language is looked up as itself ("pt-BR"), then as its base
language ("pt"), then as English: what reads a message reads the words of
every language of that chain (English is said everywhere: "ok", "please"),
and what says something says it in the first. A language is one module in
lang/words/ and a translations file; nothing else names it.
"""

from functools import lru_cache
import importlib
import pkgutil
from typing import Final, Literal

from . import words
from .language import Language
from .text import words_in

# The fields of a Language that are written as one line of words.
type WordField = Literal[
    "question_words",
    "showing",
    "already",
    "everything",
    "besides",
    "back",
    "units",
    "kind_verbs",
]


def _load() -> dict[str, Language]:
    """Read every module of lang/words/: a language is added as one file."""
    found: dict[str, Language] = {}
    for module in pkgutil.iter_modules(words.__path__):
        language = importlib.import_module(f"{words.__name__}.{module.name}").WORDS
        found[language.code] = language
    return found


LANGUAGES: Final = _load()
ENGLISH: Final = LANGUAGES["en"]


def base_language(language: str | None) -> str:
    """Return a language without its region: "de" for "de-CH"; "en" for none."""
    return (language or "en").replace("_", "-").split("-", 1)[0].casefold()


@lru_cache(maxsize=64)
def chain(language: str | None) -> tuple[Language, ...]:
    """Return the conversation's language, its base language and English.

    Each once, and only those Chatterbox has words for: a language without a
    module of its own is read and spoken as English.
    """
    code = (language or "en").replace("_", "-").casefold()
    base = base_language(code)
    codes = (code, base, "en")
    return tuple(LANGUAGES[each] for each in dict.fromkeys(codes) if each in LANGUAGES)


def has_words(language: str | None) -> bool:
    """Tell whether Chatterbox has words of its own for a language."""
    return chain(language)[0] is not ENGLISH or base_language(language) == "en"


def words_of(language: str | None) -> Language:
    """Return the words a sentence of the agent's is said in."""
    return chain(language)[0]


@lru_cache(maxsize=256)
def word_set(language: str | None, field: WordField) -> frozenset[str]:
    """Return the words of a field in every language of the chain, as read."""
    return frozenset(
        word for each in chain(language) for word in words_in(getattr(each, field))
    )
