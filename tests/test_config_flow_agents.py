"""Adding and changing agents and AI Tasks on a server entry, as a user does."""

import pytest

from homeassistant import config_entries
from homeassistant.const import (
    CONF_LLM_HASS_API,
    CONF_MODEL,
    CONF_NAME,
    CONF_PROMPT,
)
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_CONTEXT_WINDOW,
    CONF_DEVICE_LIST_SHARE,
    CONF_EXTRA_BODY,
    CONF_GUIDE,
    CONF_IMAGE_MODEL,
    CONF_KEEP_ALIVE,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY,
    CONF_MEMORY_HOURS,
    CONF_SPEECH,
    CONF_TEMPERATURE,
    CONF_THINKING,
    CONF_TOOL_MODE,
    CONF_TOP_P,
    SECTION_ADVANCED,
    SUBENTRY_CONVERSATION,
)
from tests.helpers.common import AGENT_ID, MODELS, set_up
from tests.helpers.llm_server import Error, LLMServer, openai_error


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
    # The entry reloads with its new agent; its last write is done before the end.
    await hass.async_block_till_done()


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
    assert result["description_placeholders"] == placeholders | {"window": "8192"}
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


GROUNDING = (
    "states_in_view",
    "answer_questions",
    "answer_not_found",
    "check_claims",
    "every_part",
)


async def test_grounding_settings_are_on_unless_turned_off(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """The grounding settings are on by default, and unsaved; off is saved."""
    saved = {CONF_MODEL: MODELS[0], CONF_MAX_ITERATIONS: 10}
    for advanced, expected in (
        (dict.fromkeys(GROUNDING, True), saved),
        (dict.fromkeys(GROUNDING, False), saved | dict.fromkeys(GROUNDING, False)),
    ):
        result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
        result = await hass.config_entries.subentries.async_configure(
            result["flow_id"], {**saved, SECTION_ADVANCED: advanced}
        )
        assert result["reason"] == "reconfigure_successful"
        assert loaded_entry.subentries[AGENT_ID].data == expected
        await hass.async_block_till_done()

    result = await hass.config_entries.subentries.async_init(
        (loaded_entry.entry_id, "ai_task_data"),
        context={"source": config_entries.SOURCE_USER},
    )
    advanced_fields = result["data_schema"].schema[SECTION_ADVANCED].schema.schema
    assert not {str(key) for key in advanced_fields} & set(GROUNDING)


async def test_the_device_list_share_is_kept_as_a_percentage(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """A big home on a roomy model: the user lets the list take 40 %."""
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    advanced = result["data_schema"].schema[SECTION_ADVANCED].schema.schema
    share = next(key for key in advanced if key == CONF_DEVICE_LIST_SHARE)
    assert advanced[share].config == {
        "min": 1,
        "max": 100,
        "step": 1,
        "mode": "box",
        "unit_of_measurement": "%",
    }

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_MODEL: MODELS[0],
            CONF_MAX_ITERATIONS: 10,
            SECTION_ADVANCED: {CONF_DEVICE_LIST_SHARE: 40},
        },
    )

    assert result["reason"] == "reconfigure_successful"
    assert loaded_entry.subentries[AGENT_ID].data[CONF_DEVICE_LIST_SHARE] == 40


