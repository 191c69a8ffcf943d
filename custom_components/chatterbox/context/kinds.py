"""The words that name kinds of devices: "the lights", "die Lampen", "wentylatory".

A request names a kind to mean the devices of a domain: "the lights in the
attic" are the attic's lights, not its fans. The words are data, one entry
per domain, in the languages of the question words (tools/questions.py).
"""

from collections.abc import Iterable, Mapping
from typing import Final


def word_list(text: str) -> frozenset[str]:
    """Return the words of a list written as one line."""
    return frozenset(text.split())


# Words that name the devices of a domain, in English, German, Polish,
# French, Spanish, Italian and Dutch, singular and plural.
DOMAIN_WORDS: Final[Mapping[str, frozenset[str]]] = {
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
    "lock": word_list(
        "lock locks schloss türschloss zamek zamki serrure serrures cerradura "
        "cerraduras serratura serrature"
    ),
    # Not "weather": "the weather in Paris" is no question about the home's.
}

# The domains "everything" switches, when a request names no kind of device.
SWITCHED_DOMAINS: Final = frozenset(
    {"light", "switch", "fan", "input_boolean", "media_player", "humidifier"}
)
# What a request names but cannot act on: it reads them, or they report.
READ_ONLY_DOMAINS: Final = frozenset(
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


def kinds_named(words: Iterable[str]) -> set[str]:
    """Return the domains that the words, folded to lower case, name."""
    said = set(words)
    return {domain for domain, names in DOMAIN_WORDS.items() if said & names}


_KIND_WORDS: Final = frozenset().union(*DOMAIN_WORDS.values())


def kind_words(words: Iterable[str]) -> list[str]:
    """Return the words that name a kind of device, as said."""
    return [word for word in words if word in _KIND_WORDS]
