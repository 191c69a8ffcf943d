"""What every request of a turn shares, and what an agent keeps per conversation."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openai.types.chat import ChatCompletionToolParam

from homeassistant.components import conversation
from homeassistant.core import callback

from ..const import MAX_TRACKED_CONVERSATIONS
from ..context.fit import Compaction
from ..context.overview import Overview
from ..tools.command import Command
from ..tools.confirm import Question
from ..tools.statements import StateWords
from ..wire.messages import image_data_url


@dataclass(slots=True, kw_only=True)
class Turn:
    """What stays the same in every request of one turn."""

    rounds: int
    """How many rounds the turn may take: requests, each maybe with tool calls."""
    tools: list[ChatCompletionToolParam]
    recalled: str | None
    """What the conversation started with from an earlier one."""
    speech: bool
    """The answer is spoken: the model is told so, and markup is dropped."""
    structure: dict[str, Any] | None = None
    """The response_format an AI Task asks for."""
    answer_chars: int | None = None
    """Where an answer is cut: its characters, with tool call arguments."""
    images: dict[Path, str] = field(default_factory=dict)
    """The data URL of each image attached to the conversation."""
    capped_results: dict[str, str] = field(default_factory=dict)
    """Each tool result as it is sent, shortened, by the result in full."""
    command: Command | None = None
    """The change the turn asks for, which its answer is checked against."""
    language: str = "en"
    """The conversation's language: what the agent says itself is in it."""
    overview: Overview | None = None
    """The system prompt with the home's overview, when its device list is
    too long for the context window."""
    state_words: StateWords | None = None
    """Home Assistant's names of states in the conversation's language, which
    what an answer says of the home is read in; None for an AI Task."""
    guide: bool = True
    """The turn guides a small model: notes and repairs that only steer a
    weak model (the agent's option Guide a small model)."""

    @property
    def parameters(self) -> dict[str, frozenset[str]]:
        """Return each offered tool's parameter names, by the tool's name."""
        return {tool["function"]["name"]: _parameter_names(tool) for tool in self.tools}


def _parameter_names(tool: ChatCompletionToolParam) -> frozenset[str]:
    """Return the names of a tool's parameters, as its schema lists them."""
    properties = tool["function"].get("parameters", {}).get("properties")
    return frozenset(properties) if isinstance(properties, dict) else frozenset()


@dataclass(slots=True)
class Conversations:
    """What an agent keeps for each recent conversation, until it is forgotten."""

    compactions: dict[str, Compaction] = field(default_factory=dict)
    """How each conversation's history was shortened, so it shrinks in blocks."""
    recalled: dict[str, str] = field(default_factory=dict)
    """What each conversation started with from an earlier one."""
    pending: dict[str, Question] = field(default_factory=dict)
    """The question each conversation's held calls wait on."""
    owners: dict[str, str | None] = field(default_factory=dict)
    """Who each conversation belongs to: the user of its first turn."""
    answering: set[str] = field(default_factory=set)
    """The conversations with a turn under way."""
    states: dict[str, dict[tuple[int, str], str]] = field(default_factory=dict)
    """The states note of each user message that named something, by its
    number among the conversation's user messages and its words: sent after
    it every time."""

    @callback
    def forget(self, conversation_id: str) -> None:
        """Drop what is kept of one conversation's turns."""
        for kept in (self.compactions, self.recalled, self.pending, self.states):
            kept.pop(conversation_id, None)


def keep_recent[T](recent: dict[str, T], key: str, value: T) -> None:
    """Store a conversation's value, evicting the least recently stored ones."""
    # The newest last: re-inserting moves a key to the end of the dict.
    recent.pop(key, None)
    recent[key] = value
    while len(recent) > MAX_TRACKED_CONVERSATIONS:
        del recent[next(iter(recent))]


def read_images(content: Sequence[conversation.Content]) -> dict[Path, str]:
    """Read the images attached to the conversation, once per turn."""
    return {
        attachment.path: url
        for item in content
        if isinstance(item, conversation.UserContent)
        for attachment in item.attachments or ()
        if (url := image_data_url(attachment)) is not None
    }
