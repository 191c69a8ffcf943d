"""Config flow: a server entry (URL and key) and its agents (subentries)."""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, override
from urllib.parse import urlsplit

import openai
import probatio

from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigEntry,
    ConfigEntryState,
    ConfigFlow,
    ConfigFlowResult,
    ConfigSubentryData,
    ConfigSubentryFlow,
    SubentryFlowResult,
)
from homeassistant.const import (
    CONF_API_KEY,
    CONF_LLM_HASS_API,
    CONF_MODEL,
    CONF_NAME,
    CONF_PROMPT,
    CONF_URL,
)
from homeassistant.core import callback
from homeassistant.data_entry_flow import section
from homeassistant.helpers import llm
from homeassistant.helpers.selector import (
    BooleanSelector,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    ObjectSelector,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TemplateSelector,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .const import (
    CONF_CONFIRM,
    CONF_CONTEXT_WINDOW,
    CONF_EXTRA_BODY,
    CONF_KEEP_ALIVE,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY,
    CONF_MEMORY_HOURS,
    CONF_SENSITIVE_KINDS,
    CONF_SPEECH,
    CONF_TEMPERATURE,
    CONF_TOOL_MODE,
    CONF_TOP_P,
    CONF_UNATTENDED,
    DEFAULT_AGENT_NAME,
    DEFAULT_AI_TASK_NAME,
    DEFAULT_MAX_ITERATIONS,
    DOMAIN,
    KEEP_ALIVE_OFF,
    KEEP_ALIVES,
    LOGGER,
    MAX_ITERATIONS,
    MIN_CONTEXT_WINDOW,
    MIN_HISTORY_TOKENS,
    MIN_ITERATIONS,
    RECOMMENDED_AGENT_OPTIONS,
    RECOMMENDED_AI_TASK_OPTIONS,
    RESERVED_BODY_KEYS,
    SECTION_ADVANCED,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
    TOOL_MODE_AUTO,
    TOOL_MODES,
    UNATTENDED_ALLOW,
    UNATTENDED_REFUSE,
)
from .context.memory import MAX_MEMORY_HOURS, MEMORY_MODES, MEMORY_OFF
from .server.client import (
    Failure,
    async_create_client,
    async_list_models,
    classify,
    describe,
    without_credentials,
)
from .tools.sensitive import DEFAULT_KINDS, KINDS

if TYPE_CHECKING:
    from . import ChatterboxConfigEntry

ADVANCED_OPTIONS = (
    CONF_TEMPERATURE,
    CONF_TOP_P,
    CONF_MAX_TOKENS,
    CONF_CONTEXT_WINDOW,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MEMORY_HOURS,
    CONF_TOOL_MODE,
    CONF_KEEP_ALIVE,
    CONF_EXTRA_BODY,
    CONF_UNATTENDED,
    CONF_SENSITIVE_KINDS,
)
# Settings saved only when they differ from these defaults, so that agents
# saved before a setting existed read the same as new ones.
UNSAVED_DEFAULTS = {
    CONF_MEMORY: MEMORY_OFF,
    CONF_SPEECH: True,
    CONF_TOOL_MODE: TOOL_MODE_AUTO,
    CONF_KEEP_ALIVE: KEEP_ALIVE_OFF,
    CONF_CONFIRM: True,
    CONF_UNATTENDED: UNATTENDED_REFUSE,
    CONF_SENSITIVE_KINDS: list(DEFAULT_KINDS),
}

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
        """List the server's models, or fill in why that failed."""
        api_key = data.get(CONF_API_KEY)
        try:
            client = await async_create_client(self.hass, data[CONF_URL], api_key)
            return await async_list_models(client)
        except openai.OpenAIError as err:
            LOGGER.info(
                "Cannot use the server at %s: %s",
                without_credentials(data[CONF_URL]),
                describe(err, api_key),
            )
            errors["base"] = (
                "invalid_auth" if classify(err) is Failure.AUTH else "cannot_connect"
            )
        except Exception:  # noqa: BLE001  # the form must recover from anything
            LOGGER.exception(
                "Unexpected error while testing %s", without_credentials(data[CONF_URL])
            )
            errors["base"] = "unknown"
        return None

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
            if models is not None:
                # With no model listed there is nothing to recommend: the user
                # adds an agent and types the model's name.
                subentries = [
                    ConfigSubentryData(
                        subentry_type=SUBENTRY_CONVERSATION,
                        data={CONF_MODEL: model, **RECOMMENDED_AGENT_OPTIONS},
                        title=DEFAULT_AGENT_NAME,
                        unique_id=None,
                    )
                    for model in models[:1]
                ]
                return self.async_create_entry(
                    title=_title(data[CONF_URL]),
                    data=data,
                    subentries=subentries,
                )
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(SERVER_SCHEMA, user_input),
            errors=errors,
        )

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


