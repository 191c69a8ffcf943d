"""The agent loop: tools in parallel and in chains, and tool calls gone wrong."""

import asyncio
from collections.abc import Awaitable, Callable
import json
from typing import Any, Self, override

import probatio
import pytest

from homeassistant.components.conversation.trace import async_get_traces
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import CONF_MAX_ITERATIONS, CONF_MAX_TOKENS
from custom_components.chatterbox.tools import guard as tool_guard

from .bench.scenarios import is_summary_request
from .conftest import AGENT_ID, MODELS, ask, tool_result
from .llm_server import Call, LLMServer, Text, ToolCalls, Usage
from .test_server_errors import sentence


class FakeTool(llm.Tool):
    """A tool whose behaviour a test chooses: answer, raise or hang."""

    def __init__(
        self, name: str, behaviour: Callable[[dict[str, Any]], Awaitable[Any]]
    ) -> None:
        """Name the tool and say what it does when called."""
        self.name = name
        self.description = f"The {name} tool."
        self.parameters = probatio.Schema({probatio.Optional("city"): str})
        self.behaviour = behaviour
        self.calls: list[dict[str, Any]] = []
        self.called = asyncio.Event()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Be itself in a copy: the Assist debug trace copies the tools it lists."""
        return self

    @override
    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Record the call and behave as told."""
        self.calls.append(tool_input.tool_args)
        self.called.set()
        return llm.ToolResult(data=await self.behaviour(tool_input.tool_args))


class FakeAPI(llm.API):
    """An LLM API offering the test's tools."""

    def __init__(self, hass: HomeAssistant, tools: list[llm.Tool]) -> None:
        """Offer these tools."""
        super().__init__(hass=hass, id="weather_test", name="Weather test")
        self.tools = tools

    @override
    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """Return the tools for one turn."""
        return llm.APIInstance(
            api=self,
            api_prompt="Use the weather tools.",
            llm_context=llm_context,
            tools=self.tools,
        )


async def _forecast(args: dict[str, Any]) -> dict[str, Any]:
    """Answer like a weather service."""
    return {"city": args.get("city", "home"), "forecast": "sunny", "high": 21}


async def _broken(args: dict[str, Any]) -> dict[str, Any]:
    """Fail the way buggy tool code does."""
    msg = f"weather backend exploded for {args}"
    raise RuntimeError(msg)


async def _hang(args: dict[str, Any]) -> dict[str, Any]:
    """Never answer."""
    await asyncio.Event().wait()
    return args  # pragma: no cover


