"""AI Task: generate text or structured data with the same loop as the agents."""

import json
import re
from typing import Any, override

import openai
import probatio

from homeassistant.components import ai_task, conversation
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm

from .agent.entity import ChatterboxLLMEntity, platform_setup
from .const import CONF_IMAGE_MODEL, DOMAIN, LOGGER, SUBENTRY_AI_TASK
from .phrases import errors_in
from .prompts import STRUCTURE_RETRY_NOTE
from .server.client import describe
from .server.errors import translate_request_error, user_error
from .server.images import async_make_image
from .wire.json import fence_body
from .wire.schema import structure_schema

# The server decides how many requests it takes at once.
PARALLEL_UPDATES = 0


class ChatterboxAITaskEntity(ai_task.AITaskEntity, ChatterboxLLMEntity):
    """Generates data from instructions, images and tools."""

    @property
    @override
    def supported_features(self) -> ai_task.AITaskEntityFeature:
        """Return what the task does: images too, with an image model the server makes.

        The probe runs after start-up: until it has found the images
        endpoint, an image model is offered, and a failure is told clearly.
        """
        features = (
            ai_task.AITaskEntityFeature.GENERATE_DATA
            | ai_task.AITaskEntityFeature.SUPPORT_ATTACHMENTS
        )
        model = self.subentry.data.get(CONF_IMAGE_MODEL)
        if model and self.entry.runtime_data.images.get(model) is not False:
            features |= ai_task.AITaskEntityFeature.GENERATE_IMAGE
        return features

    @override
    async def _async_generate_image(
        self, task: ai_task.GenImageTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenImageTaskResult:
        """Ask the server's images endpoint; its errors in Home Assistant's language."""
        model = self.subentry.data[CONF_IMAGE_MODEL]
        async with errors_in(self.hass, self.hass.config.language):
            try:
                image = await async_make_image(self.client, model, task.instructions)
            except openai.OpenAIError as err:
                LOGGER.warning("%s made no image: %s", model, describe(err))
                raise translate_request_error(err, model=model) from err
            if image is None:
                LOGGER.warning("%s answered without an image", model)
                raise user_error("no_image", model=model)
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(
                agent_id=self.entity_id, content=image.revised_prompt or ""
            )
        )
        return ai_task.GenImageTaskResult(
            image_data=image.data,
            conversation_id=chat_log.conversation_id,
            mime_type=image.mime_type,
            model=model,
            revised_prompt=image.revised_prompt,
        )

    @override
    async def _async_generate_data(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        """Run the task; its errors in Home Assistant's language."""
        async with errors_in(self.hass, self.hass.config.language):
            return await self._async_generate(task, chat_log)

    async def _async_generate(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        """Run the task; a structured answer gets one retry to fit its schema."""
        response_format = (
            None
            if task.structure is None
            else _response_format(task.name, task.structure, chat_log.llm_api)
        )
        # Nobody is there to say yes: sensitive calls get the automation policy.
        await self._async_handle_chat_log(
            chat_log,
            structure=response_format,
            attended=False,
            language=self.hass.config.language,
        )
        if task.structure is None:
            return ai_task.GenDataTaskResult(
                conversation_id=chat_log.conversation_id, data=_answer(chat_log)
            )
        try:
            data = _validated(_answer(chat_log), task.structure)
        except ValueError as err:
            LOGGER.info("Asking again for data that fits the structure: %s", err)
            chat_log.async_add_user_content(
                conversation.UserContent(STRUCTURE_RETRY_NOTE.format(error=err))
            )
            await self._async_handle_chat_log(
                chat_log,
                structure=response_format,
                attended=False,
                language=self.hass.config.language,
            )
            try:
                data = _validated(_answer(chat_log), task.structure)
            except ValueError as again:
                raise HomeAssistantError(
                    translation_domain=DOMAIN,
                    translation_key="structure_invalid",
                    translation_placeholders={"error": str(again)},
                ) from again
        return ai_task.GenDataTaskResult(
            conversation_id=chat_log.conversation_id, data=data
        )


def _response_format(
    name: str, structure: probatio.Schema, llm_api: llm.APIInstance | None
) -> dict[str, Any]:
    """Return the response_format that asks for data of the structure."""
    serializer = llm_api.custom_serializer if llm_api else None
    return {
        "type": "json_schema",
        "json_schema": {
            "name": _schema_name(name),
            "schema": structure_schema(structure, serializer),
        },
    }


def _schema_name(task_name: str) -> str:
    """Return a response_format name OpenAI accepts: letters, digits, _ and -."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", task_name)[:64] or "data"


def _answer(chat_log: conversation.ChatLog) -> str:
    """Return the text of the loop's final answer."""
    last = chat_log.content[-1]
    if not isinstance(last, conversation.AssistantContent):
        # The loop ends on an answer or raises: this is a bug, not bad input.
        msg = "The AI Task ended without an answer"
        raise TypeError(msg)
    return last.content or ""


def _validated(text: str, structure: probatio.Schema) -> Any:
    """Parse the answer as JSON and check it against the structure.

    Raises ValueError saying what is wrong, for the model to fix.
    """
    text = text.strip()
    if (body := fence_body(text)) is not None:
        text = body
    try:
        data = json.loads(text)
    except ValueError as err:
        msg = f"it is not JSON ({err})"
        raise ValueError(msg) from None
    try:
        return structure(data)
    except probatio.Invalid as err:
        msg = f"{err}"
        raise ValueError(msg) from None


# One AI Task entity per AI Task subentry.
async_setup_entry = platform_setup(SUBENTRY_AI_TASK, ChatterboxAITaskEntity)
