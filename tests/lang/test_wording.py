"""Saying what a sensitive call would do, in the words of a language."""

import pytest

from custom_components.chatterbox.lang.wording import (
    Action,
    Deed,
    and_list,
    say,
    say_all,
)

UNLOCK = Action((Deed("unlock", ("Front door",)),))
BOTH = Action(
    (Deed("unlock", ("Front door", "Side door")), Deed("open", ("Garage door",)))
)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "unlock Front door and Side door and open Garage door"),
        ("de", "Front door und Side door aufschließen und Garage door öffnen"),
        ("de-CH", "Front door und Side door aufschließen und Garage door öffnen"),
        ("pl", "odblokować Front door i Side door i otworzyć Garage door"),
        ("da", "låse Front door og Side door op og åbne Garage door"),
        # No words for Finnish: English.
        ("fi", "unlock Front door and Side door and open Garage door"),
    ],
)
def test_an_action_in_a_language(language: str, said: str) -> None:
    """Each verb in the language's words, the names where the language puts them."""
    assert say(BOTH, language) == said


def test_the_model_reads_english() -> None:
    """An action as text is English: what the model reads in its notes."""
    assert str(UNLOCK) == "unlock Front door"
    assert f"to {UNLOCK}" == "to unlock Front door"


def test_a_verb_without_words_is_said_in_english_in_the_sentence() -> None:
    """A verb from a tool's own name has no translation: it stays as it is."""
    action = Action((Deed("set position", ("Garage door",)), Deed("cancel timers")))

    assert say(action, "de") == "set position Garage door und cancel timers"


def test_many_names_are_counted() -> None:
    """Past five names, the rest are counted in the language."""
    action = Action((Deed("turn off", tuple(f"Lamp {n}" for n in range(1, 9))),))

    assert say(action, "en").endswith("Lamp 4, Lamp 5 and 3 more")
    assert say(action, "it").endswith("Lamp 4, Lamp 5 e altri 3")


def test_a_script_that_acts_on_a_guarded_device() -> None:
    """Running a script is said with what it acts on."""
    action = Action((Deed("run", ("Leave home",)),), through=("Front door",))

    assert say(action, "en") == "run Leave home, which acts on Front door"
    assert say(action, "fr") == "lancer Leave home, qui agit sur Front door"


def test_several_held_calls_make_one_list() -> None:
    """Two held calls in one question."""
    garage = Action((Deed("open", ("Garage door",)),))

    assert say_all([UNLOCK, garage], "sv") == (
        "låsa upp Front door och öppna Garage door"
    )
    assert and_list(["A", "B", "C"], "nl") == "A, B en C"


def test_held_calls_that_do_the_same_are_said_once() -> None:
    """Two calls unlock the front door, one the side door too: each door once.

    A call whose targets are unknown, and a script with what it acts on, are
    said once each, as they are.
    """
    script = Action((Deed("run", ("Leave home",)),), through=("Front door",))
    unknown = Action((Deed("turn off"),))
    garage = Action((Deed("stop", ("Garage door",)),))
    held = [UNLOCK, BOTH, script, unknown, UNLOCK, script, unknown, garage]

    assert say_all(held, "en") == (
        "unlock Front door and Side door, open Garage door, run Leave home, "
        "which acts on Front door, turn off and stop Garage door"
    )
    assert say_all([garage, garage], "de") == "Garage door anhalten"


def test_two_devices_of_one_name_are_two() -> None:
    """Two calls unlock a Side door each, two locks: both are said."""
    kitchen = Action((Deed("unlock", ("Side door",), ("lock.side_door",)),))
    hallway = Action((Deed("unlock", ("Side door",), ("lock.side_door_2",)),))

    assert say_all([kitchen, hallway, kitchen], "en") == (
        "unlock Side door and Side door"
    )
