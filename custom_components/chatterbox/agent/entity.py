"""The entity every Chatterbox agent is: its device, its server, its conversations.

Each turn runs in loop.py, on a Stage (stage.py): the parts of this entity it
uses. The entity holds what lives longer than a turn: the SDK client with its
timeouts, what it learned of its server (the token estimator), and what it
keeps for each recent conversation (its owner, its recalled memory, a pending
question).
"""

from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, Final

import openai

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import chat_session, device_registry as dr
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from ..const import (
    CONF_MEMORY,
    CONF_MEMORY_HOURS,
    CONNECT_TIMEOUT,
    DOMAIN,
    LOGGER,
)
from ..context.estimator import TokenEstimator
from ..context.memory import DEFAULT_MEMORY_HOURS, is_new_conversation, render
from ..coordinator import ChatterboxCoordinator
from ..runtime import ChatterboxConfigEntry
from ..server.errors import user_error
from ..usage import TurnUsage
from .loop import async_run_turn
from .stage import Learned, Stage
from .turn import Conversations, keep_recent

# Seconds the server may stay silent, before its first byte or between chunks.
# Local models on small machines can take long to read a big prompt.
REQUEST_TIMEOUT: Final = 120.0
# Seconds to wait for a connection while the server is known to be down.
OFFLINE_CONNECT_TIMEOUT: Final = 3.0


