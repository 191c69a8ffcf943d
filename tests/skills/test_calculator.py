"""The calculator skill: exact arithmetic and unit conversion, and what it refuses."""

from fractions import Fraction
from typing import Any

import pytest

from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant

from custom_components.chatterbox.skills.safe_math import (
    MAX_LENGTH,
    CalculationError,
    evaluate,
    present,
)
from custom_components.chatterbox.skills.units import UnitError, convert, resolve

from .conftest import MODELS
from .llm_server import LLMServer
from .skills import call_tool

CALCULATE = "chatterbox__calculate"


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent the calculator skill only."""
    return {CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: ["chatterbox_calc"]}


@pytest.mark.usefixtures("loaded_entry")
async def test_arithmetic(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """The user splits a bill; the model reads the exact result, not a guess."""
    result = await call_tool(
        hass,
        llm_server,
        "We were three and the bill was 100 euros plus 15% tip. How much each?",
        CALCULATE,
        {"expression": "(100 + 15% of 100) / 3"},
    )

    assert result == {
        "data": {
            "expression": "(100 + 15% of 100) / 3",
            "result": 38.3333333333,
            "exact": "115/3",
        },
        "error": False,
    }


@pytest.mark.parametrize(
    ("question", "arguments", "result"),
    [
        (
            "What is 17 times 23?",
            {"expression": "17 * 23", "from_unit": "", "to_unit": ""},
            {"expression": "17 * 23", "result": 391},
        ),
        (
            "What is 15 percent of 80?",
            {"expression": "15% of 80", "from_unit": "percent", "to_unit": "none"},
            {"expression": "15% of 80", "result": 12},
        ),
    ],
    ids=["empty", "percent_to_none"],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_units_that_are_no_units_mean_no_conversion(
    hass: HomeAssistant,
    llm_server: LLMServer,
    question: str,
    arguments: dict[str, Any],
    result: dict[str, Any],
) -> None:
    """A small model fills the optional units with no unit: it still calculates.

    Qwen2.5 1.5B did both in scripts/eval: "" and "" for 17 times 23 (then
    invented °F to °C to get past the error, and never said 391), and
    "percent" to "none" for 15 percent of 80, three times, until it gave up.
    """
    answer = await call_tool(hass, llm_server, question, CALCULATE, arguments)

    assert answer == {"data": result, "error": False}


@pytest.mark.usefixtures("loaded_entry")
async def test_unit_conversion(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """72 °F in Celsius: converted by Home Assistant's own converter."""
    result = await call_tool(
        hass,
        llm_server,
        "What is 72 Fahrenheit in Celsius?",
        CALCULATE,
        {"expression": "72", "from_unit": "fahrenheit", "to_unit": "C"},
    )

    assert result == {
        "data": {"value": 72, "from_unit": "°F", "result": 22.2222222222, "unit": "°C"},
        "error": False,
    }


