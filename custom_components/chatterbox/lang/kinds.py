"""The words that name kinds of devices: "the lights", "die Lampen", "wentylatory".

A request names a kind to mean the devices of a domain: "the lights in the
attic" are the attic's lights, not its fans. The words are Home Assistant's
own name of each domain in the conversation's language ("Valo", "Lys"),
learned from the first turn in the language on, in every language Home
Assistant translates;
and each language's of ours (lang/words), one line a domain, with plurals
and the words people use: English's name the domains there are.
"""

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Final

from . import ENGLISH, chain, word_set
from .text import words_in

# Home Assistant's names of the domains, by conversation language.
_LEARNED: dict[str, dict[str, frozenset[str]]] = {}
# The shortest name of a domain taken as a kind word.
_SHORTEST_NAME: Final = 4

# The domains "everything" switches, when a request names no kind of device.
SWITCHED_DOMAINS: Final = frozenset(
    {"light", "switch", "fan", "input_boolean", "media_player", "humidifier"}
)
# What a request names but cannot act on: it reads them, or they report.
READ_ONLY_DOMAINS: Final = frozenset(
    {
        "sensor",
        "binary_sensor",
        "weather",
        "sun",
        "zone",
        "person",
        "device_tracker",
        "event",
        "update",
        "calendar",
        "image",
    }
)


def learn_kind_names(language: str, names: Mapping[str, str]) -> None:
    """Take Home Assistant's names of the domains in a language: "Licht".

    Only a name of one word, of four letters or more: a name of several
    words ("Reprodutor de mídia") would make each of them, "de" too, a kind.
    Not a name that is as often a verb ("Switch"); the caller leaves out
    English's, which Home Assistant gives where a language has none.
    """
    verbs = word_set(language, "kind_verbs")
    learned = {
        domain: frozenset(said) - verbs
        for domain, name in names.items()
        if domain in ENGLISH.kinds
        and len(said := words_in(name)) == 1
        and len(said[0]) >= _SHORTEST_NAME
    }
    if _LEARNED.get(language) != learned:
        _LEARNED[language] = learned
        _kinds.cache_clear()


@lru_cache(maxsize=64)
def _kinds(language: str | None) -> dict[str, frozenset[str]]:
    """Return the words that name each domain's devices, in the chain."""
    languages = chain(language)
    learned = _LEARNED.get(language or "en", {})
    return {
        domain: frozenset(
            word for each in languages for word in words_in(each.kinds.get(domain, ""))
        )
        | learned.get(domain, frozenset())
        for domain in ENGLISH.kinds
    }


def kinds_named(words: Iterable[str], language: str | None) -> set[str]:
    """Return the domains that the words, folded to lower case, name."""
    said = set(words)
    return {domain for domain, names in _kinds(language).items() if said & names}


def words_of_kind(domain: str, language: str | None) -> frozenset[str]:
    """Return the words that name the devices of one domain."""
    return _kinds(language).get(domain, frozenset())


def kind_words(words: Iterable[str], language: str | None) -> list[str]:
    """Return the words that name a kind of device, as said."""
    named = frozenset().union(*_kinds(language).values())
    return [word for word in words if word in named]
