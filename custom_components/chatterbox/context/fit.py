"""Fit a request into the token budget, keeping the prefix stable.

Servers reuse their prompt cache only while a request begins with the previous
request's messages byte for byte. So the history is shortened rarely and in
blocks: when a request would exceed the budget, one compaction block stubs old
tool results and drops the oldest exchanges down to a fraction of the budget,
and the requests after it only append until the budget is reached again.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from openai.types.chat import (
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
)

from ..prompts import STUB, STUB_KEY, SUMMARY_HEADING
from ..wire.json import dumps
from ..wire.messages import calls_by_id, message_text
from .estimator import TokenEstimator, Tools
from .results import clip
from .summary import as_record

type Messages = list[ChatCompletionMessageParam]

_STUB_ARGUMENTS: Final = 120
# Past tool results up to this size stay whole when stubs replace older ones:
# a state, a value or what an action did, cheap to keep and maybe the only
# record of it. Bigger ones are dumps the model can fetch again.
FACT_SIZE: Final = 1000


@dataclass(frozen=True, slots=True)
class Compaction:
    """What the compaction blocks so far removed from one conversation."""

    dropped_exchanges: int = 0
    stubbed_ids: frozenset[str] = frozenset()
    summary: str | None = None


@dataclass(frozen=True, slots=True)
class FitResult:
    """The messages to send and the conversation's compaction state."""

    messages: Messages
    state: Compaction
    estimated_tokens: int
    compacted: bool = False
    over_budget: bool = False
    dropped: Messages = field(default_factory=list)


def fit(  # noqa: PLR0913  # keyword-only, each one a separate concern
    messages: Sequence[ChatCompletionMessageParam],
    *,
    budget_tokens: int,
    estimator: TokenEstimator,
    state: Compaction,
    tools: Tools = (),
    target: float = 0.6,
) -> FitResult:
    """Apply the compaction state, and run a compaction block if over budget.

    After a block, the caller may summarize result.dropped with summary_request,
    then call fit again with the summary in the state before sending, so that
    the prefix changes once per block.
    """
    head, exchanges = _split(messages)
    calls = calls_by_id(messages)
    out = _apply(head, exchanges, state, calls)
    tokens = estimator.estimate(out, tools)
    if tokens <= budget_tokens:
        return FitResult(out, state, tokens)
    past = exchanges[:-1]
    stubs = state.stubbed_ids | _stubbable(exchanges, calls)
    # Sizes per exchange, so that dropping one more is a subtraction.
    chars = [
        estimator.measure(_stubbed(exchange, stubs, calls)) for exchange in exchanges
    ]
    counts = [len(exchange) for exchange in exchanges]
    fixed = estimator.measure(_apply(head, [], state, calls), tools)
    fixed_count = 1 if head is not None or state.summary else 0
    drop = min(state.dropped_exchanges, len(past))
    # Down to target, not to the budget: the room left is what lets the next
    # requests only append, which keeps the server's prompt cache warm.
    while (
        drop < len(past)
        and estimator.tokens_for(
            fixed + sum(chars[drop:]), fixed_count + sum(counts[drop:])
        )
        > target * budget_tokens
    ):
        drop += 1
    kept_ids = {m.get("tool_call_id") for exchange in past[drop:] for m in exchange}
    new_state = Compaction(drop, frozenset(stubs & kept_ids), state.summary)
    if new_state == state:
        # Nothing left to remove: the current exchange alone is too big.
        return FitResult(out, state, tokens, over_budget=True)
    out = _apply(head, exchanges, new_state, calls)
    tokens = estimator.estimate(out, tools)
    start = min(state.dropped_exchanges, len(past))
    return FitResult(
        out,
        new_state,
        tokens,
        compacted=True,
        over_budget=tokens > budget_tokens,
        dropped=[message for exchange in past[start:drop] for message in exchange],
    )


