"""Figures a capable model knows, converts or reads, said as it says them.

Saunas, ovens, fevers and humidity ranges from what the model knows; unit
conversions through the calculator; sums, differences and fractions of
what the home's sensors read. Every figure the model says is true, and the
user hears it as the model wrote it, after one request per response.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import Story, calc, expected, live, one, play
from tests.helpers.llm_server import LLMServer

STORIES = [
    # What the model knows: no tool, no figure from the home.
    one(
        "en-knowledge-sauna",
        "What temperature is a Finnish sauna usually kept at?",
        "A traditional Finnish sauna usually sits between 80 and 100 °C. Most "
        "people find around 85 °C comfortable, with the humidity kept low, about "
        "10 to 20 percent.",
        states={},
    ),
    one(
        "de-knowledge-frozen-pizza",
        "Bei wie viel Grad backe ich eine Tiefkühlpizza?",
        "Die meisten Tiefkühlpizzen backst du bei 200 bis 220 Grad Umluft, etwa 10 "
        "bis 15 Minuten. Schau aber kurz auf die Packung, die Angaben schwanken.",
        states={},
    ),
    one(
        "fr-knowledge-nursery-humidity",
        "Quel taux d'humidité faut-il viser dans une chambre de bébé ?",
        "Pour une chambre de bébé, visez une humidité entre 40 et 60 %, avec une "
        "température d'environ 18 à 20 °C.",
        states={},
    ),
    one(
        "es-knowledge-everest-boiling",
        "¿A qué temperatura hierve el agua en lo alto del Everest?",
        "En la cima del Everest el agua hierve a unos 70 °C, porque la presión del "
        "aire es apenas un tercio de la que hay al nivel del mar.",
        states={},
    ),
    one(
        "pl-knowledge-sleeping-temperature",
        "Jaka temperatura jest najlepsza do spania?",
        "Najlepiej śpi się w chłodnym pokoju, w temperaturze od 16 do 19 °C, przy "
        "wilgotności powietrza od 40 do 60 procent.",
        states={},
    ),
    one(
        "it-knowledge-towels",
        "A quanti gradi conviene lavare gli asciugamani?",
        "Gli asciugamani di cotone si lavano bene a 60 gradi, così si eliminano "
        "batteri e cattivi odori. Per quelli colorati o delicati bastano 40 gradi.",
        states={},
    ),
    one(
        "nl-knowledge-baby-bath",
        "Hoe warm moet het badwater van een baby zijn?",
        "Het badwater van een baby is ideaal rond de 37 graden, ongeveer "
        "lichaamstemperatuur. Meet het even met een badthermometer.",
        states={},
    ),
    one(
        "en-knowledge-fridge",
        "What should my fridge be set to?",
        "A fridge is best at about 3 to 5 °C, that's 37 to 41 °F, and a freezer at "
        "minus 18 °C, which is 0 °F.",
        states={},
    ),
    one(
        "de-knowledge-pils",
        "Wie viel Alkohol hat ein normales Pils ungefähr?",
        "Ein normales Pils hat meist um die 4,8 bis 5 Prozent Alkohol.",
        states={},
    ),
    one(
        "fr-knowledge-rare-roast",
        "À quelle température à cœur un rôti de bœuf est-il saignant ?",
        "Un rôti de bœuf est saignant à environ 50 à 52 °C à cœur. Sortez-le un ou "
        "deux degrés avant : la température monte encore pendant le repos.",
        states={},
    ),
    one(
        "es-knowledge-fever",
        "¿A partir de cuántos grados se considera fiebre?",
        "Se suele hablar de fiebre a partir de 38 °C. Entre 37,5 y 38 °C se "
        "considera febrícula.",
        states={},
    ),
    # Conversions through the calculator, as its instructions ask.
    one(
        "es-convert-oven-fahrenheit",
        "Mi receta dice 350 grados Fahrenheit, ¿cuánto es en Celsius?",
        calc("350", from_unit="°F", to_unit="°C"),
        "350 °F son unos 177 °C; pon el horno a 175 o 180 grados.",
        states={},
    ),
    one(
        "pl-convert-miles",
        "Ile to kilometrów 5 mil?",
        calc("5", from_unit="mi", to_unit="km"),
        "5 mil to około 8,05 kilometra.",
        states={},
    ),
    one(
        "en-convert-discount",
        "What does a 60 euro jacket cost with 15% off?",
        calc("60 * 0.85"),
        "With 15% off, the jacket costs 51 euros, so you save 9 euros.",
        states={},
    ),
    one(
        "it-convert-fahrenheit",
        "Quanti gradi Celsius sono 100 gradi Fahrenheit?",
        calc("100", from_unit="°F", to_unit="°C"),
        "100 °F corrispondono a circa 37,8 °C, più o meno una febbre leggera.",
        states={},
    ),
    one(
        "nl-convert-half-marathon",
        "Hoeveel mijl is een halve marathon?",
        calc("21.0975", from_unit="km", to_unit="mi"),
        "Een halve marathon is 21,1 kilometer, ongeveer 13,1 mijl.",
        states={},
    ),
    one(
        "de-convert-celsius",
        "Wie viel sind 25 Grad Celsius in Fahrenheit?",
        calc("25", from_unit="°C", to_unit="°F"),
        "25 Grad Celsius sind 77 Grad Fahrenheit.",
        states={},
    ),
    one(
        "fr-convert-percentage",
        "Combien font 20 % de 45 euros ?",
        calc("20% of 45"),
        "20 % de 45 euros, cela fait 9 euros.",
        states={},
    ),
    # Figures the home gives, converted, added, compared.
    one(
        "en-home-outdoor-fahrenheit",
        "What's the outdoor temperature in Fahrenheit?",
        live(),
        calc("14", from_unit="°C", to_unit="°F"),
        "It's 14 °C outside, which is 57.2 °F.",
        states={},
    ),
    one(
        "de-home-solar-surplus",
        "Wie viel Strom speisen wir gerade ins Netz ein?",
        live(),
        calc("1250 - 830"),
        "Die Solaranlage liefert gerade 1250 Watt und das Haus braucht 830 Watt, "
        "also gehen etwa 420 Watt ins Netz.",
        states={},
    ),
    one(
        "fr-home-solar-share",
        "La production solaire couvre-t-elle la consommation de la maison ?",
        live(),
        calc("1250 / 830 * 100"),
        "Oui, largement : les panneaux produisent 1250 W pour une consommation de "
        "830 W, soit environ 151 % des besoins de la maison.",
        states={},
    ),
    one(
        "es-home-inside-outside",
        "¿Cuánto más calor hace en el salón que en la calle?",
        live(),
        calc("19.5 - 14"),
        "En el salón hay 19,5 °C y fuera 14 °C: dentro hace 5,5 grados más.",
        states={},
    ),
    one(
        "pl-home-battery-fraction",
        "Ile baterii ma mój telefon? Powiedz to jako ułamek.",
        live(),
        "Telefon ma 75 procent baterii, czyli trzy czwarte.",
        states={},
    ),
    one(
        "en-home-battery-fraction",
        "How full is my phone battery, as a fraction?",
        live(),
        "Your phone battery is at 75%, so it's three quarters full.",
        states={},
    ),
    one(
        "it-home-living-room-fahrenheit",
        "Quanti gradi Fahrenheit ci sono in soggiorno?",
        live(),
        calc("19.5", from_unit="°C", to_unit="°F"),
        "In soggiorno ci sono 19,5 °C, cioè 67,1 °F.",
        states={},
    ),
    one(
        "nl-home-solar-kilowatt",
        "Hoeveel kilowatt leveren de zonnepanelen nu?",
        live(),
        calc("1250", from_unit="W", to_unit="kW"),
        "De zonnepanelen leveren nu 1250 watt, dat is 1,25 kilowatt.",
        states={},
    ),
    one(
        "de-home-bathroom-humidity",
        "Ist die Luftfeuchtigkeit im Bad in Ordnung?",
        live(),
        "Im Bad liegt die Luftfeuchtigkeit bei 64 Prozent. Das ist etwas hoch, "
        "ideal sind 40 bis 60 Prozent. Kurz lüften hilft.",
        states={},
    ),
    one(
        "en-home-add-up-power",
        "Add up the solar power and the house consumption for me.",
        live(),
        calc("1250 + 830"),
        "Solar power is 1250 W and the house consumption is 830 W, which adds up "
        "to 2080 W.",
        states={},
    ),
    one(
        "en-home-average-temperature",
        "What's the average of the living room and outdoor temperatures?",
        live(),
        calc("(19.5 + 14) / 2"),
        "The living room is at 19.5 °C and it's 14 °C outside, so the average is "
        "about 16.8 °C.",
        states={},
    ),
    one(
        "es-home-fahrenheit-in-its-head",
        "¿Cuántos grados Fahrenheit hace fuera?",
        live(),
        "Fuera hace 14 °C, unos 57 °F.",
        states={},
    ),
    one(
        "pl-home-share-of-solar",
        "Jaki procent produkcji z fotowoltaiki zużywa teraz dom?",
        live(),
        calc("830 / 1250 * 100"),
        "Dom zużywa teraz 830 W z 1250 W produkcji, czyli około 66 procent.",
        states={},
    ),
    one(
        "fr-home-outdoor-fahrenheit",
        "Il fait combien dehors, en degrés Fahrenheit ?",
        live(),
        calc("14", from_unit="°C", to_unit="°F"),
        "Il fait 14 °C dehors, soit 57,2 °F.",
        states={},
    ),
    one(
        "es-home-thermostat-gap",
        "¿Cuántos grados le faltan al salón para llegar a lo que marca el termostato?",
        live(),
        calc("20 - 19.5"),
        "El termostato está en 20 °C y el salón tiene 19,5 °C, así que falta medio "
        "grado.",
        states={},
    ),
]


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.id)
async def test_a_figure_the_model_knows_or_reads_is_heard(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks for a figure; the model knows it, converts it, or reads the home.

    Whatever the model says, in its own words and units, the user hears: it
    is true, and the home is as it was.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
