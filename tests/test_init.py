"""Setting up a server entry: it is tested first, and failures land right."""

import pytest

from homeassistant.config_entries import SOURCE_REAUTH, ConfigEntryState
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.helpers.common import API_KEY, MODELS
from tests.helpers.llm_server import Disconnect, Error, LLMServer, openai_error


async def test_setup_lists_models_and_unloads(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A reachable server loads; its models are kept; unloading works."""
    assert loaded_entry.state is ConfigEntryState.LOADED
    assert loaded_entry.runtime_data.models == list(MODELS)
    # No context size listed with the models: llama.cpp's /props, LM
    # Studio's and LiteLLM's model lists are asked at once, then Ollama's
    # details of the agent's model.
    paths = [r.path for r in llm_server.requests]
    assert paths[0] == "/v1/models"
    assert sorted(paths[1:4]) == ["/api/v0/models", "/props", "/v1/model/info"]
    assert paths[4:] == ["/api/show"]
    assert loaded_entry.runtime_data.context_windows == {}

    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert loaded_entry.state is ConfigEntryState.NOT_LOADED


@pytest.mark.parametrize(
    ("reply", "state", "message"),
    [
        (Disconnect(), ConfigEntryState.SETUP_RETRY, "Cannot reach the server"),
        (Error(500, openai_error("boom")), ConfigEntryState.SETUP_RETRY, "HTTP 500"),
        (Error(503, "overloaded"), ConfigEntryState.SETUP_RETRY, "HTTP 503"),
        (Error(429, openai_error("slow")), ConfigEntryState.SETUP_RETRY, "HTTP 429"),
        (Error(404, "no such path"), ConfigEntryState.SETUP_ERROR, "HTTP 404"),
        (Error(400, openai_error("bad")), ConfigEntryState.SETUP_ERROR, "refused"),
    ],
)
async def test_setup_failures_retry_or_stop(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    reply: Error | Disconnect,
    state: ConfigEntryState,
    message: str,
) -> None:
    """Busy or broken servers are retried later; other refusals stop setup."""
    llm_server.models_reply(reply)

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.state is state
    assert message in caplog.text
    # One probe, no SDK retries: setup fails fast and Home Assistant retries.
    assert len(llm_server.requests) == 1


async def test_refused_key_starts_reauth_and_stays_secret(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 401 asks the user for a new key; the key never reaches the log."""
    llm_server.models_reply(
        Error(401, openai_error(f"Key {API_KEY} refused, sk-proj-1234***7890 too"))
    )

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.state is ConfigEntryState.SETUP_ERROR
    (flow,) = hass.config_entries.flow.async_progress_by_handler("chatterbox")
    assert flow["context"]["source"] == SOURCE_REAUTH
    assert "refused the API key" in caplog.text
    assert API_KEY not in caplog.text
    assert "sk-proj-1234" not in caplog.text
    assert "Key **REDACTED** refused, sk-**REDACTED** too" in caplog.text