async def test_guide_a_small_model_is_a_choice_auto_unless_set(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Auto, On or Off among the advanced settings; Auto is unsaved."""
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    advanced = result["data_schema"].schema[SECTION_ADVANCED].schema.schema
    guide = next(key for key in advanced if key == CONF_GUIDE)
    assert guide.default() == "auto"
    assert advanced[guide].config["options"] == ["auto", "on", "off"]
    assert advanced[guide].config["translation_key"] == CONF_GUIDE

    saved = {CONF_MODEL: MODELS[0], CONF_MAX_ITERATIONS: 10}
    for chosen, expected in (
        ("off", saved | {CONF_GUIDE: "off"}),
        ("on", saved | {CONF_GUIDE: "on"}),
        ("auto", saved),
    ):
        result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
        if chosen == "auto":
            # The form shows what was saved before.
            advanced = result["data_schema"].schema[SECTION_ADVANCED].schema.schema
            guide = next(key for key in advanced if key == CONF_GUIDE)
            assert guide.description == {"suggested_value": "on"}
        result = await hass.config_entries.subentries.async_configure(
            result["flow_id"], {**saved, SECTION_ADVANCED: {CONF_GUIDE: chosen}}
        )
        assert result["reason"] == "reconfigure_successful"
        assert loaded_entry.subentries[AGENT_ID].data == expected
        await hass.async_block_till_done()

    result = await hass.config_entries.subentries.async_init(
        (loaded_entry.entry_id, "ai_task_data"),
        context={"source": config_entries.SOURCE_USER},
    )
    advanced = result["data_schema"].schema[SECTION_ADVANCED].schema.schema
    assert CONF_GUIDE not in {str(key) for key in advanced}


async def test_thinking_is_chosen_per_agent_and_per_ai_task(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Server default, off, low, medium or high; the server's default is unsaved.

    The user turns thinking off for a voice agent; an AI Task has it too.
    """
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    schema = result["data_schema"].schema
    thinking = next(key for key in schema if key == CONF_THINKING)
    assert thinking.default() == "default"
    assert schema[thinking].config["options"] == [
        "default",
        "off",
        "low",
        "medium",
        "high",
    ]
    assert schema[thinking].config["translation_key"] == CONF_THINKING

    saved = {CONF_MODEL: MODELS[0], CONF_MAX_ITERATIONS: 10}
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], {**saved, CONF_THINKING: "off", SECTION_ADVANCED: {}}
    )
    assert result["reason"] == "reconfigure_successful"
    assert loaded_entry.subentries[AGENT_ID].data == saved | {CONF_THINKING: "off"}
    await hass.async_block_till_done()

    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {**saved, CONF_THINKING: "default", SECTION_ADVANCED: {}},
    )
    assert loaded_entry.subentries[AGENT_ID].data == saved
    await hass.async_block_till_done()

    result = await hass.config_entries.subentries.async_init(
        (loaded_entry.entry_id, "ai_task_data"),
        context={"source": config_entries.SOURCE_USER},
    )
    assert CONF_THINKING in {str(key) for key in result["data_schema"].schema}


@pytest.mark.parametrize(
    ("props", "agent_window", "shown"),
    [
        # OpenAI and most cloud services report none: the form says 8192.
        (None, None, "8192"),
        # llama.cpp's n_ctx.
        ({"n_ctx": 32768}, None, "32768"),
        # The user's own setting.
        ({"n_ctx": 32768}, 128000, "128000"),
    ],
)
async def test_the_form_shows_the_context_window_the_model_gets(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    props: dict[str, int] | None,
    agent_window: int | None,
    shown: str,
) -> None:
    """The agent's form says how many tokens its model reads, and where to set it."""
    llm_server.props = props
    await set_up(hass, config_entry)
    if agent_window is not None:
        agent = config_entry.subentries[AGENT_ID]
        hass.config_entries.async_update_subentry(
            config_entry, agent, data={**agent.data, CONF_CONTEXT_WINDOW: agent_window}
        )
        await hass.async_block_till_done(wait_background_tasks=True)

    result = await config_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    assert result["description_placeholders"] == {"window": shown}

    result = await hass.config_entries.subentries.async_init(
        (config_entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": config_entries.SOURCE_USER},
    )
    # A new agent has no model yet: it is shown what the server's models get.
    assert result["description_placeholders"] == {
        "window": "8192" if props is None else "32768"
    }


async def test_a_new_agent_is_shown_the_range_of_the_servers_windows(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Two models of different windows on vLLM: the form shows both ends."""
    llm_server.model_fields = {
        MODELS[0]: {"max_model_len": 40960},
        MODELS[1]: {"max_model_len": 8192},
    }
    await set_up(hass, config_entry)

    result = await hass.config_entries.subentries.async_init(
        (config_entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": config_entries.SOURCE_USER},
    )

    assert result["description_placeholders"] == {"window": "8192 - 40960"}


async def test_only_an_ai_task_has_an_image_model(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """An AI Task may name an image model, saved only when set; an agent may not."""
    result = await loaded_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    assert CONF_IMAGE_MODEL not in {str(key) for key in result["data_schema"].schema}

    result = await hass.config_entries.subentries.async_init(
        (loaded_entry.entry_id, "ai_task_data"),
        context={"source": config_entries.SOURCE_USER},
    )
    assert CONF_IMAGE_MODEL in {str(key) for key in result["data_schema"].schema}
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_NAME: "Wallpapers",
            CONF_MODEL: MODELS[0],
            CONF_IMAGE_MODEL: "gpt-image-1",
            CONF_MAX_ITERATIONS: 10,
            SECTION_ADVANCED: {},
        },
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    saved = [
        subentry.data
        for subentry in loaded_entry.subentries.values()
        if subentry.title == "Wallpapers"
    ]
    assert saved == [
        {
            CONF_MODEL: MODELS[0],
            CONF_IMAGE_MODEL: "gpt-image-1",
            CONF_MAX_ITERATIONS: 10,
        }
    ]
