"""Repairs the user can act on: a model that left the server, one without tools."""

from http import HTTPStatus

import pytest

from homeassistant.const import CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.chatterbox.const import DOMAIN
from tests.helpers.common import AGENT_ID, MODELS, ask, set_up
from tests.helpers.llm_server import Abilities, Error, LLMServer, Text

ISSUE_ID = f"model_missing_{AGENT_ID}"
TOOLS_ISSUE_ID = f"tools_unsupported_{AGENT_ID}"


async def test_a_removed_model_is_replaced_through_the_repair(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    hass_client: ClientSessionGenerator,
) -> None:
    """The model was deleted on the server: the repair picks another one."""
    assert await async_setup_component(hass, "repairs", {})
    llm_server.abilities = Abilities(strict_models=True)
    llm_server.models = [MODELS[1]]  # someone removed qwen3:8b
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    result = await ask(hass, "Hello")

    assert (
        "doesn't have the model qwen3:8b" in result.response.speech["plain"]["speech"]
    )
    issue = ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID)
    assert issue is not None
    assert issue.is_fixable
    assert issue.translation_placeholders["model"] == MODELS[0]

    client = await hass_client()
    # The server is busy just then: the models it listed at setup are offered.
    llm_server.models_reply(Error(503, "busy"))
    response = await client.post(
        "/api/repairs/issues/fix", json={"handler": DOMAIN, "issue_id": ISSUE_ID}
    )
    assert response.status == HTTPStatus.OK
    flow = await response.json()
    assert flow["step_id"] == "init"
    (field,) = flow["data_schema"]
    assert field["selector"]["select"]["options"] == [MODELS[1]]

    response = await client.post(
        f"/api/repairs/issues/fix/{flow['flow_id']}", json={CONF_MODEL: MODELS[1]}
    )
    assert response.status == HTTPStatus.OK
    assert (await response.json())["type"] == "create_entry"
    await hass.async_block_till_done(wait_background_tasks=True)

    assert config_entry.subentries[AGENT_ID].data[CONF_MODEL] == MODELS[1]
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID) is None
    llm_server.reply(Text("Hello again."))
    result = await ask(hass, "Hello")
    assert result.response.speech["plain"]["speech"] == "Hello again."
    assert llm_server.last_chat_request["model"] == MODELS[1]


async def test_the_repair_waits_for_a_loaded_server(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    hass_client: ClientSessionGenerator,
) -> None:
    """A fix started while the server entry is not loaded stops politely."""
    assert await async_setup_component(hass, "repairs", {})
    llm_server.abilities = Abilities(strict_models=True)
    llm_server.models = [MODELS[1]]
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    await ask(hass, "Hello")
    assert await hass.config_entries.async_unload(config_entry.entry_id)

    client = await hass_client()
    response = await client.post(
        "/api/repairs/issues/fix", json={"handler": DOMAIN, "issue_id": ISSUE_ID}
    )

    assert (await response.json())["reason"] == "entry_not_loaded"


async def test_a_model_without_tools_raises_a_repair_until_fixed(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Refused tools with an LLM API selected: a repair says how to fix it."""
    llm_server.abilities = Abilities(tools="refused")

    await set_up(hass, config_entry)

    issue = ir.async_get(hass).async_get_issue(DOMAIN, TOOLS_ISSUE_ID)
    assert issue is not None
    assert issue.translation_key == "tools_unsupported"
    assert issue.severity is ir.IssueSeverity.WARNING
    assert issue.translation_placeholders == {
        "agent": "Kitchen helper",
        "model": MODELS[0],
        "url": llm_server.url,
    }

    # The user starts the server with --jinja; the next start clears it.
    llm_server.abilities = Abilities()
    assert await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert ir.async_get(hass).async_get_issue(DOMAIN, TOOLS_ISSUE_ID) is None


async def test_the_repair_names_the_fix_of_the_server_it_is_about(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """llama.cpp refuses tools without --jinja: its repair says just that.

    The server tells its kind by its /props; a server of no known kind gets
    the text naming every server's fix, as in the story above.
    """
    llm_server.abilities = Abilities(tools="refused")
    llm_server.props = {"n_ctx": 8192}

    await set_up(hass, config_entry)

    issue = ir.async_get(hass).async_get_issue(DOMAIN, TOOLS_ISSUE_ID)
    assert issue is not None
    assert issue.translation_key == "tools_unsupported_llama_cpp"


@pytest.mark.parametrize("agent_data", [{"model": MODELS[0]}])
async def test_a_chat_only_agent_needs_no_tools(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Without an LLM API selected, refused tools are nothing to repair."""
    llm_server.abilities = Abilities(tools="refused")

    await set_up(hass, config_entry)

    assert config_entry.runtime_data.capabilities[MODELS[0]].tools is False
    assert ir.async_get(hass).async_get_issue(DOMAIN, TOOLS_ISSUE_ID) is None


async def test_removing_the_server_withdraws_its_repairs(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A repair about an agent that no longer exists goes with it."""
    llm_server.abilities = Abilities(tools="refused")
    await set_up(hass, config_entry)
    assert ir.async_get(hass).async_get_issue(DOMAIN, TOOLS_ISSUE_ID) is not None

    assert await hass.config_entries.async_remove(config_entry.entry_id)

    assert ir.async_get(hass).async_get_issue(DOMAIN, TOOLS_ISSUE_ID) is None
