"""Danish: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="da",
    name="Danish",
    question_words=(
        "er hvad hvem hvilke hvilken "
        "hvilket hvor hvordan hvorfor hvornår var"
    ),
    asking=(
        "fortæl", "sig mig",
    ),
    polite=(
        "kan du", "kunne du", "vil du", "ville du", "gider du", "må jeg", "vær sød",
        "venligst",
    ),
    showing="eksempel eksempler forklar",
    yes=(
        "ja", "jo", "jep", "javel", "klart", "selvfølgelig", "okay", "ok", "gør det",
        "kør", "bare gør det", "ja tak", "ja ja", "gerne",
    ),
    after_yes=(
        "tak", "gerne", "gør det",
    ),
    no=(
        "nej", "ikke", "aldrig", "annuller", "stop", "vent", "senere", "glem det",
        "måske", "lad være",
    ),
    claims=(
        (
            r"\b(?:jeg har|har jeg)\b.{0,60}?\b(?:tændt|slukket|åbnet|lukket|låst|"
            r"startet|stoppet|indstillet|ændret|aktiveret|deaktiveret|dæmpet|"
            r"slået)\b"
        ),
        (
            r"\b(?:er|blev)\s+(?:nu\s+blevet|nu|blevet)\s+(?:\w+\s+)?(?:tændt|"
            r"slukket|åbnet|lukket|låst|oplåst|startet|stoppet|indstillet|aktiveret|"
            r"deaktiveret)\b"
        ),
        (
            r"\b(?:nu\s+(?:er|blev)|blev|er\s+nu)\s+(?:\w+\s+){0,3}?(?:tændt|slukket|"
            r"åbnet|lukket|låst|oplåst|startet|stoppet|indstillet|aktiveret|"
            r"deaktiveret)\b"
        ),
        r"\b(?:tændte|slukkede|åbnede|lukkede|låste|startede|stoppede|satte)\b",
        r"^\s*(?:klar|færdig|gjort)\b",
    ),
    already="allerede stadig ikke",
    kinds={
        "light": "lampe lampen lamper lys lyset",
        "switch": "stikkontakt stikkontakten",
        "fan": "ventilator ventilatoren blæser",
        "cover": "persienne persienner rullegardin",
        "media_player": "tv fjernsyn højttaler musik",
        "climate": "varme termostat",
        "lock": "lås låsen",
    },
    everything="alt alle",
    besides="undtagen undtaget bortset",
    back="dem også igen",
    units="procent grad grader",
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
    link="et link",
    decimal=",",
    kind_verbs="lås",
)  # fmt: skip
