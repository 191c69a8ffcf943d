"""The capable-model corpus's home, named in each language its people speak.

Rooms and devices as a German, French or Polish family names them, so that
a story in that language says what its people say ("Deckenlampe",
"lampkę biurkową") and the model calls the names Home Assistant has.
"""

# The rooms, per language: the keys are the rooms' roles.
AREAS: dict[str, dict[str, str]] = {
    "en": {"living": "Living room", "kitchen": "Kitchen", "office": "Office"},
    "de": {"living": "Wohnzimmer", "kitchen": "Küche", "office": "Büro"},
    "fr": {"living": "Salon", "kitchen": "Cuisine", "office": "Bureau"},
    "es": {"living": "Salón", "kitchen": "Cocina", "office": "Despacho"},
    "pl": {"living": "Salon", "kitchen": "Kuchnia", "office": "Gabinet"},
    "it": {"living": "Soggiorno", "kitchen": "Cucina", "office": "Studio"},
    "nl": {"living": "Woonkamer", "kitchen": "Keuken", "office": "Kantoor"},
}
MORE_AREAS: dict[str, dict[str, str]] = {
    "en": {"hall": "Hallway", "bedroom": "Bedroom", "bath": "Bathroom"},
    "de": {"hall": "Flur", "bedroom": "Schlafzimmer", "bath": "Bad"},
    "fr": {"hall": "Entrée", "bedroom": "Chambre", "bath": "Salle de bain"},
    "es": {"hall": "Pasillo", "bedroom": "Dormitorio", "bath": "Baño"},
    "pl": {"hall": "Korytarz", "bedroom": "Sypialnia", "bath": "Łazienka"},
    "it": {"hall": "Corridoio", "bedroom": "Camera da letto", "bath": "Bagno"},
    "nl": {"hall": "Hal", "bedroom": "Slaapkamer", "bath": "Badkamer"},
}
GARAGE = {"en": "Garage", "de": "Garage", "fr": "Garage", "es": "Garaje"}
GARAGE |= {"pl": "Garaż", "it": "Garage", "nl": "Garage"}

# Each device's entity id, its room, and its names in the languages of
# LANGUAGES, in their order, between bars.
LANGUAGES = ("en", "de", "fr", "es", "pl", "it", "nl")
DEVICES: dict[str, tuple[str | None, str]] = {
    "light.ceiling": (
        "living",
        (
            "Ceiling light|Deckenlampe|Plafonnier|Luz del techo|Lampa sufitowa|"
            "Plafoniera|Plafondlamp"
        ),
    ),
    "light.floor_lamp": (
        "living",
        (
            "Floor lamp|Stehlampe|Lampadaire|Lámpara de pie|Lampa stojąca|"
            "Lampada da terra|Staande lamp"
        ),
    ),
    "light.desk_lamp": (
        "office",
        (
            "Desk lamp|Schreibtischlampe|Lampe de bureau|Flexo|Lampka biurkowa|"
            "Lampada della scrivania|Bureaulamp"
        ),
    ),
    "light.kitchen": (
        "kitchen",
        (
            "Kitchen light|Küchenlicht|Lumière de la cuisine|Luz de la cocina|"
            "Światło w kuchni|Luce della cucina|Keukenlamp"
        ),
    ),
    "light.hallway": (
        "hall",
        (
            "Hallway light|Flurlicht|Lumière de l'entrée|Luz del pasillo|"
            "Światło w korytarzu|Luce del corridoio|Ganglamp"
        ),
    ),
    "light.bedside": (
        "bedroom",
        (
            "Bedside lamp|Nachttischlampe|Lampe de chevet|Lámpara de la mesilla|"
            "Lampka nocna|Lampada del comodino|Bedlampje"
        ),
    ),
    "switch.coffee_machine": (
        "kitchen",
        (
            "Coffee machine|Kaffeemaschine|Machine à café|Cafetera|Ekspres do kawy|"
            "Macchina del caffè|Koffiezetapparaat"
        ),
    ),
    "fan.bedroom_fan": (
        "bedroom",
        (
            "Bedroom fan|Ventilator|Ventilateur|Ventilador|Wentylator|Ventilatore|"
            "Ventilator"
        ),
    ),
    "cover.blinds": (
        "living",
        "Blinds|Rollladen|Volets|Persianas|Rolety|Tapparelle|Rolluiken",
    ),
    "cover.garage_door": (
        "garage",
        (
            "Garage door|Garagentor|Porte du garage|Puerta del garaje|Brama garażowa|"
            "Porta del garage|Garagedeur"
        ),
    ),
    "lock.front_door": (
        "hall",
        (
            "Front door|Haustür|Porte d'entrée|Puerta principal|Drzwi wejściowe|"
            "Porta d'ingresso|Voordeur"
        ),
    ),
    "climate.thermostat": (
        "living",
        "Thermostat|Thermostat|Thermostat|Termostato|Termostat|Termostato|Thermostaat",
    ),
    "media_player.speaker": (
        "living",
        (
            "Living room speaker|Wohnzimmerlautsprecher|Enceinte du salon|"
            "Altavoz del salón|Głośnik w salonie|Cassa del soggiorno|Woonkamerspeaker"
        ),
    ),
    "sensor.living_room_temperature": (
        "living",
        (
            "Living room temperature|Wohnzimmertemperatur|Température du salon|"
            "Temperatura del salón|Temperatura w salonie|Temperatura del soggiorno|"
            "Temperatuur woonkamer"
        ),
    ),
    "sensor.outdoor_temperature": (
        None,
        (
            "Outdoor temperature|Außentemperatur|Température extérieure|"
            "Temperatura exterior|Temperatura na zewnątrz|Temperatura esterna|"
            "Buitentemperatuur"
        ),
    ),
    "sensor.bathroom_humidity": (
        "bath",
        (
            "Bathroom humidity|Luftfeuchtigkeit Bad|Humidité salle de bain|"
            "Humedad del baño|Wilgotność w łazience|Umidità del bagno|"
            "Luchtvochtigheid badkamer"
        ),
    ),
    "sensor.phone_battery": (
        None,
        (
            "Phone battery|Handyakku|Batterie du téléphone|Batería del móvil|"
            "Bateria telefonu|Batteria del telefono|Telefoonbatterij"
        ),
    ),
    "sensor.solar_power": (
        None,
        (
            "Solar power|Solarleistung|Production solaire|Producción solar|"
            "Moc fotowoltaiki|Produzione solare|Zonnepanelen"
        ),
    ),
    "sensor.house_consumption": (
        None,
        (
            "House consumption|Hausverbrauch|Consommation maison|Consumo de la casa|"
            "Zużycie domu|Consumo della casa|Verbruik huis"
        ),
    ),
}


def name(entity_id: str, language: str) -> str:
    """Return a device's name in a language's home."""
    return DEVICES[entity_id][1].split("|")[LANGUAGES.index(language)]
