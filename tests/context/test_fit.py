"""Fitting a request into the token budget, keeping its prefix stable."""

from dataclasses import replace
import json
import random

from openai.types.chat import ChatCompletionMessageParam
import pytest

from custom_components.chatterbox.context.estimator import TokenEstimator
from custom_components.chatterbox.context.fit import Compaction, FitResult, fit
from custom_components.chatterbox.context.results import cap_tool_result
from custom_components.chatterbox.context.summary import as_record, summary_request
from custom_components.chatterbox.prompts import SUMMARY_HEADING
from tests.helpers.messages import (
    PROMPT,
    TOOLS,
    answer,
    call,
    check_pairs,
    forecast,
    result,
    server_tokens,
    system,
    user,
)


def test_a_conversation_within_budget_is_sent_as_it_is() -> None:
    """Nothing changes while the history fits: the state stays the same."""
    messages = [system(), user("Hi"), answer("Hello!"), user("Lights on")]
    state = Compaction()

    fitted = fit(messages, budget_tokens=1000, estimator=TokenEstimator(), state=state)

    assert fitted.messages == messages
    assert fitted.state is state
    assert not fitted.compacted
    assert not fitted.over_budget
    assert fitted.dropped == []


def test_the_state_drops_stubs_and_summarizes() -> None:
    """Dropped exchanges go, stubbed results shrink, the summary joins the prompt."""
    messages = [
        system(),
        user("Hi"),
        answer("Hello!"),
        user("Weather in Oslo?"),
        call("c1", city="Oslo"),
        result("c1", forecast(2000)),
        answer("Cloudy."),
        user("Thanks"),
    ]
    state = Compaction(1, frozenset({"c1"}), "The user greeted the assistant.")

    fitted = fit(
        messages, budget_tokens=10_000, estimator=TokenEstimator(), state=state
    )

    assert fitted.messages[0] == {
        "role": "system",
        "content": f"{PROMPT}\n\n"
        + as_record(SUMMARY_HEADING, "The user greeted the assistant."),
    }
    assert fitted.messages[1:3] == messages[3:5]
    stub = json.loads(fitted.messages[3]["content"])  # type: ignore[arg-type]
    size = len(messages[5]["content"])  # type: ignore[arg-type]
    assert stub == {"omitted": f'GetForecast({{"city": "Oslo"}}) result, {size} chars'}
    assert fitted.messages[4:] == messages[6:]


def test_a_stub_cuts_long_arguments() -> None:
    """The stub names the call, but not with all of a long argument list."""
    messages = [
        system(),
        user("Find it"),
        call("c1", name="Search", query="q" * 500),
        result("c1", forecast(1000)),
        answer("Found."),
        user("Thanks"),
    ]
    state = Compaction(stubbed_ids=frozenset({"c1"}))

    fitted = fit(
        messages, budget_tokens=10_000, estimator=TokenEstimator(), state=state
    )

    stub = json.loads(fitted.messages[3]["content"])  # type: ignore[arg-type]
    size = len(messages[3]["content"])  # type: ignore[arg-type]
    assert stub["omitted"].startswith('Search({"query": "qqq')
    assert stub["omitted"].endswith(f"q…) result, {size} chars")
    assert len(stub["omitted"]) < 200


def test_a_summary_without_a_system_prompt_becomes_the_system_prompt() -> None:
    """A conversation with no prompt still gets its summary first."""
    state = Compaction(summary="Lights were on.")

    fitted = fit(
        [user("And now?")], budget_tokens=1000, estimator=TokenEstimator(), state=state
    )

    assert fitted.messages == [
        {"role": "system", "content": as_record(SUMMARY_HEADING, "Lights were on.")},
        user("And now?"),
    ]


def test_messages_before_the_first_user_message_stay_with_it() -> None:
    """A history starting with a tool call keeps the call with its result."""
    messages = [
        system(),
        call("c0", city="Bergen"),
        result("c0", forecast(4000)),
        user("And Oslo?"),
        answer("Sunny."),
        user("Thanks"),
    ]

    fitted = fit(
        messages, budget_tokens=200, estimator=TokenEstimator(), state=Compaction()
    )

    assert fitted.compacted
    assert fitted.state.dropped_exchanges == 1
    assert fitted.messages == [system(), user("Thanks")]
    assert fitted.dropped == messages[1:5]


def test_an_oversized_current_exchange_is_sent_and_flagged() -> None:
    """When the prompt and the current exchange alone are too big, say so once."""
    messages = [system(), user("Hi"), answer("Hello"), user("x" * 4000)]
    estimator = TokenEstimator()

    first = fit(messages, budget_tokens=500, estimator=estimator, state=Compaction())
    second = fit(messages, budget_tokens=500, estimator=estimator, state=first.state)

    assert first.compacted
    assert first.over_budget
    assert first.messages == [system(), user("x" * 4000)]
    assert not second.compacted
    assert second.over_budget
    assert second.messages == first.messages


def test_small_results_are_not_stubbed() -> None:
    """A stub longer than the result it replaces would only cost tokens."""
    messages = [
        system(),
        user("Lights?"),
        call("c1", name="GetLiveContext"),
        result("c1", {"on": 1}),
        answer("One is on."),
        user("Weather?"),
        call("c2", city="Oslo"),
        result("c2", forecast(6000)),
        answer("Cloudy."),
        user("Thanks"),
    ]

    fitted = fit(
        messages, budget_tokens=1000, estimator=TokenEstimator(), state=Compaction()
    )

    assert fitted.compacted
    assert fitted.state == Compaction(0, frozenset({"c2"}))
    assert fitted.messages[:7] == messages[:7]
    assert fitted.dropped == []


