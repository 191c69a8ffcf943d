"""Safe arithmetic: exact where it can be, refused where it is no arithmetic."""

from fractions import Fraction
from typing import Any

import pytest

from custom_components.chatterbox.skills.safe_math import (
    MAX_LENGTH,
    CalculationError,
    evaluate,
    present,
)


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
