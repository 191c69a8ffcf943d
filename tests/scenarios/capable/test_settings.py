"""Requests whose words are not the call's: by how much, in which unit, where.

"Two degrees warmer", "20 percent darker", "70 Fahrenheit", "everything in
the bedroom", "if it's open, close it": a capable model reads what it needs,
works the figure out, calls with the value the device takes (or calls
nothing when there is nothing to do), and says it in the user's terms.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import Story, calc, call, expected, live, on, one, play
from tests.helpers.llm_server import LLMServer

STORIES = [
    # By how much, and in which unit.
    one(
        "en-relative-heating-up",
        "Turn the heating up by two degrees.",
        live(),
        call("HassClimateSetTemperature", name="Thermostat", temperature=22),
        "Done, the thermostat went from 20 to 22 °C.",
        states={"climate.thermostat": "heat 22°"},
    ),
    one(
        "de-relative-darker",
        "Mach die Stehlampe um 20 Prozent dunkler.",
        live(),
        call("HassLightSet", name="Stehlampe", brightness=40),
        "Die Stehlampe leuchtet jetzt mit 40 statt 60 Prozent.",
        states={"light.floor_lamp": "on 40%"},
    ),
    one(
        "en-fahrenheit-setpoint",
        "Set the thermostat to 70 Fahrenheit.",
        calc("70", from_unit="°F", to_unit="°C"),
        call("HassClimateSetTemperature", name="Thermostat", temperature=21),
        "I've set the thermostat to 21 °C, which is about 70 °F.",
        states={"climate.thermostat": "heat 21°"},
    ),
    one(
        "es-relative-half-a-degree",
        "Pon el termostato medio grado más alto.",
        live(),
        call("HassClimateSetTemperature", name="Termostato", temperature=20.5),
        "Hecho: el termostato pasa de 20 a 20,5 °C.",
        states={"climate.thermostat": "heat 20.5°"},
    ),
    one(
        "pl-fan-half-power",
        "Włącz wentylator na pół mocy.",
        call("HassFanSetSpeed", name="Wentylator", percentage=50),
        "Wentylator działa na pół mocy, czyli 50 procent.",
        states={"fan.bedroom_fan": "on 50%"},
    ),
    one(
        "fr-relative-volume-up",
        "Monte un peu le son de l'enceinte du salon.",
        call("HassSetVolumeRelative", name="Enceinte du salon", volume_step="up"),
        "J'ai monté un peu le volume de l'enceinte du salon.",
        states={"media_player.speaker": "paused vol 40%"},
    ),
    # A whole room, or a kind of device in it.
    one(
        "en-area-living-room-lights",
        "Turn off the lights in the living room.",
        call("HassTurnOff", area="Living room", domain=["light"]),
        "The living room lights are off.",
        states={"light.floor_lamp": "off"},
    ),
    one(
        "de-area-everything-in-the-bedroom",
        "Mach im Schlafzimmer alles aus.",
        call("HassTurnOff", area="Schlafzimmer"),
        "Im Schlafzimmer ist jetzt alles aus.",
        states={"light.bedside": "off"},
    ),
    one(
        "it-area-kitchen-lights",
        "Spegni tutte le luci della cucina.",
        call("HassTurnOff", area="Cucina", domain=["light"]),
        "Ho spento tutte le luci della cucina.",
        states={"light.kitchen": "off"},
    ),
    # Nothing to do, or nothing the model can do.
    one(
        "nl-conditional-garage-door",
        "Als de garagedeur open staat, doe hem dan dicht.",
        live(),
        "De garagedeur is al dicht, dus ik hoefde niets te doen.",
        states={},
    ),
    one(
        "en-conditional-coffee-machine",
        "If the coffee machine is off, switch it on.",
        live(),
        on("Coffee machine"),
        "It was off, so I've switched the coffee machine on.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "de-already-on",
        "Mach das Küchenlicht an.",
        on("Küchenlicht"),
        "Das Küchenlicht war schon an und bleibt an.",
        states={},
    ),
    one(
        "fr-not-found-sauna",
        "Allume le sauna.",
        "Je ne trouve pas de sauna parmi vos appareils. Il porte peut-être un autre "
        "nom ?",
        states={},
    ),
    one(
        "en-no-timers-here",
        "Switch the coffee machine on in ten minutes.",
        "I can't schedule that from here, but I can switch the coffee machine on "
        "right now if you like.",
        states={},
    ),
    one(
        "es-no-such-device",
        "Enciende el aire acondicionado.",
        "No encuentro ningún aire acondicionado entre tus dispositivos. ¿Quieres "
        "que encienda el ventilador del dormitorio?",
        states={},
    ),
]


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.id)
async def test_a_request_in_the_users_terms_is_done_in_the_devices(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks in their own terms; the model works out the call, or sees none.

    The device ends at the value the model worked out, and the user hears
    the model's words, its figures in the user's terms among them.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
