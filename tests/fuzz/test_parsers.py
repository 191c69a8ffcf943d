"""Property-based tests for the parsers of what models, servers and users write.

Tool arguments, AI Task answers, a user's yes, a server's errors and headers,
the calculator's expressions and units, weather values, stored memories: any
input gives a result or the parser's declared error, never anything else.
Each property runs 1,000 examples (the "ci" Hypothesis profile in conftest.py).
"""

import json
import math
from typing import Any

import httpx
from hypothesis import assume, example, given, strategies as st
import openai
import probatio as vol
import pytest

from homeassistant.exceptions import HomeAssistantError

from custom_components.chatterbox.ai_task import _validated
from custom_components.chatterbox.context.memory import (
    InvalidMemoryError,
    Memory,
    render,
)
from custom_components.chatterbox.lang.answers import is_yes
from custom_components.chatterbox.server.client import Failure, classify, describe
from custom_components.chatterbox.server.errors import (
    MAX_RETRY_AFTER,
    retry_after,
    translate_request_error,
    translate_stream_error,
)
from custom_components.chatterbox.skills.readable import compass, condition, local_time
from custom_components.chatterbox.skills.safe_math import (
    CalculationError,
    evaluate,
    present,
)
from custom_components.chatterbox.skills.units import UnitError, convert, resolve
from custom_components.chatterbox.wire.arguments import (
    ToolArgumentsError,
    parse_tool_arguments,
)
from tests.helpers.strategies import (
    ANY_ARGUMENTS,
    BROKEN_JSON,
    JSON_ISH,
    JSON_OBJECTS,
    JSON_SCALARS,
    TEXT,
    result_or_error,
)

# Hostile shapes a megabyte long: the per-test time limit is the tripwire.
MEGABYTE = 1_000_000


@given(raw=st.none() | ANY_ARGUMENTS)
@example(raw="```" + " " * MEGABYTE + "x")
@example(raw="{" * MEGABYTE)
@example(raw='{"a": "' + "\\" * MEGABYTE)
@pytest.mark.timeout(60)
def test_any_tool_arguments_are_an_object_or_a_clear_error(raw: str | None) -> None:
    """Whatever a model writes as arguments, it is read or the model hears why."""
    arguments = result_or_error(lambda: parse_tool_arguments(raw), ToolArgumentsError)

    if isinstance(arguments, ToolArgumentsError):
        assert str(arguments)
    else:
        assert isinstance(arguments, dict)
        assert all(isinstance(key, str) for key in arguments)


WRAPPINGS = ["{}", "```json\n{}\n```", "```\n{} \n```", "  {}\n", "{} Done.", "{}</s>"]


@given(
    arguments=JSON_OBJECTS,
    wrapping=st.sampled_from(WRAPPINGS),
    python=st.booleans(),
)
def test_an_object_comes_through_any_wrapping(
    arguments: dict[str, Any],
    wrapping: str,
    python: bool,  # noqa: FBT001
) -> None:
    """JSON or Python-style, in a fence, around spaces or before chatter: read as is."""
    # Small models write single quotes, True, False and None.
    written = repr(arguments) if python else json.dumps(arguments, ensure_ascii=False)
    text = wrapping.replace("{}", written)

    assert parse_tool_arguments(text) == arguments
    # Encoded twice, as some models send it.
    assert parse_tool_arguments(json.dumps(text)) == arguments


STRUCTURE = vol.Schema({vol.Required("answer"): str}, extra=vol.ALLOW_EXTRA)


def fenced_answer(data: dict[str, Any], fence: str) -> tuple[str, dict[str, Any]]:
    """Write structured data as a model answers, with the data it holds."""
    data = {**data, "answer": "forty-two"}
    return fence.replace("{}", json.dumps(data)), data


AI_TASK_ANSWERS = st.one_of(
    st.tuples(
        JSON_ISH | st.text(max_size=30) | BROKEN_JSON.map("```json\n{}\n```".format),
        st.none(),
    ),
    st.builds(
        fenced_answer,
        JSON_OBJECTS,
        st.sampled_from(["{}", "```json\n{}\n```", "```{}```", " \n{}\n "]),
    ),
)


@given(answer=AI_TASK_ANSWERS)
@example(answer=("```json" + " " * MEGABYTE + "x", None))
@example(answer=("```" + "`" * MEGABYTE, None))
@pytest.mark.timeout(60)
def test_any_ai_task_answer_is_data_or_a_value_error(
    answer: tuple[str, dict[str, Any] | None],
) -> None:
    """Structured data is read, fenced or not; anything else says what is wrong."""
    text, expected = answer

    data = result_or_error(lambda: _validated(text, STRUCTURE), ValueError)

    if expected is not None:
        assert data == expected
    elif isinstance(data, ValueError):
        assert str(data)
    else:
        assert isinstance(data["answer"], str)


