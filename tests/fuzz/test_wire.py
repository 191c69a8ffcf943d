"""Property-based tests for what goes back to the server: messages and budget.

Any chat log converts to messages the server can read, tool calls written as
text keep every result, any tool schema loses only the keywords servers choke
on, and any conversation fitted to a budget keeps every tool call paired with
its result. Each property runs 1,000 examples (the "ci" profile in conftest.py).
"""

import json
import math
from typing import Any

from hypothesis import example, given, strategies as st
from openai._utils._json import openapi_dumps
from openai.types.chat import ChatCompletionMessageParam

from homeassistant.components import conversation
from homeassistant.helpers import llm

from custom_components.chatterbox.context.estimator import TokenEstimator
from custom_components.chatterbox.context.fit import Compaction, fit
from custom_components.chatterbox.context.results import MIN_LIMIT, cap_tool_result
from custom_components.chatterbox.context.summary import summary_request
from custom_components.chatterbox.wire.arguments import (
    ToolArgumentsError,
    parse_tool_arguments,
)
from custom_components.chatterbox.wire.messages import (
    content_to_messages,
    with_text_tool_calls,
)
from custom_components.chatterbox.wire.schema import _clean_schema
from tests.helpers.messages import check_pairs
from tests.helpers.strategies import (
    ANY_ARGUMENTS,
    JSON_OBJECTS,
    JSON_VALUES,
    TEXT,
    result_or_error,
)

AGENT = "conversation.chatterbox"
NAMES = st.sampled_from(["HassTurnOn", "GetLiveContext", "Hass\ud83dTurnOn"])


# The failing examples found: orjson refused a lone surrogate, an integer past
# 64 bits, and more than 255 levels; the SDK could not encode a surrogate.
@example(raw='{"":"\\uD800"}')
@example(raw='{"name": "\\udc00 light", "area": "\\ud83d\\ude00"}')
@example(raw='{"n": 123456789012345678901234567890, "m": -9223372036854775809}')
@example(raw='{"name": {"name": [-1e510, NaN]}}')
@example(raw='{"n": 123456789012345678901234567890, "x": 1e999, "s": "\\ud800"}')
@example(raw='{"a": ' + "[" * 300 + "]" * 300 + "}")
@example(raw="{'a': " + "[" * 150 + "]" * 150 + ", 'b': '\\ud800'}")
@given(raw=ANY_ARGUMENTS)
def test_any_arguments_read_can_be_sent_back(raw: str) -> None:
    """Arguments a model wrote and we accepted go back in the next request."""
    arguments = result_or_error(lambda: parse_tool_arguments(raw), ToolArgumentsError)
    if isinstance(arguments, ToolArgumentsError):
        return
    tool_call = llm.ToolInput(tool_name="HassTurnOn", tool_args=arguments, id="c1")

    messages = content_to_messages(
        [conversation.AssistantContent(agent_id=AGENT, tool_calls=[tool_call])]
    )

    sent = messages[0]["tool_calls"][0]["function"]["arguments"]  # type: ignore[typeddict-item]
    assert json.loads(sent) == sendable(arguments)
    assert openapi_dumps(messages)  # as the SDK encodes the request body


def sendable(value: Any) -> Any:
    """Return a value as JSON can carry it.

    Texts as UTF-16 reads them: halves of a pair joined, lone ones U+FFFD.
    JSON has no infinity or NaN (a model's -1e510 reads as -inf): null.
    """
    match value:
        case str():
            text = value.encode("utf-16-le", "surrogatepass")
            return text.decode("utf-16-le", "replace")
        case float() if not math.isfinite(value):
            return None
        case dict():
            return {sendable(key): sendable(item) for key, item in value.items()}
        case list():
            return [sendable(item) for item in value]
    return value


type Turn = tuple[
    str, list[tuple[str, dict[str, Any], Any, bool]], str | None, str | None
]


