"""A change with something beside it: a question, an explanation, a check.

"Switch on X and tell me Y", "turn off X and explain Z", "do it and make
sure it worked": a capable model makes the change, reads what it was asked
to tell (in the same response, or after), explains from what it knows, and
says it all in one answer that the user hears as written.
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
    saying,
)
from tests.helpers.llm_server import LLMServer

STORIES = [
    # A change and a question, in one response.
    one(
        "en-aside-coffee-and-outdoor",
        "Switch on the coffee machine and tell me what the outdoor temperature is.",
        (on("Coffee machine"), live()),
        "The coffee machine is on, and it's 14 °C outside.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "de-aside-kitchen-and-living-room",
        "Mach das Küchenlicht aus und sag mir, wie warm es im Wohnzimmer ist.",
        (off("Küchenlicht"), live()),
        "Das Küchenlicht ist aus. Im Wohnzimmer sind es 19,5 Grad.",
        states={"light.kitchen": "off"},
    ),
    one(
        "de-aside-one-moment",
        "Mach die Kaffeemaschine an und sag mir, wie viel Akku mein Handy noch hat.",
        saying("Moment, ich schaue nach.", on("Kaffeemaschine"), live()),
        "Die Kaffeemaschine ist an, und dein Handy hat noch 75 Prozent Akku.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "fr-aside-coffee-and-humidity",
        "Allume la machine à café et dis-moi quelle est l'humidité dans la salle "
        "de bain.",
        (on("Machine à café"), live()),
        "La machine à café est allumée. L'humidité dans la salle de bain est de 64 %.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "es-aside-desk-lamp-and-battery",
        "Enciende el flexo y dime cuánta batería le queda al móvil.",
        (on("Flexo"), live()),
        "El flexo está encendido y al móvil le queda un 75 % de batería.",
        states={"light.desk_lamp": "on 100%"},
    ),
    one(
        "pl-aside-coffee-and-outdoor",
        "Włącz ekspres do kawy i powiedz mi, ile jest stopni na zewnątrz.",
        (on("Ekspres do kawy"), live()),
        "Ekspres do kawy jest włączony, a na zewnątrz jest 14 stopni.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "it-aside-kitchen-and-solar",
        "Spegni la luce della cucina e dimmi quanta energia stanno producendo i "
        "pannelli solari.",
        (off("Luce della cucina"), live()),
        "Ho spento la luce della cucina. I pannelli solari stanno producendo 1250 "
        "watt.",
        states={"light.kitchen": "off"},
    ),
    one(
        "nl-aside-floor-lamp-and-outdoor",
        "Doe de staande lamp uit en vertel me hoe warm het buiten is.",
        (off("Staande lamp"), live()),
        "De staande lamp is uit. Buiten is het 14 graden.",
        states={"light.floor_lamp": "off"},
    ),
    one(
        "en-aside-blinds-and-warmer",
        "Open the blinds to 40 percent and tell me if it's warmer inside or outside.",
        (call("HassSetPosition", name="Blinds", position=40), live()),
        "The blinds are at 40 percent. It's warmer inside: 19.5 °C in the living "
        "room against 14 °C outside.",
        states={"cover.blinds": "open 40%"},
    ),
    # A change and an explanation from what the model knows.
    one(
        "en-aside-lumen",
        "Turn off the floor lamp and explain what a lumen is.",
        off("Floor lamp"),
        "The floor lamp is off. A lumen measures how much visible light a source "
        "gives off in total; a classic 60-watt bulb gives about 800 lumens.",
        states={"light.floor_lamp": "off"},
    ),
    one(
        "de-aside-kelvin",
        "Schalte die Schreibtischlampe ein und erklär mir kurz, was Kelvin bei "
        "Lampen bedeutet.",
        on("Schreibtischlampe"),
        "Die Schreibtischlampe ist an. Kelvin gibt die Lichtfarbe an: 2700 Kelvin "
        "sind warmweiß und gemütlich, ab etwa 5000 Kelvin wirkt das Licht kühl wie "
        "Tageslicht.",
        states={"light.desk_lamp": "on 100%"},
    ),
    one(
        "fr-aside-led-heat",
        "Éteins le lampadaire et explique-moi pourquoi les LED chauffent moins que "
        "les ampoules classiques.",
        off("Lampadaire"),
        "Le lampadaire est éteint. Une ampoule à incandescence transforme environ "
        "95 % de son énergie en chaleur, alors qu'une LED en convertit une bien plus "
        "grande part en lumière : elle chauffe donc beaucoup moins.",
        states={"light.floor_lamp": "off"},
    ),
    one(
        "es-aside-watt",
        "Apaga la luz de la cocina y explícame qué es un vatio.",
        off("Luz de la cocina"),
        "La luz de la cocina está apagada. Un vatio es la unidad de potencia: un "
        "julio de energía por segundo.",
        states={"light.kitchen": "off"},
    ),
    one(
        "pl-aside-dew-point",
        "Wyłącz lampę stojącą i wytłumacz mi, co to jest punkt rosy.",
        off("Lampa stojąca"),
        "Lampa stojąca jest wyłączona. Punkt rosy to temperatura, do której trzeba "
        "schłodzić powietrze, żeby para wodna zaczęła się skraplać.",
        states={"light.floor_lamp": "off"},
    ),
    one(
        "de-aside-night-setback",
        "Stell das Thermostat auf 21 Grad und erklär mir, warum man nachts absenken "
        "sollte.",
        call("HassClimateSetTemperature", name="Thermostat", temperature=21),
        "Das Thermostat steht auf 21 Grad. Nachts abzusenken spart Energie: jedes "
        "Grad weniger spart etwa 6 Prozent Heizkosten, und bei 17 bis 18 Grad "
        "schläft man ohnehin besser.",
        states={"climate.thermostat": "heat 21°"},
    ),
    # A change, then a read that verifies it.
    one(
        "en-verify-coffee-machine",
        "Switch on the coffee machine and check that it's really on.",
        on("Coffee machine"),
        live(),
        "Done. I checked, and the coffee machine reports on.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "de-verify-blinds",
        "Fahr den Rollladen auf 30 Prozent und prüf nach, ob er dort steht.",
        call("HassSetPosition", name="Rollladen", position=30),
        live(),
        "Der Rollladen steht jetzt auf 30 Prozent, das habe ich gerade nachgeprüft.",
        states={"cover.blinds": "open 30%"},
    ),
    one(
        "fr-verify-thermostat",
        "Règle le thermostat sur 21 degrés et vérifie que c'est bien pris en compte.",
        call("HassClimateSetTemperature", name="Thermostat", temperature=21),
        live(),
        "C'est bon : le thermostat a bien une consigne de 21 °C.",
        states={"climate.thermostat": "heat 21°"},
    ),
    one(
        "es-verify-kitchen-light",
        "Apaga la luz de la cocina y comprueba que se ha apagado.",
        off("Luz de la cocina"),
        live(),
        "Comprobado: la luz de la cocina está apagada.",
        states={"light.kitchen": "off"},
    ),
    one(
        "pl-verify-ceiling-light",
        "Włącz lampę sufitową i sprawdź, czy się świeci.",
        on("Lampa sufitowa"),
        live(),
        "Sprawdziłem: lampa sufitowa świeci.",
        states={"light.ceiling": "on 100%"},
    ),
    one(
        "it-verify-coffee-machine",
        "Accendi la macchina del caffè e controlla che sia davvero accesa.",
        on("Macchina del caffè"),
        live(),
        "La macchina del caffè è accesa, l'ho appena verificato.",
        states={"switch.coffee_machine": "on"},
    ),
    one(
        "nl-verify-ceiling-light",
        "Doe de plafondlamp aan en controleer of hij echt brandt.",
        on("Plafondlamp"),
        live(),
        "De plafondlamp is aan, ik heb het gecontroleerd.",
        states={"light.ceiling": "on 100%"},
    ),
    one(
        "de-verify-bedroom",
        "Mach die Nachttischlampe aus und schau, ob im Schlafzimmer sonst noch was "
        "läuft.",
        off("Nachttischlampe"),
        live(),
        "Die Nachttischlampe ist aus. Im Schlafzimmer läuft sonst nichts mehr, auch "
        "der Ventilator ist aus.",
        states={"light.bedside": "off"},
    ),
    one(
        "en-verify-in-the-same-response",
        "Set the desk lamp to 60 percent and read it back to me.",
        (call("HassLightSet", name="Desk lamp", brightness=60), live()),
        "The desk lamp is on at 60 percent.",
        states={"light.desk_lamp": "on 60%"},
    ),
    # The hallway light reports late: read at once, it still says off, and
    # the model says so.
    one(
        "en-verify-late-hallway-light",
        "Turn on the hallway light and confirm it came on.",
        on("Hallway light"),
        live(),
        "I've sent the command to the hallway light, but it still reports off. It "
        "may need a moment.",
        states={"light.hallway": "on 100%"},
    ),
]


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.id)
async def test_a_change_with_an_aside_is_answered_whole(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks for a change and something beside it; the model does both.

    The change is made, the question or explanation answered in the same
    words the model wrote, and the user hears them untouched.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
