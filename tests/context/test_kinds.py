"""The words that name kinds of devices, in the languages of the question words."""

import pytest

from custom_components.chatterbox.context.kinds import kinds_named


@pytest.mark.parametrize(
    ("words", "kinds"),
    [
        ("turn off the lights in the attic", {"light"}),
        ("schalte die lampen und den ventilator aus", {"light", "fan"}),
        ("wyłącz telewizor", {"media_player"}),
        ("baja las persianas", {"cover"}),
        # "Switch" is what is done, not a kind of device.
        ("switch off everything", set()),
    ],
)
def test_kinds_are_named_by_their_words(words: str, kinds: set[str]) -> None:
    """Each language's words for a kind, singular or plural, name its domain."""
    assert kinds_named(words.split()) == kinds
