"""Diagnostics: what a bug report needs, without keys, prompts or anyone's words."""

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

import openai

from homeassistant import const as ha_const
from homeassistant.components.diagnostics import async_redact_data
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_PROMPT, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.loader import async_get_integration

from .const import CONF_EXTRA_BODY, CONF_GUIDE, DEFAULT_GUIDE, DOMAIN
from .runtime import ChatterboxConfigEntry
from .server.client import without_credentials
from .server.profile import Guide, guide_for

# The extra body may carry a provider's own keys.
TO_REDACT = {CONF_API_KEY, CONF_PROMPT, CONF_EXTRA_BODY}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: ChatterboxConfigEntry
) -> dict[str, Any]:
    """Return the entry, its agents, the server's verdicts and recent costs."""
    runtime = entry.runtime_data
    integration = await async_get_integration(hass, DOMAIN)
    redacted = async_redact_data(entry.as_dict(), TO_REDACT)
    # A reverse proxy's user and password (setup took them out of old titles).
    redacted["data"][CONF_URL] = without_credentials(entry.data[CONF_URL])
    return {
        "entry": redacted,
        "server": {
            "kind": runtime.server_kind,
            "available": runtime.coordinator.last_update_success,
            "models": runtime.models,
            "context_windows": runtime.context_windows,
            "model_sizes": runtime.model_sizes,
            "thinks": runtime.thinks,
            "images": runtime.images,
        },
        "agents": _agents(entry),
        "capabilities": {
            model: verdict.as_dict() for model, verdict in runtime.capabilities.items()
        },
        "versions": {
            "chatterbox": str(integration.version),
            "homeassistant": ha_const.__version__,
            "openai": openai.__version__,
        },
        # Figures only: the turns' words are never included.
        "recent_turns": list(runtime.recent_turns),
    }


def _agents(entry: ChatterboxConfigEntry) -> dict[str, Any]:
    """Return each agent's Guide and context window, and why they are what they are."""
    runtime = entry.runtime_data
    return {
        agent.subentry_id: {
            "guide": asdict(_guide(agent.data, runtime.model_sizes)),
            "context_window": dict(
                zip(("tokens", "from"), runtime.context_window(agent.data), strict=True)
            ),
        }
        for agent in entry.subentries.values()
        if CONF_MODEL in agent.data
    }


def _guide(options: Mapping[str, Any], sizes: dict[str, int]) -> Guide:
    """Return whether an agent guides its model, as its turns decide it."""
    model = options[CONF_MODEL]
    return guide_for(options.get(CONF_GUIDE, DEFAULT_GUIDE), model, sizes.get(model))
