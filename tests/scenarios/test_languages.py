"""What Chatterbox says and reads, in the language of the conversation.

Every language it promises: its errors, the question before a sensitive
action and its yes and no, a claim of a change no call made, a request of
two parts held to both, a link and a number read out.
"""

import json
from pathlib import Path

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox import lang
from custom_components.chatterbox.lang import LANGUAGES
from tests.helpers.common import ask, traced
from tests.helpers.llm_server import Call, Error, LLMServer, Text, ToolCalls
from tests.helpers.sensitive import FRONT, UNLOCK, heard, say, state

# As Home Assistant writes an error: without the final stop.
SERVER_ERROR = {
    "en": "The language model server had a problem. Please try again",
    "de": "Der Sprachmodell-Server hatte ein Problem. Bitte versuch es noch einmal",
    "fr": "Le serveur du modèle de langage a eu un problème. Veuillez réessayer",
    "nl": "De server van het taalmodel had een probleem. Probeer het opnieuw",
    "es": (
        "El servidor del modelo de lenguaje ha tenido un problema. Inténtalo de nuevo"
    ),
    "it": "Il server del modello linguistico ha avuto un problema. Riprova",
    "pl": "Serwer modelu językowego miał problem. Spróbuj ponownie",
    "pt": "O servidor do modelo de linguagem teve um problema. Tente novamente",
    "sv": "Språkmodellens server fick ett problem. Försök igen",
    "da": "Sprogmodellens server havde et problem. Prøv igen",
    "nb": "Språkmodellserveren fikk et problem. Prøv igjen",
    # No Finnish words: English.
    "fi": "The language model server had a problem. Please try again",
}


@pytest.mark.usefixtures("loaded_entry")
@pytest.mark.parametrize("language", list(SERVER_ERROR))
async def test_a_server_fault_is_said_in_the_conversations_language(
    hass: HomeAssistant, llm_server: LLMServer, language: str
) -> None:
    """The server fails: the user hears it in their language, as an error.

    The pipeline and conversation.process callers read the response type, so
    it stays an error; the next turn of the conversation is answered.
    """
    llm_server.reply(Text("Hallo!"))
    first = await ask(hass, "Hallo", language=language)
    llm_server.reply(Error(500, "CUDA error: out of memory"))

    result = await ask(hass, "Wie geht's?", first.conversation_id, language=language)

    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert result.response.error_code is intent.IntentResponseErrorCode.UNKNOWN
    assert result.response.speech["plain"]["speech"] == SERVER_ERROR[language]

    llm_server.reply(Text("Mir geht es gut."))
    again = await ask(hass, "Nochmal", result.conversation_id, language=language)

    assert again.response.speech["plain"]["speech"] == "Mir geht es gut."


