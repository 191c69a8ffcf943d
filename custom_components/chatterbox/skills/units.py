"""Convert between units with Home Assistant's own converters.

Models write units many ways (F, fahrenheit, degrees F, miles, lbs); each is
read as the unit symbol Home Assistant uses, and the converter that knows both
units does the conversion.
"""

from typing import Final

from homeassistant.util.unit_conversion import (
    AreaConverter,
    BaseUnitConverter,
    DistanceConverter,
    DurationConverter,
    EnergyConverter,
    InformationConverter,
    MassConverter,
    PowerConverter,
    PressureConverter,
    SpeedConverter,
    TemperatureConverter,
    VolumeConverter,
)

CONVERTERS: Final[tuple[type[BaseUnitConverter], ...]] = (
    TemperatureConverter,
    DistanceConverter,
    MassConverter,
    VolumeConverter,
    SpeedConverter,
    AreaConverter,
    PressureConverter,
    EnergyConverter,
    PowerConverter,
    DurationConverter,
    InformationConverter,
)
# Every unit symbol a converter knows, as Home Assistant writes it.
SYMBOLS: Final = frozenset(
    str(unit) for converter in CONVERTERS for unit in converter.VALID_UNITS if unit
)
_ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "°C": ("c", "celsius", "centigrade", "degc"),
    "°F": ("f", "fahrenheit", "degf"),
    "K": ("kelvin",),
    "km": ("kilometer", "kilometre"),
    "m": ("meter", "metre"),
    "cm": ("centimeter", "centimetre"),
    "mm": ("millimeter", "millimetre"),
    "mi": ("mile",),
    "yd": ("yard",),
    "ft": ("foot", "feet"),
    "in": ("inch", "inches"),
    "nmi": ("nautical mile",),
    "kg": ("kilogram", "kilo", "kgs"),
    "g": ("gram",),
    "mg": ("milligram",),
    "lb": ("pound", "lbs"),
    "oz": ("ounce",),
    "st": ("stone",),
    "L": ("l", "liter", "litre"),
    "mL": ("ml", "milliliter", "millilitre"),
    "gal": ("gallon", "us gallon"),
    "fl. oz.": ("fl oz", "floz", "fluid ounce"),
    "m³": ("m3", "cubic meter", "cubic metre"),
    "ft³": ("ft3", "cubic foot", "cubic feet"),
    "km/h": ("kph", "kmh", "kilometers per hour", "kilometres per hour"),
    "mph": ("miles per hour",),
    "m/s": ("meters per second", "metres per second"),
    "kn": ("knot", "kt", "kts"),
    "m²": ("m2", "sq m", "square meter", "square metre"),
    "km²": ("km2", "square kilometer", "square kilometre"),
    "ft²": ("ft2", "sq ft", "square foot", "square feet"),
    "mi²": ("mi2", "square mile"),
    "ac": ("acre",),
    "ha": ("hectare",),
    "hPa": ("hectopascal",),
    "mbar": ("millibar",),
    "inHg": ("inches of mercury",),
    "kWh": ("kilowatt hour", "kilowatt-hour"),
    "Wh": ("watt hour", "watt-hour"),
    "kcal": ("kilocalorie", "calories (food)"),
    "J": ("joule",),
    "W": ("watt",),
    "kW": ("kilowatt",),
    "s": ("sec", "second"),
    "min": ("minute",),
    "h": ("hr", "hour"),
    "d": ("day",),
    "w": ("week",),
}
ALIASES: Final = {alias: unit for unit, names in _ALIASES.items() for alias in names}


class UnitError(ValueError):
    """A unit that is unknown, or two that measure different things."""


def convert(value: float, from_unit: str, to_unit: str) -> tuple[float, str, str]:
    """Convert value; return it with the two units as Home Assistant writes them."""
    source, target = resolve(from_unit), resolve(to_unit)
    for converter in CONVERTERS:
        if source in converter.VALID_UNITS and target in converter.VALID_UNITS:
            return converter.convert(value, source, target), source, target
    msg = f"{source} and {target} measure different things"
    raise UnitError(msg)


def resolve(text: str) -> str:
    """Return the Home Assistant unit symbol a written unit means."""
    if (unit := text.strip()) in SYMBOLS:
        return unit
    key = " ".join(unit.casefold().removeprefix("degrees ").replace("°", "").split())
    # Plurals: miles, pounds, inches; short symbols such as ms stay as they are.
    plurals = (
        (key.removesuffix("s"), key.removesuffix("es")) if len(key) > len("lbs") else ()
    )
    for candidate in (key, *plurals):
        if candidate in ALIASES:
            return ALIASES[candidate]
    folded = [symbol for symbol in SYMBOLS if symbol.casefold() == unit.casefold()]
    if len(folded) == 1:
        return folded[0]
    msg = (
        f"the unit {text!r} is unknown; write a symbol such as °C, °F, km, mi, kg, "
        "lb, L, gal, km/h, mph, hPa, kWh or min"
    )
    raise UnitError(msg)
