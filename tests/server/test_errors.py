"""A server's errors, mapped to what the user hears; how long a 429 asks to wait."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import openai
import pytest

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.server.errors import (
    DEFAULT_RETRY_AFTER,
    MAX_RETRY_AFTER,
    retry_after,
)
from tests.helpers.common import MODELS
from tests.helpers.faults import (
    QUESTION,
    VLLM_CONTEXT,
    ask,
    assert_hears,
    assert_logged,
    assert_next_turn_works,
)
from tests.helpers.llm_server import (
    Error,
    LLMServer,
    openai_error,
)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        pytest.param(
            404,
            openai_error(
                f"The model `{MODELS[0]}` does not exist or you do not have access "
                "to it.",
                code="model_not_found",
            ),
            id="openai",
        ),
        pytest.param(
            404,
            {"error": f'model "{MODELS[0]}" not found, try pulling it first'},
            id="ollama",
        ),
        pytest.param(
            400,
            openai_error(f"Model {MODELS[0]} not found. Load it first."),
            id="400-lm-studio-style",
        ),
    ],
)
async def test_model_not_found(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
    body: dict[str, Any],
) -> None:
    """The server no longer has the model: the user hears which one."""
    llm_server.reply(Error(status, body))

    result = await ask(hass, QUESTION)

    assert_hears(result, "model_not_found", model=MODELS[0])
    assert_logged(
        caplog, f"Request to {llm_server.url} failed: HTTP {status}", MODELS[0]
    )
    await assert_next_turn_works(hass, llm_server, "model_not_found", model=MODELS[0])


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            {
                "object": "error",
                "message": VLLM_CONTEXT,
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            },
            id="vllm",
        ),
        pytest.param(
            {
                "error": {
                    "message": VLLM_CONTEXT,
                    "type": "BadRequestError",
                    "param": None,
                    "code": 400,
                }
            },
            id="vllm-nested",
        ),
        pytest.param(
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, "
                    "try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 5120,
                    "n_ctx": 4096,
                }
            },
            id="llama.cpp",
        ),
    ],
)
async def test_context_too_long(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    body: dict[str, Any],
) -> None:
    """The conversation no longer fits the model's context."""
    llm_server.reply(Error(400, body))

    result = await ask(hass, QUESTION)

    assert_hears(result, "context_too_long")
    assert len(llm_server.chat_requests) == 2
    assert_logged(caplog, f"Request to {llm_server.url} failed: HTTP 400", "context")
    await assert_next_turn_works(hass, llm_server, "context_too_long")


async def test_request_filtered(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server's content filter refuses the request."""
    message = "The response was filtered due to the prompt triggering the policy."
    llm_server.reply(Error(400, openai_error(message, code="content_filter")))

    result = await ask(hass, QUESTION)

    assert_hears(result, "content_filtered")
    assert_logged(caplog, f"Request to {llm_server.url} failed: HTTP 400", message)
    await assert_next_turn_works(hass, llm_server, "content_filtered")


# How long a 429 asks to wait


def rate_limit(headers: dict[str, str]) -> openai.RateLimitError:
    """Build the error the SDK raises for a 429 with these headers."""
    response = httpx.Response(
        429, headers=headers, request=httpx.Request("POST", "http://x")
    )
    return openai.RateLimitError("Rate limited", response=response, body=None)


def http_date(delta: timedelta) -> str:
    """Return an HTTP-date this far from now."""
    return format_datetime(datetime.now(UTC) + delta, usegmt=True)


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        pytest.param({"retry-after-ms": "1"}, 0.001, id="ms"),
        pytest.param({"retry-after-ms": "2500"}, 2.5, id="ms-seconds"),
        pytest.param(
            {"retry-after-ms": "1", "retry-after": "60"}, 0.001, id="ms-first"
        ),
        pytest.param({"retry-after": "3"}, 3.0, id="seconds"),
        pytest.param({"retry-after": "0.5"}, 0.5, id="fraction"),
        pytest.param({"retry-after": "0"}, 0.0, id="zero"),
        pytest.param({"retry-after": "-5"}, 0.0, id="negative"),
        pytest.param({"retry-after": str(MAX_RETRY_AFTER)}, MAX_RETRY_AFTER, id="max"),
        pytest.param({"retry-after": "garbage"}, DEFAULT_RETRY_AFTER, id="garbage"),
        pytest.param({"retry-after-ms": "soon"}, DEFAULT_RETRY_AFTER, id="bad-ms"),
        pytest.param({}, DEFAULT_RETRY_AFTER, id="missing"),
    ],
)
def test_retry_after(headers: dict[str, str], wait: float) -> None:
    """A wait of up to ten seconds is honoured; one the agent cannot read is 1 s."""
    assert retry_after(rate_limit(headers)) == pytest.approx(wait)


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"retry-after": "60"}, id="seconds"),
        pytest.param({"retry-after": "10.5"}, id="just-over"),
        pytest.param({"retry-after-ms": "20000"}, id="ms"),
        pytest.param({"retry-after": "nan"}, id="nan"),
        pytest.param({"retry-after": "inf"}, id="inf"),
    ],
)
def test_no_retry_after_a_long_wait(headers: dict[str, str]) -> None:
    """A wait longer than ten seconds is not waited for."""
    assert retry_after(rate_limit(headers)) is None


@pytest.mark.parametrize(
    ("delta", "check"),
    [
        pytest.param(
            timedelta(seconds=5),
            lambda wait: wait is not None and 3.0 <= wait <= 5.0,
            id="soon",
        ),
        pytest.param(timedelta(minutes=-1), lambda wait: wait == 0.0, id="past"),
        pytest.param(timedelta(minutes=2), lambda wait: wait is None, id="later"),
    ],
)
def test_retry_after_http_date(
    delta: timedelta, check: Callable[[float | None], bool]
) -> None:
    """Retry-After may be an HTTP-date; it says when to retry."""
    assert check(retry_after(rate_limit({"retry-after": http_date(delta)})))
