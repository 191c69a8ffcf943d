"""Long conversations: a request never outgrows the model, and nothing is lost."""

from itertools import pairwise
import json
import math
import re
from typing import Any

import pytest

from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_CONTEXT_WINDOW,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_THINKING,
)
from custom_components.chatterbox.prompts import RECORD_NOTE
from tests.helpers.common import (
    AGENT_ID,
    MODELS,
    ask,
    assert_every_tool_call_answered,
    is_summary_request,
    set_up,
    traced,
)
from tests.helpers.llm_server import (
    Abilities,
    Call,
    Error,
    LLMServer,
    Text,
    ToolCalls,
)
from tests.helpers.tools import FakeAPI, FakeTool

WINDOW = 3000
ANSWER = 500
BUDGET = WINDOW - ANSWER
SUMMARY = "Summary: the user asked for the forecast of several cities; all sunny."


async def _hourly(args: dict[str, Any]) -> dict[str, Any]:
    """Answer with a long hourly forecast, as real weather services do."""
    city = args.get("city", "home")
    return {
        "city": city,
        "hourly": [{"hour": h, "temp": 10 + h % 7, "sky": "clear"} for h in range(48)],
    }


def tokenizer(body: dict[str, Any]) -> int:
    """Stand in for the model's tokenizer: about 3.5 characters a token."""
    text = json.dumps(body["messages"]) + json.dumps(body.get("tools", []))
    return math.ceil(len(text) / 3.5)


@pytest.fixture
def forecast() -> FakeTool:
    """Return the weather tool."""
    return FakeTool("GetForecast", _hourly)


@pytest.fixture
def agent_data(ha_core: HomeAssistant, forecast: FakeTool) -> dict[str, Any]:
    """Give the agent the weather tool and a small context window."""
    llm.async_register_api(ha_core, FakeAPI(ha_core, [forecast]))
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: ["weather_test"],
        CONF_MAX_ITERATIONS: 10,
        CONF_CONTEXT_WINDOW: WINDOW,
        CONF_MAX_TOKENS: ANSWER,
    }


@pytest.fixture
def server(llm_server: LLMServer) -> LLMServer:
    """Count prompt tokens like a tokenizer, and answer summary requests."""
    llm_server.tokenizer = tokenizer
    llm_server.responder = lambda body: (
        Text(SUMMARY) if is_summary_request(body) else None
    )
    return llm_server


def main_requests(server: LLMServer) -> list[dict[str, Any]]:
    """Return the requests of the turns themselves, without side requests."""
    return [body for body in server.chat_requests if not is_summary_request(body)]


async def talk(hass: HomeAssistant, server: LLMServer, turns: int) -> None:
    """Hold a conversation: every turn calls the weather tool, then answers."""
    for turn in range(turns):
        server.reply(
            ToolCalls([Call("GetForecast", {"city": f"City {turn}"})]),
            Text(f"City {turn} will be sunny all day."),
        )
        result = await ask(hass, f"Weather in City {turn}?", "long-chat")
        assert result.response.speech["plain"]["speech"] == (
            f"City {turn} will be sunny all day."
        )


@pytest.mark.usefixtures("loaded_entry")
async def test_fifty_turns_stay_inside_the_budget(
    hass: HomeAssistant, server: LLMServer
) -> None:
    """50 turns with tool results: every request fits and stays well formed."""
    await talk(hass, server, 50)

    requests = main_requests(server)
    assert len(requests) == 100
    for number, body in enumerate(requests):
        assert tokenizer(body) <= BUDGET, f"request {number} is over the budget"
        assert body["messages"][0]["role"] == "system"
        assert_every_tool_call_answered(body)
        users = [m for m in body["messages"] if m["role"] == "user"]
        assert users[-1]["content"] == f"Weather in City {number // 2}?"
    # Without a budget the last request would have been many times the window.
    assert sum(1 for body in server.chat_requests if is_summary_request(body)) >= 1


