"""Whether a person's answer to the agent's question is a clear yes.

An answer confirms only when, after normalising, it is a yes phrase followed by
nothing but more yes phrases or polite words ("yes", "yes please", "ja
bitte", "tak, zrób to"). Any negation or hesitation anywhere drops the held
calls ("okay, never mind", "si no", "do it later"), and so does anything else
("ok thanks"), a question above all ("Yes? What do you mean?"): a held unlock
runs only on a yes.

The words are data, one entry per language. The yes and polite words that
count are those of the conversation's language and English ("ok" is said
everywhere); in a language without an entry, English alone, since a yes of one
language can be another's thanks ("tak" in Polish and Danish). The negations
of every language count in every conversation.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final
import unicodedata

from ..phrases import base_language

# A longer answer is a sentence, not a yes; and the check stays bounded.
MAX_ANSWER_CHARS: Final = 200
# Quotes inside a word are dropped ("don't" reads "dont"), any other mark that
# is not a letter or a digit splits words ("vas-y" reads "vas y").
_JOINERS: Final = frozenset("'\u2019`\u00b4\u02bc")


@dataclass(frozen=True, slots=True)
class Words:
    """What answers in one language are made of."""

    yes: tuple[str, ...]
    """Phrases that confirm on their own."""
    polite: tuple[str, ...]
    """Phrases that may follow a yes without changing it."""
    no: tuple[str, ...]
    """Negations and hesitations: any of them anywhere drops the calls."""


WORDS: Final[dict[str, Words]] = {
    "en": Words(
        yes=(
            "yes", "yeah", "yep", "yup", "yes yes", "sure", "ok", "okay", "alright",
            "all right", "confirm", "confirmed", "i confirm", "affirmative", "do it",
            "please do", "go ahead", "go for it", "proceed", "of course", "absolutely",
            "definitely", "certainly", "correct", "yes i do", "i do", "sure thing",
        ),
        polite=("please", "do it", "go ahead", "go for it", "please do", "proceed"),
        no=(
            "no", "nope", "nah", "not", "dont", "do not", "never", "cancel", "stop",
            "wait", "later", "never mind", "nevermind", "hold on", "hang on", "abort",
            "negative", "maybe", "perhaps", "isnt", "doesnt", "wont", "cant",
            "shouldnt", "didnt", "couldnt", "wouldnt", "wasnt", "arent",
            "havent", "hasnt", "rather not", "forget it", "skip",
        ),
    ),
    "de": Words(
        yes=(
            "ja", "jawohl", "jap", "jo", "klar", "na klar", "sicher", "ok", "okay",
            "gerne", "mach das", "mach es", "los", "leg los", "genau",
            "richtig", "auf jeden fall", "bestätigt", "ich bestätige",
            "einverstanden", "natürlich", "ja genau", "in ordnung",
        ),
        polite=("bitte", "gerne", "mach das", "mach es", "bitte schön"),
        no=(
            "nein", "nee", "ne", "nö", "nicht", "kein", "keine", "niemals", "nie",
            "abbrechen", "abbruch", "stopp", "stop", "halt", "warte", "später",
            "vergiss es", "vielleicht", "moment", "lass es", "lass das",
        ),
    ),
    "fr": Words(
        yes=(
            "oui", "ouais", "d'accord", "ok", "okay", "bien sûr", "vas-y", "allez-y",
            "volontiers", "certainement", "absolument", "je confirme", "confirmé",
            "oui oui", "exactement", "tout à fait", "bien entendu", "c'est bon",
            "fais-le", "faites-le",
        ),
        polite=(
            "s'il te plaît", "s'il vous plaît", "stp", "svp", "vas-y", "allez-y",
            "fais-le", "faites-le",
        ),
        no=(
            "non", "ne", "pas", "jamais", "annule", "annuler", "arrête", "arrêter",
            "stop", "attends", "attendez", "plus tard", "laisse tomber", "peut-être",
            "rien", "nan", "oublie",
        ),
    ),
    "es": Words(
        yes=(
            "sí", "si", "claro", "vale", "de acuerdo", "ok", "okay", "por supuesto",
            "hazlo", "adelante", "dale", "venga", "correcto", "exacto", "claro que sí",
            "sí sí", "confirmo", "afirmativo",
        ),
        polite=("por favor", "hazlo", "adelante", "dale"),
        no=(
            "no", "nunca", "jamás", "cancela", "cancelar", "para", "detente",
            "espera", "más tarde", "luego", "después", "déjalo", "olvídalo",
            "quizás", "quizá", "tal vez", "ni",
        ),
    ),
    "it": Words(
        yes=(
            "sì", "si", "certo", "va bene", "d'accordo", "ok", "okay", "fallo",
            "procedi", "vai", "esatto", "certamente", "assolutamente", "confermo",
            "sì sì", "certo che sì", "senz'altro", "volentieri", "vai pure",
            "fallo pure", "procedi pure",
        ),
        polite=("per favore", "per piacere", "fallo", "vai"),
        no=(
            "no", "non", "mai", "annulla", "ferma", "fermati", "stop", "aspetta",
            "più tardi", "dopo", "lascia perdere", "lascia stare", "forse",
            "niente", "nessuno",
        ),
    ),
    "nl": Words(
        yes=(
            "ja", "jawel", "jazeker", "ja hoor", "zeker", "prima", "oké", "ok",
            "okay", "doe maar", "doe het", "ga je gang", "ga door", "goed",
            "is goed", "akkoord", "natuurlijk", "ja ja", "ik bevestig", "zeker weten",
        ),
        polite=("alsjeblieft", "alstublieft", "graag", "doe maar", "doe het"),
        no=(
            "nee", "neen", "niet", "nooit", "geen", "annuleer", "annuleren", "stop",
            "stoppen", "wacht", "later", "laat maar", "misschien", "straks",
        ),
    ),
    "pl": Words(
        yes=(
            "tak", "tak jest", "jasne", "oczywiście", "dobrze", "dobra", "ok",
            "okej", "okay", "zrób to", "śmiało", "potwierdzam", "pewnie", "tak tak",
            "zgoda", "proszę bardzo", "do dzieła",
        ),
        polite=("proszę", "zrób to", "śmiało", "poproszę"),
        no=(
            "nie", "nigdy", "anuluj", "stop", "przestań", "czekaj", "zaczekaj",
            "poczekaj", "później", "daj spokój", "zostaw", "może", "chyba",
            "wstrzymaj",
        ),
    ),
    "pt": Words(
        yes=(
            "sim", "claro", "ok", "okay", "pode", "pode ser", "com certeza", "faça",
            "faz", "vai", "certo", "tá bom", "está bem", "sim sim", "claro que sim",
            "confirmo", "isso", "isso mesmo", "avança", "beleza", "pode fazer",
        ),
        polite=("por favor", "pode", "faça", "faz", "vai"),
        no=(
            "não", "nunca", "jamais", "cancela", "cancelar", "pare", "para",
            "espera", "espere", "mais tarde", "depois", "deixa pra lá", "esquece",
            "talvez", "nem",
        ),
    ),
    "sv": Words(
        yes=(
            "ja", "japp", "jadå", "javisst", "visst", "absolut", "okej", "ok",
            "gör det", "kör", "kör på", "självklart", "ja tack", "ja ja", "gärna",
        ),
        polite=("tack", "gärna", "gör det", "kör"),
        no=(
            "nej", "inte", "aldrig", "avbryt", "stopp", "vänta", "senare",
            "glöm det", "kanske", "strunta i det",
        ),
    ),
    "da": Words(
        yes=(
            "ja", "jo", "jep", "javel", "klart", "selvfølgelig", "okay", "ok",
            "gør det", "kør", "bare gør det", "ja tak", "ja ja", "gerne",
        ),
        polite=("tak", "gerne", "gør det"),
        no=(
            "nej", "ikke", "aldrig", "annuller", "stop", "vent", "senere",
            "glem det", "måske", "lad være",
        ),
    ),
}  # fmt: skip


def normalise(text: str) -> list[str]:
    """Split an answer into plain words: no case, accents or punctuation."""
    plain = "".join(
        char
        for char in unicodedata.normalize("NFKD", text.casefold())
        if not unicodedata.combining(char) and char not in _JOINERS
    )
    return "".join(char if char.isalnum() else " " for char in plain).split()


def _phrases(groups: Iterable[tuple[str, ...]]) -> frozenset[tuple[str, ...]]:
    """Normalise phrases into tuples of words, as answers are read."""
    return frozenset(
        words
        for group in groups
        for phrase in group
        if (words := tuple(normalise(phrase)))
    )


NO: Final = _phrases(words.no for words in WORDS.values())
# Per language: the phrases an answer may start with, and those that may follow.
_YES: Final = {
    language: (
        _phrases([words.yes, WORDS["en"].yes]),
        _phrases([words.yes, words.polite, WORDS["en"].yes, WORDS["en"].polite]),
    )
    for language, words in WORDS.items()
}
_LONGEST: Final = max(
    len(phrase)
    for phrases in (NO, *(follows for _starts, follows in _YES.values()))
    for phrase in phrases
)
# Languages Home Assistant names differently from the entries here.
_ALIASES: Final = {"no": "nb", "nn": "nb"}


def is_yes(text: str, language: str | None = None) -> bool:
    """Tell whether an answer clearly confirms the question it answers."""
    if len(text) > MAX_ANSWER_CHARS or "?" in text or "\u00bf" in text:
        return False
    words = normalise(text)
    if not words or any(_phrase_at(words, start, NO) for start in range(len(words))):
        return False
    base = base_language(language)
    starts, follows = _YES.get(_ALIASES.get(base, base), _YES["en"])
    # Whether the words up to each position read as yes and polite phrases.
    # Every split is tried, not only the longest phrase first: "tak tak" is a
    # phrase, yet "okej tak tak jest" reads as "okej", "tak", "tak jest".
    read = [True] + [False] * len(words)
    for start in range(len(words)):
        if not read[start]:
            continue
        phrases = starts if start == 0 else follows
        for length in _lengths_at(words, start, phrases):
            read[start + length] = True
    return read[-1]


def _phrase_at(
    words: Sequence[str], start: int, phrases: frozenset[tuple[str, ...]]
) -> int:
    """Return the length of the longest phrase that starts at a word, or 0."""
    return max(_lengths_at(words, start, phrases), default=0)


def _lengths_at(
    words: Sequence[str], start: int, phrases: frozenset[tuple[str, ...]]
) -> list[int]:
    """Return the length of every phrase that starts at a word."""
    return [
        length
        for length in range(1, min(_LONGEST, len(words) - start) + 1)
        if tuple(words[start : start + length]) in phrases
    ]