def chat_log(prompt: str, turns: list[Turn]) -> list[conversation.Content]:
    """Build a chat log: a prompt, then turns of text, calls and their results."""
    content: list[conversation.Content] = [conversation.SystemContent(content=prompt)]
    for turn, (text, calls, answer, thinking) in enumerate(turns):
        tool_calls = [
            llm.ToolInput(tool_name=name, tool_args=args, id=f"c{turn}_{i}")
            for i, (name, args, _, _) in enumerate(calls)
        ]
        content += [
            conversation.UserContent(content=text),
            conversation.AssistantContent(
                agent_id=AGENT,
                content=answer,
                thinking_content=thinking,
                tool_calls=tool_calls or None,
            ),
        ]
        content += [
            conversation.ToolResultContent(
                agent_id=AGENT,
                tool_call_id=tool_call.id,
                tool_name=tool_call.tool_name,
                result=llm.ToolResult(data=data, error=error),
            )
            for tool_call, (_, _, data, error) in zip(tool_calls, calls, strict=True)
        ]
    return content


CHAT_LOGS = st.builds(
    chat_log,
    st.sampled_from(["", "Be brief."]),
    st.lists(
        st.tuples(
            TEXT,
            st.lists(
                st.tuples(NAMES, JSON_OBJECTS, JSON_VALUES, st.booleans()), max_size=2
            ),
            st.none() | TEXT,
            st.none() | TEXT,
        ),
        max_size=3,
    ),
)


@given(content=CHAT_LOGS)
def test_any_chat_log_converts_to_messages_and_to_text_tools(
    content: list[conversation.Content],
) -> None:
    """Every turn is sent, every call with its result, in either tool mode."""
    messages = content_to_messages(content)

    assert openapi_dumps(messages)  # as the SDK encodes the request body
    sent = [
        item for item in content if not isinstance(item, conversation.SystemContent)
    ]
    assert len(messages) == len(sent) + bool(content[0].content)
    check_pairs(messages)
    for message in messages:
        if message["role"] == "tool":
            assert set(json.loads(message["content"])) == {"data", "error"}  # type: ignore[arg-type]

    as_text = with_text_tool_calls(messages)

    assert {message["role"] for message in as_text} <= {"system", "user", "assistant"}
    assert not any("tool_calls" in message for message in as_text)
    assert openapi_dumps(as_text)
    text = json.dumps(as_text, ensure_ascii=False)
    for message in messages:
        if message["role"] == "tool":
            assert json.dumps(message["content"], ensure_ascii=False)[1:-1] in text
    results = sum(message["role"] == "tool" for message in messages)
    assert text.count("<tool_response>") == results


DROPPED = {"not", "pattern"}
SCHEMA_WORDS = ["type", "properties", "items", "anyOf", "oneOf", "allOf", "not"]
SCHEMA_WORDS += ["pattern", "enum", "const", "default", "additionalProperties"]
SCHEMA_WORDS += ["$defs", "prefixItems", "dependentRequired", "required"]
SCHEMAS = st.recursive(
    st.sampled_from(["object", "string", "^a+$", 1, None, True]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(SCHEMA_WORDS) | TEXT, inner, max_size=4)
    ),
    max_leaves=6,
)


SUBSCHEMA_MAPS = {"properties", "patternProperties", "$defs", "definitions"}
SUBSCHEMAS = {"items", "prefixItems", "additionalProperties", "contains"}
SUBSCHEMAS |= {"anyOf", "oneOf", "allOf"}


def schema_keywords(schema: Any) -> set[str]:
    """Return the keywords used in a schema's nodes, not in its data."""
    if isinstance(schema, list):
        return set().union(*map(schema_keywords, schema))
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for keyword, value in schema.items():
        if keyword in SUBSCHEMA_MAPS and isinstance(value, dict):
            found |= schema_keywords(list(value.values()))
        elif keyword in SUBSCHEMAS:
            found |= schema_keywords(value)
    return found


