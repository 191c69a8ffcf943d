"""What a turn's words name: the user's message, or the one it refers back to.

"Turn it off again" names nothing, and means what the turn before named. A
request that names nothing itself, and refers back with a word such as "it",
"them", "too" or "again", brings into view what the last messages named (the
nearest that named anything, of the last few). Only a request for a change:
"what day is it?" refers to nothing, and a question gets states, which for
the wrong devices would be an answer to something not asked. What comes from
an earlier message is for the model to read, never a part the request is
held to (tools/command.py): which of it "it" means is the model's to tell.
"""

from dataclasses import replace
from typing import Final

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, llm

from ..lang import word_set
from ..lang.text import words_in
from .mentions import MAX_SENTENCE_CHARS, Mentions, find_mentions

# How many earlier user messages are read for what a request refers back to.
EARLIER_MESSAGES: Final = 3


def assist_request(
    chat_log: conversation.ChatLog,
) -> tuple[llm.APIInstance, conversation.UserContent] | None:
    """Return the turn's API and the user's message, for an agent with Assist.

    None without the Assist API, which reads and acts on the home, or when
    the turn's last message is not the user's.
    """
    api = chat_log.llm_api
    said = chat_log.content[-1] if chat_log.content else None
    if (
        api is None
        or llm.LLM_API_ASSIST not in api.api.id.split("|")
        or not isinstance(said, conversation.UserContent)
    ):
        return None
    return api, said


def turn_mentions(
    hass: HomeAssistant, chat_log: conversation.ChatLog, *, request: bool = False
) -> Mentions:
    """Return what the user's message of this turn names, or refers back to.

    Only for an agent with the Assist API, which reads and acts on the home:
    nothing is looked up for one without it. A name that several devices
    share is the one in the area of the satellite the user speaks to, as
    Home Assistant's intents take it, when the words name no area. Request
    says the message asks for a change, which may refer back.
    """
    if (request_of := assist_request(chat_log)) is None:
        return Mentions()
    api, said = request_of
    devices = dr.async_get(hass)
    satellite = (
        devices.async_get(api.llm_context.device_id)
        if api.llm_context.device_id
        else None
    )
    here = satellite.area_id if satellite is not None else None
    language = api.llm_context.language or "en"
    found = find_mentions(hass, said.content, here, language=language)
    if found or not request or not refers_back(said.content, language):
        return found
    earlier = [
        c for c in chat_log.content[:-1] if isinstance(c, conversation.UserContent)
    ]
    for message in reversed(earlier[-EARLIER_MESSAGES:]):
        if before := find_mentions(hass, message.content, here, language=language):
            return replace(before, earlier=True)
    return found


def refers_back(sentence: str, language: str) -> bool:
    """Tell whether a sentence has a word that refers to what was said before.

    In the conversation's language or in English (lang/words): the Polish
    "to" ("it") is the English "to".
    """
    words = words_in(sentence[:MAX_SENTENCE_CHARS])
    return not word_set(language, "back").isdisjoint(words)
