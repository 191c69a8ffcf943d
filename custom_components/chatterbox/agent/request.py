"""Build the request of each round: the only place that edits what the model reads.

The chat log keeps the conversation whole; each request is a copy, fitted to
the context window, with the notes of this request added to the copy only.
When the server refuses a part of a request, transport.py sends the new
request that one of the functions here returns (with_text_tools, without_tools,
with_schema_in_words): the request already sent is never changed.
"""

from collections.abc import Mapping, Sequence
from dataclasses import replace
import json
from typing import Any, Final, cast

import httpx
import openai
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

from homeassistant.components import conversation
from homeassistant.const import CONF_MODEL

from ..const import (
    CONF_EXTRA_BODY,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MAX_TOKENS,
    CONF_STATES_IN_VIEW,
    CONF_TEMPERATURE,
    CONF_THINKING,
    CONF_TOOL_MODE,
    CONF_TOP_P,
    DEFAULT_ANSWER_RESERVE,
    LOGGER,
    THINKING_DEFAULT,
    TOOL_MODE_AUTO,
    TOOL_MODE_TEXT,
    TOOL_RESULT_LIMIT,
)
from ..context.fit import Compaction, fit
from ..context.in_view import states_note
from ..context.mentions import Mentions
from ..context.results import cap_tool_result
from ..context.summary import summary_request
from ..prompts import FINAL_NOTE, SCHEMA_NOTE, SPEECH_INSTRUCTIONS, WRAP_UP_NOTE
from ..server.capabilities import Capabilities
from ..server.client import describe
from ..server.thinking import fields_for, with_extra_body
from ..tools.guard import refused_repeats
from ..wire.json import sendable
from ..wire.messages import content_to_messages, with_text_tool_calls
from ..wire.text_calls import text_tool_prompt
from .stage import Stage
from .turn import Turn, keep_recent

# A summary is asked for in at most 150 words; these bound what comes back.
SUMMARY_MAX_TOKENS: Final = 400
SUMMARY_MAX_CHARS: Final = 1_500
# From this many rounds before the last, the model is told to wrap up.
WRAP_UP_ROUNDS: Final = 2
# The token estimate is calibrated, not exact: a margin stays below the window.
BUDGET_MARGIN: Final = 0.95


async def async_build_request(
    stage: Stage,
    chat_log: conversation.ChatLog,
    turn: Turn,
    left: int,
    note: str | None = None,
) -> dict[str, Any]:
    """Build the request of one round, inside the context budget.

    A note is what the model is told after its last answer, in this request
    only: a user message at the end, where it leaves the prompt cache valid.
    """
    tools = turn.tools
    text_tools = bool(tools) and tools_in_prompt(stage)
    request = _settings(stage)
    if tools and not text_tools:
        request["tools"] = tools
        if not left:
            request["tool_choice"] = "none"
    messages = _conversation(stage, chat_log, turn)
    # Tools in the prompt cost about what they cost in the request.
    messages = await _async_fit(stage, chat_log.conversation_id, messages, tools)
    # Notes that are the same in every request of a conversation come first,
    # so they stay in the cached prefix.
    if turn.speech:
        # Before the instructions, not after: last before the tools, it made
        # small models answer the weather and the time without calling tools.
        add_to_system_prompt(messages, SPEECH_INSTRUCTIONS, first=True)
    request["messages"] = messages
    if turn.structure is not None:
        _ask_for_structure(stage, request, turn.structure)
    if text_tools:
        request = with_text_tools(request, tools)
    if note is not None:
        request["messages"].append({"role": "user", "content": note})
    if left < WRAP_UP_ROUNDS and tools:
        _add_note(
            request["messages"],
            WRAP_UP_NOTE.format(left=left) if left else FINAL_NOTE,
        )
    return request


