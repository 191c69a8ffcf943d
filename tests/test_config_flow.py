"""Adding a server and its agents through the UI, as a user does."""

import base64
import json
import logging
from typing import Any

import pytest

from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import (
    CONF_API_KEY,
    CONF_LLM_HASS_API,
    CONF_MODEL,
    CONF_PROMPT,
    CONF_URL,
)
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_MAX_ITERATIONS,
    DOMAIN,
    SUBENTRY_CONVERSATION,
)
from custom_components.chatterbox.diagnostics import async_get_config_entry_diagnostics
from tests.helpers.common import API_KEY, MODELS
from tests.helpers.llm_server import (
    Abilities,
    Disconnect,
    Error,
    LLMServer,
    Raw,
    openai_error,
)

# A port nothing listens on: connecting to it is refused at once.
CLOSED_URL = "http://127.0.0.1:9/v1"

pytestmark = pytest.mark.usefixtures("ha_core")


async def _start_user_flow(hass: HomeAssistant) -> str:
    """Open the "Add integration" form and return its flow id."""
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    assert result["errors"] == {}
    return result["flow_id"]


async def _pick_model(hass: HomeAssistant, result: Any, model: str) -> Any:
    """On the model step, pick a model and submit it."""
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "model"
    return await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_MODEL: model}
    )


def _offered(result: Any) -> list[str]:
    """Return the models the model step's dropdown offers."""
    return result["data_schema"].schema[CONF_MODEL].config["options"]


async def test_user_adds_a_server_and_gets_a_ready_agent(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The user types the URL and key, picks a model; the entry and agent exist."""
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: f"  {llm_server.url}/ ", CONF_API_KEY: API_KEY}
    )
    # The key was tested against the server's model list; nothing is saved yet.
    assert [request.path for request in llm_server.requests] == ["/v1/models"]
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert hass.config_entries.async_entries(DOMAIN) == []
    assert _offered(result) == sorted(MODELS)
    assert result["description_placeholders"] == {"url": llm_server.url}

    result = await _pick_model(hass, result, MODELS[1])

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == llm_server.url.split("/")[2]
    assert result["data"] == {CONF_URL: llm_server.url, CONF_API_KEY: API_KEY}
    entry = result["result"]
    (agent,) = entry.subentries.values()
    assert agent.subentry_type == SUBENTRY_CONVERSATION
    assert agent.title == "Chatterbox"
    assert agent.data == {
        CONF_MODEL: MODELS[1],
        CONF_PROMPT: llm.DEFAULT_INSTRUCTIONS_PROMPT,
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: 10,
    }
    # The chosen model was probed before the entry was made.
    assert {probe.json["model"] for probe in llm_server.probes} == {MODELS[1]}
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED


async def test_openai_offers_its_chat_models_and_refuses_a_speech_model(
    hass: HomeAssistant, llm_server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """OpenAI lists speech, image and embedding models, in no order.

    The form offers the chat models only. The user types a speech model
    anyway; the probe finds it does not chat, and nothing is saved. The user
    picks a reasoning model, which refuses max_tokens and temperature: it is
    accepted, and the probe learned its fields.
    """
    llm_server.models = [
        "whisper-1",
        "gpt-4o-mini",
        "tts-1-hd",
        "text-embedding-3-small",
        "dall-e-3",
        "o3-mini",
        "omni-moderation-latest",
        "gpt-image-1",
    ]
    llm_server.abilities = Abilities(
        reasoning_model=True, non_chat_models=frozenset({"whisper-1"})
    )
    flow_id = await _start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: llm_server.url, CONF_API_KEY: API_KEY}
    )
    assert _offered(result) == ["gpt-4o-mini", "o3-mini"]

    result = await _pick_model(hass, result, "whisper-1")

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "not_a_chat_model"}
    assert hass.config_entries.async_entries(DOMAIN) == []
    assert "whisper-1 does not chat" in caplog.text

    result = await _pick_model(hass, result, "o3-mini")

    assert result["type"] is FlowResultType.CREATE_ENTRY
    (agent,) = result["result"].subentries.values()
    assert agent.data[CONF_MODEL] == "o3-mini"
    last_probe = llm_server.probes[-1].json
    assert "max_tokens" not in last_probe
    assert "max_completion_tokens" in last_probe


async def test_ollama_refuses_to_chat_with_an_embedding_model(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Typed past the list: Ollama's 400 says the model does not chat.

    A refusal for any other reason proves nothing: that model is taken.
    """
    llm_server.api_key = None
    llm_server.models = ["qwen3:8b", "bge-m3"]
    llm_server.abilities = Abilities(embedding_models=frozenset({"bge-m3"}))
    flow_id = await _start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: llm_server.url}
    )

    result = await _pick_model(hass, result, "bge-m3")

    assert result["errors"] == {"base": "not_a_chat_model"}
    # Every probe now fails with a 400 that says nothing of chat.
    llm_server.abilities = Abilities(probe_error=400)
    result = await _pick_model(hass, result, "qwen3:8b")
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_openrouter_says_which_models_write_text(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """OpenRouter's list tells each model's output, and that decides, not the name."""
    llm_server.models = ["openai/gpt-4o-mini", "google/gemini-image-preview-x"]
    llm_server.model_fields = {
        "openai/gpt-4o-mini": {
            "context_length": 128000,
            "architecture": {"output_modalities": ["text"]},
        },
        # Named like no image model, but OpenRouter says it makes images.
        "google/gemini-image-preview-x": {
            "context_length": 32768,
            "architecture": {"output_modalities": ["image", "text"]},
        },
        # Named like no speech model, but it only speaks.
        "acme/voice-one": {"architecture": {"output_modalities": ["audio"]}},
    }
    llm_server.models.append("acme/voice-one")
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: llm_server.url, CONF_API_KEY: API_KEY}
    )

    assert _offered(result) == [
        "google/gemini-image-preview-x",
        "openai/gpt-4o-mini",
    ]


