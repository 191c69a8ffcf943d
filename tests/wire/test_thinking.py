"""Thinking: reasoning fields and think tags stay out of the answer."""

import json
from typing import Any

import pytest

from homeassistant.core import HomeAssistant

from custom_components.chatterbox.wire.stream import StreamStats
from tests.helpers.common import ask
from tests.helpers.llm_server import LLMServer, Text
from tests.helpers.stream import chunk, collect, event, joined, stream_events
from tests.helpers.tools import FakeTool, weather_agent


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


@pytest.mark.usefixtures("loaded_entry")
async def test_thinking_is_never_spoken(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Reasoning fields and <think> blocks stay out of the answer and history."""
    llm_server.reply(
        Text("It is warm.", reasoning="The user wants the temperature."),
        Text("<think>They ask again.</think>Still warm."),
        Text("You're welcome."),
    )

    first = await ask(hass, "How warm is it?", "thinking")
    second = await ask(hass, "And now?", "thinking")
    await ask(hass, "Thanks", "thinking")

    assert first.response.speech["plain"]["speech"] == "It is warm."
    assert second.response.speech["plain"]["speech"] == "Still warm."
    sent = json.dumps(llm_server.last_chat_request["messages"])
    assert "The user wants" not in sent
    assert "They ask again" not in sent


async def test_think_tags_in_content_become_thinking() -> None:
    """Move a think block out of the answer and keep the text around it."""
    deltas = await collect(
        [chunk("Sure. <think>\nIs the den lit?\n</think>\n\nThe den light is on.")]
    )

    assert deltas == [
        {"role": "assistant"},
        {
            "content": "Sure. The den light is on.",
            "thinking_content": "Is the den lit?\n",
        },
    ]


async def test_a_think_block_at_the_start_never_reaches_the_answer() -> None:
    """Stream the thinking of a response that opens with a think block."""
    deltas = await collect(
        [
            chunk("<think>"),
            chunk("\nThe user"),
            chunk(" asks for the time."),
            chunk("</think>"),
            chunk("\n\n"),
            chunk("It is noon."),
        ]
    )

    assert deltas == [
        {"role": "assistant"},
        {"thinking_content": "The user"},
        {"thinking_content": " asks for the time."},
        {"content": "It is noon."},
    ]


@pytest.mark.parametrize(
    "pieces",
    [
        ["<thi", "nk>plan</thi", "nk>answer"],
        ["<", "think", ">plan<", "/", "think>answer"],
        ["<think>pl", "an</", "think>", "answer"],
        list("<think>plan</think>answer"),
    ],
)
async def test_tags_split_across_chunks_are_recognised(pieces: list[str]) -> None:
    """Hold back what could be a tag until the next chunk tells."""
    deltas = await collect([chunk(piece) for piece in pieces])

    assert joined(deltas, "thinking_content") == "plan"
    assert joined(deltas, "content") == "answer"
    assert all("<" not in (delta.get("content") or "") for delta in deltas)


async def test_text_that_only_looks_like_a_tag_is_content() -> None:
    """Release held-back text as soon as it turns out not to be a tag."""
    deltas = await collect([chunk("2 <"), chunk(" 3 and <b>bold</b>"), chunk(" <th")])

    assert deltas == [
        {"role": "assistant"},
        {"content": "2 "},
        {"content": "< 3 and <b>bold</b>"},
        {"content": " "},
        {"content": "<th"},
    ]


async def test_a_think_block_that_never_closes_is_all_thinking() -> None:
    """Keep everything after an unclosed think tag out of the answer."""
    stats = StreamStats()

    deltas = await collect(
        [chunk("<think>I should"), chunk(" check</thi"), chunk(finish_reason="length")],
        stats,
    )

    assert joined(deltas, "content") is None
    assert joined(deltas, "thinking_content") == "I should check</thi"
    assert stats.finish_reason == "length"
    assert stats.content_chars == 0


async def test_several_think_blocks_and_an_empty_one() -> None:
    """Split every block, including the empty one of a model told not to think."""
    deltas = await collect(
        [chunk("<think>\n\n</think>\n\nA<think>b</think>C<think> d </think> E")]
    )

    assert joined(deltas, "content") == "ACE"
    assert joined(deltas, "thinking_content") == "bd "


async def test_a_real_sdk_stream_with_think_tags(sse_server: LLMServer) -> None:
    """Split think tags that a server without a reasoning parser streams."""
    deltas, _ = await stream_events(
        sse_server,
        [
            event({"role": "assistant", "content": "<th"}),
            event({"content": "ink>\nCount to two.\n</"}),
            event({"content": "think>\n\nOne, two."}),
            event({}, finish_reason="stop"),
        ],
    )

    assert joined(deltas, "thinking_content") == "Count to two.\n"
    assert joined(deltas, "content") == "One, two."
