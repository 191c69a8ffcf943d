"""A request for a change, and what its answer is held to.

A request that asks for a change, not a question about the home, is checked
when the model answers:
- an answer that claims a change must come after a call that made one
  (claims.py);
- every part the request names is acted on: each entity it names, and in each
  area it names on its own (no entity it names is there), the area's exposed
  devices of the domains the request names, or of every domain that switches
  on and off when it names none. "Switch off everything in the kitchen"
  means the kitchen's lights, switches, fans and media players; "the lights
  in the kitchen and the hall" the lights of both.
A part left over gets the model one more round, naming it.

The words for kinds of devices are data, one entry per domain, in the
languages of the question words (questions.py).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
import re
from typing import Any, Final

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er

from ..const import CONF_CHECK_CLAIMS, CONF_EVERY_PART
from ..context.mentions import Mentions, area_of
from .questions import word_list

# Words that name the devices of a domain, in English, German, Polish,
# French, Spanish, Italian and Dutch, singular and plural.
_DOMAIN_WORDS: Final[Mapping[str, frozenset[str]]] = {
    "light": word_list(
        "light lights lamp lamps licht lichter lampe lampen leuchte leuchten "
        "światło światła lampa lampy lampę lumière lumières luz luces lámpara "
        "lámparas luce luci lampada lampade"
    ),
    # Not "switch": "switch off everything" names no kind of device.
    "switch": word_list(
        "plug plugs socket sockets outlet outlets schalter "
        "steckdose steckdosen przełącznik gniazdko gniazdka wtyczka prise "
        "prises enchufe enchufes presa prese stopcontact"
    ),
    "fan": word_list(
        "fan fans ventilator ventilatoren lüfter wentylator wentylatory "
        "ventilateur ventilateurs ventilador ventiladores ventilatore"
    ),
    "cover": word_list(
        "blind blinds shutter shutters curtain curtains rollladen rollläden "
        "jalousie jalousien rolety roleta żaluzje zasłony volet volets store "
        "stores persiana persianas tapparella tapparelle rolluik rolluiken"
    ),
    "media_player": word_list(
        "tv television speaker speakers music fernseher lautsprecher musik "
        "telewizor głośnik głośniki muzyka télé télévision enceinte musique "
        "televisión altavoz música televisore musica"
    ),
    "climate": word_list(
        "heating heater thermostat heizung thermostat ogrzewanie termostat "
        "grzejnik chauffage thermostat calefacción termostato riscaldamento "
        "verwarming"
    ),
}


# The domains "everything" switches, when a request names no kind of device.
_SWITCHED: Final = frozenset(
    {"light", "switch", "fan", "input_boolean", "media_player", "humidifier"}
)
# Words for everything and all: an area named without a kind of device is a
# part only with one of them ("switch off everything in the kitchen", not
# "set the kitchen to 21 degrees").
_EVERYTHING: Final = word_list(
    "everything all every alles alle wszystko wszystkie wszystkich tout tous "
    "toutes todo todos todas tutto tutti tutte"
)
# Words that take something out of a request: its parts are not told apart.
_EXCEPT: Final = word_list(
    "except but besides apart excluding außer ausser ausgenommen oprócz poza "
    "prócz sauf excepto salvo menos tranne eccetto behalve"
)
# What a request names but cannot act on: it reads them, or they report.
_READ_ONLY_DOMAINS: Final = frozenset(
    {
        "sensor",
        "binary_sensor",
        "weather",
        "sun",
        "zone",
        "person",
        "device_tracker",
        "event",
        "update",
        "calendar",
        "image",
    }
)
_WORD: Final = re.compile(r"\w+")
# The most parts a request is held to: a room of forty lamps is one part.
MAX_PARTS: Final = 20


@dataclass(frozen=True, slots=True)
class Command:
    """What a turn's answer is checked against: the request, a change or not."""

    language: str
    check_claims: bool
    """An answer that claims a change must come after a call that made one."""
    parts: tuple[str, ...] = ()
    """The entity ids a request for a change names to act on, in order."""
    asked_about: tuple[str, ...] = ()
    """The entity ids a question names: without an answer, their states are it."""


def command_for(
    hass: HomeAssistant,
    options: Mapping[str, Any],
    chat_log: conversation.ChatLog,
    mentions: Mentions,
    *,
    question: bool,
) -> Command | None:
    """Return what the turn's answer is held to; None without tools.

    A question asks for no change: it has no parts, and its answer says how
    things are ("the lamp is switched on"), which is no claim of an action.
    """
    api = chat_log.llm_api
    said = chat_log.content[-1]
    if api is None or not isinstance(said, conversation.UserContent):
        return None
    parts = (
        request_parts(hass, said.content, mentions)
        if options.get(CONF_EVERY_PART, True) and not question
        else ()
    )
    return Command(
        api.llm_context.language or "en",
        check_claims=bool(options.get(CONF_CHECK_CLAIMS, True)) and not question,
        parts=parts,
        asked_about=mentions.entities if question else (),
    )


def left_over(command: Command, acted_on: frozenset[str] | None) -> list[str]:
    """Return the parts no call has acted on; none when that cannot be told."""
    if acted_on is None:
        return []
    return [part for part in command.parts if part not in acted_on]


def request_parts(
    hass: HomeAssistant, sentence: str, mentions: Mentions
) -> tuple[str, ...]:
    """Return the entities a request names to act on.

    None when it takes something out ("everything but the fridge"): which
    named device is meant to stay as it is cannot be told from the words.
    """
    words = set(_WORD.findall(sentence.casefold()))
    if words & _EXCEPT:
        return ()
    entities = er.async_get(hass)
    devices = dr.async_get(hass)
    named = [e for e in mentions.named if e.split(".", 1)[0] not in _READ_ONLY_DOMAINS]
    named_in = {area_of(entities.async_get(e), devices) for e in mentions.named}
    # A kind word in a device's name names that device, not the kind: the
    # "light" of "kitchen light" asks for no lights in another room.
    kinds = words.difference(
        *(_WORD.findall(names_of(hass, [e]).casefold()) for e in mentions.named)
    )
    domains = {domain for domain, said in _DOMAIN_WORDS.items() if kinds & said} or (
        _SWITCHED if kinds & _EVERYTHING else set()
    )
    by_area = [
        entity_id
        for entity_id in mentions.in_areas
        if entity_id.split(".", 1)[0] in domains
        and area_of(entities.async_get(entity_id), devices) not in named_in
    ]
    return (*named, *by_area)[:MAX_PARTS]


def names_of(hass: HomeAssistant, entity_ids: Sequence[str]) -> str:
    """Name entities for the model: "Kitchen light, Hall lamp"."""
    return ", ".join(
        state.name if (state := hass.states.get(entity_id)) else entity_id
        for entity_id in entity_ids
    )
