"""Conversations of several turns: a question back, a recap of what was done.

A capable model asks which device is meant when a request could mean two,
and acts on the answer; asked what it did, it tells the turns before from
its history, without doing any of it again.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import (
    Story,
    Turn,
    call,
    expected,
    live,
    off,
    on,
    play,
)
from tests.helpers.llm_server import LLMServer

CLARIFIED = [
    Story(
        "en-clarify-living-room-light",
        (
            Turn(
                "Switch on the light in the living room.",
                "Sure. Do you mean the ceiling light or the floor lamp?",
            ),
            Turn(
                "The ceiling light, please.",
                on("Ceiling light"),
                "Done, the ceiling light is on.",
            ),
        ),
        {"light.ceiling": "on 100%"},
    ),
    Story(
        "de-clarify-brighter",
        (
            Turn(
                "Mach das Licht heller.",
                "Welches Licht meinst du: die Deckenlampe, die Stehlampe oder ein "
                "anderes?",
            ),
            Turn(
                "Die Stehlampe.",
                call("HassLightSet", name="Stehlampe", brightness=90),
                "Die Stehlampe leuchtet jetzt mit 90 Prozent.",
            ),
        ),
        {"light.floor_lamp": "on 90%"},
    ),
    Story(
        "fr-clarify-lamp",
        (
            Turn(
                "Éteins la lampe.",
                "Laquelle voulez-vous éteindre : le lampadaire du salon ou la lampe "
                "de chevet ?",
            ),
            Turn(
                "La lampe de chevet.",
                off("Lampe de chevet"),
                "C'est fait, la lampe de chevet est éteinte.",
            ),
        ),
        {"light.bedside": "off"},
    ),
    Story(
        "es-clarify-lamp",
        (
            Turn(
                "Apaga la lámpara.",
                "¿Cuál quieres que apague: la lámpara de pie del salón o la lámpara "
                "de la mesilla?",
            ),
            Turn(
                "La de la mesilla.",
                off("Lámpara de la mesilla"),
                "Listo, la lámpara de la mesilla está apagada.",
            ),
        ),
        {"light.bedside": "off"},
    ),
    Story(
        "pl-clarify-late-hallway-light",
        (
            Turn(
                "Włącz światło.",
                "Które światło mam włączyć: w korytarzu, lampę sufitową w salonie "
                "czy lampkę biurkową?",
            ),
            Turn(
                "W korytarzu.",
                on("Światło w korytarzu"),
                "Światło w korytarzu jest włączone.",
            ),
        ),
        {"light.hallway": "on 100%"},
    ),
    Story(
        "it-clarify-lower-the-heating",
        (
            Turn(
                "Abbassa la temperatura.",
                live(),
                "Il termostato del soggiorno è impostato su 20 gradi. A quanto vuoi "
                "che lo abbassi?",
            ),
            Turn(
                "A 18.",
                call("HassClimateSetTemperature", name="Termostato", temperature=18),
                "Fatto, il termostato è ora su 18 gradi.",
            ),
        ),
        {"climate.thermostat": "heat 18°"},
    ),
    Story(
        "nl-clarify-lamp",
        (
            Turn(
                "Zet de lamp uit.",
                "Welke lamp bedoel je: de staande lamp in de woonkamer of het "
                "bedlampje in de slaapkamer?",
            ),
            Turn(
                "Het bedlampje.",
                off("Bedlampje"),
                "Het bedlampje is uit. Slaap lekker!",
            ),
        ),
        {"light.bedside": "off"},
    ),
    Story(
        "en-clarify-forty-percent",
        (
            Turn(
                "Set it to 40 percent.",
                "What should I set to 40 percent: a light, the bedroom fan or the "
                "blinds?",
            ),
            Turn(
                "The fan.",
                call("HassFanSetSpeed", name="Bedroom fan", percentage=40),
                "The bedroom fan is running at 40 percent.",
            ),
        ),
        {"fan.bedroom_fan": "on 40%"},
    ),
    Story(
        "de-clarify-music",
        (
            Turn(
                "Mach mal Musik an.",
                "Gern! Soll ich die Musik auf dem Wohnzimmerlautsprecher "
                "weiterspielen lassen?",
            ),
            Turn(
                "Ja, genau.",
                call("HassMediaUnpause", name="Wohnzimmerlautsprecher"),
                "Die Musik auf dem Wohnzimmerlautsprecher läuft wieder.",
            ),
        ),
        {"media_player.speaker": "playing vol 30%"},
    ),
]

RECAPPED = [
    Story(
        "en-recap-two-changes",
        (
            Turn(
                "Turn off the kitchen light and switch on the coffee machine.",
                (off("Kitchen light"), on("Coffee machine")),
                "The kitchen light is off and the coffee machine is on.",
            ),
            Turn(
                "What did you just do?",
                "I switched off the kitchen light and turned on the coffee machine.",
            ),
        ),
        {"light.kitchen": "off", "switch.coffee_machine": "on"},
    ),
    Story(
        "de-recap-thermostat",
        (
            Turn(
                "Stell das Thermostat auf 22 Grad.",
                call("HassClimateSetTemperature", name="Thermostat", temperature=22),
                "Das Thermostat steht jetzt auf 22 Grad.",
            ),
            Turn(
                "Was hast du gerade gemacht?",
                "Ich habe das Thermostat im Wohnzimmer auf 22 Grad gestellt.",
            ),
        ),
        {"climate.thermostat": "heat 22°"},
    ),
    Story(
        "fr-recap-blinds",
        (
            Turn(
                "Ouvre les volets à moitié.",
                call("HassSetPosition", name="Volets", position=50),
                "Les volets sont ouverts à 50 %.",
            ),
            Turn(
                "Tu peux me rappeler ce que tu viens de faire ?",
                "J'ai ouvert les volets du salon à moitié, à 50 %.",
            ),
        ),
        {"cover.blinds": "open 50%"},
    ),
    Story(
        "es-recap-lights",
        (
            Turn(
                "Enciende la luz del techo y apaga la lámpara de pie.",
                (on("Luz del techo"), off("Lámpara de pie")),
                "He encendido la luz del techo y apagado la lámpara de pie.",
            ),
            Turn(
                "¿Qué luces has tocado?",
                "Encendí la luz del techo y apagué la lámpara de pie del salón.",
            ),
        ),
        {"light.ceiling": "on 100%", "light.floor_lamp": "off"},
    ),
    Story(
        "pl-recap-bedside-lamp",
        (
            Turn(
                "Wyłącz lampkę nocną.",
                off("Lampka nocna"),
                "Lampka nocna jest wyłączona.",
            ),
            Turn(
                "Przypomnij mi, co przed chwilą zrobiłeś.",
                "Przed chwilą wyłączyłem lampkę nocną w sypialni.",
            ),
        ),
        {"light.bedside": "off"},
    ),
    Story(
        "it-recap-late-hallway-light",
        (
            Turn(
                "Accendi la luce del corridoio.",
                on("Luce del corridoio"),
                "La luce del corridoio è accesa.",
            ),
            Turn("Cosa hai appena fatto?", "Ho acceso la luce del corridoio."),
        ),
        {"light.hallway": "on 100%"},
    ),
    Story(
        "nl-recap-fan",
        (
            Turn(
                "Zet de ventilator op 60 procent.",
                call("HassFanSetSpeed", name="Ventilator", percentage=60),
                "De ventilator draait nu op 60 procent.",
            ),
            Turn(
                "Wat heb je net gedaan?",
                "Ik heb de ventilator in de slaapkamer op 60 procent gezet.",
            ),
        ),
        {"fan.bedroom_fan": "on 60%"},
    ),
    Story(
        "en-recap-the-evening-so-far",
        (
            Turn(
                "Dim the floor lamp to 30 percent.",
                call("HassLightSet", name="Floor lamp", brightness=30),
                "The floor lamp is at 30 percent.",
            ),
            Turn(
                "Switch off the kitchen light too.",
                off("Kitchen light"),
                "The kitchen light is off.",
            ),
            Turn(
                "Can you sum up what you've changed so far?",
                "So far I've dimmed the floor lamp to 30 percent and switched off "
                "the kitchen light.",
            ),
        ),
        {"light.floor_lamp": "on 30%", "light.kitchen": "off"},
    ),
]


@pytest.mark.parametrize("story", CLARIFIED, ids=lambda story: story.id)
async def test_a_question_back_then_the_answer_acted_on(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User's request could mean two devices; the model asks which, then acts.

    The user hears the model's question, answers it, and hears the model's
    words after the one call it makes on the device they chose.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)


@pytest.mark.parametrize("story", RECAPPED, ids=lambda story: story.id)
async def test_a_recap_tells_what_earlier_turns_did(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User has the model change things, then asks what it did.

    The model tells it from the conversation, calling nothing: the user
    hears its recap, and the home stays as the earlier turns left it.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
