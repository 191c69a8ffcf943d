"""A restart in the middle of a streamed answer loses nothing that was kept.

Two real Home Assistant instances, one after the other, on the same config
directory: the first is stopped while the server is in the middle of a
streamed answer; the second starts from what the first left on disk, its
config entries included, as Home Assistant does after a restart.
"""

import asyncio
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from homeassistant import loader
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import CoreState, HomeAssistant
from homeassistant.helpers import chat_session, frame
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_test_home_assistant

from custom_components.chatterbox.const import DOMAIN
from custom_components.chatterbox.context.memory import STORAGE_KEY
from tests.bench.measure import async_converse_as_pipeline
from tests.helpers.common import AGENT_ENTITY_ID, AGENT_ID, server_entry
from tests.helpers.llm_server import LLMServer, Text
from tests.helpers.memory import DEVICE_X, HEADING_DEVICE, REAL_HASS, agent, chat

# The answer the server starts to stream, and the chunks it sends before it
# stalls: the role, then three pieces of text.
INTERRUPTED = "Your name is... let me think about that for a moment."
CHUNKS_BEFORE_STALL = 4


@asynccontextmanager
async def home_assistant(config_dir: Path) -> AsyncGenerator[HomeAssistant]:
    """Create a Home Assistant that keeps its files in config_dir.

    The caller starts what it needs and stops it: how it stops is the test.
    """
    async with async_test_home_assistant(config_dir=str(config_dir)) as hass:
        frame.async_setup(hass)
        hass.data.pop(loader.DATA_CUSTOM_COMPONENTS)
        yield hass


@dataclass
class Ear:
    """What the satellite heard of the answer, as it streamed."""

    expected: str
    heard: str = ""
    all_of_it: asyncio.Event = field(default_factory=asyncio.Event)

    def listen(self, _chat_log: conversation.ChatLog, delta: dict[str, Any]) -> None:
        """Hear one delta of the answer."""
        self.heard += delta.get("content", "")
        if self.heard == self.expected:
            self.all_of_it.set()


def saved_memories(config_dir: Path) -> dict[str, Any]:
    """Return the memories the file on disk holds."""
    saved = json.loads((config_dir / ".storage" / STORAGE_KEY).read_text())
    memories: dict[str, Any] = saved["data"]["memories"]
    return memories


@REAL_HASS
async def test_a_restart_mid_stream_keeps_memories_and_the_next_turn_works(
    tmp_path: Path, llm_server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Home Assistant stops while the model is mid-answer; it comes back whole.

    Ada tells the kitchen satellite her name. Her next question is being
    answered, three pieces of text already out, when Home Assistant stops.
    It starts again from the same config directory: the server entry loads,
    the memory of Ada's name is there, and a new conversation on the
    satellite knows it.
    """
    key = f"{AGENT_ID}:device:{DEVICE_X}"
    async with home_assistant(tmp_path) as hass:
        assert await async_setup_component(hass, "homeassistant", {})
        entry = server_entry(llm_server.url, agent("device"))
        await hass.config_entries.async_add(entry)
        await hass.async_block_till_done()
        assert entry.state is ConfigEntryState.LOADED
        await chat(
            hass, llm_server, "My name is Ada.", "Hi Ada.", "a", device_id=DEVICE_X
        )
        llm_server.reply(Text(INTERRUPTED, hang_after=CHUNKS_BEFORE_STALL))
        # The server stalls after the role and three pieces of 4 characters.
        ear = Ear(INTERRUPTED[: 4 * (CHUNKS_BEFORE_STALL - 1)])
        answering = hass.async_create_task(
            async_converse_as_pipeline(
                hass,
                AGENT_ENTITY_ID,
                "Which name did I tell you?",
                "a",
                ear.listen,
                DEVICE_X,
            )
        )
        request = await llm_server.wait_for_request(len(llm_server.requests) + 1)
        async with asyncio.timeout(30):  # a guard against a hang, not a measure
            await ear.all_of_it.wait()
        # Memories are saved in batches: nothing is on disk yet.
        assert not (tmp_path / ".storage" / STORAGE_KEY).exists()

        await hass.async_stop()

        assert hass.state is CoreState.stopped
        # Home Assistant cancels the turn it was still waiting for.
        assert answering.cancelled()
        assert request.timing.finished is None
        # Home Assistant 2026.11 files the cancelled turn's session after the
        # stop, with a timer to clean it up that no one will run.
        cleanup = hass.data[chat_session.DATA_CHAT_SESSION_CLEANUP]
        if cleanup.unsub is not None:
            cleanup.unsub()

    # What was kept is on disk; the broken-off answer is not.
    memory = saved_memories(tmp_path)[key]
    assert memory["exchanges"] == [["My name is Ada.", "Hi Ada."]]

    async with home_assistant(tmp_path) as hass:
        # As at start-up: the config entries come from the config directory.
        await hass.config_entries.async_initialize()
        assert await async_setup_component(hass, "homeassistant", {})
        assert await async_setup_component(hass, DOMAIN, {})
        await hass.async_block_till_done()
        (entry,) = hass.config_entries.async_entries(DOMAIN)
        try:
            assert entry.state is ConfigEntryState.LOADED
            assert entry.runtime_data.memory.keys() == [key]

            system = await chat(
                hass, llm_server, "Who am I?", "You are Ada.", "b", device_id=DEVICE_X
            )

            assert f"{HEADING_DEVICE}\nUser: My name is Ada.\nAssistant: Hi Ada." in (
                system
            )
            last = llm_server.last_chat_request["messages"]
            assert [m["role"] for m in last] == ["system", "user"]
        finally:
            await hass.config_entries.async_unload(entry.entry_id)
            await hass.async_stop(force=True)
    # The stop cut the answer short; Chatterbox had nothing to complain about.
    assert not [
        record
        for record in caplog.records
        if record.name.startswith("custom_components.chatterbox")
        and record.levelno >= logging.WARNING
    ]
