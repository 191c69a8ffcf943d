"""Say what a sensitive call would do, in the words of a language.

An action is kept as parts (a verb, and the names it acts on) until it is
said: the model reads it in English, the user hears it in the conversation's
language ("Soll ich Haustür aufschließen?"). The words are data, one entry per
language; a verb a language has no word for (one from a tool's own name) is
said in English, inside the language's sentence.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..phrases import base_language

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


@dataclass(frozen=True, slots=True)
class Words:
    """How one language says an action."""

    verbs: dict[str, str]
    """Each English verb's phrase, with {names} where the names go."""
    and_: str
    """The word that joins the last item of a list: "and"."""
    more: str
    """How the names past MAX_NAMED are counted: "{count} more"."""
    acts_on: str
    """What a script acting on guarded devices adds: "{action}, which acts on
    {names}"."""
    unknown: str = "{verb} {names}"
    """How a verb without a phrase of the language is said."""


WORDS: Final[dict[str, Words]] = {
    "en": Words(
        verbs={},
        and_="and",
        more="{count} more",
        acts_on="{action}, which acts on {names}",
    ),
    "de": Words(
        verbs={
            "lock": "{names} abschließen",
            "unlock": "{names} aufschließen",
            "open": "{names} öffnen",
            "close": "{names} schließen",
            "press": "{names} drücken",
            "run": "{names} ausführen",
            "turn on": "{names} einschalten",
            "turn off": "{names} ausschalten",
            "stop": "{names} anhalten",
        },
        and_="und",
        more="{count} weitere",
        acts_on="{action}, was auf {names} wirkt",
    ),
    "fr": Words(
        verbs={
            "lock": "verrouiller {names}",
            "unlock": "déverrouiller {names}",
            "open": "ouvrir {names}",
            "close": "fermer {names}",
            "press": "appuyer sur {names}",
            "run": "lancer {names}",
            "turn on": "allumer {names}",
            "turn off": "éteindre {names}",
            "stop": "arrêter {names}",
        },
        and_="et",
        more="{count} autres",
        acts_on="{action}, qui agit sur {names}",
    ),
    "nl": Words(
        verbs={
            "lock": "{names} vergrendelen",
            "unlock": "{names} ontgrendelen",
            "open": "{names} openen",
            "close": "{names} sluiten",
            "press": "op {names} drukken",
            "run": "{names} uitvoeren",
            "turn on": "{names} aanzetten",
            "turn off": "{names} uitzetten",
            "stop": "{names} stoppen",
        },
        and_="en",
        more="{count} andere",
        acts_on="{action}, dat {names} bedient",
    ),
    "es": Words(
        verbs={
            "lock": "bloquear {names}",
            "unlock": "desbloquear {names}",
            "open": "abrir {names}",
            "close": "cerrar {names}",
            "press": "pulsar {names}",
            "run": "ejecutar {names}",
            "turn on": "encender {names}",
            "turn off": "apagar {names}",
            "stop": "detener {names}",
        },
        and_="y",
        more="{count} más",
        acts_on="{action}, que actúa sobre {names}",
    ),
    "it": Words(
        verbs={
            "lock": "bloccare {names}",
            "unlock": "sbloccare {names}",
            "open": "aprire {names}",
            "close": "chiudere {names}",
            "press": "premere {names}",
            "run": "avviare {names}",
            "turn on": "accendere {names}",
            "turn off": "spegnere {names}",
            "stop": "fermare {names}",
        },
        and_="e",
        more="altri {count}",
        acts_on="{action}, che agisce su {names}",
    ),
    "pl": Words(
        verbs={
            "lock": "zablokować {names}",
            "unlock": "odblokować {names}",
            "open": "otworzyć {names}",
            "close": "zamknąć {names}",
            "press": "nacisnąć {names}",
            "run": "uruchomić {names}",
            "turn on": "włączyć {names}",
            "turn off": "wyłączyć {names}",
            "stop": "zatrzymać {names}",
        },
        and_="i",
        more="{count} innych",
        acts_on="{action}, co działa na {names}",
    ),
    "pt": Words(
        verbs={
            "lock": "trancar {names}",
            "unlock": "destrancar {names}",
            "open": "abrir {names}",
            "close": "fechar {names}",
            "press": "premir {names}",
            "run": "executar {names}",
            "turn on": "ligar {names}",
            "turn off": "desligar {names}",
            "stop": "parar {names}",
        },
        and_="e",
        more="mais {count}",
        acts_on="{action}, que atua em {names}",
    ),
    "sv": Words(
        verbs={
            "lock": "låsa {names}",
            "unlock": "låsa upp {names}",
            "open": "öppna {names}",
            "close": "stänga {names}",
            "press": "trycka på {names}",
            "run": "köra {names}",
            "turn on": "slå på {names}",
            "turn off": "stänga av {names}",
            "stop": "stoppa {names}",
        },
        and_="och",
        more="{count} till",
        acts_on="{action}, som styr {names}",
    ),
    "da": Words(
        verbs={
            "lock": "låse {names}",
            "unlock": "låse {names} op",
            "open": "åbne {names}",
            "close": "lukke {names}",
            "press": "trykke på {names}",
            "run": "køre {names}",
            "turn on": "tænde {names}",
            "turn off": "slukke {names}",
            "stop": "stoppe {names}",
        },
        and_="og",
        more="{count} mere",
        acts_on="{action}, som styrer {names}",
    ),
}


def words_of(language: str) -> Words:
    """Return the words of a language ("de-CH" is German), or English's."""
    return WORDS.get(base_language(language), WORDS["en"])


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


def _deed(deed: Deed, words: Words) -> str:
    """Say one verb with the names it acts on."""
    names = _names(deed.names, words)
    if (phrase := words.verbs.get(deed.verb)) is not None:
        return phrase.format(names=names)
    return words.unknown.format(verb=deed.verb, names=names).strip()


def _names(names: Sequence[str], words: Words) -> str:
    """Name entities as a person would list them: "A, B and 2 more"."""
    said = list(names[:MAX_NAMED])
    if len(names) > MAX_NAMED:
        said.append(words.more.format(count=len(names) - MAX_NAMED))
    return _joined(said, words)


def _joined(items: Sequence[str], words: Words) -> str:
    """Join items with the language's "and"."""
    if len(items) < 2:  # noqa: PLR2004
        return "".join(items)
    return f"{', '.join(items[:-1])} {words.and_} {items[-1]}"
