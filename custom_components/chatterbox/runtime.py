"""What a loaded server entry holds, and the entry's type.

Below every module that reads a server entry's runtime data (the platforms,
the agents, the repairs, the flows), so none of them imports the package.
"""

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import openai

from homeassistant.config_entries import ConfigEntry

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
    capabilities: dict[str, Capabilities] = field(default_factory=dict)
    """The probe's verdicts per model of an agent, once it has run."""
    recent_turns: deque[dict[str, Any]] = field(
        default_factory=lambda: deque(maxlen=RECENT_TURNS)
    )
    """What the last turns of the entry's agents cost, for diagnostics."""


type ChatterboxConfigEntry = ConfigEntry[ChatterboxRuntime]
