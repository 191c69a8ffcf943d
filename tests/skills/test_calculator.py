"""The calculator skill: exact arithmetic and unit conversion, and what it refuses."""

from typing import Any

import pytest

from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant

from custom_components.chatterbox.skills.safe_math import MAX_LENGTH
from tests.helpers.common import MODELS
from tests.helpers.llm_server import LLMServer
from tests.helpers.skills import call_tool

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
        (
            "How much is a fifth of 45 kilos?",
            {"expression": "45 / 5", "from_unit": "%", "to_unit": "°C"},
            {"expression": "45 / 5", "result": 9},
        ),
        (
            "What is 3 times 7 metres?",
            {"expression": "3 * 7", "from_unit": "m"},
            {"expression": "3 * 7", "result": 21},
        ),
    ],
    ids=["empty", "percent_to_none", "one_unit_beside_arithmetic", "only_from"],
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

    So does arithmetic with a single unit beside it: one unit converts nothing.

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
