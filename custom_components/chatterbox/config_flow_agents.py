"""Config flow of the agents: the subentries that add or change one.

config_flow.py is the entry point Home Assistant loads; it offers these flows
for its server entries. The model list and its dropdown serve the repair that
picks another model too.
"""

from collections.abc import Iterable, Mapping
from typing import Any

import openai
import probatio

from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigEntryState,
    ConfigSubentryFlow,
    SubentryFlowResult,
)
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL, CONF_NAME, CONF_PROMPT
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
)

from .const import (
    CONF_ANSWER_NOT_FOUND,
    CONF_ANSWER_QUESTIONS,
    CONF_CHECK_CLAIMS,
    CONF_CONFIRM,
    CONF_CONTEXT_WINDOW,
    CONF_DEVICE_LIST_SHARE,
    CONF_EVERY_PART,
    CONF_EXTRA_BODY,
    CONF_GUIDE,
    CONF_IMAGE_MODEL,
    CONF_KEEP_ALIVE,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY,
    CONF_MEMORY_HOURS,
    CONF_SENSITIVE_KINDS,
    CONF_SPEECH,
    CONF_STATES_IN_VIEW,
    CONF_TEMPERATURE,
    CONF_THINKING,
    CONF_TOOL_MODE,
    CONF_TOP_P,
    CONF_UNATTENDED,
    DEFAULT_AGENT_NAME,
    DEFAULT_AI_TASK_NAME,
    DEFAULT_GUIDE,
    DEFAULT_MAX_ITERATIONS,
    GUIDES,
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
    THINKING_DEFAULT,
    THINKING_LEVELS,
    TOOL_MODE_AUTO,
    TOOL_MODES,
    UNATTENDED_ALLOW,
    UNATTENDED_REFUSE,
)
from .context.memory import MAX_MEMORY_HOURS, MEMORY_MODES, MEMORY_OFF
from .runtime import ChatterboxConfigEntry
from .server.client import async_list_models, describe
from .tools.sensitive import DEFAULT_KINDS, KINDS

# The checks of the model's work around it (README: Grounded answers): on
# unless turned off, and only a conversation agent has them.
GROUNDING_OPTIONS = (
    CONF_STATES_IN_VIEW,
    CONF_ANSWER_QUESTIONS,
    CONF_CHECK_CLAIMS,
    CONF_EVERY_PART,
    CONF_ANSWER_NOT_FOUND,
)
ADVANCED_OPTIONS = (
    CONF_TEMPERATURE,
    CONF_TOP_P,
    CONF_MAX_TOKENS,
    CONF_CONTEXT_WINDOW,
    CONF_MAX_HISTORY_TOKENS,
    CONF_DEVICE_LIST_SHARE,
    CONF_MEMORY_HOURS,
    CONF_TOOL_MODE,
    CONF_KEEP_ALIVE,
    CONF_EXTRA_BODY,
    CONF_UNATTENDED,
    CONF_SENSITIVE_KINDS,
    *GROUNDING_OPTIONS,
    CONF_GUIDE,
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
    CONF_GUIDE: DEFAULT_GUIDE,
    CONF_THINKING: THINKING_DEFAULT,
} | dict.fromkeys(GROUNDING_OPTIONS, True)


async def async_offered_models(entry: ChatterboxConfigEntry) -> list[str]:
    """Return the server's models now, or those it listed at setup if it fails."""
    try:
        return await async_list_models(entry.runtime_data.client)
    except openai.OpenAIError as err:
        LOGGER.debug("Showing the cached model list: %s", describe(err))
        return entry.runtime_data.models


def model_selector(models: list[str]) -> SelectSelector:
    """Return the dropdown of the server's models; any other name may be typed."""
    return SelectSelector(
        SelectSelectorConfig(
            options=models,
            custom_value=True,
            mode=SelectSelectorMode.DROPDOWN,
            sort=True,
        )
    )


def _dropdown(key: str, options: Iterable[str]) -> SelectSelector:
    """Return a dropdown of fixed options, worded by the translations of key."""
    return SelectSelector(
        SelectSelectorConfig(
            options=list(options),
            translation_key=key,
            mode=SelectSelectorMode.DROPDOWN,
        )
    )


def _whole_number(
    minimum: int, maximum: int | None = None, unit: str | None = None
) -> NumberSelector:
    """Return a box for a whole number from minimum, up to maximum if given."""
    config = NumberSelectorConfig(min=minimum)
    if maximum is not None:
        config["max"] = maximum
    config["step"] = 1
    config["mode"] = NumberSelectorMode.BOX
    if unit is not None:
        config["unit_of_measurement"] = unit
    return NumberSelector(config)