class AgentSubentryFlow(ConfigSubentryFlow):
    """Add or change a conversation agent of a server entry."""

    options: dict[str, Any]
    recommended: Mapping[str, Any] = RECOMMENDED_AGENT_OPTIONS
    default_name = DEFAULT_AGENT_NAME
    # Settings that only a conversation agent has.
    only_conversation: frozenset[str] = frozenset()

    @property
    def _is_new(self) -> bool:
        """Tell whether this flow adds an agent rather than changing one."""
        return self.source == SOURCE_USER

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Add an agent, starting from the recommended settings."""
        self.options = dict(self.recommended)
        return await self.async_step_init(user_input)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change an agent, starting from its current settings."""
        self.options = dict(self._get_reconfigure_subentry().data)
        return await self.async_step_init(user_input)

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Show the agent's settings and store them."""
        entry: ChatterboxConfigEntry = self._get_entry()
        if entry.state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")

        errors: dict[str, str] = {}
        placeholders: dict[str, str] = {}
        if user_input is not None:
            title = user_input.pop(CONF_NAME, None)
            data = _agent_data(user_input)
            extra = data.get(CONF_EXTRA_BODY)
            if extra is not None and not isinstance(extra, dict):
                errors["base"] = "extra_body_not_object"
            elif reserved := sorted(RESERVED_BODY_KEYS.intersection(extra or {})):
                errors["base"] = "extra_body_reserved"
                placeholders["keys"] = ", ".join(reserved)
            elif self._is_new:
                return self.async_create_entry(
                    title=title or self.default_name, data=data
                )
            else:
                return self.async_update_and_abort(
                    entry, self._get_reconfigure_subentry(), data=data
                )
            if title is not None:
                user_input[CONF_NAME] = title

        return self.async_show_form(
            step_id="init",
            data_schema=self.add_suggested_values_to_schema(
                await self._async_schema(entry),
                self._suggested_values(user_input),
            ),
            errors=errors,
            description_placeholders=placeholders,
        )

    def _suggested_values(self, user_input: dict[str, Any] | None) -> dict[str, Any]:
        """Return the settings to show: what was entered, else the current ones."""
        if user_input is not None:
            return user_input
        values = {
            key: value
            for key, value in self.options.items()
            if key not in ADVANCED_OPTIONS
        }
        values[SECTION_ADVANCED] = {
            key: self.options[key] for key in ADVANCED_OPTIONS if key in self.options
        }
        known_apis = {api.id for api in llm.async_get_apis(self.hass)}
        values[CONF_LLM_HASS_API] = [
            api for api in values.get(CONF_LLM_HASS_API, []) if api in known_apis
        ]
        return values

    async def _async_schema(self, entry: ChatterboxConfigEntry) -> probatio.Schema:
        """Build the form, with the server's current models in the dropdown."""
        try:
            models = await async_list_models(entry.runtime_data.client)
        except openai.OpenAIError as err:
            LOGGER.debug("Showing the cached model list: %s", describe(err))
            models = entry.runtime_data.models
        schema: dict[Any, Any] = {}
        if self._is_new:
            schema[probatio.Required(CONF_NAME, default=self.default_name)] = str
        schema |= {
            probatio.Required(CONF_MODEL): SelectSelector(
                SelectSelectorConfig(
                    options=models,
                    custom_value=True,
                    mode=SelectSelectorMode.DROPDOWN,
                    sort=True,
                )
            ),
            probatio.Optional(CONF_PROMPT): TemplateSelector(),
            probatio.Optional(CONF_LLM_HASS_API): SelectSelector(
                SelectSelectorConfig(
                    options=[
                        SelectOptionDict(label=api.name, value=api.id)
                        for api in llm.async_get_apis(self.hass)
                    ],
                    multiple=True,
                )
            ),
            probatio.Required(
                CONF_MAX_ITERATIONS, default=DEFAULT_MAX_ITERATIONS
            ): NumberSelector(
                NumberSelectorConfig(
                    min=MIN_ITERATIONS,
                    max=MAX_ITERATIONS,
                    step=1,
                    mode=NumberSelectorMode.BOX,
                )
            ),
            probatio.Required(CONF_MEMORY, default=MEMORY_OFF): SelectSelector(
                SelectSelectorConfig(
                    options=list(MEMORY_MODES),
                    translation_key=CONF_MEMORY,
                    mode=SelectSelectorMode.DROPDOWN,
                )
            ),
            probatio.Required(CONF_SPEECH, default=True): BooleanSelector(),
            probatio.Required(CONF_CONFIRM, default=True): BooleanSelector(),
            probatio.Required(SECTION_ADVANCED): section(
                probatio.Schema(
                    {
                        probatio.Optional(CONF_TEMPERATURE): NumberSelector(
                            NumberSelectorConfig(min=0, max=2, step=0.05)
                        ),
                        probatio.Optional(CONF_TOP_P): NumberSelector(
                            NumberSelectorConfig(min=0, max=1, step=0.05)
                        ),
                        probatio.Optional(CONF_MAX_TOKENS): NumberSelector(
                            NumberSelectorConfig(
                                min=1, step=1, mode=NumberSelectorMode.BOX
                            )
                        ),
                        probatio.Optional(CONF_CONTEXT_WINDOW): NumberSelector(
                            NumberSelectorConfig(
                                min=MIN_CONTEXT_WINDOW,
                                step=1,
                                mode=NumberSelectorMode.BOX,
                            )
                        ),
                        probatio.Optional(CONF_MAX_HISTORY_TOKENS): NumberSelector(
                            NumberSelectorConfig(
                                min=MIN_HISTORY_TOKENS,
                                step=1,
                                mode=NumberSelectorMode.BOX,
                            )
                        ),
                        probatio.Optional(CONF_MEMORY_HOURS): NumberSelector(
                            NumberSelectorConfig(
                                min=1,
                                max=MAX_MEMORY_HOURS,
                                step=1,
                                mode=NumberSelectorMode.BOX,
                                unit_of_measurement="h",
                            )
                        ),
                        probatio.Optional(
                            CONF_TOOL_MODE, default=TOOL_MODE_AUTO
                        ): SelectSelector(
                            SelectSelectorConfig(
                                options=list(TOOL_MODES),
                                translation_key=CONF_TOOL_MODE,
                                mode=SelectSelectorMode.DROPDOWN,
                            )
                        ),
                        probatio.Optional(
                            CONF_KEEP_ALIVE, default=KEEP_ALIVE_OFF
                        ): SelectSelector(
                            SelectSelectorConfig(
                                options=list(KEEP_ALIVES),
                                translation_key=CONF_KEEP_ALIVE,
                                mode=SelectSelectorMode.DROPDOWN,
                            )
                        ),
                        probatio.Optional(CONF_EXTRA_BODY): ObjectSelector(),
                        probatio.Optional(
                            CONF_UNATTENDED, default=UNATTENDED_REFUSE
                        ): SelectSelector(
                            SelectSelectorConfig(
                                options=[UNATTENDED_REFUSE, UNATTENDED_ALLOW],
                                translation_key=CONF_UNATTENDED,
                                mode=SelectSelectorMode.DROPDOWN,
                            )
                        ),
                        probatio.Optional(
                            CONF_SENSITIVE_KINDS, default=list(DEFAULT_KINDS)
                        ): SelectSelector(
                            SelectSelectorConfig(
                                options=list(KINDS),
                                translation_key=CONF_SENSITIVE_KINDS,
                                multiple=True,
                                mode=SelectSelectorMode.LIST,
                            )
                        ),
                    }
                ),
                {"collapsed": True},
            ),
        }
        return probatio.Schema(self._without_conversation_only(schema))

    def _without_conversation_only(self, fields: dict[Any, Any]) -> dict[Any, Any]:
        """Drop the settings only a conversation agent has, in sections too."""
        kept: dict[Any, Any] = {}
        for key, value in fields.items():
            if str(key) in self.only_conversation:
                continue
            if isinstance(value, section):
                inner = self._without_conversation_only(value.schema.schema)
                value = section(probatio.Schema(inner), value.options)  # noqa: PLW2901
            kept[key] = value
        return kept