YES_WORDS = [
    ("yes", "en"),
    ("Yeah", "en"),
    ("OK", "pl"),
    ("sure", "en"),
    ("do it", "en"),
    ("Go ahead", "de"),
    ("ja", "de"),
    ("oui", "fr"),
    ("sí", "es"),
]


@given(text=st.text(max_size=30))
def test_is_yes_reads_any_answer(text: str) -> None:
    """Any answer is a yes or not; one that starts with "no" never is."""
    assert isinstance(is_yes(text), bool)
    assert not is_yes(f"no{'' if text[:1].isalnum() else text}")


@given(
    said=st.sampled_from(YES_WORDS),
    before=st.sampled_from(["", " ", "¡", '"', "...", "\n"]),
    after=st.sampled_from(["", ".", "!", ", please", ", go ahead!", " 👍"]),
)
def test_a_yes_in_any_punctuation_confirms(
    said: tuple[str, str], before: str, after: str
) -> None:
    """Case and punctuation around the yes words do not matter."""
    word, language = said
    assert is_yes(f"{before}{word}{after}", language)


SDK = openai.AsyncOpenAI(api_key="sk-unused", base_url="http://127.0.0.1/v1")
REQUEST = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
API_KEYS = st.tuples(
    st.sampled_from(["sk-", "sk-proj-", ""]),
    st.text(ALPHANUMERIC, min_size=8, max_size=24),
).map("".join)
# The mask itself is the one key that describe cannot hide.
API_KEYS = API_KEYS.filter(lambda key: "REDACTED" not in key)
HEADER_VALUES = st.one_of(
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
    st.floats().map(str),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT"]),
)


HEADERS = st.dictionaries(
    st.sampled_from(["retry-after", "retry-after-ms", "x-other"]),
    HEADER_VALUES,
    max_size=2,
)
ERROR_BODIES = st.one_of(
    st.none(),
    TEXT,
    st.fixed_dictionaries(
        {
            "message": st.sampled_from(["maximum context length", "model x not found"])
            | TEXT,
            "code": st.sampled_from([None, "content_filter", "rate_limit"]) | TEXT,
        }
    ),
)


def status_error(
    status: int, headers: dict[str, str], body: Any, message: str
) -> openai.APIStatusError:
    """Build the error the SDK raises for an answer with this status and body."""
    response = httpx.Response(status, headers=headers, request=REQUEST)
    return SDK._make_status_error(message, body=body, response=response)


STATUS_ERRORS = st.builds(
    status_error, st.integers(400, 599), HEADERS, ERROR_BODIES, TEXT
)


@given(err=STATUS_ERRORS, key=API_KEYS)
def test_any_server_error_is_classified_and_described_without_the_key(
    err: openai.APIStatusError, key: str
) -> None:
    """Any error answer is sorted, translated, logged without the key, waited for."""
    leaky = openai.APIStatusError(
        f"{err.message} (key {key})", response=err.response, body=err.body
    )

    assert classify(err) in set(Failure)
    assert isinstance(translate_request_error(err, model="qwen3"), HomeAssistantError)
    assert isinstance(translate_stream_error(err), HomeAssistantError)
    assert key not in describe(leaky, key)
    assert describe(err).startswith(f"HTTP {err.status_code}")
    # A 429's Retry-After, however it is written, is a wait we accept or none.
    rate_limited = openai.RateLimitError(
        err.message, response=err.response, body=err.body
    )
    wait = retry_after(rate_limited)
    assert wait is None or 0 <= wait <= MAX_RETRY_AFTER


SECRET_NAMES = ["Authorization: Bearer ", "Bearer ", "api_key=", "x-api-key: "]
SECRET_NAMES += ["password: ", "token=", "secret = ", "Authorization: Basic "]


@given(
    name=st.sampled_from(SECRET_NAMES),
    secret=st.text(ALPHANUMERIC, min_size=8, max_size=40),
    before=st.text(max_size=20),
)
def test_a_named_secret_is_masked_whatever_it_looks_like(
    name: str, secret: str, before: str
) -> None:
    """A proxy or server that echoes a credential by its name has it masked.

    The API key is masked by its value; a proxy's own token or password is
    not the key, so it is masked by what stands before it.
    """
    # A secret that is part of the other words (the "Authoriz" of its name)
    # is found there, unmasked, however well the secret itself is masked.
    assume(secret not in f"{before} {name} was refused")
    err = openai.APIConnectionError(
        message=f"{before} {name}{secret} was refused", request=REQUEST
    )

    assert secret not in describe(err)


