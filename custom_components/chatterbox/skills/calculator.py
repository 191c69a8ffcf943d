"""The calculator skill: exact arithmetic and unit conversion for small models."""

from typing import Any, Final, override

import probatio

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..tools.own import SkillTool, error_result, reads_only
from .safe_math import MAX_LENGTH, CalculationError, evaluate, present
from .skill import Skill
from .units import UnitError, convert

# What a small model writes in a unit when the value has none: asked for a
# percentage of a number, small models convert from "percent" to "none". A
# percentage is a number, so there is nothing to convert.
_NO_UNIT: Final = frozenset(
    {"none", "null", "n/a", "unitless", "number", "percent", "percentage", "%"}
)


def _unit(value: Any) -> str | None:
    """Return the unit a model gave, or None for none at all."""
    if not isinstance(value, str) or value.strip().casefold() in _NO_UNIT:
        return None
    return value


def _is_value(expression: str) -> bool:
    """Tell whether an expression is a bare number, the value of a conversion."""
    try:
        float(expression)
    except ValueError:
        return False
    return True


class CalculateTool(SkillTool):
    """Calculate an expression, and convert the result between units if asked."""

    name = "chatterbox__calculate"
    title = "Calculate"
    description = (
        "Calculate exactly: arithmetic with + - * / // % ** ( ), sqrt, round, "
        "min, max, log, sin (radians) and more, and percentages as "
        "'15% of 80'. To convert units, give the value as the expression and "
        "from_unit and to_unit, e.g. 72, °F, °C."
    )
    parameters = probatio.Schema(
        {
            probatio.Required(
                "expression", description="e.g. (12.5 + 3) * 4, or the value to convert"
            ): probatio.All(str, probatio.Length(min=1, max=MAX_LENGTH)),
            probatio.Optional("from_unit", description="Unit of the value"): str,
            probatio.Optional("to_unit", description="Unit to convert to"): str,
        }
    )
    annotations = reads_only(online=False)

    @override
    async def async_run(
        self,
        hass: HomeAssistant,
        arguments: dict[str, Any],
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Evaluate, then convert when both units are given."""
        expression: str = arguments["expression"]
        from_unit = _unit(arguments.get("from_unit"))
        to_unit = _unit(arguments.get("to_unit"))
        try:
            value = evaluate(expression)
        except CalculationError as err:
            return error_result(
                "InvalidExpression",
                f"Could not calculate {expression!r}: {err}. Write plain "
                "arithmetic such as (3 + 4) * 2, 2**8 or sqrt(2).",
            )
        # One unit beside arithmetic is no conversion: small models fill a
        # unit in where none is meant ("(3 + 4) * 2", to "°C"). Beside a bare
        # value, it is a conversion short of its other unit.
        if (from_unit is None and to_unit is None) or (
            not (from_unit and to_unit) and not _is_value(expression)
        ):
            return llm.ToolResult(data={"expression": expression, **present(value)})
        if not from_unit or not to_unit:
            return error_result(
                "MissingUnit", "To convert, give both from_unit and to_unit."
            )
        try:
            converted, source, target = convert(float(value), from_unit, to_unit)
        except UnitError as err:
            return error_result("InvalidUnit", f"Could not convert: {err}.")
        return llm.ToolResult(
            data={
                "value": present(value)["result"],
                "from_unit": source,
                **present(converted),
                "unit": target,
            }
        )


CALCULATOR: Final = Skill(
    id="chatterbox_calc",
    name="Chatterbox calculator",
    prompt=(
        "Never do arithmetic or unit conversions in your head: use calculate, "
        "and say its result."
    ),
    tools=(CalculateTool,),
)
