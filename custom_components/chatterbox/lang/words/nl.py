"""Dutch: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="nl",
    name="Dutch",
    question_words="brandt hoe is staan staat waar waarom wanneer wat welke wie zijn",
    asking=(
        "vertel", "zeg me",
    ),
    polite=(
        "kun je", "kan je", "kunt u", "zou je", "wil je", "alsjeblieft",
    ),
    showing="voorbeeld voorbeelden uitleggen beschrijf",
    yes=(
        "ja", "jawel", "jazeker", "ja hoor", "zeker", "prima", "oké", "ok", "okay",
        "doe maar", "doe het", "ga je gang", "ga door", "goed", "is goed", "akkoord",
        "natuurlijk", "ja ja", "ik bevestig", "zeker weten",
    ),
    after_yes=(
        "alsjeblieft", "alstublieft", "graag", "doe maar", "doe het",
    ),
    no=(
        "nee", "neen", "niet", "nooit", "geen", "annuleer", "annuleren", "stop",
        "stoppen", "wacht", "later", "laat maar", "misschien", "straks",
    ),
    claims=(
        (
            r"\b(?:ik heb|is|zijn|werd|werden)\b.{0,60}?\b(?:aangezet|uitgezet|"
            r"ingeschakeld|uitgeschakeld|geopend|gesloten|vergrendeld|ontgrendeld|"
            r"ingesteld|gedimd)\b"
        ),
        r"^\s*klaar\b",
    ),
    already="al nog niet",
    kinds={
        "light": "lamp lampen licht lichten",
        "switch": "stopcontact stopcontacten stekker",
        "fan": "ventilator ventilatoren",
        "cover": "rolluik rolluiken",
        "media_player": "televisie tv speaker muziek",
        "climate": "verwarming thermostaat",
        "lock": "slot sloten",
    },
    everything="alles alle",
    besides="behalve",
    back="ze hem ook weer opnieuw",
    units="procent graad graden",
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
    link="een link",
    decimal=",",
    percent="{number}%",
)  # fmt: skip
