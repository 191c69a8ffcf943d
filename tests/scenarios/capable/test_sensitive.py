"""Locks and garage doors: the user's yes, asked by the agent or by the model.

A capable model either calls at once, and the agent asks its own question
("Do you want me to unlock Front door?"), or asks first itself and calls
after the user's yes. Either way one yes is enough: the call runs once and
the model's answer after it is heard as written. A no leaves the door be.
"""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.capable import (
    Story,
    Turn,
    expected,
    live,
    off,
    on,
    play,
)
from tests.helpers.llm_server import LLMServer

# The agent asks, the user says yes, the held call runs.
AGENT_ASKS = [
    Story(
        "en-sensitive-unlock-yes",
        (
            Turn(
                "Unlock the front door.",
                off("Front door"),
                asks="Do you want me to unlock Front door?",
            ),
            Turn("Yes, please.", "The front door is unlocked. Welcome home!"),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "de-sensitive-unlock-yes",
        (
            Turn(
                "Schließ die Haustür auf.",
                off("Haustür"),
                asks="Soll ich Haustür aufschließen?",
            ),
            Turn("Ja, bitte.", "Die Haustür ist jetzt aufgeschlossen."),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "fr-sensitive-unlock-yes",
        (
            Turn(
                "Déverrouille la porte d'entrée.",
                off("Porte d'entrée"),
                asks="Dois-je déverrouiller Porte d'entrée ?",
            ),
            Turn("Oui, vas-y.", "La porte d'entrée est déverrouillée."),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "es-sensitive-garage-yes",
        (
            Turn(
                "Abre la puerta del garaje.",
                on("Puerta del garaje"),
                asks="¿Debo abrir Puerta del garaje?",
            ),
            Turn("Sí, por favor.", "La puerta del garaje está abierta."),
        ),
        {"cover.garage_door": "open"},
    ),
    Story(
        "pl-sensitive-unlock-yes",
        (
            Turn(
                "Odblokuj drzwi wejściowe.",
                off("Drzwi wejściowe"),
                asks="Czy mam odblokować Drzwi wejściowe?",
            ),
            Turn("Tak, proszę.", "Drzwi wejściowe są odblokowane."),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "it-sensitive-unlock-yes",
        (
            Turn(
                "Sblocca la porta d'ingresso.",
                off("Porta d'ingresso"),
                asks="Devo sbloccare Porta d'ingresso?",
            ),
            Turn("Sì, certo.", "La porta d'ingresso è sbloccata."),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "nl-sensitive-unlock-yes",
        (
            Turn(
                "Doe de voordeur van het slot.",
                off("Voordeur"),
                asks="Zal ik Voordeur ontgrendelen?",
            ),
            Turn("Ja, graag.", "De voordeur is ontgrendeld."),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "nl-sensitive-garage-no",
        (
            Turn(
                "Open de garagedeur.",
                on("Garagedeur"),
                asks="Zal ik Garagedeur openen?",
            ),
            Turn("Nee, laat maar.", "Oké, ik laat de garagedeur dicht."),
        ),
        {},
    ),
    Story(
        "pl-sensitive-which-door",
        (
            Turn(
                "Otwórz drzwi.",
                "Które drzwi mam otworzyć: drzwi wejściowe czy bramę garażową?",
            ),
            Turn(
                "Bramę garażową.",
                on("Brama garażowa"),
                asks="Czy mam otworzyć Brama garażowa?",
            ),
            Turn("Tak.", "Brama garażowa jest otwarta."),
        ),
        {"cover.garage_door": "open"},
    ),
    Story(
        "fr-sensitive-which-door",
        (
            Turn(
                "Ouvre la porte.",
                "Laquelle : la porte d'entrée ou la porte du garage ?",
            ),
            Turn(
                "Celle du garage.",
                on("Porte du garage"),
                asks="Dois-je ouvrir Porte du garage ?",
            ),
            Turn("Oui, vas-y.", "La porte du garage est ouverte."),
        ),
        {"cover.garage_door": "open"},
    ),
]

# The model asks first, and calls after the user's yes.
MODEL_ASKS = [
    Story(
        "en-sensitive-model-asks-garage",
        (
            Turn(
                "Open the garage door.",
                "Just to be sure: do you want me to open the garage door now?",
            ),
            Turn("Yes, go ahead.", on("Garage door"), "The garage door is open."),
        ),
        {"cover.garage_door": "open"},
    ),
    Story(
        "de-sensitive-model-asks-unlock",
        (
            Turn(
                "Mach die Haustür auf.",
                "Soll ich die Haustür wirklich aufschließen?",
            ),
            Turn("Ja.", off("Haustür"), "Die Haustür ist aufgeschlossen."),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "es-sensitive-model-asks-unlock",
        (
            Turn(
                "Quita el cerrojo de la puerta principal.",
                "¿Seguro que quieres que desbloquee la puerta principal?",
            ),
            Turn(
                "Sí.",
                off("Puerta principal"),
                "Hecho, la puerta principal está desbloqueada.",
            ),
        ),
        {"lock.front_door": "unlocked"},
    ),
    Story(
        "it-sensitive-model-asks-garage",
        (
            Turn("Apri il garage.", "Vuoi che apra la porta del garage adesso?"),
            Turn(
                "Sì, vai pure.", on("Porta del garage"), "La porta del garage è aperta."
            ),
        ),
        {"cover.garage_door": "open"},
    ),
    Story(
        "fr-sensitive-already-locked",
        (
            Turn(
                "Verrouille la porte d'entrée, s'il te plaît.",
                live(),
                "La porte d'entrée est déjà verrouillée, tout est en ordre.",
            ),
        ),
        {},
    ),
]


@pytest.mark.parametrize("story", AGENT_ASKS, ids=lambda story: story.id)
async def test_the_agent_asks_and_one_yes_runs_the_call(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks to open a door; the model calls; the agent asks; user answers.

    A yes runs the held call once, a no drops it; the model's words after
    the answer are what the user hears.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)


@pytest.mark.parametrize("story", MODEL_ASKS, ids=lambda story: story.id)
async def test_the_model_asks_first_and_one_yes_is_enough(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> None:
    """User asks to open a door; the model asks first; the user says yes.

    The model calls after the yes, and the door opens: the user, who has
    answered once, is not asked again, and hears the model's words.
    """
    assert await play(hass, llm_server, mode, story, home) == expected(story)