class AgentSubentryFlow(ConfigSubentryFlow):
    """Add or change a conversation agent of a server entry."""

    options: dict[str, Any]
    recommended: Mapping[str, Any] = RECOMMENDED_AGENT_OPTIONS
    default_name = DEFAULT_AGENT_NAME
    # Settings this kind of agent leaves out: a conversation agent makes no
    # images; an AI Task has no voice.
    left_out: frozenset[str] = frozenset({CONF_IMAGE_MODEL})

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
            description_placeholders=placeholders | {"window": self._window(entry)},
        )

    def _window(self, entry: ChatterboxConfigEntry) -> str:
        """Return the context window the agent's model gets now, for the form.

        A cloud service reports none, and the user should see the 8192 that
        then applies. A new agent, with no model yet, is shown what the
        server's models get: one figure, or the lowest and the highest.
        """
        runtime = entry.runtime_data
        models = [self.options[CONF_MODEL]] if CONF_MODEL in self.options else []
        windows = sorted(
            {
                runtime.context_window({**self.options, CONF_MODEL: model})[0]
                for model in models or runtime.models or [""]
            }
        )
        return " - ".join(map(str, dict.fromkeys((windows[0], windows[-1]))))

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
        models = await async_offered_models(entry)
        schema: dict[Any, Any] = {}
        if self._is_new:
            schema[probatio.Required(CONF_NAME, default=self.default_name)] = str
        schema |= {
            probatio.Required(CONF_MODEL): model_selector(models),
            probatio.Optional(CONF_IMAGE_MODEL): model_selector(models),
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
            ): _whole_number(MIN_ITERATIONS, MAX_ITERATIONS),
            probatio.Required(CONF_MEMORY, default=MEMORY_OFF): _dropdown(
                CONF_MEMORY, MEMORY_MODES
            ),
            probatio.Required(CONF_THINKING, default=THINKING_DEFAULT): _dropdown(
                CONF_THINKING, THINKING_LEVELS
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
                        probatio.Optional(CONF_MAX_TOKENS): _whole_number(1),
                        probatio.Optional(CONF_CONTEXT_WINDOW): _whole_number(
                            MIN_CONTEXT_WINDOW
                        ),
                        probatio.Optional(CONF_MAX_HISTORY_TOKENS): _whole_number(
                            MIN_HISTORY_TOKENS
                        ),
                        probatio.Optional(CONF_DEVICE_LIST_SHARE): _whole_number(
                            1, 100, "%"
                        ),
                        probatio.Optional(CONF_MEMORY_HOURS): _whole_number(
                            1, MAX_MEMORY_HOURS, "h"
                        ),
                        probatio.Optional(
                            CONF_TOOL_MODE, default=TOOL_MODE_AUTO
                        ): _dropdown(CONF_TOOL_MODE, TOOL_MODES),
                        probatio.Optional(
                            CONF_KEEP_ALIVE, default=KEEP_ALIVE_OFF
                        ): _dropdown(CONF_KEEP_ALIVE, KEEP_ALIVES),
                        probatio.Optional(CONF_EXTRA_BODY): ObjectSelector(),
                        probatio.Optional(
                            CONF_UNATTENDED, default=UNATTENDED_REFUSE
                        ): _dropdown(
                            CONF_UNATTENDED, [UNATTENDED_REFUSE, UNATTENDED_ALLOW]
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
                        **{
                            probatio.Optional(key, default=True): BooleanSelector()
                            for key in GROUNDING_OPTIONS
                        },
                        probatio.Optional(CONF_GUIDE, default=DEFAULT_GUIDE): _dropdown(
                            CONF_GUIDE, GUIDES
                        ),
                    }
                ),
                {"collapsed": True},
            ),
        }
        return probatio.Schema(self._without_left_out(schema))

    def _without_left_out(self, fields: dict[Any, Any]) -> dict[Any, Any]:
        """Drop the settings this kind of agent leaves out, in sections too."""
        kept: dict[Any, Any] = {}
        for key, value in fields.items():
            if str(key) in self.left_out:
                continue
            if isinstance(value, section):
                inner = self._without_left_out(value.schema.schema)
                value = section(probatio.Schema(inner), value.options)  # noqa: PLW2901
            kept[key] = value
        return kept


class AITaskSubentryFlow(AgentSubentryFlow):
    """Add or change an AI Task of a server entry: the same loop, no voice.

    Its tools come with each task, and its answers are data, not speech.
    """

    recommended = RECOMMENDED_AI_TASK_OPTIONS
    default_name = DEFAULT_AI_TASK_NAME
    left_out = frozenset(
        {
            CONF_PROMPT,
            CONF_LLM_HASS_API,
            CONF_MEMORY,
            CONF_SPEECH,
            CONF_CONFIRM,
            CONF_UNATTENDED,
            CONF_SENSITIVE_KINDS,
            *GROUNDING_OPTIONS,
            CONF_GUIDE,
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
