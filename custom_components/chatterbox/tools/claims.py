"""Whether an answer says that something was done.

Small models answer "and the other one too" with "The bedroom light has been
turned on" without calling a tool: nothing changed, and the user believes it
did. When a request asked for a change, no call that changes anything ran in
the turn, and the answer claims a change all the same, the model is told so
and given one more round; a second claim is replaced by the agent's own
sentence that nothing was done.

A claim is a statement in the perfect or the passive of an action (I turned
on, has been locked, ist jetzt aus, włączyłem, została zamknięta), or "done".
A sentence that asks, or that says a thing was so already ("is already on",
"schon aus", "już włączone"), claims nothing. The patterns are data, one entry
per language; those of the conversation's language and of English count.
"""

from collections.abc import Mapping
import re
from typing import Final

from ..phrases import base_language

# The actions, as their participles: what a claim says was done.
_EN_DONE: Final = (
    r"(?:turned|switched|set|locked|unlocked|opened|closed|shut|dimmed|"
    r"brightened|started|stopped|activated|deactivated|adjusted|changed|"
    r"raised|lowered|increased|decreased|paused|resumed)"
)
_DE_DONE: Final = (
    r"(?:eingeschaltet|ausgeschaltet|angeschaltet|abgeschaltet|angemacht|"
    r"ausgemacht|eingestellt|gestellt|geöffnet|geschlossen|abgeschlossen|"
    r"aufgeschlossen|verriegelt|entriegelt|gedimmt|gestartet|gestoppt|"
    r"aktiviert|deaktiviert|erhöht|gesenkt)"
)
_CLAIMS: Final[Mapping[str, tuple[re.Pattern[str], ...]]] = {
    "en": (
        re.compile(
            rf"\b(?:i|i've|i have|we've|we have)\s+"
            rf"(?:just\s+|now\s+|also\s+|successfully\s+)?{_EN_DONE}\b"
        ),
        re.compile(rf"\b(?:has|have|had) been\s+(?:\w+\s+)?{_EN_DONE}\b"),
        re.compile(r"\b(?:is|are) now\s+(?:on|off|open|closed|locked|unlocked|set)\b"),
        re.compile(rf"\b(?:is|are)\s+(?:now\s+)?{_EN_DONE}\s+(?:on|off)\b"),
        re.compile(r"^\s*(?:all\s+)?done\b"),
    ),
    "de": (
        re.compile(rf"\b(?:habe|hab|wurde|wurden)\b.{{0,60}}?\b{_DE_DONE}\b"),
        re.compile(rf"\b(?:ist|sind) (?:jetzt|nun) (?:an|aus|offen|zu|{_DE_DONE})\b"),
        re.compile(r"^\s*erledigt\b"),
    ),
    "pl": (
        re.compile(
            r"\b(?:włączył|wyłączył|zgasił|zapalił|zamknął|zamknęł|otworzył|"
            r"ustawił|uruchomił|zatrzymał|zablokował|odblokował|przyciemnił|"
            r"rozjaśnił)\w*"
        ),
        re.compile(
            r"\b(?:został|została|zostało|zostały|zostali|jest teraz|są teraz)\s+"
            r"(?:\w+\s+)?(?:włączon|wyłączon|zgaszon|zapalon|zamknięt|otwart|"
            r"ustawion|uruchomion|zablokowan|odblokowan)\w*"
        ),
        re.compile(r"^\s*(?:gotowe|zrobione)\b"),
    ),
    "fr": (
        re.compile(
            r"\b(?:j'ai|a été|ont été|est maintenant|sont maintenant)\s+"
            r"(?:\w+\s+)?(?:allumé|éteint|ouvert|fermé|verrouillé|déverrouillé|"
            r"réglé|baissé|monté|activé|désactivé|lancé|arrêté)\w*"
        ),
        re.compile(r"^\s*(?:c'est )?fait\b"),
    ),
    "es": (
        re.compile(
            r"\b(?:he|ha sido|han sido|está ahora|ya está)\s+(?:\w+\s+)?"
            r"(?:encendido|apagado|abierto|cerrado|bloqueado|desbloqueado|"
            r"ajustado|activado|desactivado|puesto)\w*"
        ),
        re.compile(r"^\s*hecho\b"),
    ),
    "it": (
        re.compile(
            r"\b(?:ho|è stat[oa]|sono stat[ie]|è ora)\s+(?:\w+\s+)?"
            r"(?:acces|spent|apert|chius|bloccat|sbloccat|impostat|attivat|"
            r"disattivat)\w*"
        ),
        re.compile(r"^\s*fatto\b"),
    ),
    "nl": (
        re.compile(
            r"\b(?:ik heb|is|zijn|werd|werden)\b.{0,60}?\b(?:aangezet|uitgezet|"
            r"ingeschakeld|uitgeschakeld|geopend|gesloten|vergrendeld|ontgrendeld|"
            r"ingesteld|gedimd)\b"
        ),
        re.compile(r"^\s*klaar\b"),
    ),
}
# Words that make a sentence a statement of how things were: no action in it.
_ALREADY: Final = re.compile(
    r"\b(?:already|still|schon|bereits|noch|już|nadal|wciąż|déjà|toujours|"
    r"ya|todavía|già|ancora|al|nog)\b"
)
_SENTENCE: Final = re.compile(r"[^.!?\n]+[.!?]*")
# The longest answer read: a claim is said early, and spoken answers are short.
_MAX_CHARS: Final = 2_000


def claims_done(text: str, language: str) -> bool:
    """Tell whether an answer says that something was done."""
    own = base_language(language)
    patterns = [
        pattern
        for code in dict.fromkeys((own, "en"))
        for pattern in _CLAIMS.get(code, ())
    ]
    for sentence in _SENTENCE.findall(text[:_MAX_CHARS].casefold()):
        said = sentence.strip().replace("\u2019", "'")
        if said.endswith("?") or _ALREADY.search(said):
            continue
        if any(pattern.search(said) for pattern in patterns):
            return True
    return False
