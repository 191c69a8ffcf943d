"""Continuity beyond Home Assistant's 5 idle minutes: what an agent remembers.

At the end of each turn an agent with memory on keeps, per device or per user,
the summary of the conversation (when it was compacted) and its last
exchanges. A new conversation from the same device or user starts with them in
its system prompt. Everything lives in one Home Assistant store,
``.storage/chatterbox.memory``; keys start with the agent's subentry id, so
agents and users never see each other's memories.
"""

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
import os
from typing import Any, Final

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers.singleton import singleton
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util
from homeassistant.util.hass_dict import HassKey

from ..const import DOMAIN, LOGGER
from ..prompts import MEMORY_HEADING, TRANSCRIPT_LINE
from .summary import as_record

STORAGE_KEY: Final = f"{DOMAIN}.memory"
STORAGE_VERSION: Final = 1
# Writes are batched; Home Assistant flushes pending ones when it stops.
SAVE_DELAY: Final = 10.0

MEMORY_OFF: Final = "off"
MEMORY_DEVICE: Final = "device"
MEMORY_USER: Final = "user"
MEMORY_MODES: Final = (MEMORY_OFF, MEMORY_DEVICE, MEMORY_USER)
DEFAULT_MEMORY_HOURS: Final = 24
MAX_MEMORY_HOURS: Final = 24 * 30
# Memories kept per agent; the least recently updated go first.
MAX_MEMORIES: Final = 200
MAX_EXCHANGES: Final = 3
# What a memory may add to a prompt: a summary and a few short exchanges.
SUMMARY_CHARS: Final = 600
MESSAGE_CHARS: Final = 300


class InvalidMemoryError(ValueError):
    """A stored memory that does not have the expected shape."""

    def __init__(self) -> None:
        """Say what is wrong."""
        super().__init__("a stored memory does not have the expected shape")