def _conversation(
    stage: Stage, chat_log: conversation.ChatLog, turn: Turn
) -> list[ChatCompletionMessageParam]:
    """Return the conversation as the model reads it, before it is fitted."""
    content = chat_log.content
    messages = _capped(
        content_to_messages(content, turn.images, refused_repeats(content)), turn
    )
    if turn.overview is not None:
        # The same bytes in every request: the prompt cache holds.
        messages[0] = {"role": "system", "content": sendable(turn.overview.system)}
    if notes := stage.conversations.states.get(chat_log.conversation_id):
        _add_states(messages, notes)
    if turn.recalled:
        # Before fitting, so the budget counts it; it stays for the whole
        # conversation, so the prompt prefix stays stable for the cache.
        add_to_system_prompt(messages, turn.recalled)
    return messages


def note_states(
    stage: Stage,
    chat_log: conversation.ChatLog,
    mentions: Mentions,
    *,
    question: bool,
    listed: bool = True,
) -> None:
    """Put what the request names after it, from now on.

    After a question, with their states. Not after a command: given one, small
    models copy the current values (a brightness, a set-point) into their
    calls in place of the ones asked for. But in a home too large to list
    (listed is False), a command's devices come with their names only, since
    the prompt no longer has them; what only reports, with its state.
    """
    with_states = question and stage.options.get(CONF_STATES_IN_VIEW, True)
    if not mentions or not (with_states or not listed):
        return
    note = states_note(stage.hass, mentions, with_states=with_states)
    if note is None:
        return
    said = [c for c in chat_log.content if isinstance(c, conversation.UserContent)]
    notes = stage.conversations.states.get(chat_log.conversation_id, {})
    notes[len(said) - 1, said[-1].content] = note
    keep_recent(stage.conversations.states, chat_log.conversation_id, notes)
    chat_log.async_trace(
        {
            "chatterbox_states_in_view": {
                "entities": list(mentions.entities),
                "areas": list(mentions.areas),
                # Why each came: named itself, or in an area that was named;
                # by this message, or by an earlier one it refers back to.
                "named": list(mentions.named),
                "in_areas": list(mentions.in_areas),
                "earlier": mentions.earlier,
                "with_states": with_states,
            }
        }
    )


def _add_states(
    messages: list[ChatCompletionMessageParam], notes: Mapping[tuple[int, str], str]
) -> None:
    """Add each user message's states note after its words, as when first sent.

    A note belongs to the user message of its number and words: Home Assistant
    2026.10 drops a failed turn from the chat log, and the next message takes
    its number.
    """
    number = -1
    for index, message in enumerate(messages):
        if message["role"] != "user":
            continue
        number += 1
        content = message["content"]
        if isinstance(content, str) and (note := notes.get((number, content))):
            messages[index] = {"role": "user", "content": f"{content}\n\n{note}"}


def tools_in_prompt(stage: Stage) -> bool:
    """Tell whether tools go in the prompt, by the option or the probe."""
    mode = stage.options.get(CONF_TOOL_MODE, TOOL_MODE_AUTO)
    if mode != TOOL_MODE_AUTO:
        return bool(mode == TOOL_MODE_TEXT)
    verdict = stage.capabilities.get(stage.options[CONF_MODEL])
    return verdict is not None and verdict.text_tools


