"""What a turn's words name: the user's message, or the one it refers back to.

"Turn it off again" names nothing, and means what the turn before named. A
request that names nothing itself, and refers back with a word such as "it",
"them", "too" or "again", brings into view what the last messages named (the
nearest that named anything, of the last few). Only a request for a change:
"what day is it?" refers to nothing, and a question gets states, which for
the wrong devices would be an answer to something not asked. What comes from
an earlier message is for the model to read, never a part the request is
held to (tools/command.py): which of it "it" means is the model's to tell.

A request that names only areas goes on with the kinds of devices that the
message before acted on ("now the hall as well", after the kitchen light):
those are the parts it is held to there, its lights, not everything in it.
"""

from collections.abc import Iterable
from dataclasses import replace

from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr

from ..lang import word_set
from .mentions import Mentions, mentions_in
from .message import Message


def turn_mentions(
    hass: HomeAssistant,
    message: Message | None,
    language: str,
    *,
    request: bool = False,
) -> Mentions:
    """Return what the user's message of this turn names, or refers back to.

    Only for an agent with the Assist API, which reads and acts on the home:
    nothing is looked up for one without it. A name that several devices
    share is the one in the area of the satellite the user speaks to, as
    Home Assistant's intents take it, when the words name no area. Request
    says the message asks for a change, which may refer back, and whose
    areas said alone go on with the kinds of the request before: "now the
    hall as well", after the kitchen light, means the hall's lights.
    """
    if message is None or not message.assist:
        return Mentions()
    device_id = message.api.llm_context.device_id
    satellite = dr.async_get(hass).async_get(device_id) if device_id else None
    here = satellite.area_id if satellite is not None else None
    back = request and refers_back(message.words, language)
    found = mentions_in(hass, message.words, here, language=language)
    # Areas said alone, with no device nor kind, carry the kinds before.
    alone = found.areas and not (found.named or found.of_kinds)
    if request and message.earlier and alone:
        before = mentions_in(hass, message.earlier[-1], here, language=language)
        found = replace(found, carried=before.acted_kinds)
    if found or not back:
        return found
    for words in reversed(message.earlier):
        if before := mentions_in(hass, words, here, language=language):
            return replace(before, earlier=True)
    return found


def refers_back(words: Iterable[str], language: str) -> bool:
    """Tell whether a sentence's words refer to what was said before.

    In the conversation's language or in English (lang/words): the Polish
    "to" ("it") is the English "to".
    """
    return not word_set(language, "back").isdisjoint(words)
