"""Config flow: a server entry (URL and key) and its agents (subentries).

Home Assistant loads this module by its name; the agents' subentry flows live
in config_flow_agents.py.
"""

from collections.abc import Mapping
from typing import Any, override
from urllib.parse import urlsplit

import openai
import probatio

from homeassistant.config_entries import (
    ConfigEntry,
    ConfigFlow,
    ConfigFlowResult,
    ConfigSubentryData,
    ConfigSubentryFlow,
)
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_URL
from homeassistant.core import callback
from homeassistant.helpers.selector import (
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .config_flow_agents import AgentSubentryFlow, AITaskSubentryFlow, model_selector
from .const import (
    DEFAULT_AGENT_NAME,
    DOMAIN,
    LOGGER,
    RECOMMENDED_AGENT_OPTIONS,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
)
from .server.capabilities import async_chats
from .server.client import (
    Failure,
    async_create_client,
    async_list_model_details,
    classify,
    describe,
    without_credentials,
)
from .server.models import chat_models

URL_SELECTOR = TextSelector(TextSelectorConfig(type=TextSelectorType.URL))
KEY_SELECTOR = TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))
KEY_SCHEMA = probatio.Schema({probatio.Optional(CONF_API_KEY): KEY_SELECTOR})
SERVER_SCHEMA = probatio.Schema({probatio.Required(CONF_URL): URL_SELECTOR}).extend(
    KEY_SCHEMA.schema
)


def _normalize(user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Tidy the URL and drop an empty key, so equal servers compare equal."""
    data = {CONF_URL: str(user_input[CONF_URL]).strip().rstrip("/")}
    if api_key := str(user_input.get(CONF_API_KEY) or "").strip():
        data[CONF_API_KEY] = api_key
    return data


def _title(url: str) -> str:
    """Name a server entry after the host and port it talks to."""
    shown = without_credentials(url)
    return urlsplit(shown).netloc or shown


class ChatterboxConfigFlow(ConfigFlow, domain=DOMAIN):
    """Add, re-authenticate and reconfigure an OpenAI-compatible server."""

    VERSION = 1
    MINOR_VERSION = 1

    # The server the user step tested, for the model step.
    _data: dict[str, Any]
    _client: openai.AsyncOpenAI
    _models: list[str]

    @classmethod
    @callback
    @override
    def async_get_supported_subentry_types(
        cls, config_entry: ConfigEntry
    ) -> dict[str, type[ConfigSubentryFlow]]:
        """Return the kinds of agents a server entry can hold."""
        return {
            SUBENTRY_CONVERSATION: AgentSubentryFlow,
            SUBENTRY_AI_TASK: AITaskSubentryFlow,
        }

    async def _async_probe(
        self, data: Mapping[str, Any], errors: dict[str, str]
    ) -> list[str] | None:
        """List the server's chat models, or fill in why that failed."""
        api_key = data.get(CONF_API_KEY)
        try:
            client = await async_create_client(self.hass, data[CONF_URL], api_key)
            listed = await async_list_model_details(client)
        except openai.OpenAIError as err:
            LOGGER.info(
                "Cannot use the server at %s: %s",
                without_credentials(data[CONF_URL]),
                describe(err, api_key),
            )
            errors["base"] = (
                "invalid_auth" if classify(err) is Failure.AUTH else "cannot_connect"
            )
            return None
        except Exception:  # noqa: BLE001  # the form must recover from anything
            LOGGER.exception(
                "Unexpected error while testing %s", without_credentials(data[CONF_URL])
            )
            errors["base"] = "unknown"
            return None
        self._client = client
        return chat_models(listed)

    @override
    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the server's URL and optional API key, and test them."""
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _normalize(user_input)
            self._async_abort_entries_match({CONF_URL: data[CONF_URL]})
            models = await self._async_probe(data, errors)
            if models:
                self._data, self._models = data, models
                return await self.async_step_model()
            if models is not None:
                # With no model listed there is nothing to offer: the user
                # adds an agent and types the model's name.
                return self.async_create_entry(title=_title(data[CONF_URL]), data=data)
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(SERVER_SCHEMA, user_input),
            errors=errors,
        )

    async def async_step_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask which of the server's chat models the first agent uses.

        The model is probed before anything is saved, so that a model that
        cannot chat is refused here, with the reason, and not at the first
        voice command.
        """
        errors: dict[str, str] = {}
        if user_input is not None:
            model = str(user_input[CONF_MODEL]).strip()
            # Another flow may have added the server meanwhile.
            self._async_abort_entries_match({CONF_URL: self._data[CONF_URL]})
            if await self._async_chats(model) is not False:
                return self.async_create_entry(
                    title=_title(self._data[CONF_URL]),
                    data=self._data,
                    subentries=[
                        ConfigSubentryData(
                            subentry_type=SUBENTRY_CONVERSATION,
                            data={CONF_MODEL: model, **RECOMMENDED_AGENT_OPTIONS},
                            title=DEFAULT_AGENT_NAME,
                            unique_id=None,
                        )
                    ],
                )
            LOGGER.info("%s does not chat: the agent needs another model", model)
            errors["base"] = "not_a_chat_model"
        suggested = user_input or {CONF_MODEL: self._models[0]}
        return self.async_show_form(
            step_id="model",
            data_schema=self.add_suggested_values_to_schema(
                probatio.Schema(
                    {probatio.Required(CONF_MODEL): model_selector(self._models)}
                ),
                suggested,
            ),
            errors=errors,
            description_placeholders={"url": without_credentials(self._data[CONF_URL])},
        )

    async def _async_chats(self, model: str) -> bool | None:
        """Tell whether the model chats; None when the server could not tell."""
        try:
            return await async_chats(self._client, model)
        except Exception:  # noqa: BLE001  # the form must recover from anything
            LOGGER.exception("Unexpected error while checking %s", model)
            return None

    async def async_step_reauth(
        self, entry_data: Mapping[str, Any]
    ) -> ConfigFlowResult:
        """Start re-authentication after the server refused the key."""
        del entry_data
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for a new API key and test it."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _normalize({CONF_URL: entry.data[CONF_URL], **user_input})
            if await self._async_probe(data, errors) is not None:
                return self.async_update_reload_and_abort(entry, data=data)
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=KEY_SCHEMA,
            errors=errors,
            description_placeholders={"url": without_credentials(entry.data[CONF_URL])},
        )

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Change the server's URL or key, and test them."""
        entry = self._get_reconfigure_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _normalize(user_input)
            if any(
                other.data[CONF_URL] == data[CONF_URL]
                for other in self._async_current_entries(include_ignore=False)
                if other.entry_id != entry.entry_id
            ):
                return self.async_abort(reason="already_configured")
            if await self._async_probe(data, errors) is not None:
                return self.async_update_reload_and_abort(
                    entry,
                    title=_title(data[CONF_URL]),
                    data=data,
                )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                SERVER_SCHEMA, user_input or entry.data
            ),
            errors=errors,
        )