def _settings(stage: Stage) -> dict[str, Any]:
    """Return the request's settings, from the agent's options.

    In the fields the server takes, as the probe found them.
    """
    options = stage.options
    request: dict[str, Any] = {
        "model": options[CONF_MODEL],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    for key in (CONF_TEMPERATURE, CONF_TOP_P, CONF_MAX_TOKENS):
        if (value := options.get(key)) is not None:
            request[key] = value
    if extra := _extra_body(stage):
        request["extra_body"] = extra
    return _fields(stage).fitted(request)


def _extra_body(stage: Stage) -> dict[str, Any]:
    """Return the fields beyond the OpenAI API: thinking's, under the user's own."""
    options = stage.options
    runtime = stage.entry.runtime_data
    thinking = fields_for(
        (options.get(CONF_THINKING, THINKING_DEFAULT),),
        runtime.server_kind,
        thinks=runtime.thinks.get(options[CONF_MODEL]),
    )
    return with_extra_body(thinking, options.get(CONF_EXTRA_BODY) or {})


def _fields(stage: Stage) -> Capabilities:
    """Return what the probe found of the model's fields; the usual where none."""
    return stage.capabilities.get(stage.options[CONF_MODEL]) or Capabilities()


def _ask_for_structure(
    stage: Stage,
    request: dict[str, Any],
    response_format: dict[str, Any],
) -> None:
    """Ask for JSON: by response_format, or in words where it was refused."""
    verdict = stage.capabilities.get(request["model"])
    if verdict is not None and verdict.json_schema is False:
        add_to_system_prompt(request["messages"], schema_note(response_format))
    else:
        request["response_format"] = response_format


def schema_note(response_format: dict[str, Any]) -> str:
    """Ask in words for what a refused response_format would have enforced."""
    # Spaced, as the standard library writes it: what the model reads stays as
    # it was.
    schema = json.dumps(response_format["json_schema"]["schema"], ensure_ascii=False)
    return SCHEMA_NOTE.format(schema=schema)


def with_text_tools(
    request: Mapping[str, Any], tools: list[ChatCompletionToolParam]
) -> dict[str, Any]:
    """Return the request with its tools in its prompt, and its calls in the text.

    For servers without a tool parser: their chat templates cannot render
    tool calls or tool messages either.
    """
    moved = _without(request, "tools", "tool_choice")
    messages = with_text_tool_calls(request["messages"])
    add_to_system_prompt(messages, text_tool_prompt(tools))
    moved["messages"] = messages
    return moved


def without_tools(request: Mapping[str, Any]) -> dict[str, Any]:
    """Return the request without its tools, for a server that refused tool_choice.

    Some servers (older vLLM, LM Studio) refuse tool_choice "none", which
    asks for the final answer: it is asked for without tools.
    """
    return _without(request, "tools", "tool_choice")


def with_schema_in_words(request: Mapping[str, Any]) -> dict[str, Any]:
    """Return the request with its JSON schema asked for in its prompt.

    For a server that refused response_format: the answer is checked after.
    """
    moved = _without(request, "response_format")
    messages = list(request["messages"])
    add_to_system_prompt(messages, schema_note(request["response_format"]))
    moved["messages"] = messages
    return moved


def _without(request: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """Return a copy of the request without some of its keys."""
    return {key: value for key, value in request.items() if key not in keys}


def add_to_system_prompt(
    messages: list[ChatCompletionMessageParam], note: str, *, first: bool = False
) -> None:
    """Add a note to the system prompt of this request only, at its end or start.

    Templates of Qwen, Gemma and Mistral refuse a system message anywhere but
    first, so the note goes into the first one rather than after the history.
    The chat log always starts with the prompt async_provide_llm_data wrote.
    """
    prompt = messages[0]["content"]
    content = f"{note}\n\n{prompt}" if first else f"{prompt}\n\n{note}"
    messages[0] = {"role": "system", "content": content}


def _add_note(messages: list[ChatCompletionMessageParam], note: str) -> None:
    """Add a note for this request only at its end, as the user's words.

    At the end it leaves the prompt cache valid: in the system prompt it would
    make the server read the whole prompt again, a minute on a local model.
    After the model's own words or a tool's result it is a message of its
    own: a request that ends on the model's words asks the server to go on
    with them, and a note inside a result reads as part of the result, which
    small models answer with one more call. After the user's question (or,
    in text mode, the results the user's message carries) it ends that
    message: templates want the roles to alternate. A message with parts (an
    image) takes it in the system prompt instead.
    """
    last = messages[-1]
    content = last.get("content")
    if last["role"] in {"assistant", "tool"}:
        messages.append({"role": "user", "content": note})
    elif last["role"] == "user" and isinstance(content, str):
        messages[-1] = cast(
            "ChatCompletionMessageParam", {**last, "content": f"{content}\n\n{note}"}
        )
    else:
        add_to_system_prompt(messages, note)


def _capped(
    messages: list[ChatCompletionMessageParam], turn: Turn
) -> list[ChatCompletionMessageParam]:
    """Shorten long tool results in what is sent; the chat log keeps them whole.

    Each result is shortened once per turn: the same result goes out again in
    every later request of the turn.
    """
    capped: list[ChatCompletionMessageParam] = []
    for message in messages:
        if message["role"] == "tool" and isinstance(message["content"], str):
            whole = message["content"]
            if (content := turn.capped_results.get(whole)) is None:
                content = cap_tool_result(whole, TOOL_RESULT_LIMIT)
                turn.capped_results[whole] = content
            message = {**message, "content": content}  # noqa: PLW2901
        capped.append(message)
    return capped


def context_window(stage: Stage) -> int:
    """Return the agent's context window: its setting, the server's, or 8192."""
    return stage.entry.runtime_data.context_window(stage.options)[0]


async def _async_fit(
    stage: Stage,
    conversation_id: str,
    messages: list[ChatCompletionMessageParam],
    tools: Sequence[Any],
) -> list[ChatCompletionMessageParam]:
    """Keep the history inside the budget, summarizing what has to go.

    The outgoing copy shrinks in blocks, so the prefix stays byte-stable for
    the server's prompt cache between blocks; the chat log keeps everything.
    """
    options = stage.options
    window = context_window(stage)
    reserve = int(options.get(CONF_MAX_TOKENS) or DEFAULT_ANSWER_RESERVE)
    budget = int((window - reserve) * BUDGET_MARGIN)
    if share := options.get(CONF_MAX_HISTORY_TOKENS):
        # The share is the conversation's: the prompt and tools come on top.
        fixed = stage.learned.estimator.estimate(messages[:1], tools)
        budget = min(budget, fixed + int(int(share) * BUDGET_MARGIN))
    compactions = stage.conversations.compactions
    state = compactions.get(conversation_id, Compaction())
    result = fit(
        messages,
        budget_tokens=budget,
        estimator=stage.learned.estimator,
        state=state,
        tools=tools,
    )
    if result.dropped:
        summary = await _async_summarize(stage, result.dropped, state.summary)
        if summary is not None:
            result = fit(
                messages,
                budget_tokens=budget,
                estimator=stage.learned.estimator,
                state=replace(result.state, summary=summary),
                tools=tools,
            )
    if result.over_budget:
        LOGGER.warning(
            "The prompt and the current turn alone need about %s tokens, more "
            "than the %s the context window leaves",
            result.estimated_tokens,
            budget,
        )
    keep_recent(compactions, conversation_id, result.state)
    return result.messages


async def _async_summarize(
    stage: Stage,
    dropped: Sequence[ChatCompletionMessageParam],
    previous: str | None,
) -> str | None:
    """Ask the model to fold what leaves the context into the summary."""
    options = stage.options
    try:
        response = await stage.client.chat.completions.create(
            **_fields(stage).fitted(
                {
                    "model": options[CONF_MODEL],
                    "messages": summary_request(dropped, previous),
                    # It joins every later request's prompt, and may be
                    # remembered for days: a model that runs on is cut short.
                    "max_tokens": SUMMARY_MAX_TOKENS,
                    # Thinking as the agent's turns do: a model left to think
                    # may spend the whole limit on it, and summarize nothing.
                    "extra_body": _extra_body(stage) or None,
                }
            )
        )
        summary = response.choices[0].message.content
    except (openai.OpenAIError, httpx.HTTPError, AttributeError, IndexError) as err:
        # Trimming alone still keeps the turn going.
        LOGGER.debug("Could not summarize the dropped history: %s", describe(err))
        return None
    return summary.strip()[:SUMMARY_MAX_CHARS] if summary else None