async def test_an_error_with_placeholders_is_in_the_language_too(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A model the server lacks is said in German, with its name in it."""
    llm_server.reply(Text("Hallo!"))
    await ask(hass, "Hallo", language="de")
    llm_server.reply(Error(404, "model 'x' not found"))

    result = await ask(hass, "Hallo", language="de")

    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert "hat das Modell" in result.response.speech["plain"]["speech"]


# The question before unlocking the front door, and a yes and a no, in each
# language.
QUESTIONS = {
    "en": ("Do you want me to unlock Front door?", "Yes, please", "No"),
    "de": ("Soll ich Front door aufschließen?", "Ja, bitte", "Nein"),
    "fr": ("Dois-je déverrouiller Front door ?", "Oui, vas-y", "Non"),
    "nl": ("Zal ik Front door ontgrendelen?", "Ja, graag", "Nee"),
    "es": ("¿Debo desbloquear Front door?", "Sí, por favor", "No"),
    "it": ("Devo sbloccare Front door?", "Sì, certo", "No"),
    "pl": ("Czy mam odblokować Front door?", "Tak, proszę", "Nie"),
    "pt": ("Devo destrancar Front door?", "Sim, pode", "Não"),
    "sv": ("Vill du att jag ska låsa upp Front door?", "Ja tack", "Nej"),
    "da": ("Skal jeg låse Front door op?", "Ja tak", "Nej"),
    "nb": ("Skal jeg låse opp Front door?", "Ja takk", "Nei"),
}


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize("language", list(QUESTIONS))
@pytest.mark.parametrize("answer", ["yes", "no"])
async def test_the_question_before_unlocking_is_in_the_language(
    hass: HomeAssistant, llm_server: LLMServer, language: str, answer: str
) -> None:
    """The model unlocks the door: the user is asked in their language.

    Their language's yes unlocks the door; its no leaves it locked.
    """
    question, yes, no = QUESTIONS[language]
    llm_server.reply(ToolCalls([UNLOCK]))

    asked = await say(hass, "Unlock the front door", language=language)

    assert asked.response.speech["plain"]["speech"] == question
    assert hass.states.get(FRONT).state == "locked"

    llm_server.reply(Text("OK."))
    await say(hass, yes if answer == "yes" else no, language=language)

    assert hass.states.get(FRONT).state == ("unlocked" if answer == "yes" else "locked")


@pytest.mark.usefixtures("loaded_entry")
async def test_a_link_in_a_german_answer_is_said_in_german(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The speech filter drops the URL and says what stood there in German."""
    llm_server.reply(Text("Das Rezept steht unter https://example.com/rezept."))

    result = await ask(hass, "Wo ist das Rezept?", language="de")

    assert result.response.speech["plain"]["speech"] == ("Das Rezept steht unter Link.")


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_state_read_out_uses_home_assistants_words_for_the_language(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks in German whether the door is locked; the model says nothing.

    The agent reads the state out with Home Assistant's German word for it.
    """
    llm_server.reply(Text(""))

    result = await say(hass, "Ist Front door verriegelt?", language="de")

    assert result.response.speech["plain"]["speech"] == (
        "Das sehe ich gerade: Front door: Verriegelt."
    )


def phrase(language: str, key: str) -> str:
    """Return one of the agent's sentences, as the language's file has it."""
    path = Path(lang.__file__).parent.parent / "translations" / f"{language}.json"
    return str(json.loads(path.read_text())["exceptions"][key]["message"])


# Per language: a request to switch the kitchen light on, and an answer that
# says it was done, as a small model says it without a call.
CLAIMED = {
    "en": ("Turn on Kitchen light", "I have turned on Kitchen light."),
    "de": ("Schalte Kitchen light ein", "Ich habe Kitchen light eingeschaltet."),
    "fr": ("Allume Kitchen light", "J'ai allumé Kitchen light."),
    "nl": ("Zet Kitchen light aan", "Ik heb Kitchen light aangezet."),
    "es": ("Enciende Kitchen light", "He encendido Kitchen light."),
    "it": ("Accendi Kitchen light", "Ho acceso Kitchen light."),
    "pl": ("Włącz Kitchen light", "Włączyłem Kitchen light."),
    "pt": ("Liga Kitchen light", "Liguei Kitchen light."),
    "sv": ("Tänd Kitchen light", "Jag har tänt Kitchen light."),
    "da": ("Tænd Kitchen light", "Jeg har tændt Kitchen light."),
    "nb": ("Slå på Kitchen light", "Jeg har slått på Kitchen light."),
}


def test_every_language_has_its_stories() -> None:
    """The stories below speak every language Chatterbox promises."""
    assert set(CLAIMED) == set(LANGUAGES)
    assert set(TWO_PARTS) == set(LANGUAGES)
    assert set(QUESTIONS) == set(LANGUAGES)
    assert set(SERVER_ERROR) - {"fi"} == set(LANGUAGES)


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize("language", list(CLAIMED))
async def test_a_claim_without_a_call_is_caught_in_the_language(
    hass: HomeAssistant, llm_server: LLMServer, language: str
) -> None:
    """User asks for the light; twice the model says it is on, without a call.

    The light is off: the user hears, in their language, that nothing was
    changed.
    """
    request, claim = CLAIMED[language]
    llm_server.reply(Text(claim), Text(claim))

    result = await say(hass, request, language=language)

    assert heard(result) == phrase(language, "nothing_done")
    assert state(hass, "light.kitchen_light") == "off"
    assert [check["again"] for check in traced("chatterbox_claim_without_action")] == [
        True,
        False,
    ]


# Per language: a request of two parts, the kitchen light and the pond pump.
TWO_PARTS = {
    "en": "Turn on Kitchen light and turn off Pond pump",
    "de": "Schalte Kitchen light ein und Pond pump aus",
    "fr": "Allume Kitchen light et éteins Pond pump",
    "nl": "Zet Kitchen light aan en Pond pump uit",
    "es": "Enciende Kitchen light y apaga Pond pump",
    "it": "Accendi Kitchen light e spegni Pond pump",
    "pl": "Włącz Kitchen light i wyłącz Pond pump",
    "pt": "Liga Kitchen light e desliga Pond pump",
    "sv": "Tänd Kitchen light och stäng av Pond pump",
    "da": "Tænd Kitchen light og sluk Pond pump",
    "nb": "Slå på Kitchen light og slå av Pond pump",
}


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
@pytest.mark.parametrize("language", list(TWO_PARTS))
async def test_a_request_of_two_parts_is_held_to_both(
    hass: HomeAssistant, llm_server: LLMServer, language: str
) -> None:
    """User asks for two things; the model does one and answers.

    It is told which device it left out, switches it too, and both are done.
    """
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"})]),
        Text("OK."),
        ToolCalls([Call("HassTurnOff", {"name": "Pond pump"})]),
        Text("OK."),
    )

    result = await say(hass, TWO_PARTS[language], language=language)

    assert heard(result) == "OK."
    assert state(hass, "light.kitchen_light") == "on"
    assert state(hass, "switch.pond_pump") == "off"
    assert traced("chatterbox_parts_left") == [
        {"entities": ["switch.pond_pump"], "again": True}
    ]