def _stubbable(
    exchanges: Sequence[Messages], calls: Mapping[str, tuple[str, str]]
) -> set[str]:
    """Return the ids of tool results before the current exchange to stub.

    A result may be the only record of a fact the conversation still needs,
    so it stays whole unless a later result of the same call superseded it,
    or it is a dump too big to keep (its stub names the call, so the model can
    make it again). A stub never replaces a result shorter than itself.
    """
    latest = {
        calls.get(m["tool_call_id"]): m["tool_call_id"] for m in _results(exchanges)
    }
    return {
        message["tool_call_id"]
        for message in _results(exchanges[:-1])
        if (size := len(message_text(message["content"])))
        > len(message_text(_stub(message, calls)["content"]))
        and (
            size > FACT_SIZE
            or latest[calls.get(message["tool_call_id"])] != message["tool_call_id"]
        )
    }


def _results(exchanges: Iterable[Messages]) -> list[ChatCompletionToolMessageParam]:
    """Return the tool results of exchanges, oldest first."""
    return [
        message
        for exchange in exchanges
        for message in exchange
        if message["role"] == "tool"
    ]


def _split(
    messages: Sequence[ChatCompletionMessageParam],
) -> tuple[ChatCompletionSystemMessageParam | None, list[Messages]]:
    """Split off the system prompt and group the rest into exchanges."""
    head: ChatCompletionSystemMessageParam | None = None
    history = list(messages)
    if history and (first := history[0])["role"] == "system":
        head = first
        history = history[1:]
    exchanges: list[Messages] = []
    seen_user = False
    for message in history:
        # Messages before the first user message join the first exchange, so
        # that a tool call and its result are never split apart.
        if not exchanges or (message["role"] == "user" and seen_user):
            exchanges.append([])
        seen_user = seen_user or message["role"] == "user"
        exchanges[-1].append(message)
    return head, exchanges


def _apply(
    head: ChatCompletionSystemMessageParam | None,
    exchanges: Sequence[Messages],
    state: Compaction,
    calls: Mapping[str, tuple[str, str]],
) -> Messages:
    """Build the messages a compaction state leaves of a conversation."""
    out: Messages = []
    if state.summary:
        # In the system prompt, not as a message of its own: the chat templates
        # of Qwen, Llama and Mistral refuse a second system message or a
        # history that does not alternate user and assistant.
        section = "\n\n" + as_record(SUMMARY_HEADING, state.summary)
        base = message_text(head["content"]) if head is not None else ""
        out.append(
            ChatCompletionSystemMessageParam(
                role="system", content=(base + section).lstrip()
            )
        )
    elif head is not None:
        out.append(head)
    # The current exchange always stays, whatever the state says.
    for exchange in exchanges[
        min(state.dropped_exchanges, max(len(exchanges) - 1, 0)) :
    ]:
        out.extend(_stubbed(exchange, state.stubbed_ids, calls))
    return out


def _stubbed(
    exchange: Iterable[ChatCompletionMessageParam],
    ids: frozenset[str],
    calls: Mapping[str, tuple[str, str]],
) -> Messages:
    """Replace the tool results whose call ids are given by stubs."""
    return [
        _stub(message, calls)
        if message["role"] == "tool" and message["tool_call_id"] in ids
        else message
        for message in exchange
    ]


def _stub(
    message: ChatCompletionToolMessageParam, calls: Mapping[str, tuple[str, str]]
) -> ChatCompletionToolMessageParam:
    """Return a stub that names the call a tool result answered, and its size."""
    name, arguments = calls.get(message["tool_call_id"], ("tool", ""))
    size = len(message_text(message["content"]))
    return ChatCompletionToolMessageParam(
        role="tool",
        tool_call_id=message["tool_call_id"],
        content=dumps(
            {
                STUB_KEY: STUB.format(
                    name=name, arguments=clip(arguments, _STUB_ARGUMENTS), size=size
                )
            }
        ),
    )
