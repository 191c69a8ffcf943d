"""Diagnostics: what a bug report needs, without keys, prompts or anyone's words."""

from typing import Any

import openai

from homeassistant import const as ha_const
from homeassistant.components.diagnostics import async_redact_data
from homeassistant.const import CONF_API_KEY, CONF_PROMPT, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.loader import async_get_integration

from .const import CONF_EXTRA_BODY, DOMAIN
from .runtime import ChatterboxConfigEntry
from .server.client import without_credentials

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
        },
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
