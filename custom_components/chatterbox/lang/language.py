"""What Chatterbox reads and says in one language, besides its translations.

Home Assistant's translations (translations/<code>.json) hold the sentences
the agent says and the settings screens. Home Assistant itself holds the
names of states (read by tools/statements.py) and the sentences of Assist
(asked by tools/intents.py). What neither has is here: the words the checks
read in a user's message or a model's answer, and the few words the agent
puts into a sentence of its own. One module a language, in lang/words/.

Word lists are written as one line of words; phrases as strings of words.
Every field is required: a language without a field's words would be a
language the checks do not read (tests/lang/test_words.py holds them to it).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class Language:
    """The words of one language."""

    code: str
    """Home Assistant's code of the language: "de", "nb"."""
    name: str
    """Its name in English, as the README lists it: "Norwegian Bokmål"."""

    # A question is answered, not acted on (lang/questions.py).
    question_words: str
    """Words that open a question: "is what where", "ist was wo"."""
    asking: tuple[str, ...]
    """How a request to be told opens without a question word: "tell me"."""
    polite: tuple[str, ...]
    """How a request phrased as a question opens or ends: "can you", "please"."""
    showing: str
    """Words that ask for an example or an explanation, not for a change."""

    # An answer to the agent's question for a yes (lang/answers.py).
    yes: tuple[str, ...]
    """Phrases that confirm on their own."""
    after_yes: tuple[str, ...]
    """Phrases that may follow a yes without changing it: "please"."""
    no: tuple[str, ...]
    """Negations and hesitations: any of them anywhere drops the held calls,
    and a sentence with one states nothing (tools/statements.py)."""

    # An answer that says something was done (lang/claims.py).
    claims: tuple[str, ...]
    """Regular expressions, on folded text, of a statement that an action
    was done: the perfect or passive of its verbs, or "done"."""
    already: str
    """Words that make a sentence no claim: it says how things were
    ("already", "still"), or that a thing was not done ("nicht", "ikke"),
    where a claim's pattern may hold them ("Ich habe es nicht eingeschaltet")."""

    # What a request names (lang/kinds.py, tools/command.py).
    kinds: Mapping[str, str]
    """The words that name the devices of a domain, singular and plural."""
    everything: str
    """Words for everything: "switch off everything in the kitchen"."""
    besides: str
    """Words that take something out of a request: "except", "außer"."""
    back: str
    """Words that refer back to what was named before: "it", "too", "again".
    No word that is also an article: a request with one names something."""
    units: str
    """Words for percent and degrees after a number: "20 percent"."""

    # What the agent says in a sentence of its own (lang/wording.py, speech.py).
    verbs: Mapping[str, str]
    """Each English verb of an action as the language says it, with {names}
    where the names go: "unlock": "{names} aufschließen". Empty for English."""
    and_: str
    """The word that joins the last item of a list: "and"."""
    more: str
    """How the names past the first few are counted: "{count} more"."""
    acts_on: str
    """What a script acting on guarded devices adds: "{action}, which acts
    on {names}"."""
    link: str
    """What a dropped URL is said as, after any preposition: no article that
    a case would change ("Link", not "ein Link")."""
    decimal: str
    """The decimal separator: "." or ","."""
    percent: str = "{number} %"
    """How a percentage is written: "{number}%" in English."""
    kind_verbs: str = field(default="")
    """Kind words that are as often the verb of a request ("lock up for the
    night", "light the candles"): in their singular, they name no kind."""
