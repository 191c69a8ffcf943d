"""Norwegian Bokmål: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="nb",
    name="Norwegian Bokmål",
    question_words=(
        "er var hva hvilken hvilket hvilke hvor hvordan når hvem hvorfor finnes "
        "står"
    ),
    asking=(
        "fortell meg", "si meg", "si fra",
    ),
    polite=(
        "kan du", "kunne du", "vil du", "ville du", "gidder du", "får jeg",
        "vær så snill", "vær snill", "er du snill",
    ),
    showing="eksempel eksempler forklar beskriv",
    yes=(
        "ja", "jo", "jepp", "javisst", "selvfølgelig", "greit", "ok", "okei", "okay",
        "gjør det", "kjør", "kjør på", "ja takk", "ja ja", "gjerne", "bekreft",
        "bekrefter", "absolutt", "helt sikkert",
    ),
    after_yes=(
        "takk", "gjerne", "gjør det", "kjør",
    ),
    no=(
        "nei", "ikke", "aldri", "avbryt", "stopp", "vent", "senere", "glem det",
        "kanskje", "la være", "la vær",
    ),
    claims=(
        (
            r"\b(?:jeg har|har jeg)\b.{0,60}?\b(?:skrudd|slått|tent|slukket|"
            r"slokket|åpnet|lukket|låst|startet|stoppet|stilt|endret|aktivert|"
            r"deaktivert|dimmet)\b"
        ),
        (
            r"\b(?:er|ble)\s+(?:nå\s+blitt|nå|blitt)\s+(?:\w+\s+)?(?:skrudd|slått|"
            r"tent|slukket|slokket|åpnet|lukket|låst|startet|stoppet|stilt|"
            r"aktivert|deaktivert)\b"
        ),
        (
            r"\b(?:nå\s+(?:er|ble)|ble|er\s+nå)\s+(?:\w+\s+){0,3}?(?:skrudd|slått|tent|"
            r"slukket|slokket|åpnet|lukket|låst|startet|stoppet|stilt|aktivert|"
            r"deaktivert)\b"
        ),
        r"\b(?:skrudde|slo|tente|slukte|låste|satte)\b",
        r"^\s*(?:ferdig|gjort|klart)\b",
    ),
    already="allerede fortsatt fremdeles ikke",
    kinds={
        "light": "lys lyset lysene lampe lampen lamper lampene",
        "switch": "stikkontakt stikkontakten stikkontakter",
        "fan": "vifte viften vifter",
        "cover": "persienne persienner rullegardin rullegardiner",
        "media_player": "tv fjernsyn høyttaler høyttalere musikk",
        "climate": "varme oppvarming termostat",
        "lock": "lås låsen",
    },
    everything="alt alle",
    besides="unntatt utenom unntak bortsett",
    back="dem også igjen",
    units="prosent grad grader",
    verbs={
        "lock": "låse {names}",
        "unlock": "låse opp {names}",
        "open": "åpne {names}",
        "close": "lukke {names}",
        "press": "trykke på {names}",
        "run": "kjøre {names}",
        "turn on": "slå på {names}",
        "turn off": "slå av {names}",
        "stop": "stoppe {names}",
    },
    and_="og",
    more="{count} til",
    acts_on="{action}, som styrer {names}",
    link="en lenke",
    decimal=",",
    kind_verbs="lås",
)  # fmt: skip
