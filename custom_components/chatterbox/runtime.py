"""What a loaded server entry holds, and the entry's type.

Below every module that reads a server entry's runtime data (the platforms,
the agents, the repairs, the flows), so none of them imports the package.
"""

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import openai

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_MODEL

from .const import CONF_CONTEXT_WINDOW, DEFAULT_CONTEXT_WINDOW
from .context.memory import MemoryStore
from .coordinator import ChatterboxCoordinator
from .server.capabilities import Capabilities
from .server.client import ServerKind

RECENT_TURNS = 5


@dataclass
class ChatterboxRuntime:
    """What a loaded server entry holds."""

    client: openai.AsyncOpenAI
    models: list[str]
    coordinator: ChatterboxCoordinator
    memory: MemoryStore
    context_windows: dict[str, int]
    """The context size the server reports per model, where it reports one."""
    model_sizes: dict[str, int] = field(default_factory=dict)
    """The parameter count the server reports per model, where it reports one."""
    server_kind: ServerKind | None = None
    thinks: dict[str, bool] = field(default_factory=dict)
    """Whether a model thinks before it answers, where the server says (Ollama)."""
    images: dict[str, bool | None] = field(default_factory=dict)
    """Whether the server makes images with each AI Task's image model."""
    capabilities: dict[str, Capabilities] = field(default_factory=dict)
    """The probe's verdicts per model of an agent, once it has run."""
    recent_turns: deque[dict[str, Any]] = field(
        default_factory=lambda: deque(maxlen=RECENT_TURNS)
    )
    """What the last turns of the entry's agents cost, for diagnostics."""

    def context_window(
        self, options: Mapping[str, Any]
    ) -> tuple[int, Literal["option", "server", "default"]]:
        """Return an agent's context window, and where the figure comes from.

        The agent's option, else what the server reported for its model, else
        8192: the diagnostics say which, since a cloud service reports none.
        """
        if window := options.get(CONF_CONTEXT_WINDOW):
            return int(window), "option"
        if window := self.context_windows.get(options[CONF_MODEL]):
            return window, "server"
        return DEFAULT_CONTEXT_WINDOW, "default"


type ChatterboxConfigEntry = ConfigEntry[ChatterboxRuntime]
