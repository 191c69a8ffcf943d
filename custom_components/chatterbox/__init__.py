"""Chatterbox: an agentic conversation agent on any OpenAI-compatible server."""

from dataclasses import dataclass

import openai

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_API_KEY, CONF_URL, Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import (
    ConfigEntryAuthFailed,
    ConfigEntryError,
    ConfigEntryNotReady,
)
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.typing import ConfigType

from .client import (
    Failure,
    async_create_client,
    async_list_models_and_windows,
    async_server_context_window,
    classify,
    describe,
)
from .const import DOMAIN
from .memory import MemoryStore, async_get_memory_store
from .services import async_setup_services
from .skills.registry import async_use_skills

PLATFORMS: list[Platform] = [Platform.CONVERSATION]
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)


@dataclass
class ChatterboxRuntime:
    """What a loaded server entry holds."""

    client: openai.AsyncOpenAI
    models: list[str]
    memory: MemoryStore
    context_windows: dict[str, int]
    """The context size the server reports per model, where it reports one."""


type ChatterboxConfigEntry = ConfigEntry[ChatterboxRuntime]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:  # noqa: ARG001
    """Register the integration's actions; the rest happens per config entry."""
    async_setup_services(hass)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: ChatterboxConfigEntry) -> bool:
    """Connect to the server, check it answers, and set up the agents."""
    api_key: str | None = entry.data.get(CONF_API_KEY)
    client = await async_create_client(hass, entry.data[CONF_URL], api_key)
    try:
        listed = await async_list_models_and_windows(client)
    except openai.OpenAIError as err:
        # The cause is left out on purpose: servers echo keys in their error text,
        # and Home Assistant logs the chain. `describe` masks them.
        placeholders = {"url": entry.data[CONF_URL], "error": describe(err, api_key)}
        match classify(err):
            case Failure.AUTH:
                raise ConfigEntryAuthFailed(
                    translation_domain=DOMAIN,
                    translation_key="setup_invalid_auth",
                    translation_placeholders=placeholders,
                ) from None
            case Failure.REJECTED:
                raise ConfigEntryError(
                    translation_domain=DOMAIN,
                    translation_key="setup_rejected",
                    translation_placeholders=placeholders,
                ) from None
            case Failure.UNAVAILABLE:
                raise ConfigEntryNotReady(
                    translation_domain=DOMAIN,
                    translation_key="setup_cannot_connect",
                    translation_placeholders=placeholders,
                ) from None

    windows = {model: window for model, window in listed.items() if window}
    if not windows and (n_ctx := await async_server_context_window(client)):
        windows = dict.fromkeys(listed, n_ctx)
    entry.runtime_data = ChatterboxRuntime(
        client=client,
        models=list(listed),
        memory=await async_get_memory_store(hass),
        context_windows=windows,
    )
    entry.async_on_unload(async_use_skills(hass, entry.entry_id))
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry.async_on_unload(entry.add_update_listener(_async_update_listener))
    return True


async def _async_update_listener(
    hass: HomeAssistant, entry: ChatterboxConfigEntry
) -> None:
    """Reload the entry so agents pick up changed settings."""
    await hass.config_entries.async_reload(entry.entry_id)


async def async_unload_entry(hass: HomeAssistant, entry: ChatterboxConfigEntry) -> bool:
    """Unload the agents of a server entry."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
