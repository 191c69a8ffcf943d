"""Italian: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="it",
    name="Italian",
    question_words=(
        "chi come dove perché qual quale "
        "quali quando quanta quanti quanto sono è"
    ),
    asking=(
        "dimmi",
    ),
    polite=(
        "puoi", "potresti", "può", "potrebbe", "per favore",
    ),
    showing="esempio esempi spiega spiegami descrivi",
    yes=(
        "sì", "si", "certo", "va bene", "d'accordo", "ok", "okay", "fallo", "procedi",
        "vai", "esatto", "certamente", "assolutamente", "confermo", "sì sì",
        "certo che sì", "senz'altro", "volentieri", "vai pure", "fallo pure",
        "procedi pure",
    ),
    after_yes=(
        "per favore", "per piacere", "fallo", "vai",
    ),
    no=(
        "no", "non", "mai", "annulla", "ferma", "fermati", "stop", "aspetta",
        "più tardi", "dopo", "lascia perdere", "lascia stare", "forse", "niente",
        "nessuno",
    ),
    claims=(
        (
            r"\b(?:ho|è stat[oa]|sono stat[ie]|è ora)\s+(?:\w+\s+)?(?:acces|spent|"
            r"apert|chius|bloccat|sbloccat|impostat|attivat|disattivat)\w*"
        ),
        r"^\s*fatto\b",
    ),
    already="già ancora",
    kinds={
        "light": "luce luci lampada lampade",
        "switch": "presa prese",
        "fan": "ventilatore ventilatori",
        "cover": "tapparella tapparelle",
        "media_player": "televisore musica",
        "climate": "riscaldamento termostato",
        "lock": "serratura serrature",
    },
    everything="tutto tutti tutte",
    besides="tranne eccetto salvo",
    back="anche ancora",
    units="grado gradi",
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
    link="un link",
    decimal=",",
    percent="{number}%",
)  # fmt: skip
