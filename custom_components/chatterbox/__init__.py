"""Chatterbox: an agentic conversation agent on any OpenAI-compatible server."""

import openai

from homeassistant.const import (
    CONF_API_KEY,
    CONF_MODEL,
    CONF_URL,
    Platform,
)
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import (
    ConfigEntryAuthFailed,
    ConfigEntryError,
    ConfigEntryNotReady,
)
from homeassistant.helpers import config_validation as cv, issue_registry as ir
from homeassistant.helpers.start import async_at_started
from homeassistant.helpers.typing import ConfigType

from .const import (
    CONF_IMAGE_MODEL,
    CONF_KEEP_ALIVE,
    CONF_THINKING,
    DOMAIN,
    KEEP_ALIVE_OFF,
    LOGGER,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
    THINKING_DEFAULT,
)
from .context.memory import async_get_memory_store
from .coordinator import ChatterboxCoordinator
from .repairs import (
    async_delete_entry_issues,
    async_update_tools_issue,
    model_issue_id,
)
from .runtime import ChatterboxConfigEntry, ChatterboxRuntime
from .server.capabilities import async_probe
from .server.client import (
    Failure,
    ServerKind,
    async_create_client,
    async_list_model_details,
    classify,
    describe,
    without_credentials,
)
from .server.images import async_serves_images
from .server.reported import (
    async_lm_studio_windows,
    async_ollama_keep_alive,
    async_reported,
)
from .server.thinking import fields_for
from .services import async_setup_services
from .skills.registry import async_use_skills

PLATFORMS: list[Platform] = [Platform.AI_TASK, Platform.CONVERSATION, Platform.SENSOR]
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:  # noqa: ARG001
    """Register the integration's actions; the rest happens per config entry."""
    async_setup_services(hass)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: ChatterboxConfigEntry) -> bool:
    """Connect to the server, check it answers, and set up the agents."""
    if "@" in entry.title:
        # Titles were once made from the URL with a proxy's user and password.
        hass.config_entries.async_update_entry(
            entry, title=entry.title.rpartition("@")[2]
        )
    api_key: str | None = entry.data.get(CONF_API_KEY)
    client = await async_create_client(hass, entry.data[CONF_URL], api_key)
    try:
        listed = await async_list_model_details(client)
    except openai.OpenAIError as err:
        # The cause is left out on purpose: servers echo keys in their error text,
        # and Home Assistant logs the chain. `describe` masks them.
        placeholders = {
            "url": without_credentials(entry.data[CONF_URL]),
            "error": describe(err, api_key),
        }
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

    agent_models = {
        subentry.data[CONF_MODEL]
        for subentry in entry.subentries.values()
        if CONF_MODEL in subentry.data
    }
    reported = await async_reported(client, listed, agent_models)
    entry.runtime_data = ChatterboxRuntime(
        client=client,
        models=list(listed),
        coordinator=ChatterboxCoordinator(hass, entry, client, list(listed)),
        memory=await async_get_memory_store(hass),
        context_windows=reported.windows,
        model_sizes=reported.sizes,
        server_kind=reported.kind,
        thinks=reported.thinks,
    )
    entry.async_on_unload(async_use_skills(hass, entry.entry_id))
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry.async_on_unload(entry.add_update_listener(_async_update_listener))

    async def _async_probe_when_started(hass: HomeAssistant) -> None:
        # In the background, after start-up: a failed probe never blocks setup.
        entry.async_create_background_task(
            hass, _async_probe_agents(hass, entry), f"{DOMAIN} probe {entry.title}"
        )

    entry.async_on_unload(async_at_started(hass, _async_probe_when_started))
    return True


async def _async_probe_agents(
    hass: HomeAssistant, entry: ChatterboxConfigEntry
) -> None:
    """Probe each agent's model, raise or clear repairs, and warm models up.

    The probe's tiny requests also load the model, so the first voice command
    after a restart or a change does not wait for it.
    """
    runtime = entry.runtime_data
    agents = [
        subentry
        for subentry in entry.subentries.values()
        if subentry.subentry_type in (SUBENTRY_CONVERSATION, SUBENTRY_AI_TASK)
    ]
    for model in sorted({agent.data[CONF_MODEL] for agent in agents}):
        thinking = fields_for(
            (
                agent.data.get(CONF_THINKING, THINKING_DEFAULT)
                for agent in agents
                if agent.data[CONF_MODEL] == model
            ),
            runtime.server_kind,
            thinks=runtime.thinks.get(model),
        )
        runtime.capabilities[model] = await async_probe(runtime.client, model, thinking)
        LOGGER.debug("%s can: %s", model, runtime.capabilities[model])
    if runtime.server_kind is ServerKind.LM_STUDIO:
        # The probe loaded the models: LM Studio now tells their windows.
        runtime.context_windows.update(
            await async_lm_studio_windows(runtime.client) or {}
        )
    for image_model in sorted(
        {model for agent in agents if (model := agent.data.get(CONF_IMAGE_MODEL))}
    ):
        runtime.images[image_model] = await async_serves_images(
            runtime.client, image_model
        )
    if runtime.images:
        # An AI Task's features follow: its state shows them.
        runtime.coordinator.async_update_listeners()
    for agent in agents:
        model = agent.data[CONF_MODEL]
        verdict = runtime.capabilities[model]
        async_update_tools_issue(
            hass, entry, agent, tools_refused=verdict.tools is False
        )
        if verdict.streaming:
            # The model answered: it is back, or was never gone.
            ir.async_delete_issue(hass, DOMAIN, model_issue_id(agent.subentry_id))
        keep_alive = agent.data.get(CONF_KEEP_ALIVE, KEEP_ALIVE_OFF)
        if runtime.server_kind is ServerKind.OLLAMA and keep_alive != KEEP_ALIVE_OFF:
            await async_ollama_keep_alive(runtime.client, model, keep_alive)


async def _async_update_listener(
    hass: HomeAssistant, entry: ChatterboxConfigEntry
) -> None:
    """Reload the entry so agents pick up changed settings.

    An agent removed from it takes its memories along: once its entity is
    gone, nobody could forget them any more.
    """
    await _async_forget_removed_agents(hass, removed_entry=None)
    await hass.config_entries.async_reload(entry.entry_id)


async def async_remove_entry(hass: HomeAssistant, entry: ChatterboxConfigEntry) -> None:
    """Withdraw the repairs of a removed server's agents, and their memories."""
    async_delete_entry_issues(hass, entry)
    await _async_forget_removed_agents(hass, removed_entry=entry.entry_id)


async def _async_forget_removed_agents(
    hass: HomeAssistant, *, removed_entry: str | None
) -> None:
    """Forget the memories of agents that no server entry has any more."""
    agents = {
        subentry_id
        for other in hass.config_entries.async_entries(DOMAIN)
        if other.entry_id != removed_entry
        for subentry_id in other.subentries
    }
    store = await async_get_memory_store(hass)
    if forgotten := store.keep_only(agents):
        LOGGER.info("Forgot %s memories of removed agents", forgotten)


async def async_unload_entry(hass: HomeAssistant, entry: ChatterboxConfigEntry) -> bool:
    """Unload the agents of a server entry."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
