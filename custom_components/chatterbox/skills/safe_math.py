"""Evaluate arithmetic exactly and safely: a small interpreter, never eval.

The expression is parsed into Python's syntax tree and only numbers, the
arithmetic operators, a few functions and constants are interpreted. Numbers
are exact fractions until a function such as sqrt or sin needs a float. The
text, the tree, every intermediate number and the time are bounded, so no
expression can exhaust memory or the event loop.
"""

import ast
from collections.abc import Callable
from fractions import Fraction
import math
import operator
import re
import time
from typing import Final

MAX_LENGTH: Final = 256
MAX_NODES: Final = 200
# Bits of a numerator or denominator: keeps every number inside float's range.
MAX_BITS: Final = 1000
MAX_SECONDS: Final = 0.05
# Integers shown as they are, up to this many digits; larger ones as floats too.
EXACT_DIGITS: Final = 15
MAX_FACTORIAL: Final = 150
# More digits than a number within MAX_BITS has; 10 ** digits is computed.
MAX_ROUND_DIGITS: Final = 400
TRIG_DIGITS: Final = 15

type Number = Fraction | float

_PERCENT_OF: Final = re.compile(r"(\d+(?:\.\d+)?)\s*%\s*of\b", re.IGNORECASE)
# Multiplication sign, middle dot, division sign, minus sign; ^ as power.
_SYMBOLS: Final = str.maketrans(
    {"\u00d7": "*", "\u00b7": "*", "\u00f7": "/", "\u2212": "-", "^": "**"}
)
CONSTANTS: Final = {"pi": math.pi, "e": math.e, "tau": math.tau}


class CalculationError(ValueError):
    """An expression that cannot be calculated; the message says why."""


def evaluate(expression: str) -> Number:
    """Return the value of an arithmetic expression, exactly where possible."""
    text = _PERCENT_OF.sub(r"(\1/100)*", expression.translate(_SYMBOLS)).strip()
    if not text:
        msg = "the expression is empty"
        raise CalculationError(msg)
    if len(text) > MAX_LENGTH:
        msg = f"the expression is longer than {MAX_LENGTH} characters"
        raise CalculationError(msg)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        msg = f"it is not arithmetic ({err.msg})"
        raise CalculationError(msg) from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        msg = f"the expression has more than {MAX_NODES} parts"
        raise CalculationError(msg)
    return _Interpreter(text).value(tree.body)