@given(schema=st.dictionaries(st.sampled_from(SCHEMA_WORDS), SCHEMAS, max_size=5))
def test_any_schema_loses_only_what_servers_choke_on(schema: dict[str, Any]) -> None:
    """The keywords not and pattern go; data under enum or default stays as it is."""
    cleaned = _clean_schema(schema)

    assert not schema_keywords(cleaned) & DROPPED
    assert _clean_schema(cleaned) == cleaned
    for keyword in ("enum", "const", "default", "required"):
        assert cleaned.get(keyword) == schema.get(keyword)


# Long texts, cheaply: a short one repeated.
LONG_TEXT = st.builds(lambda text, times: text * times, TEXT, st.integers(0, 120))


@given(
    content=st.one_of(
        LONG_TEXT,
        JSON_VALUES.map(json.dumps),
        st.lists(JSON_OBJECTS, max_size=40).map(json.dumps),
        st.dictionaries(TEXT, LONG_TEXT, max_size=6).map(json.dumps),
    ),
    limit=st.integers(MIN_LIMIT, 700),
)
def test_any_tool_result_is_capped_within_the_limit(content: str, limit: int) -> None:
    """A capped result fits, and a JSON result stays JSON."""
    capped = cap_tool_result(content, limit)

    assert len(capped) <= limit
    if len(content) <= limit:
        assert capped == content
    elif not isinstance(
        result_or_error(lambda: json.loads(content), ValueError), ValueError
    ):
        json.loads(capped)


def wire_conversation(
    prompt: bool,  # noqa: FBT001
    turns: list[tuple[list[tuple[str, int]], bool]],
) -> list[ChatCompletionMessageParam]:
    """Build a conversation as the wire sends it: prompt, turns, calls, results."""
    messages: list[ChatCompletionMessageParam] = []
    if prompt:
        messages.append({"role": "system", "content": "Be brief. " * 20})
    for turn, (calls, answered) in enumerate(turns):
        messages.append({"role": "user", "content": f"Turn {turn} " * 5})
        for step, (name, size) in enumerate(calls):
            call_id = f"c{turn}_{step}"
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": "{}"},
                        }
                    ],
                }
            )
            messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": "x" * size}
            )
        if answered:
            messages.append({"role": "assistant", "content": "Done. " * 10})
    return messages


CONVERSATIONS = st.builds(
    wire_conversation,
    st.booleans(),
    st.lists(
        st.tuples(
            st.lists(st.tuples(NAMES, st.sampled_from([10, 300, 2000])), max_size=2),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    ),
)


@given(
    messages=CONVERSATIONS,
    budget=st.integers(50, 3000),
    dropped=st.integers(0, 8),
    summary=st.none() | st.just("The user asked about the weather."),
    target=st.floats(0.1, 1.0),
)
def test_any_conversation_fits_with_every_call_answered(
    messages: list[ChatCompletionMessageParam],
    budget: int,
    dropped: int,
    summary: str | None,
    target: float,
) -> None:
    """Whatever the budget and the state: pairs hold and the turn is still there."""
    estimator = TokenEstimator()

    fitted = fit(
        messages,
        budget_tokens=budget,
        estimator=estimator,
        state=Compaction(dropped_exchanges=dropped, summary=summary),
        target=target,
    )

    check_pairs(fitted.messages)
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    assert fitted.messages[last_user - len(messages) :] == messages[last_user:]
    assert fitted.over_budget == (fitted.estimated_tokens > budget)
    assert fitted.estimated_tokens == estimator.estimate(fitted.messages)
    if fitted.dropped:
        side = summary_request(fitted.dropped, summary)
        assert [message["role"] for message in side] == ["system", "user"]


@given(
    reports=st.lists(st.none() | st.integers(-(10**6), 10**9), max_size=6),
    messages=CONVERSATIONS,
)
def test_calibration_stays_within_its_bounds(
    reports: list[int | None], messages: list[ChatCompletionMessageParam]
) -> None:
    """Any usage a server reports moves the ratio, never out of 1.5 to 8."""
    estimator = TokenEstimator()

    for prompt_tokens in reports:
        estimator.calibrate(messages, (), prompt_tokens)

    assert 1.5 <= estimator.chars_per_token <= 8.0
