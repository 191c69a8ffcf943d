"""Each agent subentry is a conversation agent for Assist."""

from typing import Literal, override

from homeassistant.components import conversation
from homeassistant.components.conversation.models import AbstractConversationAgent
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT, MATCH_ALL
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm

from .agent.entity import ChatterboxLLMEntity, platform_setup
from .const import CONF_MEMORY, DOMAIN, SUBENTRY_CONVERSATION
from .context.memory import memory_key
from .phrases import errors_in
from .runtime import ChatterboxConfigEntry

# The server decides how many requests it takes at once.
PARALLEL_UPDATES = 0


class ChatterboxConversationEntity(
    conversation.ConversationEntity,
    AbstractConversationAgent,
    ChatterboxLLMEntity,
):
    """A conversation agent that reasons, calls tools and answers."""

    _attr_supports_streaming = True
    _attr_translation_key = "agent"

    def __init__(self, entry: ChatterboxConfigEntry, subentry: ConfigSubentry) -> None:
        """Create the agent; it may control the home when an LLM API is set."""
        super().__init__(entry, subentry)
        if subentry.data.get(CONF_LLM_HASS_API):
            self._attr_supported_features = (
                conversation.ConversationEntityFeature.CONTROL
            )

    @property
    @override
    def supported_languages(self) -> Literal["*"]:
        """Answer in any language the model speaks."""
        return MATCH_ALL

    @override
    async def async_added_to_hass(self) -> None:
        """Register as the agent of the server entry too."""
        await super().async_added_to_hass()
        conversation.async_set_agent(self.hass, self.entry, self)

    @override
    async def async_will_remove_from_hass(self) -> None:
        """Unregister the agent."""
        conversation.async_unset_agent(self.hass, self.entry)
        await super().async_will_remove_from_hass()

    @override
    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Answer one turn of a conversation; its errors in its language."""
        async with errors_in(self.hass, user_input.language):
            return await self._async_answer(user_input, chat_log)

    async def _async_answer(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Answer one turn of a conversation."""
        options = self.subentry.data
        self.check_speaker(chat_log, user_input.context.user_id)
        try:
            await chat_log.async_provide_llm_data(
                user_input.as_llm_context(DOMAIN),
                await _async_apis_for(
                    self.hass, options.get(CONF_LLM_HASS_API), user_input.context
                ),
                options.get(CONF_PROMPT),
                user_input.extra_system_prompt,
            )
        except conversation.ConverseError as err:
            return err.as_conversation_result()

        await self._async_handle_chat_log(
            chat_log,
            memory_key(
                self.subentry.subentry_id,
                options.get(CONF_MEMORY),
                await _async_own_device(self.hass, user_input),
                user_input.context.user_id,
            ),
            # A device or a signed-in user is someone who can say yes.
            attended=bool(user_input.device_id or user_input.context.user_id),
            language=user_input.language,
        )
        return conversation.async_get_result_from_chat_log(user_input, chat_log)


async def _async_apis_for(
    hass: HomeAssistant, api_ids: list[str] | str | None, context: Context
) -> list[str] | None:
    """Return the agent's LLM APIs that whoever speaks may use.

    Home Assistant 2026.11 refuses a whole turn whose APIs include one for
    administrators only (`homeassistant`) when the speaker is not one: a voice
    satellite, a family member. They get the agent's other APIs instead.
    """
    if not api_ids:
        return None
    wanted = [api_ids] if isinstance(api_ids, str) else api_ids
    user = await hass.auth.async_get_user(context.user_id) if context.user_id else None
    if user is not None and user.is_admin:
        return wanted
    admin_only = {
        api.id
        for api in llm.async_get_apis(hass)
        if getattr(api, "requires_admin", False)
    }
    return [api_id for api_id in wanted if api_id not in admin_only] or None


async def _async_own_device(
    hass: HomeAssistant, user_input: conversation.ConversationInput
) -> str | None:
    """Return the device a turn's memory may belong to.

    Anyone signed in may name any device in conversation/process. A device
    counts when no one is signed in (a voice satellite, an automation) or an
    administrator is; a family member cannot read a satellite's memory by
    naming it.
    """
    if not user_input.device_id or not user_input.context.user_id:
        return user_input.device_id
    user = await hass.auth.async_get_user(user_input.context.user_id)
    return user_input.device_id if user is not None and user.is_admin else None


# One conversation agent per agent subentry.
async_setup_entry = platform_setup(SUBENTRY_CONVERSATION, ChatterboxConversationEntity)
