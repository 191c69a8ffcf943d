"""English: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="en",
    name="English",
    question_words=(
        "are did do does has have how is was were what whats when where "
        "which who whose why"
    ),
    asking=(
        "tell me", "let me know",
    ),
    polite=(
        "can you", "could you", "would you", "will you", "can i", "could i",
        "is it possible", "would it be", "would you mind", "do me", "when you",
        "how about", "what about", "please",
    ),
    showing="example examples explain describe",
    yes=(
        "yes", "yeah", "yep", "yup", "yes yes", "sure", "ok", "okay", "alright",
        "all right", "confirm", "confirmed", "i confirm", "affirmative", "do it",
        "please do", "go ahead", "go for it", "proceed", "of course", "absolutely",
        "definitely", "certainly", "correct", "yes i do", "i do", "sure thing",
    ),
    after_yes=(
        "please", "do it", "go ahead", "go for it", "please do", "proceed",
    ),
    no=(
        "no", "nope", "nah", "not", "dont", "do not", "never", "cancel", "stop",
        "wait", "later", "never mind", "nevermind", "hold on", "hang on", "abort",
        "negative", "maybe", "perhaps", "isnt", "doesnt", "wont", "cant", "shouldnt",
        "didnt", "couldnt", "wouldnt", "wasnt", "arent", "havent", "hasnt",
        "rather not", "forget it", "skip",
    ),
    claims=(
        (
            r"\b(?:i|i've|i have|we've|we have)\s+(?:just\s+|now\s+|also\s+|"
            r"successfully\s+)?(?:turned|switched|set|locked|unlocked|opened|closed|"
            r"shut|dimmed|brightened|started|stopped|activated|deactivated|adjusted|"
            r"changed|raised|lowered|increased|decreased|paused|resumed)\b"
        ),
        (
            r"\b(?:has|have|had) been\s+(?:\w+\s+)?(?:turned|switched|set|locked|"
            r"unlocked|opened|closed|shut|dimmed|brightened|started|stopped|"
            r"activated|deactivated|adjusted|changed|raised|lowered|increased|"
            r"decreased|paused|resumed)\b"
        ),
        r"\b(?:is|are) now\s+(?:on|off|open|closed|locked|unlocked|set)\b",
        (
            r"\b(?:is|are)\s+(?:now\s+)?(?:turned|switched|set|locked|unlocked|"
            r"opened|closed|shut|dimmed|brightened|started|stopped|activated|"
            r"deactivated|adjusted|changed|raised|lowered|increased|decreased|"
            r"paused|resumed)\s+(?:on|off)\b"
        ),
        r"^\s*(?:all\s+)?done\b",
    ),
    already="already still",
    # Not "switch": "switch off everything" names no kind of device. Not
    # "weather": "the weather in Paris" is no question about the home's.
    kinds={
        "light": "light lights lamp lamps lighting",
        "switch": "plug plugs socket sockets outlet outlets",
        "fan": "fan fans",
        "cover": "blind blinds shade shades shutter shutters curtain curtains",
        "media_player": "tv television speaker speakers music",
        "climate": "heating heater thermostat",
        "lock": "lock locks",
    },
    everything="everything all every",
    besides="except but besides apart excluding",
    back="it them too again also",
    units="percent degree degrees",
    verbs={
    },
    and_="and",
    more="{count} more",
    acts_on="{action}, which acts on {names}",
    link="a link",
    decimal=".",
    percent="{number}%",
    kind_verbs="lock light switch",
)  # fmt: skip
