"""What a turn's stages read of their agent: a narrow view, never the entity.

The entity (entity.py) lives as long as its subentry; a turn's stages
(prepare, request, transport, observe, compose) need only a few of its parts.
Each turn gets a Stage with those parts, so no stage reaches into the entity
and no module below the entity imports it.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import openai

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_MODEL
from homeassistant.core import HomeAssistant

from ..const import (
    CONF_GUIDE,
    CONF_MAX_TOKENS,
    DEFAULT_ANSWER_RESERVE,
    DEFAULT_GUIDE,
    SUBENTRY_CONVERSATION,
)
from ..context.estimator import TokenEstimator
from ..runtime import ChatterboxConfigEntry
from ..server.capabilities import Capabilities
from ..server.profile import Guide, guide_for
from .turn import Conversations


@dataclass(slots=True)
class Learned:
    """What an agent learns of its server from turn to turn."""

    estimator: TokenEstimator
    """Characters per token, calibrated by the server's counts."""
    sends_usage: bool = True
    """Whether the server ends a stream with its usage: until a response ends
    without it, each is read to its end for it."""


@dataclass(frozen=True, slots=True)
class Stage:
    """The parts of an agent that one turn's stages use."""

    hass: HomeAssistant
    agent_id: str
    """The agent's entity id: the chat log's name for its messages."""
    entry: ChatterboxConfigEntry
    """The server's entry: its address and key for the log, its runtime data."""
    subentry: ConfigSubentry
    """The agent's own entry: its options and its kind."""
    client: openai.AsyncOpenAI
    """The server's client, with the agent's timeouts and no retries."""
    learned: Learned
    conversations: Conversations
    """What the agent keeps of each recent conversation."""

    @property
    def options(self) -> Mapping[str, Any]:
        """Return the agent's options."""
        return self.subentry.data

    @property
    def capabilities(self) -> dict[str, Capabilities]:
        """Return what the probe found each model of the server can do."""
        return self.entry.runtime_data.capabilities

    @property
    def conversational(self) -> bool:
        """Tell a conversation agent from an AI Task's."""
        return self.subentry.subentry_type == SUBENTRY_CONVERSATION

    def answer_chars(self) -> int | None:
        """Return where a spoken answer is cut, when the agent sets no limit.

        Without max_tokens a small local model can run on, repeating itself,
        until its context is full: minutes for a voice satellite. The cut is
        at the room the context budget keeps for the answer. An AI Task's
        answer is not cut: it may be long data, and nobody is listening.
        """
        if self.options.get(CONF_MAX_TOKENS) or not self.conversational:
            return None
        return int(DEFAULT_ANSWER_RESERVE * self.learned.estimator.chars_per_token)

    @property
    def guide(self) -> Guide:
        """Return whether the turn guides a small model, and why."""
        model = self.options[CONF_MODEL]
        return guide_for(
            self.options.get(CONF_GUIDE, DEFAULT_GUIDE),
            model,
            self.entry.runtime_data.model_sizes.get(model),
        )
