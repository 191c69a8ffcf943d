"""Whether an answer says that something was done."""

import pytest

from custom_components.chatterbox.lang.claims import claims_done


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        ("The bedroom light has been turned on.", "en"),
        ("I've switched off the fan.", "en"),
        ("OK, I turned it off.", "en"),
        ("I have locked the front door for you.", "en"),
        ("The thermostat is now set to 21 degrees.", "en"),
        ("Done!", "en"),
        ("Ich habe das Licht im Bad eingeschaltet.", "de"),
        ("Die Heizung ist jetzt aus.", "de-AT"),
        ("Włączyłem światło w kuchni.", "pl"),
        ("Światło w salonie zostało wyłączone.", "pl"),
        ("J'ai allumé la lumière.", "fr"),
        ("He apagado la luz del salón.", "es"),
        ("Ho acceso la luce.", "it"),
        ("Ik heb de lamp aangezet.", "nl"),
        ("The light has been turned on.", "pl"),
        ("Liguei a luz da cozinha.", "pt"),
        ("A luz foi desligada.", "pt-BR"),
        ("Jag har tänt lampan.", "sv"),
        ("Nu är lampan tänd.", "sv"),
        ("Jag tände lampan.", "sv"),
        ("Jeg har tændt lyset.", "da"),
        ("Lyset blev tændt.", "da"),
        ("Nu er lyset tændt.", "da"),
        ("Jeg har slått på lyset.", "nb"),
        ("Lyset ble slått av.", "nb"),
        ("Nå er lyset slått på.", "nb"),
        ("Jeg skrudde på lyset.", "nb"),
        # No space after the stop: still two sentences.
        ("I turned on the light.The fan is still off.", "en"),
    ],
)
def test_a_claim_of_a_change_is_a_claim(answer: str, language: str) -> None:
    """The perfect or passive of an action, or "done", in the language or English."""
    assert claims_done(answer, language)


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        ("The kitchen light is already on.", "en"),
        ("Shall I turn on the bedroom light?", "en"),
        ("Has the light been turned on?", "en"),
        ("Alright, I left it locked.", "en"),
        ("I couldn't find a hot tub.", "en"),
        # A state is no claim, nor a change said not done.
        ("Lampen er tændt.", "da"),
        ("Lyset er slukket.", "nb"),
        ("Døren er lukket.", "nb"),
        ("Lampan är tänd.", "sv"),
        ("Jeg har ikke slått på lyset.", "nb"),
        ("Jag har inte tänt lampan.", "sv"),
        ("Ich habe das Licht nicht eingeschaltet.", "de"),
        ("A luz está ligada.", "pt"),
        ("I will turn it on.", "en"),
        ("The front door is locked.", "en"),
        ("Das Licht ist schon aus.", "de"),
        ("Die Tür ist geschlossen.", "de"),
        ("Światło jest już włączone.", "pl"),
        ("It is sunny and 21 degrees.", "en"),
        ("", "en"),
    ],
)
def test_a_statement_or_a_question_is_no_claim(answer: str, language: str) -> None:
    """How things are, were already, or a question: nothing claimed done."""
    assert not claims_done(answer, language)


def test_a_long_answer_is_read_only_so_far() -> None:
    """A claim beyond the first 2,000 characters is not read: answers are short."""
    assert not claims_done("It is sunny. " * 200 + "I turned it on.", "en")
