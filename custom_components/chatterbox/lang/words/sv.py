"""Swedish: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="sv",
    name="Swedish",
    question_words="finns hur när vad var varför vem vilka vilken vilket är",
    asking=(
        "berätta", "tala om",
    ),
    polite=(
        "kan du", "kan ni", "kunde du", "skulle du", "vill du", "går det",
        "var snäll", "snälla",
    ),
    showing="exempel förklara beskriv",
    yes=(
        "ja", "japp", "jadå", "javisst", "visst", "absolut", "okej", "ok", "gör det",
        "kör", "kör på", "självklart", "ja tack", "ja ja", "gärna",
    ),
    after_yes=(
        "tack", "gärna", "gör det", "kör",
    ),
    no=(
        "nej", "inte", "aldrig", "avbryt", "stopp", "vänta", "senare", "glöm det",
        "kanske", "strunta i det",
    ),
    claims=(
        (
            r"\b(?:jag har|har jag)\b.{0,60}?\b(?:tänt|släckt|slagit|stängt|startat|"
            r"stoppat|öppnat|låst|ställt|ändrat|aktiverat|avaktiverat|dimmat)\b"
        ),
        (
            r"\b(?:har|blev|är)\s+(?:nu\s+)?(?:\w+\s+)?(?:tänts|släckts|öppnats|"
            r"stängts|låsts|startats|stoppats|aktiverats|ställts)\b"
        ),
        (
            r"\b(?:är|blev) nu\s+(?:tänd|tänt|släckt|på|av|öppen|öppet|stängd|"
            r"stängt|låst|upplåst)\b"
        ),
        (
            r"\b(?:nu\s+(?:är|blev)|blev)\s+(?:\w+\s+){0,3}?(?:tänd|tänt|släckt|"
            r"öppnad|öppnat|stängd|stängt|låst|upplåst|startad|stoppad|påslagen|"
            r"avstängd)\b"
        ),
        r"\b(?:tände|släckte|öppnade|stängde|låste|startade|stoppade|satte)\b",
        r"^\s*(?:klart|gjort)\b",
    ),
    already="redan fortfarande inte",
    kinds={
        "light": "lampa lampan lampor lamporna ljus ljuset",
        "switch": "uttag uttaget",
        "fan": "fläkt fläkten fläktar",
        "cover": "persienn persienner rullgardin rullgardiner",
        "media_player": "tv teve högtalare musik",
        "climate": "värme termostat",
        "lock": "lås låset",
    },
    everything="allt alla",
    besides="utom förutom",
    back="dem också igen",
    units="procent grad grader",
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
    link="en länk",
    decimal=",",
    kind_verbs="lås",
)  # fmt: skip
