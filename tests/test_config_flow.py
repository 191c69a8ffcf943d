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
    CONF_NAME,
    CONF_PROMPT,
    CONF_URL,
)
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_CONTEXT_WINDOW,
    CONF_EXTRA_BODY,
    CONF_KEEP_ALIVE,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY,
    CONF_MEMORY_HOURS,
    CONF_SPEECH,
    CONF_TEMPERATURE,
    CONF_TOOL_MODE,
    CONF_TOP_P,
    DOMAIN,
    SECTION_ADVANCED,
    SUBENTRY_CONVERSATION,
)
from custom_components.chatterbox.diagnostics import async_get_config_entry_diagnostics

from .conftest import AGENT_ID, API_KEY, MODELS
from .llm_server import Disconnect, Error, LLMServer, Raw, openai_error

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


async def test_user_adds_an_agent_with_advanced_settings(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """A new agent's form lists the server's models; sections are flattened."""
    result = await hass.config_entries.subentries.async_init(
        (loaded_entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": config_entries.SOURCE_USER},
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "init"
    schema = result["data_schema"].schema
    model_field = next(key for key in schema if key == CONF_MODEL)
    assert schema[model_field].config["options"] == list(MODELS)
    assert schema[model_field].config["custom_value"] is True

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_NAME: "Garden",
            CONF_MODEL: "my-finetune",
            CONF_PROMPT: "You look after the garden.",
            CONF_LLM_HASS_API: [],
            CONF_MAX_ITERATIONS: 4.0,
            SECTION_ADVANCED: {
                CONF_TEMPERATURE: 0.3,
                CONF_TOP_P: 0.9,
                CONF_MAX_TOKENS: 512.0,
                CONF_CONTEXT_WINDOW: 16384.0,
                CONF_MAX_HISTORY_TOKENS: 3000.0,
            },
        },
    )

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Garden"
    assert result["data"] == {
        CONF_MODEL: "my-finetune",
        CONF_PROMPT: "You look after the garden.",
        CONF_MAX_ITERATIONS: 4,
        CONF_TEMPERATURE: 0.3,
        CONF_TOP_P: 0.9,
        CONF_MAX_TOKENS: 512,
        CONF_CONTEXT_WINDOW: 16384,
        CONF_MAX_HISTORY_TOKENS: 3000,
    }
    assert len(loaded_entry.subentries) == 2


async def test_user_reconfigures_an_agent(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Reconfigure shows the agent's settings and replaces them."""
    llm_server.models_reply(Error(500, openai_error("busy")))
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    assert result["type"] is FlowResultType.FORM
    schema = result["data_schema"].schema
    assert CONF_NAME not in schema
    # The live list failed, so the form offers the models known at setup.
    model_field = next(key for key in schema if key == CONF_MODEL)
    assert schema[model_field].config["options"] == list(MODELS)
    assert model_field.description == {"suggested_value": MODELS[0]}

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_MODEL: MODELS[1],
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
            CONF_MAX_ITERATIONS: 20,
            SECTION_ADVANCED: {},
        },
    )

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert loaded_entry.subentries[AGENT_ID].data == {
        CONF_MODEL: MODELS[1],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: 20,
    }


async def test_agent_settings_wait_for_a_loaded_server(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> None:
    """While the server entry is not loaded, the agent flow aborts."""
    result = await hass.config_entries.subentries.async_init(
        (config_entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": config_entries.SOURCE_USER},
    )

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "entry_not_loaded"


async def test_reconfigure_form_drops_llm_apis_that_are_gone(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """An LLM API that no longer exists is not suggested again."""
    hass.config_entries.async_update_subentry(
        loaded_entry,
        loaded_entry.subentries[AGENT_ID],
        data={
            **loaded_entry.subentries[AGENT_ID].data,
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, "gone"],
            CONF_TEMPERATURE: 0.5,
        },
    )
    await hass.async_block_till_done()

    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)

    schema = result["data_schema"].schema
    api_field = next(key for key in schema if key == CONF_LLM_HASS_API)
    assert api_field.description == {"suggested_value": [llm.LLM_API_ASSIST]}
    advanced = schema[SECTION_ADVANCED].schema.schema
    temperature = next(key for key in advanced if key == CONF_TEMPERATURE)
    assert temperature.description == {"suggested_value": 0.5}


async def test_agent_memory_settings(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Memory is a choice in the form, its hours an advanced setting; off is unsaved."""
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    schema = result["data_schema"].schema
    memory_field = next(key for key in schema if key == CONF_MEMORY)
    assert memory_field.default() == "off"
    assert schema[memory_field].config["options"] == ["off", "device", "user"]
    assert schema[memory_field].config["translation_key"] == CONF_MEMORY
    assert CONF_MEMORY_HOURS in schema[SECTION_ADVANCED].schema.schema

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_MODEL: MODELS[0],
            CONF_MAX_ITERATIONS: 10,
            CONF_MEMORY: "user",
            SECTION_ADVANCED: {CONF_MEMORY_HOURS: 48.0},
        },
    )
    assert result["reason"] == "reconfigure_successful"
    assert loaded_entry.subentries[AGENT_ID].data == {
        CONF_MODEL: MODELS[0],
        CONF_MAX_ITERATIONS: 10,
        CONF_MEMORY: "user",
        CONF_MEMORY_HOURS: 48,
    }
    await hass.async_block_till_done()

    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    schema = result["data_schema"].schema
    memory_field = next(key for key in schema if key == CONF_MEMORY)
    assert memory_field.description == {"suggested_value": "user"}
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_MODEL: MODELS[0],
            CONF_MAX_ITERATIONS: 10,
            CONF_MEMORY: "off",
            SECTION_ADVANCED: {},
        },
    )
    assert loaded_entry.subentries[AGENT_ID].data == {
        CONF_MODEL: MODELS[0],
        CONF_MAX_ITERATIONS: 10,
    }


async def test_local_server_settings(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Speech, tool mode, keep-alive and an extra body; defaults are unsaved."""
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    schema = result["data_schema"].schema
    speech = next(key for key in schema if key == CONF_SPEECH)
    assert speech.default() is True
    advanced = schema[SECTION_ADVANCED].schema.schema
    tool_mode = next(key for key in advanced if key == CONF_TOOL_MODE)
    assert advanced[tool_mode].config["options"] == ["auto", "native", "text"]
    keep_alive = next(key for key in advanced if key == CONF_KEEP_ALIVE)
    assert keep_alive.default() == "off"

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_MODEL: MODELS[0],
            CONF_MAX_ITERATIONS: 10,
            CONF_SPEECH: False,
            SECTION_ADVANCED: {
                CONF_TOOL_MODE: "text",
                CONF_KEEP_ALIVE: "-1",
                CONF_EXTRA_BODY: {"top_k": 20},
            },
        },
    )

    assert result["reason"] == "reconfigure_successful"
    assert loaded_entry.subentries[AGENT_ID].data == {
        CONF_MODEL: MODELS[0],
        CONF_MAX_ITERATIONS: 10,
        CONF_SPEECH: False,
        CONF_TOOL_MODE: "text",
        CONF_KEEP_ALIVE: "-1",
        CONF_EXTRA_BODY: {"top_k": 20},
    }


