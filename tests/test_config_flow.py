"""Adding a server and its agents through the UI, as a user does."""

import base64
import json
import logging

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
from tests.helpers.llm_server import Disconnect, Error, LLMServer, Raw, openai_error

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


async def test_user_adds_a_server_and_gets_a_ready_agent(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The user types the URL and key; the entry and one agent are created."""
    flow_id = await _start_user_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: f"  {llm_server.url}/ ", CONF_API_KEY: API_KEY}
    )

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == llm_server.url.split("/")[2]
    assert result["data"] == {CONF_URL: llm_server.url, CONF_API_KEY: API_KEY}
    entry = result["result"]
    (agent,) = entry.subentries.values()
    assert agent.subentry_type == SUBENTRY_CONVERSATION
    assert agent.title == "Chatterbox"
    assert agent.data == {
        CONF_MODEL: MODELS[0],
        CONF_PROMPT: llm.DEFAULT_INSTRUCTIONS_PROMPT,
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: 10,
    }
    # The key was tested against the server's model list before anything was saved.
    probe = llm_server.requests[0]
    assert probe.path == "/v1/models"
    assert probe.headers["authorization"] == f"Bearer {API_KEY}"
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED


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
