"""Say what a sensitive call would do, in the words of a language.

An action is kept as parts (a verb, and the names it acts on) until it is
said: the model reads it in English, the user hears it in the conversation's
language ("Soll ich Haustür aufschließen?"), in its words (lang/words); a
verb a language has no word for (one from a tool's own name) is said in
English, inside the language's sentence.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from . import words_of
from .language import Language

# A question names this many entities at most, then counts the rest.
MAX_NAMED: Final = 5


@dataclass(frozen=True, slots=True)
class Deed:
    """One verb, and what it acts on."""

    verb: str
    """In English words: "unlock", "turn off", "run"."""
    names: tuple[str, ...] = ()
    """The names of what it acts on; the first MAX_NAMED are said."""
    ids: tuple[str, ...] = ()
    """Their entity ids, when known: two devices of one name are two."""


@dataclass(frozen=True, slots=True)
class Action:
    """What a sensitive call would do, in parts."""

    deeds: tuple[Deed, ...]
    through: tuple[str, ...] = ()
    """The guarded devices a script or scene that the call runs acts on."""

    def __str__(self) -> str:
        """Say the action in English, as the model reads it."""
        return say(self, "en")


def say(action: Action, language: str) -> str:
    """Say an action in a language: "unlock Front door and open Garage door"."""
    words = words_of(language)
    said = and_list([_deed(deed, words) for deed in action.deeds], language)
    if not action.through:
        return said
    return words.acts_on.format(action=said, names=_names(action.through, words))


def say_all(actions: Sequence[Action], language: str) -> str:
    """Say several actions as one list, each deed once."""
    return and_list([say(action, language) for action in once(actions)], language)


def once(actions: Sequence[Action]) -> list[Action]:
    """Return the actions with each deed once, the names of one verb together.

    Two held calls may do the same to the same device (a model calls by name,
    then by name and domain): the question names it once. A device is told
    by its entity id, so two of one name stay two. A deed whose targets are
    unknown (no names), and a script with what it acts on, are kept whole,
    each once.
    """
    merged: dict[str, dict[str, str]] = {}
    order: list[str | Action] = []
    for action in actions:
        whole = [action] if action.through else []
        for deed in () if action.through else action.deeds:
            if not deed.names:
                whole.append(Action((deed,)))
                continue
            if deed.verb not in merged:
                merged[deed.verb] = {}
                order.append(deed.verb)
            for key, name in zip(deed.ids or deed.names, deed.names, strict=True):
                merged[deed.verb].setdefault(key, name)
        order += [item for item in whole if item not in order]
    return [
        Action((Deed(item, tuple(merged[item].values())),))
        if isinstance(item, str)
        else item
        for item in order
    ]


def and_list(items: Sequence[str], language: str = "en") -> str:
    """Join words as a list is said: "A", "A and B", "A, B and C"."""
    return _joined(items, words_of(language))


def _deed(deed: Deed, words: Language) -> str:
    """Say one verb with the names it acts on."""
    names = _names(deed.names, words)
    if (phrase := words.verbs.get(deed.verb)) is not None:
        return phrase.format(names=names)
    return f"{deed.verb} {names}".strip()


def _names(names: Sequence[str], words: Language) -> str:
    """Name entities as a person would list them: "A, B and 2 more"."""
    said = list(names[:MAX_NAMED])
    if len(names) > MAX_NAMED:
        said.append(words.more.format(count=len(names) - MAX_NAMED))
    return _joined(said, words)


def _joined(items: Sequence[str], words: Language) -> str:
    """Join items with the language's "and"."""
    if len(items) < 2:  # noqa: PLR2004
        return "".join(items)
    return f"{', '.join(items[:-1])} {words.and_} {items[-1]}"