def test_a_password_in_a_url_is_masked() -> None:
    """An error that quotes a URL with a user and password shows neither."""
    err = openai.APIConnectionError(
        message="Cannot connect to https://bob:hunter2@proxy.example/v1",
        request=REQUEST,
    )

    assert "hunter2" not in describe(err)
    assert "bob" not in describe(err)


EXPRESSION_PIECES = [*"0123456789.+-*/%^()e, ", "**", "//", "1e30", "1e308", "-1e30"]
EXPRESSION_PIECES += ["pi", "sqrt(", "round(", "factorial(", "log(", "exp(", "sin("]
EXPRESSION_PIECES += [
    "min(",
    "max(",
    "abs(",
    "floor(",
    "ceil(",
    "10% of ",
    "\u00d7",
    "\u00f7",
]
EXPRESSION_PIECES += ["9**9**9", "x", "__import__", "[1]", "'a'", "lambda: 1"]
EXPRESSIONS = st.lists(st.sampled_from(EXPRESSION_PIECES), max_size=14).map("".join)


@given(expression=EXPRESSIONS | st.text(max_size=20))
def test_any_expression_is_a_number_or_a_calculation_error(expression: str) -> None:
    """The calculator answers any expression at once, or says why it cannot."""
    value = result_or_error(lambda: evaluate(expression), CalculationError)

    if isinstance(value, CalculationError):
        assert str(value)
    else:
        assert isinstance(present(value)["result"], int | float)


@pytest.mark.parametrize(
    "expression", ["round(1, 1e30)", "round(2, -1e30)", "round(1.5, 10**300)"]
)
def test_rounding_to_absurd_digits_is_refused(expression: str) -> None:
    """Found by the property above: round(1, 1e30) hung Home Assistant's loop."""
    with pytest.raises(CalculationError, match="digits"):
        evaluate(expression)


UNITS = ["°C", "F", "km", "miles", "kg", "lbs", "L", "gallons", "km/h", "mph", "hPa"]
UNITS += ["kWh", "minutes", "degrees fahrenheit", "W", "", "s", "ms", "xyz"]


@given(
    value=st.floats(),
    from_unit=st.sampled_from(UNITS) | st.text(max_size=10),
    to_unit=st.sampled_from(UNITS) | st.text(max_size=10),
)
def test_any_conversion_is_a_value_or_a_unit_error(
    value: float, from_unit: str, to_unit: str
) -> None:
    """Any units, known or not, and any number: a value or a unit error."""
    converted = result_or_error(lambda: convert(value, from_unit, to_unit), UnitError)

    if isinstance(converted, UnitError):
        assert str(converted)
    else:
        assert isinstance(converted[0], float | int)
        assert converted[1:] == (resolve(from_unit), resolve(to_unit))


ATTRIBUTE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=25),
    st.sampled_from(
        [
            "2026-05-01T14:00:00+00:00",
            "2026-05-01T14:00:00",
            "2026-13-45T99:00:00",
            "0001-01-01T00:00:00+14:00",
            "9999-12-31T23:59:59-14:00",
            "NE",
        ]
    ),
)


COMPASS_POINTS = {"N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S"}
COMPASS_POINTS |= {"SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"}


# The failing examples found: round() of NaN, infinity and an int too big
# for a float raised, and so did a well-formed time that is no date.
@example(value=float("nan"))
@example(value=float("-inf"))
@example(value=10**400)
@example(value="0000-0-0T0:0")
@example(value="0001-01-01T00:00:00+14:00")
@given(value=ATTRIBUTE_VALUES)
def test_any_weather_value_is_put_in_words(value: Any) -> None:
    """Whatever a weather entity or service reports, the words never raise."""
    point = compass(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        assert point in COMPASS_POINTS or (point is value and not math.isfinite(value))
    else:
        assert point is value
    assert condition(value) is None or isinstance(condition(value), str)
    moment = local_time(value)
    assert moment is None or moment.tzinfo is not None


STORED = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["summary", "exchanges", "updated", "other"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=6,
)
MEMORIES = st.builds(
    Memory,
    summary=st.none() | TEXT,
    exchanges=st.lists(st.tuples(TEXT, TEXT), max_size=3).map(tuple),
    updated=st.floats(allow_nan=False),
)


@given(
    data=STORED | MEMORIES.map(lambda memory: json.loads(json.dumps(memory.as_dict())))
)
def test_any_stored_memory_is_read_or_refused(data: Any) -> None:
    """A store file edited by hand or left by an old version never crashes a turn."""
    memory = result_or_error(lambda: Memory.from_dict(data), InvalidMemoryError)
    if isinstance(memory, InvalidMemoryError):
        return
    # What is saved is read back the same, through JSON as the store writes it.
    assert Memory.from_dict(json.loads(json.dumps(memory.as_dict()))) == memory
    assert render(memory, "user").startswith("Earlier conversation")
