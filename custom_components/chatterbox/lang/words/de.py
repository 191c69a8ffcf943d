"""German: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="de",
    name="German",
    question_words=(
        "brennt haben hat ist laufen läuft sind wann war waren warum was welche "
        "welcher welches wer wie wo"
    ),
    asking=(
        "sag mir", "sagen sie mir",
    ),
    polite=(
        "kannst du", "könntest du", "können sie", "könnten sie", "würdest du",
        "würden sie", "ist es möglich", "wie wäre", "was ist mit", "bitte",
    ),
    showing="beispiel beispiele erkläre erklär erklären beschreibe",
    yes=(
        "ja", "jawohl", "jap", "jo", "klar", "na klar", "sicher", "ok", "okay",
        "gerne", "mach das", "mach es", "los", "leg los", "genau", "richtig",
        "auf jeden fall", "bestätigt", "ich bestätige", "einverstanden", "natürlich",
        "ja genau", "in ordnung",
    ),
    after_yes=(
        "bitte", "gerne", "mach das", "mach es", "bitte schön",
    ),
    no=(
        "nein", "nee", "ne", "nö", "nicht", "kein", "keine", "niemals", "nie",
        "abbrechen", "abbruch", "stopp", "stop", "halt", "warte", "später",
        "vergiss es", "vielleicht", "moment", "lass es", "lass das",
    ),
    claims=(
        (
            r"\b(?:habe|hab|wurde|wurden)\b.{0,60}?\b(?:eingeschaltet|ausgeschaltet|"
            r"angeschaltet|abgeschaltet|angemacht|ausgemacht|eingestellt|gestellt|"
            r"geöffnet|geschlossen|abgeschlossen|aufgeschlossen|verriegelt|"
            r"entriegelt|gedimmt|gestartet|gestoppt|aktiviert|deaktiviert|erhöht|"
            r"gesenkt)\b"
        ),
        (
            r"\b(?:ist|sind) (?:jetzt|nun) (?:an|aus|offen|zu|(?:eingeschaltet|"
            r"ausgeschaltet|angeschaltet|abgeschaltet|angemacht|ausgemacht|"
            r"eingestellt|gestellt|geöffnet|geschlossen|abgeschlossen|"
            r"aufgeschlossen|verriegelt|entriegelt|gedimmt|gestartet|gestoppt|"
            r"aktiviert|deaktiviert|erhöht|gesenkt))\b"
        ),
        r"^\s*erledigt\b",
    ),
    already="schon bereits noch nicht",
    kinds={
        "light": "licht lichter lampe lampen leuchte leuchten",
        "switch": "schalter steckdose steckdosen",
        "fan": "ventilator ventilatoren lüfter",
        "cover": "rollladen rollläden jalousie jalousien",
        "media_player": "fernseher lautsprecher musik",
        "climate": "heizung thermostat",
        "lock": "schloss türschloss",
    },
    everything="alles alle",
    besides="außer ausser ausgenommen",
    back="es sie ihn auch wieder nochmal ebenfalls",
    units="prozent grad",
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
    link="Link",
    decimal=",",
)  # fmt: skip
