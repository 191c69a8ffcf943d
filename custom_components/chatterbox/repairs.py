"""Repair issues: what the user has to fix outside Chatterbox, and how."""

import probatio

from homeassistant.components.repairs import RepairsFlow, RepairsFlowResult
from homeassistant.config_entries import ConfigEntryState, ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL, CONF_URL
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir

from .config_flow_agents import async_offered_models, model_selector
from .const import DOMAIN
from .runtime import ChatterboxConfigEntry
from .server.client import ServerKind, without_credentials

# The repair about refused tools, worded for the server it is about: each kind
# turns tools on its own way. Any other server gets the text naming them all.
TOOLS_ISSUE_KEYS: dict[ServerKind | None, str] = {
    ServerKind.LLAMA_CPP: "tools_unsupported_llama_cpp",
    ServerKind.VLLM: "tools_unsupported_vllm",
    ServerKind.OLLAMA: "tools_unsupported_ollama",
}


def _agent_placeholders(agent: ConfigSubentry) -> dict[str, str]:
    """Name the agent and its model in a repair's text."""
    return {"agent": agent.title, "model": agent.data[CONF_MODEL]}


def _issue_placeholders(
    entry: ChatterboxConfigEntry, agent: ConfigSubentry
) -> dict[str, str]:
    """Name the agent, its model and its server in a repair issue's text."""
    return {
        **_agent_placeholders(agent),
        "url": without_credentials(entry.data[CONF_URL]),
    }


def tools_issue_id(subentry_id: str) -> str:
    """Return the id of the repair about an agent whose model refuses tools."""
    return f"tools_unsupported_{subentry_id}"


@callback
def async_update_tools_issue(
    hass: HomeAssistant,
    entry: ChatterboxConfigEntry,
    agent: ConfigSubentry,
    *,
    tools_refused: bool,
) -> None:
    """Tell the user when an agent's tools cannot work natively, until they can."""
    issue_id = tools_issue_id(agent.subentry_id)
    if not (tools_refused and agent.data.get(CONF_LLM_HASS_API)):
        ir.async_delete_issue(hass, DOMAIN, issue_id)
        return
    ir.async_create_issue(
        hass,
        DOMAIN,
        issue_id,
        is_fixable=False,
        severity=ir.IssueSeverity.WARNING,
        # The fix named for the kind of server it is, where that is known.
        translation_key=TOOLS_ISSUE_KEYS.get(
            entry.runtime_data.server_kind, "tools_unsupported"
        ),
        translation_placeholders=_issue_placeholders(entry, agent),
    )


@callback
def async_delete_entry_issues(
    hass: HomeAssistant, entry: ChatterboxConfigEntry
) -> None:
    """Withdraw the repairs about a removed server's agents."""
    for subentry_id in entry.subentries:
        ir.async_delete_issue(hass, DOMAIN, tools_issue_id(subentry_id))
        ir.async_delete_issue(hass, DOMAIN, model_issue_id(subentry_id))


def model_issue_id(subentry_id: str) -> str:
    """Return the id of the repair about an agent whose model is gone."""
    return f"model_missing_{subentry_id}"


@callback
def async_model_missing(
    hass: HomeAssistant, entry: ChatterboxConfigEntry, agent: ConfigSubentry
) -> None:
    """Offer to pick another model when the server no longer has the agent's."""
    ir.async_create_issue(
        hass,
        DOMAIN,
        model_issue_id(agent.subentry_id),
        is_fixable=True,
        severity=ir.IssueSeverity.ERROR,
        translation_key="model_missing",
        translation_placeholders=_issue_placeholders(entry, agent),
        data={"entry_id": entry.entry_id, "subentry_id": agent.subentry_id},
    )


class ModelMissingRepairFlow(RepairsFlow):
    """Pick one of the server's models for an agent whose model is gone."""

    def __init__(self, entry_id: str, subentry_id: str) -> None:
        """Remember which agent to fix."""
        self._entry_id = entry_id
        self._subentry_id = subentry_id

    async def async_step_init(
        self, user_input: dict[str, str] | None = None
    ) -> RepairsFlowResult:
        """Show the server's models and save the one picked."""
        entry: ChatterboxConfigEntry | None = self.hass.config_entries.async_get_entry(
            self._entry_id
        )
        if (
            entry is None
            or entry.state is not ConfigEntryState.LOADED
            or self._subentry_id not in entry.subentries
        ):
            return self.async_abort(reason="entry_not_loaded")
        agent = entry.subentries[self._subentry_id]
        # The flow starts with the issue's data, not with the user's choice.
        if user_input and CONF_MODEL in user_input:
            self.hass.config_entries.async_update_subentry(
                entry, agent, data={**agent.data, CONF_MODEL: user_input[CONF_MODEL]}
            )
            ir.async_delete_issue(self.hass, DOMAIN, model_issue_id(self._subentry_id))
            return self.async_create_entry(data={})
        models = await async_offered_models(entry)
        return self.async_show_form(
            step_id="init",
            data_schema=probatio.Schema(
                {probatio.Required(CONF_MODEL): model_selector(models)}
            ),
            description_placeholders=_agent_placeholders(agent),
        )


async def async_create_fix_flow(
    hass: HomeAssistant,  # noqa: ARG001
    issue_id: str,  # noqa: ARG001
    data: dict[str, str | int | float | None] | None,
) -> RepairsFlow:
    """Start the flow that fixes a repair issue of Chatterbox.

    Only the missing-model issue is fixable, and it always carries its agent.
    """
    data = data or {}
    return ModelMissingRepairFlow(str(data["entry_id"]), str(data["subentry_id"]))
