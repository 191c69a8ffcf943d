"""Continuity beyond 5 minutes: a new conversation starts with the last one."""

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from datetime import timedelta
import json
import logging
from pathlib import Path
import re
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest

from homeassistant import loader
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import frame, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockUser,
    async_test_home_assistant,
)

from custom_components.chatterbox.const import CONF_MEMORY_HOURS
from custom_components.chatterbox.context.memory import (
    MAX_MEMORIES,
    STORAGE_KEY,
    Memory,
    MemoryStore,
    last_exchanges,
)
from tests.helpers.common import AGENT_ID, server_entry
from tests.helpers.llm_server import LLMServer
from tests.helpers.memory import (
    DEVICE_X,
    DEVICE_Y,
    HEADING_DEVICE,
    HEADING_USER,
    REAL_HASS,
    agent,
    chat,
)

CLOCK = re.compile(r"Current time is [0-9:]+\.")


@pytest.mark.parametrize("agent_data", [agent("device")])
@pytest.mark.usefixtures("loaded_entry")
async def test_a_new_conversation_on_the_same_device_remembers(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Device X's next conversation starts with the last one; device Y's does not."""
    first = await chat(
        hass,
        llm_server,
        "My name is Ada.",
        "Nice to meet you, Ada.",
        "a",
        device_id=DEVICE_X,
    )
    assert HEADING_DEVICE not in first
    await chat(
        hass, llm_server, "Is the oven on?", "No, it is off.", "a", device_id=DEVICE_X
    )

    system = await chat(
        hass, llm_server, "What is my name?", "Ada.", "b", device_id=DEVICE_X
    )
    assert (
        f"{HEADING_DEVICE}\nUser: My name is Ada.\nAssistant: Nice to meet you, Ada.\n"
        "User: Is the oven on?\nAssistant: No, it is off."
    ) in system
    assert len(llm_server.last_chat_request["messages"]) == 2
    # The memory stays for the whole conversation: the prompt prefix is stable
    # (but for the clock line HA 2026.10 renders when the minute changes).
    later = await chat(
        hass, llm_server, "Thanks", "You're welcome.", "b", device_id=DEVICE_X
    )
    assert CLOCK.sub("", later) == CLOCK.sub("", system)

    other = await chat(
        hass, llm_server, "What is my name?", "I don't know.", "c", device_id=DEVICE_Y
    )
    assert HEADING_DEVICE not in other
    assert "Ada" not in json.dumps(llm_server.last_chat_request)
    anonymous = await chat(hass, llm_server, "What is my name?", "I don't know.", "d")
    assert HEADING_DEVICE not in anonymous


@pytest.mark.usefixtures("loaded_entry")
async def test_memory_is_off_by_default(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Without the option, a new conversation starts blank."""
    await chat(hass, llm_server, "My name is Ada.", "Hi Ada.", "a", device_id=DEVICE_X)
    system = await chat(
        hass, llm_server, "Who am I?", "No idea.", "b", device_id=DEVICE_X
    )
    assert "Earlier conversation" not in system


@pytest.mark.parametrize("agent_data", [agent("user")])
@pytest.mark.usefixtures("loaded_entry")
async def test_user_mode_keeps_users_apart(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Each user gets their own memory, even on the same device."""
    ada = await hass.auth.async_create_user("Ada")
    bob = await hass.auth.async_create_user("Bob")
    await chat(
        hass,
        llm_server,
        "My name is Ada.",
        "Hi Ada.",
        "a",
        device_id=DEVICE_X,
        user_id=ada.id,
    )
    await chat(
        hass,
        llm_server,
        "My name is Bob.",
        "Hi Bob.",
        "b",
        device_id=DEVICE_X,
        user_id=bob.id,
    )

    for user, name, other in ((ada, "Ada", "Bob"), (bob, "Bob", "Ada")):
        system = await chat(
            hass,
            llm_server,
            "Who am I?",
            f"{name}.",
            f"new-{name}",
            device_id=DEVICE_Y,
            user_id=user.id,
        )
        assert f"{HEADING_USER}\nUser: My name is {name}." in system
        assert other not in system
    # No user: no memory in user mode, whatever the device.
    nobody = await chat(
        hass, llm_server, "Who am I?", "No idea.", "x", device_id=DEVICE_X
    )
    assert HEADING_USER not in nobody


@pytest.mark.parametrize("agent_data", [agent("device")])
@pytest.mark.usefixtures("loaded_entry")
async def test_naming_a_satellite_does_not_read_its_memory(
    hass: HomeAssistant, llm_server: LLMServer, hass_read_only_user: MockUser
) -> None:
    """A family member names the kitchen satellite's device in conversation/process.

    The satellite's conversation is not recalled, and theirs is not kept as
    the satellite's.
    """
    await chat(hass, llm_server, "My name is Ada.", "Hi Ada.", "a", device_id=DEVICE_X)

    system = await chat(
        hass,
        llm_server,
        "What is my name?",
        "I don't know.",
        "b",
        device_id=DEVICE_X,
        user_id=hass_read_only_user.id,
    )

    assert HEADING_DEVICE not in system
    assert "Ada" not in system
    system = await chat(hass, llm_server, "Hello", "Hi.", "c", device_id=DEVICE_X)
    assert "My name is Ada." in system


@pytest.mark.parametrize("agent_data", [agent("device")])
@pytest.mark.usefixtures("loaded_entry")
async def test_a_removed_agent_takes_its_memories_along(
    hass: HomeAssistant, llm_server: LLMServer, loaded_entry: MockConfigEntry
) -> None:
    """The user removes an agent: what it remembered is forgotten with it."""
    memory: MemoryStore = loaded_entry.runtime_data.memory
    await chat(hass, llm_server, "Hello", "Hi.", "a", device_id=DEVICE_X)
    assert len(memory.keys()) == 1

    assert hass.config_entries.async_remove_subentry(loaded_entry, AGENT_ID)
    await hass.async_block_till_done()

    assert memory.keys() == []


@pytest.mark.parametrize("agent_data", [agent("device", **{CONF_MEMORY_HOURS: 2})])
@pytest.mark.usefixtures("loaded_entry")
async def test_memories_expire(
    hass: HomeAssistant, llm_server: LLMServer, freezer: FrozenDateTimeFactory
) -> None:
    """A memory lasts memory_hours after its last turn, then it is gone."""
    await chat(hass, llm_server, "My name is Ada.", "Hi Ada.", "a", device_id=DEVICE_X)
    freezer.tick(timedelta(hours=1, minutes=50))
    system = await chat(hass, llm_server, "Who am I?", "Ada.", "b", device_id=DEVICE_X)
    assert HEADING_DEVICE in system

    freezer.tick(timedelta(hours=2, minutes=1))
    system = await chat(
        hass, llm_server, "Who am I?", "No idea.", "c", device_id=DEVICE_X
    )
    assert HEADING_DEVICE not in system


async def test_each_agent_keeps_at_most_200_memories(hass: HomeAssistant) -> None:
    """The least recently updated memory of an agent is evicted first."""
    store = MemoryStore(hass)
    turn = [
        conversation.UserContent("Hello"),
        conversation.AssistantContent(agent_id="x", content="Hi."),
    ]
    store.remember("other:device:1", None, turn)
    for number in range(MAX_MEMORIES + 1):
        store.remember(f"agent:device:{number}", None, turn)
    store.remember("agent:device:5", None, turn)
    store.remember("agent:device:new", None, turn)
    store.remember("agent:device:empty", None, [conversation.UserContent("Hi")])

    keys = store.keys()
    assert len([key for key in keys if key.startswith("agent:")]) == MAX_MEMORIES
    assert "other:device:1" in keys
    assert "agent:device:0" not in keys
    assert "agent:device:1" not in keys
    assert "agent:device:2" in keys
    assert "agent:device:5" in keys
    assert keys[-1] == "agent:device:new"
    assert store.recall("agent:device:empty", 24) is None


def test_only_answered_exchanges_are_kept_without_tool_results() -> None:
    """Tool calls and results stay out; a turn that got no answer is skipped."""
    call = conversation.AssistantContent(
        agent_id="x",
        tool_calls=[llm.ToolInput(tool_name="GetState", tool_args={}, id="1")],
    )
    content = [
        conversation.SystemContent("prompt"),
        conversation.UserContent("Unanswered"),
        conversation.UserContent("Is the door locked?"),
        call,
        conversation.ToolResultContent(
            agent_id="x",
            tool_call_id="1",
            tool_name="GetState",
            result=llm.ToolResult(data={"s": 1}),
        ),
        conversation.AssistantContent(agent_id="x", content="Yes, " + "very " * 100),
    ]
    ((user, answer),) = last_exchanges(content)
    assert user == "Is the door locked?"
    assert answer.startswith("Yes, very")
    assert answer.endswith("…")
    assert len(answer) <= 300


@asynccontextmanager
async def running_hass(
    config_dir: Path, server: LLMServer, data: dict[str, Any]
) -> AsyncGenerator[HomeAssistant]:
    """Start a Home Assistant that keeps its files in config_dir, then stop it."""
    async with async_test_home_assistant(config_dir=str(config_dir)) as hass:
        frame.async_setup(hass)
        hass.data.pop(loader.DATA_CUSTOM_COMPONENTS)
        assert await async_setup_component(hass, "homeassistant", {})
        entry = server_entry(server.url, data, entry_id="server0entry")
        entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
        try:
            yield hass
        finally:
            await hass.config_entries.async_unload(entry.entry_id)
            await hass.async_stop(force=True)


@REAL_HASS
async def test_memories_survive_a_restart(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    """A real restart: the first Home Assistant writes the file when it stops."""
    async with running_hass(tmp_path, llm_server, agent("device")) as hass:
        await chat(
            hass, llm_server, "My name is Ada.", "Hi Ada.", "a", device_id=DEVICE_X
        )
        # The save is delayed; nothing is on disk until Home Assistant stops.
        assert not (tmp_path / ".storage" / STORAGE_KEY).exists()

    saved = json.loads((tmp_path / ".storage" / STORAGE_KEY).read_text())
    assert saved["key"] == STORAGE_KEY
    assert saved["version"] == 1
    assert list(saved["data"]["memories"]) == [f"{AGENT_ID}:device:{DEVICE_X}"]

    async with running_hass(tmp_path, llm_server, agent("device")) as hass:
        system = await chat(
            hass, llm_server, "Who am I?", "Ada.", "b", device_id=DEVICE_X
        )
        assert f"{HEADING_DEVICE}\nUser: My name is Ada.\nAssistant: Hi Ada." in system


@REAL_HASS
@pytest.mark.parametrize(
    "garbage",
    [
        "{not json at all",
        json.dumps({"version": 1, "key": STORAGE_KEY, "data": {"memories": {"k": 1}}}),
        json.dumps([1, 2, 3]),
    ],
)
async def test_a_corrupt_file_is_moved_aside(
    tmp_path: Path,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    garbage: str,
) -> None:
    """The entry loads with no memories; the bad file is kept next to the new one."""
    storage = tmp_path / ".storage"
    storage.mkdir()
    (storage / STORAGE_KEY).write_text(garbage)

    async with running_hass(tmp_path, llm_server, agent("device")) as hass:
        assert any(
            record.levelno >= logging.WARNING and STORAGE_KEY in record.getMessage()
            for record in caplog.records
        )
        (aside,) = storage.glob(f"{STORAGE_KEY}.corrupt*")
        assert aside.read_text() == garbage
        assert not (storage / STORAGE_KEY).exists()
        await chat(
            hass, llm_server, "My name is Ada.", "Hi Ada.", "a", device_id=DEVICE_X
        )
        system = await chat(
            hass, llm_server, "Who am I?", "Ada.", "b", device_id=DEVICE_X
        )
        assert HEADING_DEVICE in system

    saved = json.loads((storage / STORAGE_KEY).read_text())
    assert Memory.from_dict(saved["data"]["memories"][f"{AGENT_ID}:device:{DEVICE_X}"])