@pytest.fixture
def tools() -> dict[str, FakeTool]:
    """Return the test tools by name."""
    return {
        tool.name: tool
        for tool in (
            FakeTool("GetForecast", _forecast),
            FakeTool("GetAlerts", _forecast),
            FakeTool("BrokenTool", _broken),
            FakeTool("SlowTool", _hang),
        )
    }


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    llm.async_register_api(ha_core, FakeAPI(ha_core, list(tools.values())))
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: ["weather_test"],
        CONF_MAX_ITERATIONS: 4,
    }


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the tool results a request carries, with their content decoded.

    Near the iteration cap the last one ends with a note to the model.
    """
    return [
        {**message, "content": tool_result(message["content"])}
        for message in request["messages"]
        if message["role"] == "tool"
    ]


def assert_every_tool_call_answered(request: dict[str, Any]) -> None:
    """Check the history is one a strict server accepts."""
    called = [
        call["id"]
        for message in request["messages"]
        if message["role"] == "assistant"
        for call in message.get("tool_calls") or ()
    ]
    answered = [m["tool_call_id"] for m in request["messages"] if m["role"] == "tool"]
    assert called == answered


@pytest.mark.usefixtures("loaded_entry")
async def test_two_tools_in_parallel(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """One response asks for two tools at once; both run; the model sums up."""
    llm_server.reply(
        ToolCalls(
            [
                Call("GetForecast", {"city": "Paris"}),
                Call("GetAlerts", {"city": "Paris"}),
            ],
            same_chunk=True,
        ),
        Text("Sunny in Paris, and no alerts."),
    )

    result = await ask(hass, "Weather and alerts for Paris?")

    assert result.response.speech["plain"]["speech"] == "Sunny in Paris, and no alerts."
    assert tools["GetForecast"].calls == [{"city": "Paris"}]
    assert tools["GetAlerts"].calls == [{"city": "Paris"}]
    results = tool_messages(llm_server.chat_requests[1])
    assert [r["tool_call_id"] for r in results] == ["call_1", "call_2"]
    assert results[0]["content"]["data"]["forecast"] == "sunny"


@pytest.mark.usefixtures("loaded_entry")
async def test_chain_of_three_dependent_tool_rounds(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Each round uses what the last one found, then the model answers."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", {"city": "Oslo"})]),
        ToolCalls([Call("GetAlerts", {"city": "Oslo"})]),
        ToolCalls([Call("GetForecast", {"city": "Bergen"})]),
        Text("Oslo and Bergen are both sunny."),
    )

    result = await ask(hass, "Compare Oslo with Bergen")

    assert (
        result.response.speech["plain"]["speech"] == "Oslo and Bergen are both sunny."
    )
    assert tools["GetForecast"].calls == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert len(llm_server.chat_requests) == 4
    last = llm_server.chat_requests[-1]
    assert len(tool_messages(last)) == 3
    assert_every_tool_call_answered(last)


@pytest.mark.usefixtures("loaded_entry")
async def test_tool_error_then_recovery(
    hass: HomeAssistant, llm_server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool crashes; the model reads why, tries another tool, and answers."""
    llm_server.reply(
        ToolCalls([Call("BrokenTool", {"city": "Rome"})]),
        ToolCalls([Call("GetForecast", {"city": "Rome"})]),
        Text("Rome is sunny."),
    )

    result = await ask(hass, "Weather in Rome?")

    assert result.response.speech["plain"]["speech"] == "Rome is sunny."
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["error"] is True
    assert error["content"]["data"]["error"] == "RuntimeError"
    assert "weather backend exploded" in error["content"]["data"]["error_text"]
    assert "Tool BrokenTool failed: RuntimeError" in caplog.text