class _Interpreter:
    """Interpret one parsed expression within the time limit."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.deadline = time.monotonic() + MAX_SECONDS

    def value(self, node: ast.expr) -> Number:
        """Return the value of a node of the tree."""
        if time.monotonic() > self.deadline:
            msg = "it took too long to calculate"
            raise CalculationError(msg)
        try:
            result = self._value(node)
        except ZeroDivisionError:
            msg = "it divides by zero"
            raise CalculationError(msg) from None
        except OverflowError:
            msg = "the result is too large"
            raise CalculationError(msg) from None
        return _checked(result)

    def _value(self, node: ast.expr) -> Number:
        """Interpret a node of one of the allowed kinds."""
        match node:
            case ast.Constant():
                return self._constant(node)
            case ast.UnaryOp(op=ast.USub() | ast.UAdd() as op, operand=operand):
                value = self.value(operand)
                return -value if isinstance(op, ast.USub) else value
            case ast.BinOp(left=left, op=ast.Pow(), right=right):
                return _power(self.value(left), self.value(right))
            case ast.BinOp(left=left, op=op, right=right) if type(op) in _BINARY:
                return _BINARY[type(op)](self.value(left), self.value(right))
            case ast.Name(id=name) if name in CONSTANTS:
                return CONSTANTS[name]
            case ast.Call(func=ast.Name(id=name), args=args, keywords=[]) if (
                name in FUNCTIONS
            ):
                return self._call(name, [self.value(arg) for arg in args])
        raise CalculationError(_not_allowed(self.text, node))

    def _constant(self, node: ast.Constant) -> Number:
        """Read a number exactly: 0.1 from its text, so it stays one tenth."""
        number = node.value
        if isinstance(number, bool) or not isinstance(number, int | float):
            msg = f"{ast.get_source_segment(self.text, node)} is not a number"
            raise CalculationError(msg)
        if isinstance(number, int):
            return Fraction(number)
        if not math.isfinite(number):
            msg = "a number in it is too large"
            raise CalculationError(msg)
        return Fraction(ast.get_source_segment(self.text, node) or number)

    def _call(self, name: str, args: list[Number]) -> Number:
        """Call one of the known functions."""
        try:
            return FUNCTIONS[name](*args)
        except TypeError:
            msg = f"{name} takes a different number of arguments"
            raise CalculationError(msg) from None
        except ValueError as err:
            if isinstance(err, CalculationError):
                raise
            msg = f"{name} is not defined for {', '.join(map(_show, args))}"
            raise CalculationError(msg) from None


def _not_allowed(text: str, node: ast.expr) -> str:
    """Say why a part of the expression is refused."""
    match node:
        case ast.Call(func=ast.Name(id=name)) if name in FUNCTIONS:
            return f"write the arguments of {name} without names"
        case ast.Name(id=name) | ast.Call(func=ast.Name(id=name)):
            return f"{name} is not a known function or constant; {_KNOWN}"
        case ast.Tuple():
            return "write numbers without thousands separators"
    return f"{ast.get_source_segment(text, node)!r} is not allowed; {_KNOWN}"


def _checked(result: Number | complex) -> Number:
    """Refuse numbers out of bounds, and complex ones."""
    if isinstance(result, complex):
        msg = "it has no real result"
        raise CalculationError(msg)
    if isinstance(result, Fraction):
        if max(result.numerator.bit_length(), result.denominator.bit_length()) > (
            MAX_BITS
        ):
            msg = "a number in the calculation is too large"
            raise CalculationError(msg)
        return result
    if not math.isfinite(result):
        msg = "the result is too large"
        raise CalculationError(msg)
    return result


def _power(base: Number, exponent: Number) -> Number:
    """Raise to a power: exact for whole exponents, bounded before it is done."""
    if isinstance(exponent, Fraction) and exponent.denominator == 1:
        if isinstance(base, Fraction) and abs(base) not in (0, 1):
            bits = max(base.numerator.bit_length(), base.denominator.bit_length())
            if (bits - 1) * abs(exponent.numerator) > MAX_BITS:
                msg = "the result is too large"
                raise CalculationError(msg)
        return _checked(base ** int(exponent))
    result: float | complex = float(base) ** float(exponent)
    return _checked(result)


def _sqrt(value: Number) -> Number:
    """Return a square root, exact when it is a fraction of perfect squares."""
    if isinstance(value, Fraction) and value >= 0:
        top, bottom = math.isqrt(value.numerator), math.isqrt(value.denominator)
        if top * top == value.numerator and bottom * bottom == value.denominator:
            return Fraction(top, bottom)
    return math.sqrt(value)


def _whole(function: Callable[[Number], int]) -> Callable[[Number], Number]:
    """Wrap floor, ceil and the like to keep exact numbers exact."""
    return lambda value: Fraction(function(value))


def _trig(function: Callable[[Number], float]) -> Callable[[Number], Number]:
    """Wrap sin, cos and tan so that sin(pi) is 0, not float noise near it."""
    return lambda value: round(function(value), TRIG_DIGITS)


def _factorial(value: Number) -> Number:
    """Return n! for a whole n up to MAX_FACTORIAL."""
    if value != int(value) or not 0 <= value <= MAX_FACTORIAL:
        msg = f"factorial needs a whole number from 0 to {MAX_FACTORIAL}"
        raise CalculationError(msg)
    return Fraction(math.factorial(int(value)))


def _round(value: Number, digits: Number = 0) -> Number:
    """Round half away from zero, as people do, to whole digits."""
    if digits != int(digits):
        msg = "round takes a whole number of digits"
        raise CalculationError(msg)
    if abs(int(digits)) > MAX_ROUND_DIGITS:
        msg = f"round takes at most {MAX_ROUND_DIGITS} digits"
        raise CalculationError(msg)
    scale = Fraction(10) ** int(digits)
    scaled = Fraction(value) * scale
    rounded = math.floor(abs(scaled) + Fraction(1, 2))
    return Fraction(rounded if scaled >= 0 else -rounded) / scale


def _log(value: Number, base: Number | None = None) -> Number:
    """Return the natural logarithm, or the logarithm in a base."""
    return math.log(value) if base is None else math.log(value, base)


_BINARY: Final[dict[type[ast.operator], Callable[[Number, Number], Number]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: lambda a, b: Fraction(a // b),
    ast.Mod: operator.mod,
}
FUNCTIONS: Final[dict[str, Callable[..., Number]]] = {
    "sqrt": _sqrt,
    "abs": abs,
    "round": _round,
    "floor": _whole(math.floor),
    "ceil": _whole(math.ceil),
    "min": min,
    "max": max,
    "exp": math.exp,
    "ln": math.log,
    "log": _log,
    "log10": math.log10,
    "log2": math.log2,
    "sin": _trig(math.sin),
    "cos": _trig(math.cos),
    "tan": _trig(math.tan),
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "degrees": math.degrees,
    "radians": math.radians,
    "factorial": _factorial,
}
_KNOWN: Final = (
    "use numbers, + - * / // % ** ( ), the constants "
    f"{', '.join(CONSTANTS)} and the functions {', '.join(FUNCTIONS)}"
)


def present(value: Number) -> dict[str, int | float | str]:
    """Return a result as the model should read it, with the exact form if any."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            if len(str(abs(value.numerator))) <= EXACT_DIGITS:
                return {"result": value.numerator}
            return {"result": float(value), "exact": str(value.numerator)}
        shown: dict[str, int | float | str] = {"result": _nice(float(value))}
        if not _terminates(value.denominator):
            shown["exact"] = f"{value.numerator}/{value.denominator}"
        return shown
    return {"result": _nice(value)}


def _nice(value: float) -> int | float:
    """Round away float noise: 12 significant digits, whole numbers as ints."""
    rounded = float(f"{value:.12g}")
    if rounded.is_integer() and abs(rounded) < 10**EXACT_DIGITS:
        return int(rounded)
    return rounded


def _terminates(denominator: int) -> bool:
    """Say whether a fraction with this denominator is a finite decimal."""
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def _show(value: Number) -> str:
    """Show an argument in an error message."""
    return str(present(value)["result"])
