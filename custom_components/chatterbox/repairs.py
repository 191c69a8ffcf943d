"""Repair issues: what the user has to fix outside Chatterbox, and how."""

from typing import TYPE_CHECKING

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL, CONF_URL
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir

from .const import DOMAIN

if TYPE_CHECKING:
    from . import ChatterboxConfigEntry


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
        translation_key="tools_unsupported",
        translation_placeholders={
            "agent": agent.title,
            "model": agent.data[CONF_MODEL],
            "url": entry.data[CONF_URL],
        },
    )


@callback
def async_delete_entry_issues(
    hass: HomeAssistant, entry: ChatterboxConfigEntry
) -> None:
    """Withdraw the repairs about a removed server's agents."""
    for subentry_id in entry.subentries:
        ir.async_delete_issue(hass, DOMAIN, tools_issue_id(subentry_id))
