"""A question about the lock, in any word order, in every language of ours.

In Italian, Portuguese, Swedish or Danish a yes/no question may keep the
order of a statement ("Hoveddøren er låst?"); in any language a user may ask
that way. Each story runs a real Home Assistant, the agent, the openai SDK
and the scripted server: the model answers the question by calling unlock,
as small models do, and then writes its answer.
"""

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import CONF_GUIDE, CONF_TOOL_MODE, GUIDE_ON
from tests.helpers.common import set_up, tool_result, traced
from tests.helpers.llm_server import Abilities, LLMServer, Text, ToolCalls
from tests.helpers.sensitive import FRONT, QUESTION, UNLOCK, heard, say, state

# The front door's name in each language, as its household would say it.
ALIASES = [
    "Haustür",
    "porte d'entrée",
    "voordeur",
    "puerta principal",
    "porta d'ingresso",
    "drzwi wejściowe",
    "porta da frente",
    "ytterdörren",
    "hoveddøren",
    "ytterdøren",
]

# Per language: whether the front door is locked, in the order of a
# statement and then with a word that opens a question; the model's answer;
# and the user's yes, which must unlock nothing afterwards.
ASKED = {
    "en": (
        "The front door is locked?",
        "Is the front door locked?",
        "Yes, the front door is locked.",
        "Yes",
    ),
    "de": (
        "Die Haustür ist abgeschlossen?",
        "Ist die Haustür abgeschlossen?",
        "Ja, die Haustür ist abgeschlossen.",
        "Ja",
    ),
    "fr": (
        "La porte d'entrée est verrouillée ?",
        "Est-ce que la porte d'entrée est verrouillée ?",
        "Oui, la porte d'entrée est verrouillée.",
        "Oui",
    ),
    "nl": (
        "De voordeur is op slot?",
        "Is de voordeur op slot?",
        "Ja, de voordeur is op slot.",
        "Ja",
    ),
    "es": (
        "¿La puerta principal está cerrada con llave?",
        "¿Está la puerta principal cerrada con llave?",
        "Sí, la puerta principal está cerrada con llave.",
        "Sí",
    ),
    "it": (
        "La porta d'ingresso è chiusa a chiave?",
        "È chiusa a chiave la porta d'ingresso?",
        "Sì, la porta d'ingresso è chiusa a chiave.",
        "Sì",
    ),
    "pl": (
        "Drzwi wejściowe są zamknięte?",
        "Czy drzwi wejściowe są zamknięte?",
        "Tak, drzwi wejściowe są zamknięte.",
        "Tak",
    ),
    "pt": (
        "A porta da frente está trancada?",
        "Será que a porta da frente está trancada?",
        "Sim, a porta da frente está trancada.",
        "Sim",
    ),
    "sv": (
        "Ytterdörren är låst?",
        "Är ytterdörren låst?",
        "Ja, ytterdörren är låst.",
        "Ja",
    ),
    "da": (
        "Hoveddøren er låst?",
        "Er hoveddøren låst?",
        "Ja, hoveddøren er låst.",
        "Ja",
    ),
    "nb": (
        "Ytterdøren er låst?",
        "Er ytterdøren låst?",
        "Ja, ytterdøren er låst.",
        "Ja",
    ),
}
ORDERS = ("statement", "question-word")
# The unlock as a model without a tool parser writes it.
WRITTEN_UNLOCK = (
    '<tool_call>\n{"name": "HassTurnOff", "arguments": {"name": "Front door"}}'
    "\n</tool_call>"
)


@pytest.fixture
def named(hass: HomeAssistant, guarded_home: dict[str, str]) -> None:
    """Give the front door its name in each language, keeping its own."""
    er.async_get(hass).async_update_entity(FRONT, aliases=[er.COMPUTED_NAME, *ALIASES])


@pytest.mark.usefixtures("loaded_entry", "named")
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("language", list(ASKED))
async def test_a_question_about_the_lock_is_answered_not_acted_on(
    hass: HomeAssistant, llm_server: LLMServer, language: str, order: str
) -> None:
    """User asks from a satellite whether the front door is locked.

    The model calls unlock. The call is refused as an answer to a question,
    with the door's state; the model answers, and the user hears that answer,
    not "Do you want me to unlock Front door?". The door stays locked, and a
    yes after the answer unlocks nothing.
    """
    statement, with_word, answer, yes = ASKED[language]
    said = statement if order == "statement" else with_word
    llm_server.reply(ToolCalls([UNLOCK]), Text(answer))

    result = await say(hass, said, language=language)

    assert heard(result) == answer
    assert heard(result) != QUESTION
    assert state(hass, FRONT) == "locked"
    (refused,) = traced("chatterbox_question_not_command")
    assert refused["states"] == ["Front door (lock): locked"]
    (read,) = [
        tool_result(m["content"])
        for m in llm_server.last_chat_request["messages"]
        if m["role"] == "tool"
    ]
    assert read["data"]["error"] == "QuestionNotCommand"
    assert "Front door (lock): locked" in read["data"]["error_text"]

    llm_server.reply(Text("OK."))
    await say(hass, yes, language=language)

    assert state(hass, FRONT) == "locked"


@pytest.mark.usefixtures("loaded_entry", "named")
@pytest.mark.parametrize(
    ("language", "said", "answer"),
    [
        ("fi", "Onko Front door lukossa", "Kyllä, se on lukossa."),
        ("fi", "Onko Front door auki", "Ei, se on lukossa."),
    ],
)
async def test_without_a_question_mark_home_assistants_sentences_hear_it(
    hass: HomeAssistant, llm_server: LLMServer, language: str, said: str, answer: str
) -> None:
    """A language Chatterbox has no words for, and no question mark at all.

    Home Assistant's own sentences for the language still read a question
    about the lock, so the model's unlock is refused, and the user hears its
    answer. The door stays locked.
    """
    llm_server.reply(ToolCalls([UNLOCK]), Text(answer))

    result = await say(hass, said, language=language)

    assert heard(result) == answer
    assert state(hass, FRONT) == "locked"
    (refused,) = traced("chatterbox_question_not_command")
    assert refused["states"] == ["Front door (lock): locked"]


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            "model": "qwen3:8b",
            "llm_hass_api": ["assist"],
            CONF_GUIDE: GUIDE_ON,
            CONF_TOOL_MODE: "text",
        }
    ],
)
@pytest.mark.usefixtures("named")
@pytest.mark.parametrize(
    ("language", "order"),
    [("it", "statement"), ("da", "statement"), ("sv", "question-word")],
)
async def test_an_unlock_written_as_text_is_refused_the_same_way(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    language: str,
    order: str,
) -> None:
    """The model writes its calls as text; it writes the unlock.

    The written call is refused as the native one is: the model reads why,
    with the door's state, in the result written back to it, and the user
    hears its answer. The door stays locked.
    """
    llm_server.abilities = Abilities(tools="text")
    await set_up(hass, config_entry)
    statement, with_word, answer, _ = ASKED[language]
    said = statement if order == "statement" else with_word
    llm_server.reply(Text(WRITTEN_UNLOCK), Text(answer))

    result = await say(hass, said, language=language)

    assert heard(result) == answer
    assert state(hass, FRONT) == "locked"
    (refused,) = traced("chatterbox_question_not_command")
    assert refused["tool"].endswith("HassTurnOff")
    written_back = llm_server.last_chat_request["messages"][-1]
    assert written_back["role"] == "user"
    assert written_back["content"].startswith("<tool_response>")
    assert "QuestionNotCommand" in written_back["content"]
    assert "Front door (lock): locked" in written_back["content"]
