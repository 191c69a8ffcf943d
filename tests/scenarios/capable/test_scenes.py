"""Wishes, not commands: "I'm cold", "movie night", "I'm off to bed".

The user says how they want the home; a capable model chooses the devices
and the values (a lamp at 30 percent, the heating two degrees up), makes the
calls, and tells the user what it chose, figures included.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import (
    Story,
    call,
    expected,
    live,
    off,
    on,
    one,
    play,
)
from tests.helpers.llm_server import LLMServer

STORIES = [
    one(
        "en-scene-movie-night",
        "Make the living room cosy for a movie night.",
        call("HassLightSet", name="Floor lamp", brightness=30),
        "I've dimmed the floor lamp to 30 percent and left the ceiling light off. "
        "Enjoy the movie!",
        states={"light.floor_lamp": "on 30%"},
    ),
    one(
        "de-scene-cold",
        "Mir ist kalt.",
        live(),
        call("HassClimateSetTemperature", name="Thermostat", temperature=22),
        "Ich habe das Thermostat im Wohnzimmer von 20 auf 22 Grad gestellt.",
        states={"climate.thermostat": "heat 22°"},
    ),
    one(
        "fr-scene-reading",
        "Je voudrais lire un peu dans le bureau.",
        call("HassLightSet", name="Lampe de bureau", brightness=80),
        "J'ai allumé la lampe de bureau à 80 %. Bonne lecture !",
        states={"light.desk_lamp": "on 80%"},
    ),
    one(
        "es-scene-bedtime",
        "Me voy a dormir.",
        (
            off("Luz de la cocina"),
            off("Lámpara de pie"),
            call("HassLightSet", name="Lámpara de la mesilla", brightness=10),
        ),
        "Buenas noches. He apagado la luz de la cocina y la lámpara de pie, y he "
        "bajado la lámpara de la mesilla al 10 %.",
        states={
            "light.kitchen": "off",
            "light.floor_lamp": "off",
            "light.bedside": "on 10%",
        },
    ),
    one(
        "it-scene-too-hot",
        "Che caldo stanotte!",
        call("HassFanSetSpeed", name="Ventilatore", percentage=60),
        "Ho acceso il ventilatore della camera da letto al 60 per cento.",
        states={"fan.bedroom_fan": "on 60%"},
    ),
    one(
        "nl-scene-good-morning",
        "Goedemorgen! Doe de rolluiken open en zet koffie.",
        (on("Rolluiken"), on("Koffiezetapparaat")),
        "Goedemorgen! De rolluiken zijn open en het koffiezetapparaat staat aan.",
        states={"cover.blinds": "open 100%", "switch.coffee_machine": "on"},
    ),
    one(
        "pl-scene-film",
        "Włączam film, przygotuj salon.",
        call("HassLightSet", name="Lampa stojąca", brightness=20),
        "Przyciemniłem lampę stojącą do 20 procent. Miłego seansu!",
        states={"light.floor_lamp": "on 20%"},
    ),
]


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.id)
async def test_a_wish_is_met_with_the_models_own_choices(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User says how they want the home; the model picks devices and values.

    The devices it chose end where it set them, and the user hears what it
    chose in its own words.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