@pytest.mark.usefixtures("loaded_entry")
async def test_the_summary_reaches_the_model(
    hass: HomeAssistant, server: LLMServer
) -> None:
    """What is dropped is summarized, and the summary is in later requests."""
    await talk(hass, server, 20)

    summaries = [body for body in server.chat_requests if is_summary_request(body)]
    assert summaries
    transcript = summaries[0]["messages"][-1]["content"]
    assert "Weather in City 0?" in transcript
    # The summary joins every later prompt: a model that runs on is cut short.
    assert {summary["max_tokens"] for summary in summaries} == {400}
    last = main_requests(server)[-1]
    # It comes back as a record of what was said, not as instructions.
    assert (
        f"Earlier in this conversation: {RECORD_NOTE}\n<record>\n{SUMMARY}\n</record>"
        in last["messages"][0]["content"]
    )
    assert "Weather in City 0?" not in json.dumps(last["messages"])


async def test_a_summary_thinks_as_little_as_the_turns(
    hass: HomeAssistant, server: LLMServer, loaded_entry: MockConfigEntry
) -> None:
    """The user turned thinking off: summaries ask for none either.

    A thinking model left to its default may spend a summary's 400 tokens
    thinking, and summarize nothing.
    """
    subentry = loaded_entry.subentries[AGENT_ID]
    hass.config_entries.async_update_subentry(
        loaded_entry, subentry, data={**subentry.data, CONF_THINKING: "off"}
    )
    await hass.async_block_till_done(wait_background_tasks=True)

    await talk(hass, server, 20)

    summaries = [body for body in server.chat_requests if is_summary_request(body)]
    assert summaries
    assert {body["reasoning_effort"] for body in server.chat_requests} == {"none"}


async def test_a_reasoning_model_summarizes_in_the_fields_it_takes(
    hass: HomeAssistant, server: LLMServer, config_entry: MockConfigEntry
) -> None:
    """OpenAI's reasoning models refuse max_tokens: summaries ask as turns do.

    Without it, every summary would be refused, and long conversations only
    trimmed, quietly.
    """
    server.abilities = Abilities(reasoning_model=True)
    await set_up(hass, config_entry)

    await talk(hass, server, 20)

    summaries = [body for body in server.chat_requests if is_summary_request(body)]
    assert summaries
    assert all(
        "max_tokens" not in body and body["max_completion_tokens"] == 400
        for body in summaries
    )
    last = main_requests(server)[-1]
    assert SUMMARY in last["messages"][0]["content"]


def _why_the_prefix_broke(before: dict[str, Any], after: dict[str, Any]) -> str:
    """Name the reason a request does not start with the one before it."""
    old, new = before["messages"], after["messages"]
    if json.dumps(new[: len(old)]) == json.dumps(old):
        return ""
    if len(new) < len(old) or json.dumps(new).count("omitted") > json.dumps(old).count(
        "omitted"
    ):
        return "compaction block"
    clock = re.compile(r"Current time is [0-9:]+\.")
    if clock.sub("", json.dumps(new[: len(old)])) == clock.sub("", json.dumps(old)):
        # HA 2026.10 renders the time into the prompt on every turn when no
        # date/time tool is offered; 2026.11 keeps the prompt of a conversation.
        return "clock line in Home Assistant's prompt"
    return "unexplained"


async def test_prefix_stays_stable_between_compactions(
    hass: HomeAssistant, server: LLMServer, loaded_entry: MockConfigEntry
) -> None:
    """Each request starts with the previous one, except right after a trim."""
    subentry = loaded_entry.subentries[AGENT_ID]
    hass.config_entries.async_update_subentry(
        loaded_entry, subentry, data={**subentry.data, CONF_CONTEXT_WINDOW: 6000}
    )
    await hass.async_block_till_done()

    await talk(hass, server, 10)

    requests = main_requests(server)
    breaks = {
        number: reason
        for number, (before, after) in enumerate(pairwise(requests), start=1)
        if (reason := _why_the_prefix_broke(before, after))
    }
    assert all(after.get("tools") == requests[0].get("tools") for after in requests)
    assert "unexplained" not in breaks.values(), breaks
    compactions = [n for n, reason in breaks.items() if reason == "compaction block"]
    # Trimmed to 60 % of the budget: the next block is several turns away.
    assert 1 <= len(compactions) <= 2, breaks
    assert all(b - a >= 6 for a, b in pairwise(compactions)), breaks


