"""Numbers and figures, as a language writes and says them.

A request sets a figure ("dim it to 20 percent", "auf 18,5 Grad"); an answer
reports one ("it is 19.5 °C in the living room"). A figure is a number with
a percent or degree sign, or a word of the language for them, after it.
Other numbers are times, durations, counts or labels ("in 5 minutes", "lamp
2"), which are left alone. What the agent reads out itself is written with
the language's decimal separator ("18,5 °C" in German).
"""

import re
from typing import Final

from . import word_set, words_of

# A number as a person writes it: 22, 18.5, 18,5, -3.2. A minus counts only
# where no word or number stands before it: "18-20" is 18 and 20.
_SIGNED: Final = r"(?:(?<![\w.,])-)?\d+(?:[.,]\d+)?"
NUMBER: Final = re.compile(_SIGNED)
# A number with a percent or degree sign or word after it ("20 percent",
# "18,5 Grad", "19.5 °C"); the word, if one, is checked against the
# language's units. "Per cent" and its kin are two words in some languages.
FIGURE: Final = re.compile(
    rf"({_SIGNED})[^\S\n]{{0,3}}"
    r"(?:[%°]|(?:per|pour|por)[^\S\n]{1,3}(?:cent|ciento|cento)\b|(\w{1,20}))",
    re.IGNORECASE,
)
# The most figures of a text read: a spoken answer has a few.
_MAX_FIGURES: Final = 10
# A decimal number as Home Assistant writes it, with a point: not a part of
# a version or an address ("2026.11.0", "192.168.1.2").
_DECIMAL: Final = re.compile(r"(?<![\d.])(\d+)\.(\d+)(?![\d]|\.\d)")
# A percentage, with or without a space before its sign.
_PERCENT: Final = re.compile(r"(\d+(?:[.,]\d+)?)[^\S\n]?%")


def as_number(text: str) -> float | None:
    """Read a number as a person writes it: 22, 18.5, or 18,5; None if not one."""
    try:
        return float(text.strip().replace(",", ".", 1))
    except ValueError:
        return None


def is_figure(match: re.Match[str], language: str | None) -> bool:
    """Tell whether a match of FIGURE has a percent or a degree after it."""
    unit = match.group(2)
    return unit is None or unit.casefold() in word_set(language, "units")


def figures_in(text: str, language: str | None) -> list[str]:
    """Return the figures a text gives, as written: "19.5" of "19.5 °C"."""
    found = (m.group(1) for m in FIGURE.finditer(text) if is_figure(m, language))
    return list(dict.fromkeys(found))[:_MAX_FIGURES]


def say_numbers(text: str, language: str | None) -> str:
    """Write the numbers of a state's text as the language does.

    "18.5 °C" is "18,5 °C" in German, "50 %" is "50%" in English; a version
    or an address with more than one point is left as it is.
    """
    words = words_of(language)
    if words.decimal != ".":
        text = _DECIMAL.sub(rf"\1{words.decimal}\2", text)
    return _PERCENT.sub(lambda match: words.percent.format(number=match[1]), text)
