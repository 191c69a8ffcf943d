"""Diagnostics: enough to help, never a key, a prompt or what anyone said."""

import json

import pytest

from homeassistant.const import CONF_MODEL, CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.chatterbox.const import (
    CONF_CONTEXT_WINDOW,
    CONF_EXTRA_BODY,
    CONF_GUIDE,
    CONF_MAX_ITERATIONS,
)
from tests.helpers.common import AGENT_ID, API_KEY, MODELS, ask
from tests.helpers.llm_server import LLMServer, Text, Usage

PROMPT = "You are Marvin. The door code is 4711."
SECRET_EXTRA = "provider-secret-9f8e7d"  # noqa: S105  # a fake, to look for


@pytest.fixture
def agent_data(agent_data: dict[str, object]) -> dict[str, object]:
    """Give the agent a prompt and an extra body that must stay private."""
    return {
        **agent_data,
        CONF_PROMPT: PROMPT,
        CONF_EXTRA_BODY: {"provider_key": SECRET_EXTRA},
    }


async def test_diagnostics_hold_no_secret(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    hass_client: ClientSessionGenerator,
) -> None:
    """After seven turns: the last five's figures, the probe, no secrets."""
    assert await async_setup_component(hass, "diagnostics", {})
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    for turn in range(7):
        llm_server.reply(Text(f"Answer {turn}.", usage=Usage(100 + turn, 3)))
        await ask(hass, f"My secret question number {turn}", "diag")

    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, config_entry
    )

    text = json.dumps(diagnostics)
    for secret in (API_KEY, PROMPT, SECRET_EXTRA, "secret question", "Answer 6"):
        assert secret not in text
    assert diagnostics["entry"]["data"]["api_key"] == "**REDACTED**"
    (agent,) = diagnostics["entry"]["subentries"]
    assert agent["data"][CONF_PROMPT] == "**REDACTED**"
    assert diagnostics["server"]["models"] == list(MODELS)
    assert diagnostics["server"]["available"] is True
    assert diagnostics["capabilities"][MODELS[0]]["tools"] is True
    assert diagnostics["server"]["model_sizes"] == {}
    assert set(diagnostics["agents"][AGENT_ID]["guide"]) == {"on", "reason"}
    assert diagnostics["versions"]["openai"]
    turns = diagnostics["recent_turns"]
    assert [t["prompt_tokens"] for t in turns] == [102, 103, 104, 105, 106]
    assert turns[-1]["requests"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize(
    ("agent_data", "guide"),
    [
        (
            {CONF_MODEL: MODELS[1], CONF_MAX_ITERATIONS: 10},
            {"on": True, "reason": "server_reports_3.2B"},
        ),
        # The server told no size of this one; its name did.
        (
            {CONF_MODEL: MODELS[0], CONF_MAX_ITERATIONS: 10},
            {"on": False, "reason": "name_says_8B"},
        ),
        (
            {CONF_MODEL: MODELS[1], CONF_MAX_ITERATIONS: 10, CONF_GUIDE: "off"},
            {"on": False, "reason": "set_off"},
        ),
    ],
)
async def test_diagnostics_say_whether_each_agent_guides_its_model(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    hass_client: ClientSessionGenerator,
    guide: dict[str, object],
) -> None:
    """What Guide a small model comes to for each agent, and why."""
    llm_server.model_meta = {MODELS[1]: {"n_params": 3_212_749_824}}
    assert await async_setup_component(hass, "diagnostics", {})
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, config_entry
    )

    assert diagnostics["server"]["model_sizes"] == {MODELS[1]: 3_212_749_824}
    assert diagnostics["agents"][AGENT_ID]["guide"] == guide


@pytest.mark.parametrize(
    ("agent_data", "props", "window"),
    [
        # OpenAI and most cloud services report none: the default is used.
        ({CONF_MODEL: MODELS[0]}, None, {"tokens": 8192, "from": "default"}),
        # llama.cpp tells its n_ctx at /props.
        (
            {CONF_MODEL: MODELS[0]},
            {"n_ctx": 32768},
            {"tokens": 32768, "from": "server"},
        ),
        # The agent's own setting wins over what the server says.
        (
            {CONF_MODEL: MODELS[0], CONF_CONTEXT_WINDOW: 128000},
            {"n_ctx": 32768},
            {"tokens": 128000, "from": "option"},
        ),
    ],
)
async def test_diagnostics_say_where_the_context_window_comes_from(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    hass_client: ClientSessionGenerator,
    props: dict[str, int] | None,
    window: dict[str, object],
) -> None:
    """A wrong window is the first suspect of early summaries: say its source."""
    llm_server.props = props
    assert await async_setup_component(hass, "diagnostics", {})
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, config_entry
    )

    assert diagnostics["agents"][AGENT_ID]["context_window"] == window
