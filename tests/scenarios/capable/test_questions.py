"""Questions about the home, answered right: yes, no, and how much.

The model answers from the states that come with a question, or reads the
home with GetLiveContext first; its answer is true, a "no" included ("No,
the garage door is closed"), and the user hears it as written.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import Story, expected, live, one, play, saying
from tests.helpers.llm_server import LLMServer

NEGATIVE = [
    one(
        "en-negative-garage-door",
        "Is the garage door open?",
        "No, the garage door is closed.",
        states={},
    ),
    one(
        "de-negative-coffee-machine",
        "Läuft die Kaffeemaschine?",
        "Nein, die Kaffeemaschine ist aus.",
        states={},
    ),
    one(
        "fr-negative-front-door",
        "Est-ce que la porte d'entrée est déverrouillée ?",
        "Non, la porte d'entrée est verrouillée.",
        states={},
    ),
    one(
        "es-negative-ceiling-light",
        "¿Está encendida la luz del techo?",
        "No, la luz del techo está apagada.",
        states={},
    ),
    one(
        "pl-negative-garage-door",
        "Czy brama garażowa jest otwarta?",
        "Nie, brama garażowa jest zamknięta.",
        states={},
    ),
    one(
        "it-negative-fan",
        "Il ventilatore è acceso?",
        "No, il ventilatore è spento.",
        states={},
    ),
    one(
        "nl-negative-desk-lamp",
        "Staat de bureaulamp aan?",
        "Nee, de bureaulamp is uit.",
        states={},
    ),
    one(
        "fr-negative-let-me-check",
        "Est-ce que le ventilateur tourne ?",
        saying("Je vérifie.", live()),
        "Non, le ventilateur est arrêté.",
        states={},
    ),
    one(
        "en-negative-left-on",
        "Did anyone leave the desk lamp on?",
        live(),
        "No, the desk lamp is off.",
        states={},
    ),
    one(
        "de-negative-music",
        "Läuft gerade Musik im Wohnzimmer?",
        live(),
        "Nein, der Wohnzimmerlautsprecher ist gerade pausiert.",
        states={},
    ),
    one(
        "es-negative-heating",
        "¿Está apagada la calefacción?",
        live(),
        "No, el termostato está en modo calefacción, a 20 °C.",
        states={},
    ),
]

READ = [
    one(
        "en-home-which-lights",
        "Which lights are on right now?",
        live(),
        "Right now the floor lamp, the kitchen light and the bedside lamp are on.",
        states={},
    ),
    one(
        "de-home-living-room-temperature",
        "Wie warm ist es gerade im Wohnzimmer?",
        live(),
        "Im Wohnzimmer sind es gerade 19,5 Grad.",
        states={},
    ),
    one(
        "fr-home-thermostat-setpoint",
        "Sur combien est réglé le thermostat ?",
        live(),
        "Le thermostat est réglé sur 20 °C, et il fait actuellement 19,5 °C dans le "
        "salon.",
        states={},
    ),
    one(
        "es-home-solar",
        "¿Cuánta energía están produciendo las placas solares?",
        live(),
        "Ahora mismo la producción solar es de 1250 vatios.",
        states={},
    ),
    one(
        "pl-home-bathroom-humidity",
        "Jaka jest wilgotność w łazience?",
        live(),
        "Wilgotność w łazience wynosi 64 procent.",
        states={},
    ),
    one(
        "it-home-which-lights",
        "Quali luci sono accese in casa?",
        live(),
        "Sono accese la lampada da terra, la luce della cucina e la lampada del "
        "comodino.",
        states={},
    ),
    one(
        "nl-home-blinds",
        "Zijn de rolluiken open of dicht?",
        live(),
        "De rolluiken zijn dicht.",
        states={},
    ),
    one(
        "en-home-floor-lamp-brightness",
        "How bright is the floor lamp?",
        "The floor lamp is on at 60 percent brightness.",
        states={},
    ),
    one(
        "de-home-any-lights-left",
        "Brennt irgendwo im Haus noch Licht?",
        live(),
        "Ja, die Stehlampe, das Küchenlicht und die Nachttischlampe sind noch an.",
        states={},
    ),
    one(
        "es-home-speaker-volume",
        "¿A qué volumen está el altavoz del salón?",
        live(),
        "El altavoz del salón está en pausa, con el volumen al 30 %.",
        states={},
    ),
    one(
        "fr-home-outside",
        "Il fait combien dehors ?",
        live(),
        "Il fait 14 °C dehors.",
        states={},
    ),
    one(
        "en-home-bedroom",
        "What's going on in the bedroom?",
        live(),
        "In the bedroom, the bedside lamp is on at 30 percent and the fan is off.",
        states={},
    ),
    one(
        "pl-home-front-door-locked",
        "Czy drzwi wejściowe są zamknięte na klucz?",
        "Tak, drzwi wejściowe są zamknięte na klucz.",
        states={},
    ),
    one(
        "it-home-phone-battery",
        "Quanta batteria ha il mio telefono?",
        live(),
        "Il tuo telefono è al 75 per cento di batteria.",
        states={},
    ),
    one(
        "nl-home-living-room-and-thermostat",
        "Hoe warm is het in de woonkamer en waar staat de thermostaat op?",
        live(),
        "In de woonkamer is het 19,5 graden en de thermostaat staat op 20 graden.",
        states={},
    ),
]


@pytest.mark.parametrize("story", NEGATIVE, ids=lambda story: story.id)
async def test_a_true_no_is_heard(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks whether a device is on or open; it is not, and the model says so.

    The user hears the model's "no" with the device's true state, and
    nothing is switched.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)


@pytest.mark.parametrize("story", READ, ids=lambda story: story.id)
async def test_a_question_about_the_home_is_answered_from_its_states(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks how the home is; the model reads it and answers truly.

    The user hears the model's words, with the figures and states as Home
    Assistant has them, and nothing is switched.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