@pytest.mark.usefixtures("loaded_entry")
async def test_conversion_of_a_calculated_value(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """A marathon in miles: the expression is calculated, then converted."""
    result = await call_tool(
        hass,
        llm_server,
        "How many miles is a marathon?",
        CALCULATE,
        {"expression": "42 + 0.195", "from_unit": "km", "to_unit": "miles"},
    )

    assert result["data"] == {
        "value": 42.195,
        "from_unit": "km",
        "result": 26.2187574565,
        "unit": "mi",
    }


@pytest.mark.parametrize(
    ("arguments", "kind", "says"),
    [
        (
            {"expression": "__import__('os').system('reboot')"},
            "InvalidExpression",
            "is not allowed",
        ),
        ({"expression": "9**9**9"}, "InvalidExpression", "the result is too large"),
        ({"expression": "1/0"}, "InvalidExpression", "it divides by zero"),
        ({"expression": "2 +"}, "InvalidExpression", "it is not arithmetic"),
        (
            {"expression": "3", "from_unit": "kg"},
            "MissingUnit",
            "give both from_unit and to_unit",
        ),
        (
            {"expression": "3", "from_unit": "none", "to_unit": "km"},
            "MissingUnit",
            "give both from_unit and to_unit",
        ),
        (
            {"expression": "3", "from_unit": "kg", "to_unit": "km"},
            "InvalidUnit",
            "kg and km measure different things",
        ),
        (
            {"expression": "3", "from_unit": "furlong", "to_unit": "m"},
            "InvalidUnit",
            "the unit 'furlong' is unknown",
        ),
    ],
    ids=[
        "code",
        "huge",
        "zero",
        "syntax",
        "one_unit",
        "no_unit_to_a_unit",
        "mismatch",
        "unknown_unit",
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_rejected_expression(
    hass: HomeAssistant,
    llm_server: LLMServer,
    arguments: dict[str, Any],
    kind: str,
    says: str,
) -> None:
    """Code, huge numbers, nonsense: an error result says what was wrong."""
    result = await call_tool(hass, llm_server, "Calculate this", CALCULATE, arguments)

    assert result["error"] is True
    assert result["data"]["error"] == kind
    assert says in result["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_argument_that_does_not_fit_the_schema(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """An over-long expression is refused by the tool's schema, with the reason."""
    result = await call_tool(
        hass, llm_server, "Sum this", CALCULATE, {"expression": "1+" * MAX_LENGTH}
    )

    assert result["error"] is True
    assert "length" in result["data"]["error_text"]


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("0.1 + 0.2", Fraction(3, 10)),
        ("2^10", Fraction(1024)),
        ("12 \u00d7 7 \u2212 4 \u00f7 2", Fraction(82)),
        ("-(3) + +2", Fraction(-1)),
        ("10 // 3 + 10 % 3", Fraction(4)),
        ("2**-2", Fraction(1, 4)),
        ("sqrt(16/9)", Fraction(4, 3)),
        ("round(2.5) + round(-2.5)", Fraction(0)),
        ("round(3.14159, 2)", Fraction(314, 100)),
        ("floor(2.7) + ceil(2.1)", Fraction(5)),
        ("min(3, 1, 2) + max(3, 1, 2) + abs(-1)", Fraction(5)),
        ("factorial(5)", Fraction(120)),
        ("1_000.5 * 2", Fraction(2001)),
        ("1e3", Fraction(1000)),
    ],
)
def test_exact_results(expression: str, value: Fraction) -> None:
    """Exact arithmetic: fractions stay fractions, so 0.1 + 0.2 is 0.3."""
    assert evaluate(expression) == value


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("sqrt(2)", 1.41421356237),
        ("sin(pi) + cos(0) + tan(pi / 4)", 2),
        ("log(100, 10) + ln(e) + log10(1000) + log2(8)", 9),
        ("exp(0) + degrees(pi) + radians(180) - pi", 181),
        ("asin(1) * 2 - acos(-1) + atan(0)", 0),
        ("8 ** (1/3)", 2),
        ("tau / 2", 3.14159265359),
    ],
)
def test_float_results_without_float_noise(expression: str, value: float) -> None:
    """Functions need floats; the result is rounded to 12 significant digits."""
    assert present(evaluate(expression))["result"] == value


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(42), {"result": 42}),
        (Fraction(1, 8), {"result": 0.125}),
        (Fraction(2, 3), {"result": 0.666666666667, "exact": "2/3"}),
        (
            Fraction(2**64),
            {"result": 1.8446744073709552e19, "exact": "18446744073709551616"},
        ),
        (2.0, {"result": 2}),
        (1.5e20, {"result": 1.5e20}),
    ],
)
def test_results_as_the_model_reads_them(
    value: Fraction | float, shown: dict[str, Any]
) -> None:
    """Whole numbers as integers, the exact fraction where decimals never end."""
    assert present(value) == shown


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("", "the expression is empty"),
        ("1" * (MAX_LENGTH + 1), f"longer than {MAX_LENGTH} characters"),
        ("+".join(["1"] * 120), "more than 200 parts"),
        ("1,000", "without thousands separators"),
        ("x + 1", "x is not a known function or constant"),
        ("open('/etc/passwd')", "open is not a known function or constant"),
        ("(1).real", "'(1).real' is not allowed"),
        ("[1, 2]", "'[1, 2]' is not allowed"),
        ("1 if 1 else 2", "is not allowed"),
        ("lambda: 1", "is not allowed"),
        ("'a' * 3", "'a' is not a number"),
        ("True + 1", "True is not a number"),
        ("1j", "1j is not a number"),
        ("1e999", "a number in it is too large"),
        ("1e308 * 10", "a number in the calculation is too large"),
        ("pi * 1e300 * 1e10", "the result is too large"),
        ("2 ** 100000", "the result is too large"),
        ("exp(1000)", "the result is too large"),
        ("(-8) ** (1/3)", "it has no real result"),
        ("0 ** -1", "it divides by zero"),
        ("sqrt(-1)", "sqrt is not defined for -1"),
        ("sqrt(1, 2)", "sqrt takes a different number of arguments"),
        ("factorial(2.5)", "factorial needs a whole number from 0 to 150"),
        ("factorial(151)", "factorial needs a whole number"),
        ("round(1.5, 0.5)", "round takes a whole number of digits"),
        ("sqrt(x=4)", "write the arguments of sqrt without names"),
    ],
)
def test_refused_expressions(expression: str, says: str) -> None:
    """Only arithmetic runs, within bounds; the message says what was wrong."""
    with pytest.raises(CalculationError) as refused:
        evaluate(expression)

    assert says in str(refused.value)


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
