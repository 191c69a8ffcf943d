"""The user's message of a turn, read once for every reader of the turn.

What a message asks (a question about the home, an example), names and
reaches is read by several readers: the state question, the mentions, the
command and the scope (tools/). They take this one value, read from the chat
log once, rather than each searching the chat log and cutting the same
words again. The turn's language, which they read the words in, is the
turn's own input, beside it.
"""

from dataclasses import dataclass
from typing import Final

from homeassistant.components import conversation
from homeassistant.helpers import llm

from ..lang.questions import MAX_CHARS
from ..lang.text import Clause, clauses, words_in
from .mentions import MAX_SENTENCE_CHARS

# How many earlier user messages are read for what a request refers back to.
EARLIER_MESSAGES: Final = 3


@dataclass(frozen=True, slots=True)
class Message:
    """The user's message of a turn, as the turn's readers take it."""

    text: str
    """As written."""
    words: tuple[str, ...]
    """Its words, folded for comparison: of its first MAX_SENTENCE_CHARS."""
    clauses: tuple[Clause, ...]
    """Its clauses' words, of its first lang.questions.MAX_CHARS."""
    api: llm.APIInstance
    """The turn's API: who speaks, from which device, and what it may reach."""
    earlier: tuple[tuple[str, ...], ...]
    """The words of the user's last EARLIER_MESSAGES messages before it, the
    newest last."""

    @property
    def assist(self) -> bool:
        """Tell whether the turn has Assist, the API that reads and acts on the home."""
        return llm.LLM_API_ASSIST in self.api.api.id.split("|")


def read_message(chat_log: conversation.ChatLog) -> Message | None:
    """Return the user's message of the turn, read once.

    None without an API (no reader has anything to hold the turn to), or when
    the turn's last message is not the user's.
    """
    api = chat_log.llm_api
    said = chat_log.content[-1] if chat_log.content else None
    if api is None or not isinstance(said, conversation.UserContent):
        return None
    text = said.content
    earlier = [
        item.content
        for item in chat_log.content[:-1]
        if isinstance(item, conversation.UserContent)
    ]
    return Message(
        text,
        words_in(text[:MAX_SENTENCE_CHARS]),
        clauses(text[:MAX_CHARS]),
        api,
        tuple(
            words_in(before[:MAX_SENTENCE_CHARS])
            for before in earlier[-EARLIER_MESSAGES:]
        ),
    )