@dataclass(frozen=True, slots=True)
class Memory:
    """What an agent remembers of a device's or user's last conversation."""

    summary: str | None
    exchanges: tuple[tuple[str, str], ...]
    updated: float  # UTC timestamp

    def as_dict(self) -> dict[str, Any]:
        """Return the memory as stored."""
        return {
            "summary": self.summary,
            "exchanges": [list(pair) for pair in self.exchanges],
            "updated": self.updated,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Memory:
        """Read a stored memory; raise InvalidMemoryError when it is not one."""
        if not isinstance(data, Mapping):
            raise InvalidMemoryError
        summary = data.get("summary")
        exchanges = data.get("exchanges")
        updated = data.get("updated")
        if (
            not (summary is None or isinstance(summary, str))
            or not isinstance(exchanges, list)
            or not all(
                isinstance(pair, list)
                and len(pair) == 2  # noqa: PLR2004
                and all(isinstance(text, str) for text in pair)
                for pair in exchanges
            )
            or not isinstance(updated, int | float)
            or isinstance(updated, bool)
        ):
            raise InvalidMemoryError
        return cls(
            summary=summary,
            exchanges=tuple((user, assistant) for user, assistant in exchanges),
            updated=float(updated),
        )


def memory_key(
    subentry_id: str, mode: str | None, device_id: str | None, user_id: str | None
) -> str | None:
    """Return whose memory a turn reads and writes, or None for no memory."""
    if mode == MEMORY_DEVICE and device_id:
        return f"{subentry_id}:device:{device_id}"
    if mode == MEMORY_USER and user_id:
        return f"{subentry_id}:user:{user_id}"
    return None


def is_new_conversation(content: Sequence[conversation.Content]) -> bool:
    """Tell a conversation's first turn: only the prompt and the user's message."""
    return not any(
        not isinstance(item, conversation.SystemContent) for item in content[:-1]
    )


def _short(text: str, limit: int) -> str:
    """Shorten text to at most limit characters, marking the cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def last_exchanges(
    content: Iterable[conversation.Content], count: int = MAX_EXCHANGES
) -> tuple[tuple[str, str], ...]:
    """Return the last user messages with the answers they got, as plain text.

    Tool calls and their results are left out; a turn's answer is the last
    text the assistant wrote before the next user message.
    """
    exchanges: list[tuple[str, str]] = []
    user: str | None = None
    answer = ""
    for item in content:
        if isinstance(item, conversation.UserContent):
            if user is not None and answer:
                exchanges.append((user, answer))
            user, answer = item.content, ""
        elif isinstance(item, conversation.AssistantContent) and item.content:
            answer = item.content
    if user is not None and answer:
        exchanges.append((user, answer))
    return tuple(
        (_short(user, MESSAGE_CHARS), _short(answer, MESSAGE_CHARS))
        for user, answer in exchanges[-count:]
    )


def render(memory: Memory, who: str) -> str:
    """Write a memory as a section of the system prompt."""
    lines = []
    if memory.summary:
        lines.append(_short(memory.summary, SUMMARY_CHARS))
    for user, assistant in memory.exchanges:
        lines += [
            TRANSCRIPT_LINE.format(speaker="User", text=user),
            TRANSCRIPT_LINE.format(speaker="Assistant", text=assistant),
        ]
    return as_record(MEMORY_HEADING.format(who=who), "\n".join(lines))


class MemoryStore:
    """The memories of every agent, saved in one Home Assistant store."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Create an empty store; async_load reads the saved one."""
        self._hass = hass
        self._store: Store[dict[str, Any]] = Store(hass, STORAGE_VERSION, STORAGE_KEY)
        self._memories: dict[str, Memory] = {}

    @property
    def path(self) -> str:
        """Return the file the memories are saved in."""
        path: str = self._store.path
        return path

    async def async_load(self) -> None:
        """Read the saved memories; a file that cannot be read is moved aside."""
        try:
            data = await self._store.async_load()
            memories = {
                key: Memory.from_dict(value)
                for key, value in (data or {}).get("memories", {}).items()
            }
        except Exception as err:  # noqa: BLE001  # a bad file must not stop HA
            await self._async_move_aside(err)
            memories = {}
        self._memories = dict(sorted(memories.items(), key=lambda kv: kv[1].updated))

    async def _async_move_aside(self, err: Exception) -> None:
        """Keep an unreadable file for inspection and start with no memories."""
        corrupt = f"{self.path}.corrupt-{dt_util.utcnow():%Y%m%dT%H%M%S}"
        try:
            await self._hass.async_add_executor_job(os.replace, self.path, corrupt)
        except OSError as move_err:
            corrupt = f"nowhere ({move_err})"
        LOGGER.warning(
            "Could not read the saved memories (%s: %s); moved the file to %s "
            "and starting with none",
            type(err).__name__,
            err,
            corrupt,
        )

    def _data(self) -> dict[str, Any]:
        """Return what is saved."""
        return {
            "memories": {
                key: memory.as_dict() for key, memory in self._memories.items()
            }
        }

    def _save(self) -> None:
        """Save soon; Home Assistant writes pending saves when it stops."""
        self._store.async_delay_save(self._data, SAVE_DELAY)

    def recall(self, key: str, hours: float) -> Memory | None:
        """Return the memory under key, unless it is older than hours."""
        if (memory := self._memories.get(key)) is None:
            return None
        age = dt_util.utcnow().timestamp() - memory.updated
        if age > timedelta(hours=hours).total_seconds():
            del self._memories[key]
            self._save()
            return None
        return memory

    def remember(
        self,
        key: str,
        summary: str | None,
        content: Iterable[conversation.Content],
    ) -> None:
        """Keep what a conversation leaves behind, evicting the oldest memories."""
        exchanges = last_exchanges(content)
        if not exchanges and summary is None:
            return
        self._memories.pop(key, None)
        self._memories[key] = Memory(
            summary=summary,
            exchanges=exchanges,
            updated=dt_util.utcnow().timestamp(),
        )
        agent = _agent_prefix(key)
        mine = [k for k in self._memories if k.startswith(agent)]
        for old in mine[: max(0, len(mine) - MAX_MEMORIES)]:
            del self._memories[old]
        self._save()

    def forget(
        self,
        subentry_id: str,
        *,
        device_id: str | None = None,
        user_id: str | None = None,
    ) -> int:
        """Forget an agent's memories of a device, a user, or everyone."""
        if device_id is None and user_id is None:
            keys = [k for k in self._memories if k.startswith(f"{subentry_id}:")]
        else:
            keys = [
                key
                for key in (
                    memory_key(subentry_id, MEMORY_DEVICE, device_id, None),
                    memory_key(subentry_id, MEMORY_USER, None, user_id),
                )
                if key in self._memories
            ]
        for key in keys:
            del self._memories[key]
        if keys:
            self._save()
        return len(keys)

    def keep_only(self, agents: Collection[str]) -> int:
        """Forget the memories of every agent but these (removed agents')."""
        keys = [k for k in self._memories if k.partition(":")[0] not in agents]
        for key in keys:
            del self._memories[key]
        if keys:
            self._save()
        return len(keys)

    def keys(self) -> list[str]:
        """Return the keys of the memories held, oldest first."""
        return list(self._memories)


def _agent_prefix(key: str) -> str:
    """Return the part of a key that names the agent."""
    return key.split(":", 1)[0] + ":"


DATA_MEMORY: HassKey[MemoryStore] = HassKey(f"{DOMAIN}_memory")


@singleton(DATA_MEMORY, async_=True)
async def async_get_memory_store(hass: HomeAssistant) -> MemoryStore:
    """Return the integration's memory store, loading it the first time."""
    store = MemoryStore(hass)
    await store.async_load()
    return store
