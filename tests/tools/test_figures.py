"""Tests of figures: numbers with a percent or a degree, said and read."""

import pytest

from custom_components.chatterbox.lang.numbers import figures_in
from custom_components.chatterbox.tools.figures import gives_figure, unread_figures


@pytest.mark.parametrize(
    ("text", "language", "figures"),
    [
        ("It is 19.5 °C in the living room.", "en", ["19.5"]),
        ("Dim it to 20 percent, then 30%", "en", ["20", "30"]),
        ("Stell es auf 18,5 Grad", "de", ["18,5"]),
        ("Sett den til 40 prosent", "nb", ["40"]),
        # The language's words, and English's: not another language's.
        ("Sett den til 40 Grad", "nb", ["40"]),
        ("Set it to 40 Grad", "en", []),
        ("Lamp 2 goes off in 5 minutes", "en", []),
        ("Oslo: -3.2 °C, 18-20 degrees tomorrow", "en", ["-3.2", "20"]),
    ],
)
def test_a_figure_has_a_percent_or_a_degree(
    text: str, language: str, figures: list[str]
) -> None:
    """Times, durations and labels are no figures."""
    assert figures_in(text, language) == figures


def test_a_figure_read_nowhere_is_unread() -> None:
    """The thermometer reads 19.5; the answer says 22 and 72 %."""
    read = [
        {"role": "system", "content": "You are a voice assistant."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "How warm is it? Thermometer: 19.5 °C"},
                {"type": "image_url", "image_url": {"url": "data:,"}},
            ],
        },
    ]

    assert unread_figures("It is 22 °C, humidity 72 %.", read, "en") == ["22", "72"]
    assert unread_figures("It is 19,5 degrees.", read, "en") == []


def test_a_figure_rounded_from_one_read_is_read() -> None:
    """19.5 said as "about 20 degrees"; 50 a call was given, in its arguments."""
    read = [
        {"role": "tool", "content": '{"temperature": 19.5}'},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": {"name": "Set", "arguments": '{"p": 50}'}}],
        },
    ]

    assert unread_figures("About 20 degrees, and the fan at 50 %.", read, "en") == []
    said = [{"role": "assistant", "content": "It is 23 degrees."}]
    assert unread_figures("Still 23 degrees.", [*read, *said], "en") == ["23"]
    assert unread_figures("About 21 degrees.", read, "en") == ["21"]
    assert unread_figures("It is 19.5 degrees below zero, -19.5 °C.", read, "en") == [
        "-19.5"
    ]
    assert unread_figures("It is warm.", read, "en") == []


@pytest.mark.parametrize(
    ("answer", "gives"),
    [
        ("It is 19.5 °C in the living room.", True),
        ("Es sind 19,5 Grad.", True),
        ("About 20 degrees.", True),
        ("The light is off.", False),
        ("It is 22 degrees.", False),
    ],
)
def test_an_answer_gives_a_value_or_a_figure_rounded_from_it(
    answer: str, *, gives: bool
) -> None:
    """19.5, as written, with a comma, or rounded; not another figure."""
    assert gives_figure(answer, 19.5) is gives


@pytest.mark.parametrize(
    ("answer", "unread"),
    [
        # The other scale, rounded: 21.5 °C is 70.7 °F.
        ("That is about 71 °F.", []),
        # A fraction read as a percentage, and the sum and difference of two.
        ("The battery is at 85 percent.", []),
        ("Together they read 40 degrees, 3 degrees apart.", []),
        # Worked out from nothing read.
        ("It is 30 degrees.", ["30"]),
    ],
)
def test_a_figure_worked_out_from_one_read_is_read(
    answer: str, unread: list[str]
) -> None:
    """The model read 21.5 °C, 18.5 °C and a battery at 0.85."""
    read = [
        {"role": "user", "content": "How warm is it, and the battery?"},
        {"role": "tool", "content": "Hall: 21.5 °C; Porch: 18.5 °C; battery: 0.85"},
    ]

    assert unread_figures(answer, read, "en") == unread


def test_the_system_prompt_makes_no_sums() -> None:
    """Numbers of the system prompt are read, but no sum is made of them."""
    read = [
        {"role": "system", "content": "Today is 2026-11-28; 12 lights."},
        {"role": "user", "content": "How warm is it?"},
    ]

    assert unread_figures("It is 12 degrees.", read, "en") == []
    assert unread_figures("It is 40 degrees.", read, "en") == ["40"]
