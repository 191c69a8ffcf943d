"""Requests in every polite form, acted on and answered in the model's words.

"Would you mind…", "I'd like…", "Könnten Sie bitte…", "Auriez-vous la
gentillesse…", "¿Te importaría…?", "Bądź tak miły…", "Mi faresti la
cortesia…", "Zou je … willen…": each is a request, however it is wrapped,
and a capable model does it at once and says so.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import Story, call, expected, off, on, one, play, saying
from tests.helpers.llm_server import LLMServer

STORIES = [
    one(
        "en-polite-would-you-mind",
        "Would you mind turning on the desk lamp?",
        on("Desk lamp"),
        "Not at all, the desk lamp is on now.",
        states={"light.desk_lamp": "on 100%"},
    ),
    one(
        "en-polite-id-like",
        "I'd like the blinds halfway open, please.",
        call("HassSetPosition", name="Blinds", position=50),
        "Sure, the blinds are now open halfway.",
        states={"cover.blinds": "open 50%"},
    ),
    one(
        "en-polite-could-you-please",
        "Could you please set the thermostat to 21 degrees?",
        call("HassClimateSetTemperature", name="Thermostat", temperature=21),
        "Of course. The thermostat is now set to 21 °C.",
        states={"climate.thermostat": "heat 21°"},
    ),
    one(
        "en-polite-a-word-before-the-call",
        "Could you put the coffee machine on for me?",
        saying("Sure, switching it on now.", on("Coffee machine", domain=["switch"])),
        "The coffee machine is on. Enjoy your coffee!",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "en-polite-be-so-kind",
        "Please be so kind as to switch off the kitchen light.",
        off("Kitchen light"),
        "Certainly, the kitchen light is off.",
        states={"light.kitchen": "off"},
    ),
    one(
        "en-polite-that-would-be-lovely",
        "If you could dim the floor lamp to 20 percent, that would be lovely.",
        call("HassLightSet", name="Floor lamp", brightness=20),
        "Done, the floor lamp is at 20 percent now.",
        states={"light.floor_lamp": "on 20%"},
    ),
    one(
        "en-polite-do-me-a-favour",
        "Do me a favour and start the bedroom fan.",
        on("Bedroom fan"),
        "Sure thing, the bedroom fan is running.",
        states={"fan.bedroom_fan": "on 50%"},
    ),
    one(
        "de-polite-wuerdest-du",
        "Würdest du bitte die Stehlampe ausschalten?",
        off("Stehlampe"),
        "Gern, die Stehlampe ist jetzt aus.",
        states={"light.floor_lamp": "off"},
    ),
    one(
        "de-polite-ich-haette-gern",
        "Ich hätte gern die Deckenlampe auf 30 Prozent.",
        call("HassLightSet", name="Deckenlampe", brightness=30),
        "Gerne, die Deckenlampe leuchtet jetzt mit 30 Prozent.",
        states={"light.ceiling": "on 30%"},
    ),
    one(
        "de-polite-sei-so-lieb",
        "Sei so lieb und mach die Kaffeemaschine an.",
        on("Kaffeemaschine"),
        "Mach ich! Die Kaffeemaschine ist an.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "de-polite-koennten-sie",
        "Könnten Sie bitte den Ventilator auf 40 Prozent stellen?",
        call("HassFanSetSpeed", name="Ventilator", percentage=40),
        "Selbstverständlich. Der Ventilator läuft jetzt mit 40 Prozent.",
        states={"fan.bedroom_fan": "on 40%"},
    ),
    one(
        "de-polite-waere-nett",
        "Wäre nett, wenn du den Rollladen hochfährst.",
        on("Rollladen"),
        "Klar, der Rollladen ist oben.",
        states={"cover.blinds": "open 100%"},
    ),
    one(
        "fr-polite-pourriez-vous",
        "Pourriez-vous allumer la lampe de bureau, s'il vous plaît ?",
        on("Lampe de bureau"),
        "Bien sûr, la lampe de bureau est allumée.",
        states={"light.desk_lamp": "on 100%"},
    ),
    one(
        "fr-polite-je-voudrais",
        "Je voudrais que tu ouvres les volets, s'il te plaît.",
        on("Volets"),
        "Voilà, les volets sont ouverts.",
        states={"cover.blinds": "open 100%"},
    ),
    one(
        "fr-polite-auriez-vous",
        "Auriez-vous la gentillesse de régler le thermostat sur 19 degrés ?",
        call("HassClimateSetTemperature", name="Thermostat", temperature=19),
        "Avec plaisir : le thermostat est maintenant réglé sur 19 °C.",
        states={"climate.thermostat": "heat 19°"},
    ),
    one(
        "fr-polite-ca-te-derange",
        "Ça te dérange d'éteindre la lumière de la cuisine ?",
        off("Lumière de la cuisine"),
        "Pas du tout, la lumière de la cuisine est éteinte.",
        states={"light.kitchen": "off"},
    ),
    one(
        "es-polite-te-importaria",
        "¿Te importaría apagar la luz de la cocina?",
        off("Luz de la cocina"),
        "Claro que no. Ya he apagado la luz de la cocina.",
        states={"light.kitchen": "off"},
    ),
    one(
        "es-polite-podrias",
        "Por favor, ¿podrías encender la cafetera?",
        on("Cafetera", domain=["switch"]),
        "¡Por supuesto! La cafetera ya está encendida.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "es-polite-quisiera",
        "Quisiera las persianas abiertas al 70 por ciento.",
        call("HassSetPosition", name="Persianas", position=70),
        "Listo, las persianas están abiertas al 70 %.",
        states={"cover.blinds": "open 70%"},
    ),
    one(
        "es-polite-se-tan-amable",
        "Sé tan amable de poner el termostato a 22 grados.",
        call("HassClimateSetTemperature", name="Termostato", temperature=22),
        "Hecho, el termostato está ahora a 22 grados.",
        states={"climate.thermostat": "heat 22°"},
    ),
    one(
        "pl-polite-czy-moglbys",
        "Czy mógłbyś włączyć lampkę biurkową?",
        on("Lampka biurkowa"),
        "Jasne, lampka biurkowa jest włączona.",
        states={"light.desk_lamp": "on 100%"},
    ),
    one(
        "pl-polite-prosze",
        "Proszę, wyłącz światło w kuchni.",
        off("Światło w kuchni", domain=["light"]),
        "Gotowe, światło w kuchni jest wyłączone.",
        states={"light.kitchen": "off"},
    ),
    one(
        "pl-polite-badz-tak-mily",
        "Bądź tak miły i ustaw termostat na 21 stopni.",
        call("HassClimateSetTemperature", name="Termostat", temperature=21),
        "Z przyjemnością. Termostat jest ustawiony na 21 stopni.",
        states={"climate.thermostat": "heat 21°"},
    ),
    one(
        "pl-polite-chcialabym",
        "Chciałabym, żeby wentylator działał na 30 procent.",
        call("HassFanSetSpeed", name="Wentylator", percentage=30),
        "Wentylator działa teraz na 30 procent.",
        states={"fan.bedroom_fan": "on 30%"},
    ),
    one(
        "it-polite-potresti",
        "Potresti gentilmente accendere la plafoniera?",
        on("Plafoniera"),
        "Certo, la plafoniera è accesa.",
        states={"light.ceiling": "on 100%"},
    ),
    one(
        "it-polite-mi-faresti",
        "Mi faresti la cortesia di alzare le tapparelle?",
        on("Tapparelle"),
        "Ecco fatto, le tapparelle sono alzate.",
        states={"cover.blinds": "open 100%"},
    ),
    one(
        "it-polite-vorrei",
        "Vorrei la lampada da terra al 50 per cento, per favore.",
        call("HassLightSet", name="Lampada da terra", brightness=50),
        "Fatto, la lampada da terra è al 50 per cento.",
        states={"light.floor_lamp": "on 50%"},
    ),
    one(
        "nl-polite-zou-je",
        "Zou je de bureaulamp willen aandoen?",
        on("Bureaulamp", domain=["light"]),
        "Natuurlijk, de bureaulamp is aan.",
        states={"light.desk_lamp": "on 100%"},
    ),
    one(
        "nl-polite-alsjeblieft",
        "Wil je alsjeblieft het koffiezetapparaat aanzetten?",
        on("Koffiezetapparaat"),
        "Het koffiezetapparaat staat aan. Geniet van je koffie!",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "nl-polite-graag",
        "Graag de thermostaat op 20,5 graden.",
        call("HassClimateSetTemperature", name="Thermostaat", temperature=20.5),
        "De thermostaat staat nu op 20,5 graden.",
        states={"climate.thermostat": "heat 20.5°"},
    ),
]


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.id)
async def test_a_polite_request_is_done_and_said_as_the_model_says_it(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks politely; the model makes the one call it takes, and says so.

    The user hears the model's words, the device changed, nothing else did.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