@pytest.mark.usefixtures("loaded_entry")
async def test_unknown_tool(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """The model invents a tool; it hears which tools exist, and answers."""
    llm_server.reply(
        ToolCalls([Call("GetHoroscope", {"city": "Rome"})]),
        Text("I can only tell the weather."),
    )

    result = await ask(hass, "What is my horoscope?")

    assert result.response.speech["plain"]["speech"] == "I can only tell the weather."
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["data"]["error"] == "UnknownTool"
    assert "GetForecast" in error["content"]["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_repaired_arguments(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Python-style arguments with trailing chatter are repaired and used."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", "{'city': 'Lisbon'} I hope that helps")]),
        Text("Lisbon is sunny."),
    )

    result = await ask(hass, "Weather in Lisbon?")

    assert result.response.speech["plain"]["speech"] == "Lisbon is sunny."
    assert tools["GetForecast"].calls == [{"city": "Lisbon"}]


@pytest.mark.usefixtures("loaded_entry")
async def test_unrepairable_arguments_then_retry(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Broken JSON is not run; the model reads the parse error and retries."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", '{"city": "Madrid",')]),
        ToolCalls([Call("GetForecast", {"city": "Madrid"})]),
        Text("Madrid is sunny."),
    )

    result = await ask(hass, "Weather in Madrid?")

    assert result.response.speech["plain"]["speech"] == "Madrid is sunny."
    assert tools["GetForecast"].calls == [{"city": "Madrid"}]
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["data"]["error"] == "InvalidArguments"
    assert "could not be read" in error["content"]["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_iteration_cap_forces_a_final_answer(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """A model that keeps calling tools is told to wrap up, then to answer."""
    llm_server.reply(
        *(ToolCalls([Call("GetForecast", {"city": f"City {n}"})]) for n in range(3)),
        # A server that ignores tool_choice "none": the tool call is not run.
        ToolCalls([Call("GetForecast", {"city": "City 3"})], content="All sunny."),
    )

    result = await ask(hass, "Weather everywhere?")

    assert result.response.speech["plain"]["speech"] == "All sunny."
    assert len(tools["GetForecast"].calls) == 3
    requests = llm_server.chat_requests
    assert len(requests) == 4
    # The notes end the last tool result: the prompt before them is the one
    # the server has cached, so it is not read again.
    notes = [r["messages"][-1]["content"].rsplit("\n\n", 1)[-1] for r in requests]
    assert not notes[0].startswith("Note:")
    assert not notes[1].startswith("Note:")
    assert notes[2].startswith("Note: 1 tool round(s) left")
    assert notes[3].startswith("Note: no tool rounds are left")
    assert len({json.dumps(r["messages"][0]) for r in requests}) == 1
    assert "tool_choice" not in requests[2]
    assert requests[3]["tool_choice"] == "none"


LOOPING = [ToolCalls([Call("GetForecast", {"city": f"City {n}"})]) for n in range(3)]


@pytest.mark.parametrize(
    ("final", "heard"),
    [
        pytest.param(
            Text(
                'All sunny.\n```json\n{"name": "GetForecast", '
                '"arguments": {"city": "City 3"}}\n```'
            ),
            "All sunny.",
            id="call-as-text-after-the-answer",
        ),
        pytest.param(
            Text('{"name": "GetForecast", "arguments": {"city": "City 3"}}'),
            sentence("out_of_steps"),
            id="only-a-call-as-text",
        ),
        pytest.param(
            ToolCalls([Call("GetForecast", {"city": "City 3"})]),
            sentence("out_of_steps"),
            id="only-a-parsed-call",
        ),
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_a_call_at_the_iteration_cap_is_never_read_aloud(
    hass: HomeAssistant,
    llm_server: LLMServer,
    tools: dict[str, FakeTool],
    final: Text | ToolCalls,
    heard: str,
) -> None:
    """Told to answer, a small model writes one more call as text: not spoken.

    llama.cpp parses no calls under tool_choice "none", so the call arrives as
    content; the user hears the answer without it, or that the steps ran out.
    """
    llm_server.reply(*LOOPING, final, Text("Here is the weather."))

    result = await ask(hass, "Weather everywhere?")

    assert result.response.speech["plain"]["speech"] == heard
    assert "{" not in heard
    assert len(tools["GetForecast"].calls) == 3
    # The conversation goes on.
    result = await ask(hass, "And now?")
    assert result.response.speech["plain"]["speech"] == "Here is the weather."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_calls_that_kept_failing_end_in_a_sorry(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Each try fails and the model will not stop: the user hears it failed.

    Not that the steps ran out: asking again would fail again.
    """
    llm_server.reply(
        *(ToolCalls([Call("BrokenTool", {"city": f"City {n}"})]) for n in range(4)),
        Text("Here is the weather."),
    )

    result = await ask(hass, "Weather everywhere?", "failing")

    assert result.response.speech["plain"]["speech"] == sentence("could_not")
    assert len(tools["BrokenTool"].calls) == 3
    result = await ask(hass, "And now?", "failing")
    assert result.response.speech["plain"]["speech"] == "Here is the weather."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_call_that_worked_but_was_repeated_is_no_failure(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """The forecast came back, and the model only calls for it again.

    The user is not told it failed (it did not), nor to ask one thing at a
    time (they did): the model gave no answer.
    """
    same = Call("GetForecast", {"city": "Paris"})
    llm_server.reply(*(ToolCalls([same]) for _ in range(3)), Text("Paris is sunny."))

    result = await ask(hass, "Weather in Paris?", "circling")

    assert result.response.speech["plain"]["speech"] == sentence("empty_response")
    assert len(tools["GetForecast"].calls) == 1
    result = await ask(hass, "And now?", "circling")
    assert result.response.speech["plain"]["speech"] == "Paris is sunny."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_repetition_guard(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """The same call again in one turn is refused, and the model answers."""
    same = Call("GetForecast", {"city": "Nice"})
    llm_server.reply(ToolCalls([same]), ToolCalls([same]), Text("Nice is sunny."))

    result = await ask(hass, "Weather in Nice?")

    assert result.response.speech["plain"]["speech"] == "Nice is sunny."
    assert len(tools["GetForecast"].calls) == 1
    refused = llm_server.chat_requests[2]
    second, note = refused["messages"][-1]["content"].split("\n\n", 1)
    assert json.loads(second)["data"]["error"] == "RepeatedCall"
    assert "its result is above" in json.loads(second)["data"]["error_text"]
    # Going round in circles, the model is asked for its answer at once,
    # rather than after the 4 rounds the agent allows.
    assert note.startswith("Note: no tool rounds are left")
    assert refused["tool_choice"] == "none"
    assert len(llm_server.chat_requests) == 3


@pytest.mark.usefixtures("loaded_entry")
async def test_a_failed_call_is_not_run_again_as_it_was(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """The call failed; the model makes it again, word for word.

    It would fail the same way (a device that is not there), so it is refused
    and the model is asked for its answer: the user hears it at once, not
    after the rounds run out.
    """
    same = Call("BrokenTool", {"city": "Oslo"})
    llm_server.reply(
        ToolCalls([same]), ToolCalls([same]), Text("The weather service is broken.")
    )

    result = await ask(hass, "Weather in Oslo?")

    assert result.response.speech["plain"]["speech"] == "The weather service is broken."
    assert len(tools["BrokenTool"].calls) == 1
    _, refused = tool_messages(llm_server.chat_requests[2])
    assert refused["content"]["data"]["error"] == "RepeatedCall"
    assert llm_server.chat_requests[2]["tool_choice"] == "none"
    assert len(llm_server.chat_requests) == 3
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_three_failed_calls_and_the_model_is_asked_to_answer(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """A small model tries one name after another for a device that is not there.

    After the third failure it is told to answer, with a round still left.
    """
    llm_server.reply(
        *(ToolCalls([Call("BrokenTool", {"city": f"Oven {n}"})]) for n in range(3)),
        Text("There is no oven I can control."),
    )

    result = await ask(hass, "Preheat the oven")

    assert (
        result.response.speech["plain"]["speech"] == "There is no oven I can control."
    )
    assert len(tools["BrokenTool"].calls) == 3
    assert [r.get("tool_choice") for r in llm_server.chat_requests] == [
        None,
        None,
        None,
        "none",
    ]
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_call_that_timed_out_is_tried_once_more(
    hass: HomeAssistant,
    llm_server: LLMServer,
    tools: dict[str, FakeTool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hang may pass, so the same call runs again once; a third is refused."""
    monkeypatch.setattr(tool_guard, "TOOL_TIMEOUT", 0.05)
    same = Call("SlowTool", {"city": "Bergen"})
    llm_server.reply(
        *(ToolCalls([same]) for _ in range(3)), Text("The service is not answering.")
    )

    result = await ask(hass, "Weather in Bergen?")

    assert result.response.speech["plain"]["speech"] == "The service is not answering."
    assert len(tools["SlowTool"].calls) == 2
    errors = [
        message["content"]["data"]["error"]
        for message in tool_messages(llm_server.last_chat_request)
    ]
    assert errors == ["Timeout", "Timeout", "RepeatedCall"]


@pytest.mark.usefixtures("loaded_entry")
async def test_hanging_tool_times_out(
    hass: HomeAssistant, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool that never answers is given up on; the model tells the user."""
    monkeypatch.setattr(tool_guard, "TOOL_TIMEOUT", 0.05)
    llm_server.reply(
        ToolCalls([Call("SlowTool", {})]), Text("The weather service is not answering.")
    )

    result = await ask(hass, "Weather?")

    assert (
        result.response.speech["plain"]["speech"]
        == "The weather service is not answering."
    )
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["data"]["error"] == "Timeout"


@pytest.mark.usefixtures("loaded_entry")
async def test_follow_up_turn_sees_its_history(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Turn 2 sends turn 1, tool call and result included."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", {"city": "Vienna"})]),
        Text("Vienna is sunny, 21 degrees."),
        Text("Then no umbrella needed."),
    )
    first = await ask(hass, "Weather in Vienna?", "kitchen-chat")

    second = await ask(hass, "Do I need an umbrella?", first.conversation_id)

    assert first.conversation_id == second.conversation_id == "kitchen-chat"
    assert second.response.speech["plain"]["speech"] == "Then no umbrella needed."
    messages = llm_server.last_chat_request["messages"]
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "GetForecast"
    assert messages[4]["content"] == "Vienna is sunny, 21 degrees."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_concurrent_conversations_stay_apart(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Two kitchens talk at once; neither request carries the other's words."""
    llm_server.reply(Text("Answer one.", chunk_delay=0.01), Text("Answer two."))

    await asyncio.gather(
        ask(hass, "Secret of the first kitchen", "first"),
        ask(hass, "Secret of the second kitchen", "second"),
    )

    for request in llm_server.chat_requests:
        users = [m["content"] for m in request["messages"] if m["role"] == "user"]
        assert len(users) == 1
    llm_server.reply(Text("Still the first."))
    await ask(hass, "And now?", "first")
    texts = [m.get("content") for m in llm_server.last_chat_request["messages"]]
    assert "Secret of the first kitchen" in texts
    assert "Secret of the second kitchen" not in texts


@pytest.mark.usefixtures("loaded_entry")
async def test_thinking_is_never_spoken(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Reasoning fields and <think> blocks stay out of the answer and history."""
    llm_server.reply(
        Text("It is 21 degrees.", reasoning="The user wants the temperature."),
        Text("<think>They ask again.</think>Still 21 degrees."),
        Text("You're welcome."),
    )

    first = await ask(hass, "How warm is it?", "thinking")
    second = await ask(hass, "And now?", "thinking")
    await ask(hass, "Thanks", "thinking")

    assert first.response.speech["plain"]["speech"] == "It is 21 degrees."
    assert second.response.speech["plain"]["speech"] == "Still 21 degrees."
    sent = json.dumps(llm_server.last_chat_request["messages"])
    assert "The user wants" not in sent
    assert "They ask again" not in sent


@pytest.mark.usefixtures("loaded_entry")
async def test_cancelled_turn_closes_the_stream_and_tools(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Barge-in mid-turn: the stream and a running tool stop; the next turn works."""
    llm_server.reply(ToolCalls([Call("SlowTool", {})]))
    turn = asyncio.create_task(ask(hass, "Weather?", "barge-in"))
    await tools["SlowTool"].called.wait()

    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    await hass.async_block_till_done()
    assert not [
        task
        for task in asyncio.all_tasks()
        if task.get_name().startswith("llm_tool_") and not task.done()
    ]

    llm_server.reply(Text("Long answer", chunk_delay=0.05), Text("Hello again."))
    turn = asyncio.create_task(ask(hass, "Tell me a story", "barge-in"))
    # The story is streaming (the setup's own requests to the server count
    # in wait_for_request, and may come late).
    while len(llm_server.chat_requests) < 2:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.06)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn

    result = await ask(hass, "Hello?", "barge-in")

    assert result.response.speech["plain"]["speech"] == "Hello again."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_trace_records_each_iteration(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The Assist debug view shows finish reason, usage, timing and tools."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", {"city": "Bern"})], usage=Usage(30, 7)),
        Text("Bern is sunny.", usage=Usage(50, 4)),
    )

    await ask(hass, "Weather in Bern?")

    trace = async_get_traces()[-1].as_dict()
    iterations = [
        event["data"]["chatterbox_iteration"]
        for event in trace["events"]
        if "chatterbox_iteration" in event.get("data", {})
    ]
    assert [i["iteration"] for i in iterations] == [1, 2]
    assert [i["finish_reason"] for i in iterations] == ["tool_calls", "stop"]
    assert [i["tools"] for i in iterations] == [["GetForecast"], []]
    assert [i["prompt_tokens"] for i in iterations] == [30, 50]
    assert all(i["latency"] >= i["time_to_first_token"] >= 0 for i in iterations)


async def test_tool_calls_after_the_turn_ended_do_not_run(
    hass: HomeAssistant, tools: dict[str, FakeTool]
) -> None:
    """A tool call that starts after a cancelled turn ended is refused, not run."""
    context = llm.LLMContext(
        platform="chatterbox",
        context=None,
        language="en",
        assistant="conversation",
        device_id=None,
    )
    instance = await FakeAPI(hass, list(tools.values())).async_get_api_instance(context)
    guard = tool_guard.ToolGuard(instance, None)
    guard.close()

    result = await guard.async_call_tool(llm.ToolInput("GetForecast", {}))

    assert result.error
    assert result.data["error"] == "TurnEnded"
    assert tools["GetForecast"].calls == []


@pytest.mark.parametrize(
    ("agent_data", "reply", "heard"),
    [
        pytest.param(
            {CONF_MODEL: MODELS[0]},
            ToolCalls([Call("HassTurnOn", {"name": "Kitchen"})], content="Hello!"),
            "Hello!",
            id="with-words",
        ),
        pytest.param(
            {CONF_MODEL: MODELS[0]},
            ToolCalls([Call("HassTurnOn", {"name": "Kitchen"})]),
            sentence("empty_response"),
            id="only-a-call",
        ),
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_a_chat_only_agent_ignores_a_call_it_was_not_offered(
    hass: HomeAssistant,
    llm_server: LLMServer,
    reply: ToolCalls,
    heard: str,
) -> None:
    """No LLM API selected, yet the model calls a tool: it is not run or spoken."""
    llm_server.reply(reply, Text("Still here."))

    result = await ask(hass, "Hi")

    assert result.response.speech["plain"]["speech"] == heard
    assert "tools" not in llm_server.chat_requests[0]
    result = await ask(hass, "Are you there?")
    assert result.response.speech["plain"]["speech"] == "Still here."
    assert_every_tool_call_answered(llm_server.last_chat_request)


RUNAWAY_PIECES = 10_000


@pytest.mark.parametrize(
    ("max_tokens", "cut"), [(None, True), (4096, False)], ids=["no-limit", "limit"]
)
async def test_a_runaway_answer_stops_at_the_room_kept_for_it(
    hass: HomeAssistant,
    llm_server: LLMServer,
    loaded_entry: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
    max_tokens: int | None,
    cut: bool,  # noqa: FBT001
) -> None:
    """A small model runs on; with no token limit set, the agent stops listening.

    The server is told to stop (the stream is closed), the user hears the start,
    and the next turn works. With a limit, the server's own limit applies.
    """
    if max_tokens is not None:
        subentry = loaded_entry.subentries[AGENT_ID]
        hass.config_entries.async_update_subentry(
            loaded_entry, subentry, data={**subentry.data, CONF_MAX_TOKENS: max_tokens}
        )
        await hass.async_block_till_done()
    song = "la " * (RUNAWAY_PIECES * 4)
    # The whole song outgrows the context: the next turn has it summarized.
    llm_server.responder = lambda body: (
        Text("They sang.") if is_summary_request(body) else None
    )
    llm_server.reply(
        Text(song, piece_size=12, token_delay=0.0002, finish_reason="length"),
        Text("Hello again."),
    )

    result = await ask(hass, "Sing me a song", "runaway")

    heard = result.response.speech["plain"]["speech"]
    runaway = llm_server.requests[-1].timing
    await asyncio.sleep(0.05)  # the server notices the hang-up at its next write
    if cut:
        assert heard.startswith("la la la")
        # The agent's estimate starts at 3 characters a token: 1,024 tokens.
        assert 3 * 1024 <= len(heard) < 3 * 1024 + 12
        assert runaway.finished is None
        assert len(runaway.tokens) < RUNAWAY_PIECES // 10
        assert "ran past 3072 characters" in caplog.text
    else:
        assert heard == song.strip()
        assert runaway.finished is not None
        assert "cut short at the token limit" in caplog.text
    result = await ask(hass, "Hello?", "runaway")
    assert result.response.speech["plain"]["speech"] == "Hello again."
    assert_every_tool_call_answered(llm_server.last_chat_request)