@pytest.mark.usefixtures("loaded_entry")
async def test_a_failed_summary_still_trims(
    hass: HomeAssistant, server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """If the summary request fails, the turn still fits and still answers."""
    server.responder = lambda body: (
        Error(500, "summary unavailable") if is_summary_request(body) else None
    )
    caplog.set_level("DEBUG", logger="custom_components.chatterbox")

    await talk(hass, server, 20)

    assert all(tokenizer(body) <= BUDGET for body in main_requests(server))
    assert "Could not summarize the dropped history" in caplog.text


@pytest.mark.usefixtures("loaded_entry")
async def test_a_huge_tool_result_is_shortened_in_the_request(
    hass: HomeAssistant, server: LLMServer, forecast: FakeTool
) -> None:
    """A result over 4000 characters goes out shortened, as valid JSON."""

    async def huge(args: dict[str, Any]) -> dict[str, Any]:
        return {"rows": [{"n": n, "text": "x" * 40} for n in range(500)]}

    forecast.behaviour = huge
    server.reply(ToolCalls([Call("GetForecast", {})]), Text("Lots of rows."))

    await ask(hass, "Give me everything")

    tool_message = main_requests(server)[1]["messages"][-1]
    assert len(tool_message["content"]) <= 4000
    content = json.loads(tool_message["content"])
    assert "_truncated" in content


@pytest.mark.usefixtures("loaded_entry")
async def test_a_turn_too_big_for_the_window_is_sent_and_logged(
    hass: HomeAssistant, server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A pasted text larger than the window cannot be trimmed: it goes, logged."""
    server.reply(Text("That is a lot of text."))

    result = await ask(hass, "Read this: " + "lorem ipsum " * 1200)

    assert result.response.speech["plain"]["speech"] == "That is a lot of text."
    assert "more than the" in caplog.text
    assert "context window leaves" in caplog.text


async def test_the_window_the_server_reports_is_used(
    hass: HomeAssistant, server: LLMServer, config_entry: MockConfigEntry
) -> None:
    """Without a context window set, vLLM's max_model_len sets the budget."""
    subentry = config_entry.subentries[AGENT_ID]
    hass.config_entries.async_update_subentry(
        config_entry,
        subentry,
        data={k: v for k, v in subentry.data.items() if k != CONF_CONTEXT_WINDOW},
    )
    server.model_fields = {MODELS[0]: {"max_model_len": WINDOW}}
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    await talk(hass, server, 12)

    assert all(tokenizer(body) <= BUDGET for body in main_requests(server))
    assert any(is_summary_request(body) for body in server.chat_requests)


def _iterations() -> list[dict[str, Any]]:
    """Return what the Assist debug view shows of the last turn's iterations."""
    return traced("chatterbox_iteration")


@pytest.mark.usefixtures("loaded_entry")
async def test_the_estimate_tracks_the_tokenizer_after_three_turns(
    hass: HomeAssistant, server: LLMServer
) -> None:
    """The budget's token estimate learns the server's counts within 15 %."""
    errors: list[float] = []
    for _turn in range(4):
        await talk(hass, server, 1)
        errors += [
            abs(i["estimated_prompt_tokens"] - i["prompt_tokens"]) / i["prompt_tokens"]
            for i in _iterations()
        ]

    assert len(errors) == 8
    # After three turns (six requests), every estimate is within 15 %.
    assert all(error <= 0.15 for error in errors[6:]), errors
    assert errors[-1] < errors[0], errors


async def test_a_history_share_keeps_requests_small(
    hass: HomeAssistant, server: LLMServer, loaded_entry: MockConfigEntry
) -> None:
    """With a conversation share set, a big window still gets small requests."""
    share = 2500
    subentry = loaded_entry.subentries[AGENT_ID]
    hass.config_entries.async_update_subentry(
        loaded_entry,
        subentry,
        data={
            **subentry.data,
            CONF_CONTEXT_WINDOW: 32000,
            CONF_MAX_HISTORY_TOKENS: share,
        },
    )
    await hass.async_block_till_done()

    await talk(hass, server, 12)

    history = [
        tokenizer({"messages": body["messages"][1:]}) for body in main_requests(server)
    ]
    # Each turn adds ~400 tokens: without the share, turn 12 would carry 12 of them.
    assert max(history) <= share, history
    assert any(is_summary_request(body) for body in server.chat_requests)