class AITaskSubentryFlow(AgentSubentryFlow):
    """Add or change an AI Task of a server entry: the same loop, no voice.

    Its tools come with each task, and its answers are data, not speech.
    """

    recommended = RECOMMENDED_AI_TASK_OPTIONS
    default_name = DEFAULT_AI_TASK_NAME
    only_conversation = frozenset(
        {
            CONF_PROMPT,
            CONF_LLM_HASS_API,
            CONF_MEMORY,
            CONF_SPEECH,
            CONF_CONFIRM,
            CONF_UNATTENDED,
            CONF_SENSITIVE_KINDS,
        }
    )


def _agent_data(user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Flatten the form into the subentry's data, keeping only what was set."""
    data = {
        key: value
        for key, value in user_input.items()
        if key != SECTION_ADVANCED and value not in (None, "", [])
    }
    data |= {
        key: value
        for key, value in user_input.get(SECTION_ADVANCED, {}).items()
        if value not in (None, "", {})
    }
    data[CONF_MAX_ITERATIONS] = int(data[CONF_MAX_ITERATIONS])
    if CONF_SENSITIVE_KINDS in data:
        # In the form's order, so the default reads as the default.
        chosen = set(data[CONF_SENSITIVE_KINDS])
        data[CONF_SENSITIVE_KINDS] = [kind for kind in KINDS if kind in chosen]
    for key, default in UNSAVED_DEFAULTS.items():
        if data.get(key) == default:
            del data[key]
    for key in (
        CONF_MAX_TOKENS,
        CONF_CONTEXT_WINDOW,
        CONF_MAX_HISTORY_TOKENS,
        CONF_MEMORY_HOURS,
    ):
        if key in data:
            data[key] = int(data[key])
    return data
