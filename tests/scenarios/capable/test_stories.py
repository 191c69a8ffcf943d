"""Stories and jokes about the devices, and devices that answer late.

A bedtime story about the bedside lamp or a joke about the fan names
devices without saying what they are doing now; a speaker or a Zigbee bulb
reports its new state a moment after Home Assistant tells it (LATE in
tests/helpers/capable_home.py), when the model has already said "the music
is playing again". Both are heard as the model wrote them.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import Story, call, expected, off, on, one, play
from tests.helpers.llm_server import LLMServer

TOLD = [
    one(
        "en-story-kitchen-light",
        "Tell me a short story about the kitchen light.",
        "Once upon a time, the kitchen light watched over every midnight snack and "
        "every early coffee. It never complained when someone forgot it; it just "
        "glowed a little warmer whenever the family laughed.",
        states={},
    ),
    one(
        "de-joke-fan",
        "Erzähl mir einen Witz über den Ventilator.",
        "Warum ist der Ventilator so beliebt? Weil er immer frischen Wind in die "
        "Bude bringt!",
        states={},
    ),
    one(
        "fr-story-coffee-machine",
        "Raconte-moi une petite histoire sur la machine à café.",
        "Chaque matin, la machine à café se réveillait avant tout le monde. Elle "
        "rêvait de préparer un jour le café parfait, avec une eau à 92 degrés, ni "
        "plus ni moins.",
        states={},
    ),
    one(
        "es-joke-garage-door",
        "Cuéntame un chiste sobre la puerta del garaje.",
        "¿Por qué la puerta del garaje nunca gana una discusión? ¡Porque siempre "
        "acaba cerrándose en banda!",
        states={},
    ),
    one(
        "pl-story-bedside-lamp",
        "Opowiedz mi krótką bajkę o lampce nocnej.",
        "Była sobie lampka nocna, która bała się ciemności. Każdego wieczoru "
        "świeciła trochę dłużej, aż zrozumiała, że to dzięki niej nikt w sypialni "
        "nie boi się nocy.",
        states={},
    ),
    one(
        "it-joke-thermostat",
        "Raccontami una barzelletta sul termostato.",
        "Sai perché il termostato non litiga mai? Perché sa sempre mantenere la "
        "calma, anche a 20 gradi!",
        states={},
    ),
    one(
        "nl-joke-blinds",
        "Vertel eens een grapje over de rolluiken.",
        "Waarom zijn rolluiken altijd zo goed op de hoogte? Omdat ze alles van "
        "boven tot onder doornemen!",
        states={},
    ),
    one(
        "en-poem-front-door",
        "Write me a two-line poem about the front door.",
        "Front door, steadfast through the night, locked up tight and holding right.",
        states={},
    ),
    one(
        "de-story-after-switching-off",
        "Mach die Stehlampe aus und erzähl mir eine kurze Gutenachtgeschichte über "
        "sie.",
        off("Stehlampe"),
        "Die Stehlampe ist aus. Es war einmal eine Stehlampe, die jeden Abend als "
        "Letzte ins Wohnzimmer schaute. Heute flüsterte sie dem Sofa noch gute "
        "Nacht zu, bevor sie einschlief.",
        states={"light.floor_lamp": "off"},
    ),
]

LATE = [
    one(
        "en-late-resume-speaker",
        "Resume the music on the living room speaker.",
        call("HassMediaUnpause", name="Living room speaker"),
        "The living room speaker is playing again.",
        states={"media_player.speaker": "playing vol 30%"},
    ),
    one(
        "de-late-music-in-the-living-room",
        "Spiel die Musik im Wohnzimmer weiter.",
        call("HassMediaUnpause", area="Wohnzimmer"),
        "Die Musik im Wohnzimmer läuft wieder.",
        states={"media_player.speaker": "playing vol 30%"},
    ),
    one(
        "fr-late-speaker",
        "Relance la musique sur l'enceinte du salon.",
        call("HassMediaUnpause", name="Enceinte du salon"),
        "C'est reparti, l'enceinte du salon joue de nouveau.",
        states={"media_player.speaker": "playing vol 30%"},
    ),
    one(
        "es-late-hallway-light",
        "Enciende la luz del pasillo.",
        on("Luz del pasillo"),
        "La luz del pasillo ya está encendida.",
        states={"light.hallway": "on 100%"},
    ),
    one(
        "en-late-hallway-light",
        "Turn on the hallway light.",
        on("Hallway light"),
        "The hallway light is on.",
        states={"light.hallway": "on 100%"},
    ),
    one(
        "nl-late-music",
        "Zet de muziek in de woonkamer weer aan.",
        call("HassMediaUnpause", name="Woonkamerspeaker"),
        "De muziek speelt weer op de woonkamerspeaker.",
        states={"media_player.speaker": "playing vol 30%"},
    ),
    one(
        "de-late-hallway-light",
        "Mach das Flurlicht an.",
        on("Flurlicht"),
        "Das Flurlicht ist an.",
        states={"light.hallway": "on 100%"},
    ),
    one(
        "it-late-speaker",
        "Fai ripartire la musica sulla cassa del soggiorno.",
        call("HassMediaUnpause", name="Cassa del soggiorno"),
        "La cassa del soggiorno sta di nuovo suonando.",
        states={"media_player.speaker": "playing vol 30%"},
    ),
    one(
        "pl-late-speaker",
        "Wznów odtwarzanie na głośniku w salonie.",
        call("HassMediaUnpause", name="Głośnik w salonie"),
        "Głośnik w salonie znowu odtwarza muzykę.",
        states={"media_player.speaker": "playing vol 30%"},
    ),
    one(
        "fr-late-hallway-light",
        "Allume la lumière de l'entrée.",
        on("Lumière de l'entrée"),
        "La lumière de l'entrée est allumée.",
        states={"light.hallway": "on 100%"},
    ),
]


@pytest.mark.parametrize("story", TOLD, ids=lambda story: story.id)
async def test_a_story_or_a_joke_about_a_device_is_heard(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks for a story, a joke or a poem about a device; the model tells it.

    What the model invents is a story, not a state: the user hears it as
    written, and only a change the user asked for beside it is made.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)


@pytest.mark.parametrize("story", LATE, ids=lambda story: story.id)
async def test_a_device_that_reports_late_does_not_undo_the_answer(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks for music or a light; the device says so a moment later.

    The model's "it is playing again" is true by the time it is heard, and
    the user hears it; the device ends in the state the call asked for.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
