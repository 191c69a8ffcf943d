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
"schon aus", "już włączone"), claims nothing. The patterns are each language's
(lang/words); those of the conversation's language and of English count.
"""

from functools import lru_cache
import re
from typing import Final

from . import chain, word_set
from .text import sentences, words_in

# The longest answer read: a claim is said early, and spoken answers are short.
_MAX_CHARS: Final = 2_000


@lru_cache(maxsize=64)
def _claims(language: str) -> tuple[re.Pattern[str], ...]:
    """Return the patterns of a claim in every language of the chain."""
    return tuple(re.compile(claim) for each in chain(language) for claim in each.claims)


def claims_done(text: str, language: str) -> bool:
    """Tell whether an answer says that something was done."""
    already = word_set(language, "already")
    for sentence in sentences(text[:_MAX_CHARS].casefold()):
        said = sentence.text.replace("\u2019", "'")
        if sentence.asks or not already.isdisjoint(words_in(said)):
            continue
        if any(pattern.search(said) for pattern in _claims(language)):
            return True
    return False
