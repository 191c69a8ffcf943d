"""Units as models write them, read as Home Assistant's converters know them."""

import pytest

from custom_components.chatterbox.skills.units import UnitError, convert, resolve


@pytest.mark.parametrize(
    ("value", "units", "expected"),
    [
        (20, ("degrees Celsius", "°F"), (68.0, "°C", "°F")),
        (10, ("miles", "kilometres"), (16.09344, "mi", "km")),
        (5, ("lbs", "kg"), (2.26796185, "lb", "kg")),
        (1, ("gallons", "l"), (3.785411784, "gal", "L")),
        (100, ("KPH", "mph"), (62.1371192237, "km/h", "mph")),
        (90, ("minutes", "h"), (1.5, "min", "h")),
        (1, ("ms", "s"), (0.001, "ms", "s")),
        (2, ("Inches", "cm"), (5.08, "in", "cm")),
        (1, ("GiB", "MiB"), (1024, "GiB", "MiB")),
        (1, ("KWH", "wh"), (1000, "kWh", "Wh")),
    ],
)
def test_unit_conversions(
    value: float, units: tuple[str, str], expected: tuple[float, str, str]
) -> None:
    """Units written as models write them are read as Home Assistant's."""
    converted, source, target = convert(value, *units)

    assert (round(converted, 10), source, target) == expected


@pytest.mark.parametrize("unit", ["furlong", "mw", ""])
def test_unknown_or_ambiguous_units(unit: str) -> None:
    """A unit nobody knows, or one whose case matters (mW or MW), is refused."""
    with pytest.raises(UnitError, match="is unknown"):
        resolve(unit)