async def test_local_server_needs_no_key_and_may_list_no_model(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """A key-less server with an empty model list still becomes an entry."""
    llm_server.api_key = None
    llm_server.models = []
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: llm_server.url, CONF_API_KEY: "  "}
    )

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {CONF_URL: llm_server.url}
    # Nothing to recommend: the user adds an agent and types the model's name.
    assert result["result"].subentries == {}


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Error(401, openai_error("bad key", code="invalid_api_key")), "invalid_auth"),
        (Error(403, openai_error("forbidden")), "invalid_auth"),
        (Error(404, "<html>Not found</html>"), "cannot_connect"),
        (Error(429, openai_error("slow down")), "cannot_connect"),
        (Error(500, openai_error("boom", type="server_error")), "cannot_connect"),
        (Disconnect(), "cannot_connect"),
        (Raw(["this is not json"], content_type="application/json"), "unknown"),
    ],
)
async def test_form_recovers_after_an_error(
    hass: HomeAssistant,
    llm_server: LLMServer,
    reply: Error | Disconnect | Raw,
    error: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The first try fails with a clear error; the second try succeeds."""
    llm_server.models_reply(reply)
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: llm_server.url, CONF_API_KEY: API_KEY}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": error}
    assert API_KEY not in caplog.text

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: llm_server.url, CONF_API_KEY: API_KEY}
    )
    result = await _pick_model(hass, result, MODELS[0])
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_server_that_is_down_cannot_connect(
    hass: HomeAssistant, socket_enabled: None
) -> None:
    """Nothing listens at the URL: the form says it failed to connect."""
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: CLOSED_URL}
    )

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "cannot_connect"}


async def test_the_same_server_cannot_be_added_twice(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The same URL, even with a trailing slash, is aborted before any request."""
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: f"{llm_server.url}/", CONF_API_KEY: API_KEY}
    )

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"
    assert llm_server.requests == []


async def test_reauth_takes_a_new_key(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The server changed its key: a wrong one is refused, the right one saved."""
    llm_server.api_key = "sk-new-key-9876543210"
    result = await loaded_entry.start_reauth_flow(hass)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "reauth_confirm"
    assert result["description_placeholders"]["url"] == llm_server.url

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_API_KEY: "sk-wrong-key-000000"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_API_KEY: "sk-new-key-9876543210"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert loaded_entry.data == {
        CONF_URL: llm_server.url,
        CONF_API_KEY: "sk-new-key-9876543210",
    }
    await hass.async_block_till_done()
    assert loaded_entry.state is ConfigEntryState.LOADED


async def test_reconfigure_moves_the_entry_to_another_server(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, socket_enabled: None
) -> None:
    """The user points the entry at a new server; a failure first is recoverable."""
    async with LLMServer(models=["mistral"]) as new_server:
        result = await loaded_entry.start_reconfigure_flow(hass)
        assert result["type"] is FlowResultType.FORM
        assert result["step_id"] == "reconfigure"

        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_URL: CLOSED_URL}
        )
        assert result["errors"] == {"base": "cannot_connect"}

        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_URL: new_server.url}
        )
        assert result["type"] is FlowResultType.ABORT
        assert result["reason"] == "reconfigure_successful"
        assert loaded_entry.data == {CONF_URL: new_server.url}
        assert loaded_entry.title == new_server.url.split("/")[2]
        await hass.async_block_till_done()
        assert loaded_entry.state is ConfigEntryState.LOADED
        await hass.config_entries.async_unload(loaded_entry.entry_id)


async def test_reconfigure_refuses_a_server_another_entry_has(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Two entries may not end up on the same URL."""
    other = MockConfigEntry(domain=DOMAIN, data={CONF_URL: "http://other:8080/v1"})
    other.add_to_hass(hass)
    result = await loaded_entry.start_reconfigure_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: "http://other:8080/v1/"}
    )

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"


async def test_a_password_in_the_url_is_never_shown(
    hass: HomeAssistant, llm_server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A server behind a proxy, with its user and password in the URL.

    They reach the proxy as a Basic Authorization header, and appear in no
    title, no log line (the HTTP client logs every request's URL) and no
    diagnostics download.
    """
    caplog.set_level(logging.DEBUG)
    llm_server.api_key = None
    url = llm_server.url.replace("http://", "http://proxy:s3cret%21pass@")
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: url, CONF_API_KEY: ""}
    )
    result = await _pick_model(hass, result, MODELS[0])
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.CREATE_ENTRY
    entry = result["result"]
    assert entry.title == llm_server.url.split("/")[2]
    assert entry.state is ConfigEntryState.LOADED
    basic = "Basic " + base64.b64encode(b"proxy:s3cret!pass").decode()
    assert {
        request.headers.get("authorization") for request in llm_server.requests
    } == {basic}
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    for secret in ("s3cret", base64.b64encode(b"proxy:s3cret!pass").decode()):
        assert secret not in caplog.text
        assert secret not in json.dumps(diagnostics, default=repr)


async def test_an_old_title_with_a_password_loses_it(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """An entry titled from a URL with a password, before titles left it out."""
    llm_server.api_key = None
    host = llm_server.url.split("/")[2]
    entry = MockConfigEntry(
        domain=DOMAIN,
        title=f"proxy:s3cret@{host}",
        data={CONF_URL: llm_server.url.replace("http://", "http://proxy:s3cret@")},
    )
    entry.add_to_hass(hass)

    assert await hass.config_entries.async_setup(entry.entry_id)

    assert entry.title == host
