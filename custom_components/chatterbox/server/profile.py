"""Whether an agent guides a small model, and why.

The agent's option decides, or on Auto the model's size: the parameter count
its server reports, else the size its name carries. A model of unknown size is
taken for a capable one, the model Chatterbox is built for. Pure: no I/O.
"""

from dataclasses import dataclass
import re
from typing import Final

from ..const import GUIDE_OFF, GUIDE_ON, SMALL_MODEL_PARAMETERS

# Names come from the server: a path and a file name fit in this, and nothing
# longer is read.
NAME_LIMIT: Final = 256
# A size tag as a whole token: "1.5b", "270m", or a mixture's "8x7b", whose
# total counts (every expert is loaded). Digits, letters or a dot before it,
# or a letter or digit after it, make it part of another word: "qwen2.5b",
# a mixture's active size "a3b", "4bit", "4.0bpw". "4k" is a context length.
# Bounded repeats keep each attempt short, so a scan is linear.
_SIZE_TAG: Final = re.compile(
    r"(?<![a-z0-9.])(?:(\d{1,3})x)?(\d{1,4}(?:\.\d{1,3})?)([bm])(?![a-z0-9])"
)
_UNITS: Final = {"b": 1_000_000_000, "m": 1_000_000}
# Sizes are compared as names give them, to a tenth of a billion, so that a
# "4B" model whose server counts 4.02 billion parameters is still 4B.
_TENTH: Final = 100_000_000


@dataclass(frozen=True, slots=True)
class Guide:
    """Whether a turn guides a small model, and why."""

    on: bool
    reason: str
    """A short code: set_on, set_off, server_reports_1.5B, name_says_3B,
    size_unknown."""


def guide_for(setting: str, model: str, parameters: int | None) -> Guide:
    """Decide for an agent's setting, model name and reported parameter count."""
    if setting == GUIDE_ON:
        return Guide(on=True, reason="set_on")
    if setting == GUIDE_OFF:
        return Guide(on=False, reason="set_off")
    if parameters is not None and parameters > 0:
        return Guide(
            on=_small(parameters), reason=f"server_reports_{_says(parameters)}"
        )
    if (named := size_in_name(model)) is not None:
        return Guide(on=_small(named), reason=f"name_says_{_says(named)}")
    return Guide(on=False, reason="size_unknown")


def size_in_name(name: str) -> int | None:
    """Return the parameter count a model's name gives, or None.

    With several tags ("qwen2.5-7b-instruct-1m", whose 1m is its context),
    the largest counts: a capable model is the safer guess.
    """
    sizes = [_size(match) for match in _SIZE_TAG.finditer(name[:NAME_LIMIT].lower())]
    return max(filter(None, sizes), default=None)


def size_from_text(text: str) -> int | None:
    """Return the parameter count in a size such as Ollama's "8.0B", or None."""
    match = _SIZE_TAG.fullmatch(text[:NAME_LIMIT].strip().lower())
    return None if match is None else _size(match)


def _size(match: re.Match[str]) -> int | None:
    """Return the parameter count of a size tag; None for "0b", which is none."""
    experts, number, unit = match.groups()
    return round(float(number) * _UNITS[unit]) * int(experts or 1) or None


def _small(parameters: int) -> bool:
    """Tell a model Auto guides: at or below the threshold, to a tenth of 1B."""
    return round(parameters / _TENTH) <= SMALL_MODEL_PARAMETERS // _TENTH


def _says(parameters: int) -> str:
    """Return a size as a name gives it: 494M, 1.5B, 8B."""
    millions = round(parameters / _UNITS["m"])
    if millions < _UNITS["b"] // _UNITS["m"]:
        return f"{millions}M"
    whole, tenth = divmod(round(parameters / _TENTH), 10)
    return f"{whole}.{tenth}B" if tenth else f"{whole}B"
