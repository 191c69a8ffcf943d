"""Numbers as a language writes them: the figures read, the states read out."""

import pytest

from custom_components.chatterbox.lang.numbers import as_number, say_numbers


@pytest.mark.parametrize(
    ("text", "language", "said"),
    [
        ("18.5 °C", "de", "18,5 °C"),
        ("18.5 °C", "en", "18.5 °C"),
        ("18.5 °C", "nb-NO", "18,5 °C"),
        ("-3.25 °C", "fr", "-3,25 °C"),
        # Percent as the language writes it: with a space or without.
        ("Brightness 50 %", "en", "Brightness 50%"),
        ("Helligkeit 50%", "de", "Helligkeit 50 %"),
        ("45.5 %", "pl", "45,5%"),
        # A version or an address is no decimal number.
        ("2026.11.0", "de", "2026.11.0"),
        ("192.168.1.2", "fr", "192.168.1.2"),
        # A language without words of ours writes as English does.
        ("18.5 °C", "fi", "18.5 °C"),
    ],
)
def test_a_state_read_out_is_written_as_the_language_writes(
    text: str, language: str, said: str
) -> None:
    """The decimal separator and the percent sign of the language."""
    assert say_numbers(text, language) == said


def test_a_number_reads_with_either_separator() -> None:
    """22, 18.5 and 18,5 are numbers; a word is not."""
    assert as_number("22") == 22
    assert as_number(" 18.5 ") == 18.5
    assert as_number("18,5") == 18.5
    assert as_number("many") is None