def test_a_fact_only_an_old_result_holds_stays_whole() -> None:
    """Stubs replace dumps and superseded results, not a result's only record.

    The user asked about the door, then twice about the weather in Oslo, then
    for a long list: the door result is the only record of its fact; the first
    forecast is superseded by the second; the list is a dump.
    """
    messages = [
        system(),
        user("Is the door locked?"),
        call("c1", name="GetState", entity="door"),
        result("c1", {"state": "unlocked", "changed": "08:12"}),
        answer("No, it is unlocked."),
        user("Weather in Oslo?"),
        call("c2", city="Oslo"),
        result("c2", forecast(600)),
        answer("Cloudy."),
        user("And now?"),
        call("c3", city="Oslo"),
        result("c3", forecast(600)),
        answer("Still cloudy."),
        user("List every light."),
        call("c4", name="GetLiveContext"),
        result("c4", forecast(3000)),
        answer("There are many."),
        user("Thanks"),
    ]

    fitted = fit(
        messages, budget_tokens=1200, estimator=TokenEstimator(), state=Compaction()
    )

    assert fitted.compacted
    assert fitted.state.dropped_exchanges == 0
    assert fitted.state.stubbed_ids == {"c2", "c4"}
    sent = {
        m["tool_call_id"]: m["content"] for m in fitted.messages if "tool_call_id" in m
    }
    assert sent["c1"] == messages[3]["content"]
    assert sent["c3"] == messages[11]["content"]
    assert json.loads(sent["c2"]) == {
        "omitted": 'GetForecast({"city": "Oslo"}) result, '
        f"{len(messages[7]['content'])} chars"
    }


class Simulation:
    """A conversation that sends each request through fit, as the agent would."""

    def __init__(self, budget: int) -> None:
        """Start with only the system prompt."""
        self.budget = budget
        self.estimator = TokenEstimator()
        self.state = Compaction()
        self.history: list[ChatCompletionMessageParam] = [system()]
        self.sent: list[ChatCompletionMessageParam] | None = None
        self.requests = self.blocks = self.summaries = 0
        self.worst = 0.0

    def fit(self, state: Compaction) -> FitResult:
        """Fit the history with a state."""
        return fit(
            self.history,
            budget_tokens=self.budget,
            estimator=self.estimator,
            state=state,
            tools=TOOLS,
        )

    def request(self) -> None:
        """Fit the history, summarize after a block, check and send."""
        fitted = self.fit(self.state)
        last_user = max(i for i, m in enumerate(self.history) if m["role"] == "user")
        assert (
            fitted.messages[last_user - len(self.history) :] == self.history[last_user:]
        )
        if fitted.compacted:
            self.blocks += 1
            self.sent = None
            if fitted.dropped:
                side = summary_request(fitted.dropped, fitted.state.summary)
                assert "Transcript:\nUser: Turn " in str(side[1]["content"])
                self.summaries += 1
                summary = f"Summary {self.summaries}: the user asked about weather."
                fitted = self.fit(replace(fitted.state, summary=summary))
                assert not fitted.compacted
        self.state = fitted.state
        self.send(fitted)

    def send(self, fitted: FitResult) -> None:
        """Check a request as the server would see it, and learn its size."""
        if self.sent is not None:
            # Without a block in between, a request extends the previous one.
            assert fitted.messages[: len(self.sent)] == self.sent
        assert str(fitted.messages[0]["content"]).startswith(PROMPT)
        assert fitted.over_budget or fitted.estimated_tokens <= self.budget
        check_pairs(fitted.messages)
        actual = server_tokens(fitted.messages, TOOLS)
        self.worst = max(self.worst, actual / self.budget)
        self.estimator.calibrate(fitted.messages, TOOLS, actual)
        self.sent = fitted.messages
        self.requests += 1


@pytest.mark.parametrize(("budget", "max_share"), [(12_000, 1 / 8), (6_000, 1 / 4)])
def test_fifty_turns_stay_in_budget_with_a_stable_prefix(
    budget: int, max_share: float
) -> None:
    """A long conversation with tools: budget, pairs and prefix all hold."""
    rng = random.Random(42)  # noqa: S311  # seeded for reproducible sizes
    simulation = Simulation(budget)
    history = simulation.history
    for turn in range(50):
        history.append(user(f"Turn {turn}: what about city {turn}?"))
        simulation.request()
        for step in range(rng.choice([0, 0, 1, 1, 2])):
            call_id = f"call_{turn}_{step}"
            history.append(call(call_id, city=f"City {turn}"))
            raw = json.dumps({"data": forecast(rng.randint(100, 9000)), "error": False})
            content = cap_tool_result(raw)
            history.append(
                {"role": "tool", "tool_call_id": call_id, "content": content}
            )
            simulation.request()
        history.append(answer(f"Answer {turn}: " + "fine " * rng.randint(5, 80)))

    assert simulation.requests > 75
    # Blocks are rare: each one makes room for many requests that only append.
    assert 1 <= simulation.blocks <= simulation.requests * max_share
    assert simulation.summaries >= 1
    # Measured by the fake server, not by the estimate: within 5 % of budget.
    assert simulation.worst <= 1.05
    assert simulation.state.dropped_exchanges > 10