@pytest.mark.parametrize(
    ("extra_body", "error", "placeholders"),
    [
        (["top_k", 20], "extra_body_not_object", {}),
        (
            {"top_k": 20, "stream": False, "model": "x"},
            "extra_body_reserved",
            {"keys": "model, stream"},
        ),
    ],
)
async def test_an_extra_body_that_cannot_work_is_refused(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    extra_body: object,
    error: str,
    placeholders: dict[str, str],
) -> None:
    """The form says what is wrong, keeps what was typed, and saves nothing."""
    before = dict(loaded_entry.subentries[AGENT_ID].data)
    result = await hass.config_entries.subentries.async_init(
        (loaded_entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": config_entries.SOURCE_USER},
    )
    typed = {
        CONF_NAME: "Bedroom",
        CONF_MODEL: MODELS[1],
        CONF_MAX_ITERATIONS: 10,
        SECTION_ADVANCED: {CONF_EXTRA_BODY: extra_body},
    }

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], dict(typed)
    )

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": error}
    assert result["description_placeholders"] == placeholders
    schema = result["data_schema"].schema
    name = next(key for key in schema if key == CONF_NAME)
    assert name.description == {"suggested_value": "Bedroom"}
    assert len(loaded_entry.subentries) == 1
    assert loaded_entry.subentries[AGENT_ID].data == before

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], {**typed, SECTION_ADVANCED: {CONF_EXTRA_BODY: {"top_k": 20}}}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"][CONF_EXTRA_BODY] == {"top_k": 20}


async def test_user_adds_an_ai_task(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """An AI Task has no voice settings: its tools and words come with each task."""
    result = await hass.config_entries.subentries.async_init(
        (loaded_entry.entry_id, "ai_task_data"),
        context={"source": config_entries.SOURCE_USER},
    )
    fields = {str(key) for key in result["data_schema"].schema}
    assert {CONF_NAME, CONF_MODEL, CONF_MAX_ITERATIONS} <= fields
    assert not fields & {CONF_PROMPT, CONF_LLM_HASS_API, CONF_MEMORY, CONF_SPEECH}
    advanced = result["data_schema"].schema[SECTION_ADVANCED].schema.schema
    assert "unattended_sensitive" not in {str(key) for key in advanced}
    assert "confirm_sensitive" not in fields

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {CONF_MODEL: MODELS[1], CONF_MAX_ITERATIONS: 3, SECTION_ADVANCED: {}},
    )

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Chatterbox AI Task"
    assert result["data"] == {CONF_MODEL: MODELS[1], CONF_MAX_ITERATIONS: 3}


async def test_sensitive_action_settings(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Asking first is the default and unsaved; turning it off is saved."""
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    confirm = next(
        key for key in result["data_schema"].schema if key == "confirm_sensitive"
    )
    assert confirm.default() is True

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_MODEL: MODELS[0],
            CONF_MAX_ITERATIONS: 10,
            "confirm_sensitive": False,
            SECTION_ADVANCED: {"unattended_sensitive": "allow"},
        },
    )

    assert result["reason"] == "reconfigure_successful"
    assert loaded_entry.subentries[AGENT_ID].data == {
        CONF_MODEL: MODELS[0],
        CONF_MAX_ITERATIONS: 10,
        "confirm_sensitive": False,
        "unattended_sensitive": "allow",
    }


async def test_sensitive_kinds_are_saved_only_when_changed(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """The default kinds, ticked in any order, are not saved; a change is."""
    saved = {CONF_MODEL: MODELS[0], CONF_MAX_ITERATIONS: 10}
    for kinds, expected in (
        (["gate", "door", "garage", "valve", "alarm_control_panel", "lock"], saved),
        (["window", "lock"], saved | {"sensitive_kinds": ["lock", "window"]}),
        ([], saved | {"sensitive_kinds": []}),
    ):
        result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
        result = await hass.config_entries.subentries.async_configure(
            result["flow_id"],
            {**saved, SECTION_ADVANCED: {"sensitive_kinds": kinds}},
        )
        assert result["reason"] == "reconfigure_successful"
        assert loaded_entry.subentries[AGENT_ID].data == expected
        await hass.async_block_till_done()


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