class ChatterboxLLMEntity(CoordinatorEntity[ChatterboxCoordinator]):
    """An agent of a Chatterbox server entry, with its own device.

    It is available while its server answers.
    """

    _attr_has_entity_name = True
    _attr_name = None

    def __init__(self, entry: ChatterboxConfigEntry, subentry: ConfigSubentry) -> None:
        """Attach the agent to its server entry and subentry."""
        super().__init__(entry.runtime_data.coordinator)
        self.entry = entry
        self.subentry = subentry
        self._attr_unique_id = subentry.subentry_id
        # JSON-heavy prompts run near 3 characters a token: starting low
        # overestimates until the server's counts calibrate it.
        self.learned = Learned(TokenEstimator(chars_per_token=3.0))
        self.conversations = Conversations()
        self._loop_client: openai.AsyncOpenAI | None = None
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, subentry.subentry_id)},
            name=subentry.title,
            manufacturer="Chatterbox",
            model=subentry.data.get(CONF_MODEL),
            entry_type=dr.DeviceEntryType.SERVICE,
        )

    @property
    def client(self) -> openai.AsyncOpenAI:
        """Return the server's client as the loop uses it: its own retries only.

        The copy is kept: every new copy of an SDK client looks its platform up
        again, in an executor thread, on its first request.
        """
        # A server that is up accepts at once; a long wait to connect only
        # delays telling the user it cannot be reached. While the server is
        # known to be down, every turn still tries it, but waits less.
        connect = (
            CONNECT_TIMEOUT
            if self.coordinator.last_update_success
            else OFFLINE_CONNECT_TIMEOUT
        )
        timeout = openai.Timeout(REQUEST_TIMEOUT, connect=connect)
        if self._loop_client is None or self._loop_client.timeout != timeout:
            self._loop_client = self.entry.runtime_data.client.with_options(
                timeout=timeout, max_retries=0
            )
        return self._loop_client

    async def _async_handle_chat_log(
        self,
        chat_log: conversation.ChatLog,
        memory_key: str | None = None,
        structure: dict[str, Any] | None = None,
        *,
        attended: bool = True,
        language: str = "en",
    ) -> None:
        """Answer the turn in the chat log, calling tools as the model asks.

        With a memory key, a new conversation starts with what the agent
        remembers under it, and each answered turn updates that memory. With a
        structure (a response_format), the answer is asked for as JSON. An
        unattended turn (an automation's) has no one to confirm with. What the
        agent says in its own words is in the language.
        """
        self._track(chat_log)
        conversation_id = chat_log.conversation_id
        answering = self.conversations.answering
        if conversation_id in answering:
            # Home Assistant 2026.10 lets a second turn into a conversation
            # that is still answering; both would swap the chat log's tools,
            # and the first to end would leave the other's calls unguarded.
            LOGGER.info(
                "A turn came while conversation %s was answering", conversation_id
            )
            raise user_error("conversation_busy")
        answering.add(conversation_id)
        usage = TurnUsage()
        try:
            await async_run_turn(
                self._stage(),
                chat_log,
                recalled=self._recall(chat_log, memory_key),
                structure=structure,
                usage=usage,
                attended=attended,
                language=language,
            )
        finally:
            answering.discard(conversation_id)
            usage.end()
            # The sensors learn of the turn in a callback of its own: an error
            # in one of them is logged, and cannot become the turn's.
            self.hass.loop.call_soon(
                usage.async_announce, self.hass, self.subentry.subentry_id
            )
            self.entry.runtime_data.recent_turns.append(
                usage.summary(self.subentry.subentry_id)
            )
        if memory_key is not None:
            compaction = self.conversations.compactions.get(conversation_id)
            self.entry.runtime_data.memory.remember(
                memory_key,
                compaction.summary if compaction else None,
                chat_log.content,
            )

    def check_speaker(
        self, chat_log: conversation.ChatLog, user_id: str | None
    ) -> None:
        """Refuse a turn by someone other than the conversation's first speaker.

        Home Assistant 2026.11 refuses it itself; 2026.10 lets anyone continue
        anyone's conversation, and with it read its history and memory.
        """
        conversation_id = chat_log.conversation_id
        if is_new_conversation(chat_log.content):
            # Set anew whenever a conversation id starts over.
            keep_recent(self.conversations.owners, conversation_id, user_id)
        elif self.conversations.owners.get(conversation_id, user_id) != user_id:
            LOGGER.info("Another user spoke in conversation %s", conversation_id)
            raise user_error("conversation_not_yours")

    def _track(self, chat_log: conversation.ChatLog) -> None:
        """On a conversation's first turn, forget it when Home Assistant does.

        Home Assistant drops a chat log after 5 idle minutes. A custom
        conversation id may then come back with a new chat log: nothing of the
        old one may carry over, least of all a held call that a yes would run.
        """
        if not is_new_conversation(chat_log.content):
            return
        conversation_id = chat_log.conversation_id
        forget = partial(self.conversations.forget, conversation_id)
        forget()
        session = chat_session.current_session.get()
        if session is not None and session.conversation_id == conversation_id:
            session.async_on_cleanup(forget)

    def _stage(self) -> Stage:
        """Return the parts of the agent that a turn's stages use."""
        return Stage(
            self.hass,
            self.entity_id,
            self.entry,
            self.subentry,
            self.client,
            self.learned,
            self.conversations,
        )

    def _recall(
        self, chat_log: conversation.ChatLog, memory_key: str | None
    ) -> str | None:
        """Return the memory a conversation started with, fetched on its first turn."""
        conversation_id = chat_log.conversation_id
        if memory_key is None:
            return None
        if not is_new_conversation(chat_log.content):
            return self.conversations.recalled.get(conversation_id)
        hours = float(self.subentry.data.get(CONF_MEMORY_HOURS, DEFAULT_MEMORY_HOURS))
        memory = self.entry.runtime_data.memory.recall(memory_key, hours)
        if memory is None:
            self.conversations.recalled.pop(conversation_id, None)
            return None
        # With a key, the memory option is "device" or "user": whose it is.
        recalled = render(memory, self.subentry.data[CONF_MEMORY])
        keep_recent(self.conversations.recalled, conversation_id, recalled)
        return recalled


def platform_setup(
    subentry_type: str,
    entity: Callable[[ChatterboxConfigEntry, ConfigSubentry], ChatterboxLLMEntity],
) -> Callable[
    [HomeAssistant, ChatterboxConfigEntry, AddConfigEntryEntitiesCallback],
    Coroutine[Any, Any, None],
]:
    """Return a platform's async_setup_entry: an entity for each subentry of a type.

    Each entity is attached to its subentry.
    """

    async def async_setup_entry(
        hass: HomeAssistant,  # noqa: ARG001
        entry: ChatterboxConfigEntry,
        async_add_entities: AddConfigEntryEntitiesCallback,
    ) -> None:
        for subentry in entry.subentries.values():
            if subentry.subentry_type == subentry_type:
                async_add_entities(
                    [entity(entry, subentry)], config_subentry_id=subentry.subentry_id
                )

    return async_setup_entry
