"""Follow-ups by pronoun: "turn it off again", "dim it", "both of them".

The user names a device once; the next turn says "it", "sie", "le", "las",
"ją", "la", "hem". A capable model knows what is meant from the turn before
and calls the device by its name.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import (
    Story,
    Turn,
    calc,
    call,
    expected,
    live,
    off,
    on,
    play,
)
from tests.helpers.llm_server import LLMServer

STORIES = [
    Story(
        "en-pronoun-off-again",
        (
            Turn(
                "Turn on the ceiling light.",
                on("Ceiling light"),
                "The ceiling light is on.",
            ),
            Turn(
                "Actually, turn it off again.",
                off("Ceiling light"),
                "Okay, it's off again.",
            ),
        ),
        {},
    ),
    Story(
        "de-pronoun-coffee-machine",
        (
            Turn(
                "Mach die Kaffeemaschine an.",
                on("Kaffeemaschine"),
                "Die Kaffeemaschine ist an.",
            ),
            Turn(
                "Schalte sie wieder aus.",
                off("Kaffeemaschine"),
                "Alles klar, die Kaffeemaschine ist wieder aus.",
            ),
        ),
        {},
    ),
    Story(
        "fr-pronoun-fan-speed",
        (
            Turn(
                "Allume le ventilateur.",
                on("Ventilateur"),
                "Le ventilateur est en marche.",
            ),
            Turn(
                "Mets-le à 70 %.",
                call("HassFanSetSpeed", name="Ventilateur", percentage=70),
                "Le ventilateur tourne maintenant à 70 %.",
            ),
        ),
        {"fan.bedroom_fan": "on 70%"},
    ),
    Story(
        "es-pronoun-blinds-halfway",
        (
            Turn(
                "Abre las persianas.", on("Persianas"), "Las persianas están abiertas."
            ),
            Turn(
                "Bájalas un poco, déjalas a la mitad.",
                call("HassSetPosition", name="Persianas", position=50),
                "Hecho, las persianas están a la mitad.",
            ),
        ),
        {"cover.blinds": "open 50%"},
    ),
    Story(
        "pl-pronoun-dim",
        (
            Turn(
                "Włącz lampkę biurkową.",
                on("Lampka biurkowa"),
                "Lampka biurkowa jest włączona.",
            ),
            Turn(
                "Przyciemnij ją do 40 procent.",
                call("HassLightSet", name="Lampka biurkowa", brightness=40),
                "Lampka biurkowa świeci teraz na 40 procent.",
            ),
        ),
        {"light.desk_lamp": "on 40%"},
    ),
    Story(
        "it-pronoun-off-again",
        (
            Turn("Accendi la plafoniera.", on("Plafoniera"), "La plafoniera è accesa."),
            Turn(
                "Spegnila di nuovo.", off("Plafoniera"), "Fatto, l'ho spenta di nuovo."
            ),
        ),
        {},
    ),
    Story(
        "nl-pronoun-on-again",
        (
            Turn("Doe de keukenlamp uit.", off("Keukenlamp"), "De keukenlamp is uit."),
            Turn(
                "Doe hem toch maar weer aan.",
                on("Keukenlamp"),
                "De keukenlamp is weer aan.",
            ),
        ),
        {},
    ),
    Story(
        "en-pronoun-a-degree-warmer",
        (
            Turn(
                "What's the thermostat set to?",
                "The thermostat is set to 20 °C, and the living room is at 19.5 °C.",
            ),
            Turn(
                "Make it a degree warmer.",
                call("HassClimateSetTemperature", name="Thermostat", temperature=21),
                "I've turned it up to 21 °C.",
            ),
        ),
        {"climate.thermostat": "heat 21°"},
    ),
    Story(
        "en-follow-up-temperatures",
        (
            Turn(
                "What's the temperature in the living room?",
                "It's 19.5 °C in the living room.",
            ),
            Turn("And outside?", live(), "Outside it's 14 °C."),
            Turn(
                "What's that in Fahrenheit?",
                calc("14", from_unit="°C", to_unit="°F"),
                "14 °C is 57.2 °F.",
            ),
        ),
        {},
    ),
    Story(
        "de-follow-up-solar",
        (
            Turn(
                "Wie viel Strom erzeugt die Solaranlage gerade?",
                live(),
                "Die Solaranlage erzeugt gerade 1250 Watt.",
            ),
            Turn(
                "Und wie viel davon verbrauchen wir selbst?",
                "Das Haus verbraucht 830 Watt, also etwa zwei Drittel davon.",
            ),
        ),
        {},
    ),
    Story(
        "de-pronoun-both-lamps",
        (
            Turn(
                "Mach die Deckenlampe und die Stehlampe an.",
                (on("Deckenlampe"), on("Stehlampe")),
                "Die Deckenlampe und die Stehlampe sind an.",
            ),
            Turn(
                "Dimm beide auf 50 Prozent.",
                (
                    call("HassLightSet", name="Deckenlampe", brightness=50),
                    call("HassLightSet", name="Stehlampe", brightness=50),
                ),
                "Beide Lampen leuchten jetzt mit 50 Prozent.",
            ),
        ),
        {"light.ceiling": "on 50%", "light.floor_lamp": "on 50%"},
    ),
    Story(
        "es-pronoun-the-desk-lamp-too",
        (
            Turn(
                "Enciende la luz del techo.",
                on("Luz del techo"),
                "La luz del techo está encendida.",
            ),
            Turn(
                "Y el flexo también.", on("Flexo"), "El flexo también está encendido."
            ),
        ),
        {"light.ceiling": "on 100%", "light.desk_lamp": "on 100%"},
    ),
    Story(
        "fr-pronoun-thermostat-lower",
        (
            Turn(
                "Mets le thermostat sur 21 degrés.",
                call("HassClimateSetTemperature", name="Thermostat", temperature=21),
                "Le thermostat est réglé sur 21 °C.",
            ),
            Turn(
                "Finalement, baisse-le d'un degré.",
                call("HassClimateSetTemperature", name="Thermostat", temperature=20),
                "D'accord, je l'ai remis à 20 °C.",
            ),
        ),
        {},
    ),
    Story(
        "pl-pronoun-speaker-volume",
        (
            Turn(
                "Wznów muzykę na głośniku w salonie.",
                call("HassMediaUnpause", name="Głośnik w salonie"),
                "Muzyka na głośniku w salonie znowu gra.",
            ),
            Turn(
                "Ustaw go na 50 procent głośności.",
                call("HassSetVolume", name="Głośnik w salonie", volume_level=50),
                "Głośnik w salonie gra teraz na 50 procent głośności.",
            ),
        ),
        {"media_player.speaker": "playing vol 50%"},
    ),
]


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.id)
async def test_a_follow_up_by_pronoun_acts_on_the_device_meant(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User names a device, then refers back to it; the model acts on it again.

    Each turn's answer is heard as written, and only that device changes.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
