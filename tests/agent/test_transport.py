"""Sending a request: the 429 retry, refused requests sent again, side effects."""

import pytest

from homeassistant.config_entries import SOURCE_REAUTH
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import CONF_MAX_ITERATIONS, DOMAIN
from tests.helpers.common import API_KEY, MODELS
from tests.helpers.faults import (
    QUESTION,
    VLLM_CONTEXT,
    ask,
    assert_hears,
    assert_logged,
    assert_next_turn_works,
    speech,
)
from tests.helpers.llm_server import Error, LLMServer, Raw, Text, openai_error


@pytest.fixture
def agent_data(request: pytest.FixtureRequest) -> dict[str, object]:
    """Return the agent's settings; parametrize indirectly for max_iterations."""
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: getattr(request, "param", 10),
    }


@pytest.mark.parametrize("status", [401, 403])
async def test_key_refused(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    """The server refuses the key: the user is told, and reauth starts."""
    message = f"Incorrect API key provided: {API_KEY}."
    llm_server.reply(Error(status, openai_error(message, code="invalid_api_key")))

    result = await ask(hass, QUESTION)
    await hass.async_block_till_done()

    assert_hears(result, "auth_failed")
    (flow,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert flow["context"]["source"] == SOURCE_REAUTH
    assert flow["context"]["entry_id"] == talking.entry_id
    assert_logged(
        caplog,
        f"Request to {llm_server.url} failed: HTTP {status}",
        "Incorrect API key provided: **REDACTED**",
    )
    await assert_next_turn_works(hass, llm_server, "auth_failed")


async def test_rate_limited_once(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server is busy for a moment: the agent waits, asks again, answers."""
    llm_server.reply(
        Error(
            429,
            openai_error("Slow down", type="rate_limit_exceeded"),
            {"retry-after-ms": "1"},
        ),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, QUESTION)

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "The kitchen light is on."
    first, second = llm_server.chat_requests[1:]
    assert first == second
    assert_logged(caplog, "Rate limited; retrying in 0.0 s")
    assert "failed" not in caplog.text


@pytest.mark.parametrize(
    ("headers", "requests"),
    [
        pytest.param({"retry-after-ms": "1"}, 2, id="busy-twice"),
        pytest.param({"retry-after": "60"}, 1, id="wait-too-long"),
    ],
)
async def test_rate_limited(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    headers: dict[str, str],
    requests: int,
) -> None:
    """The server stays busy, or asks for a long wait: the user is told."""
    busy = openai_error("Rate limit reached", type="requests", code="rate_limit")
    llm_server.reply(*[Error(429, busy, headers)] * requests)

    result = await ask(hass, QUESTION)

    assert_hears(result, "rate_limited")
    assert len(llm_server.chat_requests) == 1 + requests
    assert llm_server.pending == 0
    assert_logged(
        caplog,
        f"Request to {llm_server.url} failed: HTTP 429",
        "Rate limit reached",
    )
    await assert_next_turn_works(hass, llm_server, "rate_limited")


async def test_html_page_instead_of_a_stream(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The URL leads to a web page (200, HTML): a server error, and a hint."""
    llm_server.reply(
        Raw(
            ["<!DOCTYPE html><html><body><h1>Open WebUI</h1></body></html>"],
            content_type="text/html",
        )
    )

    result = await ask(hass, QUESTION)

    assert_hears(result, "server_error")
    assert_logged(caplog, "answered with a web page, not an API stream")
    await assert_next_turn_works(hass, llm_server, "server_error")


@pytest.mark.parametrize("agent_data", [1], indirect=True)
async def test_tool_choice_refused_on_the_last_round(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """On the last round the server refuses tool_choice; it is asked without tools."""
    refusal = openai_error(
        '"tool_choice" must be "auto" when tools are given', param="tool_choice"
    )
    llm_server.reply(Error(400, refusal), Text("I can't do that right now."))

    result = await ask(hass, QUESTION)

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "I can't do that right now."
    refused, retried = llm_server.chat_requests[-2:]
    assert refused["tool_choice"] == "none"
    assert refused["tools"]
    assert "tool_choice" not in retried
    assert "tools" not in retried
    assert retried["messages"] == refused["messages"]
    assert_logged(caplog, "The server refused tool_choice; asking without tools")


@pytest.mark.parametrize("agent_data", [1], indirect=True)
async def test_rate_limited_then_tool_choice_refused(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """A busy moment on the last round, then the tool_choice refusal: still answers."""
    refusal = openai_error('"tool_choice" must be "auto"', param="tool_choice")
    llm_server.reply(
        Error(429, openai_error("Slow down", type="rate_limit_exceeded")),
        Error(400, refusal),
        Text("I can't do that right now."),
    )

    result = await ask(hass, QUESTION)

    assert speech(result) == "I can't do that right now."
    assert len(llm_server.chat_requests) == 4


@pytest.mark.parametrize("agent_data", [1], indirect=True)
async def test_context_too_long_on_the_last_round(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 400 that is not about tool_choice is not retried, nor logged as one."""
    llm_server.reply(Error(400, openai_error(VLLM_CONTEXT)))

    result = await ask(hass, QUESTION)

    assert len(llm_server.chat_requests) == 2
    assert "tool_choice" not in caplog.text
    assert_hears(result, "context_too_long")
