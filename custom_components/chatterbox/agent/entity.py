"""The agent loop that every Chatterbox agent runs, one turn at a time.

RECEIVE_INPUT → LLM_INFERENCE → TOOL_DECISION → (TOOL_EXECUTION →
RESULT_AGGREGATION → LLM_INFERENCE …) → RESPONSE_COMPOSITION → OUTPUT.

The chat log holds the input, runs the tools as soon as their calls are complete
(TOOL_EXECUTION) and keeps their results (RESULT_AGGREGATION). This module
decides what to send, streams the answer into the log, and stops.
"""

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
import json
from pathlib import Path
import time
from typing import Any, Final, cast

import httpx
import openai
from openai import AsyncStream
from openai.types.chat import (
    ChatCompletionChunk,
    ChatCompletionMessageParam,
    ChatCompletionToolParam,
)

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_URL
from homeassistant.core import callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import chat_session, device_registry as dr, llm
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from .. import ChatterboxConfigEntry
from ..const import (
    CONF_CONFIRM,
    CONF_CONTEXT_WINDOW,
    CONF_EXTRA_BODY,
    CONF_MAX_HISTORY_TOKENS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY,
    CONF_MEMORY_HOURS,
    CONF_SENSITIVE_KINDS,
    CONF_SPEECH,
    CONF_TEMPERATURE,
    CONF_TOOL_MODE,
    CONF_TOP_P,
    CONF_UNATTENDED,
    CONNECT_TIMEOUT,
    DEFAULT_ANSWER_RESERVE,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_ITERATIONS,
    DOMAIN,
    LOGGER,
    MAX_TRACKED_CONVERSATIONS,
    SUBENTRY_CONVERSATION,
    TOOL_MODE_AUTO,
    TOOL_MODE_TEXT,
    TOOL_RESULT_LIMIT,
    UNATTENDED_ALLOW,
)
from ..context.budget import (
    Compaction,
    TokenEstimator,
    cap_tool_result,
    fit,
    summary_request,
)
from ..context.memory import DEFAULT_MEMORY_HOURS, is_new_conversation, render
from ..coordinator import ChatterboxCoordinator
from ..repairs import async_model_missing, async_update_tools_issue
from ..server.capabilities import Capabilities
from ..server.client import describe, without_credentials
from ..server.errors import (
    retry_after,
    translate_request_error,
    translate_stream_error,
    user_error,
)
from ..speech import SPEECH_INSTRUCTIONS, SpeechFilter
from ..tools.answers import is_yes
from ..tools.guard import REPEATED_CALL, ToolGuard, guard_tools
from ..tools.sensitive import (
    DEFAULT_KINDS,
    PendingCall,
    Question,
    and_list,
    sensitive_action,
)
from ..usage import TurnUsage
from ..wire.messages import (
    content_to_messages,
    format_tool,
    image_data_url,
    with_text_tool_calls,
)
from ..wire.stream import StreamStats, delta_of, transform_stream
from ..wire.text_calls import TextToolCallParser, text_tool_prompt, tool_name_matcher

# Seconds the server may stay silent, before its first byte or between chunks.
# Local models on small machines can take long to read a big prompt.
REQUEST_TIMEOUT: Final = 120.0
# A summary is asked for in at most 150 words; these bound what comes back.
SUMMARY_MAX_TOKENS: Final = 400
SUMMARY_MAX_CHARS: Final = 1_500
# Seconds to wait for a connection while the server is known to be down.
OFFLINE_CONNECT_TIMEOUT: Final = 3.0
# From this many iterations before the limit, the model is told to wrap up.
WRAP_UP_ITERATIONS: Final = 2
BUDGET_MARGIN: Final = 0.95

WRAP_UP_NOTE: Final = (
    "Note: {left} tool round(s) left in this turn. Answer with what you know, "
    "or ask the user for what you need."
)
FINAL_NOTE: Final = (
    "Note: no tool rounds are left in this turn. Do not call tools. Answer the "
    "user now with what you know, or ask them for what you need."
)


class ChatterboxLLMEntity(CoordinatorEntity[ChatterboxCoordinator]):
    """An agent of a Chatterbox server entry, with its own device.

    It is available while its server answers.
    """

    _attr_has_entity_name = True
    _attr_name = None

    def __init__(self, entry: ChatterboxConfigEntry, subentry: ConfigSubentry) -> None:
        """Attach the agent to its server entry and subentry."""
        super().__init__(entry.runtime_data.coordinator)
        self.entry = entry
        self.subentry = subentry
        self._attr_unique_id = subentry.subentry_id
        # JSON-heavy prompts run near 3 characters a token: starting low
        # overestimates until the server's counts calibrate it.
        self._estimator = TokenEstimator(chars_per_token=3.0)
        self._compactions: dict[str, Compaction] = {}
        # What each recent conversation started with from an earlier one.
        self._recalled: dict[str, str] = {}
        # The question each recent conversation's held calls wait on.
        self._pending: dict[str, Question] = {}
        self._loop_client: openai.AsyncOpenAI | None = None
        # The conversations with a turn under way.
        self._answering: set[str] = set()
        # Who each recent conversation belongs to: the user of its first turn,
        # set anew whenever a conversation id starts over.
        self._owners: dict[str, str | None] = {}
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, subentry.subentry_id)},
            name=subentry.title,
            manufacturer="Chatterbox",
            model=subentry.data.get(CONF_MODEL),
            entry_type=dr.DeviceEntryType.SERVICE,
        )

    @property
    def _client(self) -> openai.AsyncOpenAI:
        """Return the server's client as the loop uses it: its own retries only.

        The copy is kept: every new copy of an SDK client looks its platform up
        again, in an executor thread, on its first request.
        """
        # A server that is up accepts at once; a long wait to connect only
        # delays telling the user it cannot be reached. While the server is
        # known to be down, every turn still tries it, but waits less.
        connect = (
            CONNECT_TIMEOUT
            if self.coordinator.last_update_success
            else OFFLINE_CONNECT_TIMEOUT
        )
        timeout = openai.Timeout(REQUEST_TIMEOUT, connect=connect)
        if self._loop_client is None or self._loop_client.timeout != timeout:
            self._loop_client = self.entry.runtime_data.client.with_options(
                timeout=timeout, max_retries=0
            )
        return self._loop_client

    async def _async_handle_chat_log(
        self,
        chat_log: conversation.ChatLog,
        memory_key: str | None = None,
        structure: dict[str, Any] | None = None,
        *,
        attended: bool = True,
    ) -> None:
        """Answer the turn in the chat log, calling tools as the model asks.

        With a memory key, a new conversation starts with what the agent
        remembers under it, and each answered turn updates that memory. With a
        structure (a response_format), the answer is asked for as JSON. An
        unattended turn (an automation's) has no one to confirm with.
        """
        self._track(chat_log)
        conversation_id = chat_log.conversation_id
        if conversation_id in self._answering:
            # Home Assistant 2026.10 lets a second turn into a conversation
            # that is still answering; both would swap the chat log's tools,
            # and the first to end would leave the other's calls unguarded.
            LOGGER.info(
                "A turn came while conversation %s was answering", conversation_id
            )
            raise user_error("conversation_busy")
        self._answering.add(conversation_id)
        usage = TurnUsage()
        try:
            recalled = self._recall(chat_log, memory_key)
            await self._async_loop(
                chat_log, recalled, structure, usage, attended=attended
            )
        finally:
            self._answering.discard(conversation_id)
            usage.async_announce(self.hass, self.subentry.subentry_id)
            self.entry.runtime_data.recent_turns.append(
                usage.summary(self.subentry.subentry_id)
            )
        if memory_key is not None:
            compaction = self._compactions.get(chat_log.conversation_id)
            self.entry.runtime_data.memory.remember(
                memory_key,
                compaction.summary if compaction else None,
                chat_log.content,
            )

    def check_speaker(
        self, chat_log: conversation.ChatLog, user_id: str | None
    ) -> None:
        """Refuse a turn by someone other than the conversation's first speaker.

        Home Assistant 2026.11 refuses it itself; 2026.10 lets anyone continue
        anyone's conversation, and with it read its history and memory.
        """
        conversation_id = chat_log.conversation_id
        if is_new_conversation(chat_log.content):
            _keep_recent(self._owners, conversation_id, user_id)
        elif self._owners.get(conversation_id, user_id) != user_id:
            LOGGER.info("Another user spoke in conversation %s", conversation_id)
            raise user_error("conversation_not_yours")

    def _track(self, chat_log: conversation.ChatLog) -> None:
        """On a conversation's first turn, forget it when Home Assistant does.

        Home Assistant drops a chat log after 5 idle minutes. A custom
        conversation id may then come back with a new chat log: nothing of the
        old one may carry over, least of all a held call that a yes would run.
        """
        if not is_new_conversation(chat_log.content):
            return
        conversation_id = chat_log.conversation_id
        self._forget(conversation_id)
        session = chat_session.current_session.get()
        if session is not None and session.conversation_id == conversation_id:
            session.async_on_cleanup(partial(self._forget, conversation_id))

    @callback
    def _forget(self, conversation_id: str) -> None:
        """Drop what the agent keeps for one conversation."""
        for kept in (self._compactions, self._recalled, self._pending):
            kept.pop(conversation_id, None)

    async def _async_loop(
        self,
        chat_log: conversation.ChatLog,
        recalled: str | None,
        structure: dict[str, Any] | None,
        usage: TurnUsage,
        *,
        attended: bool,
    ) -> None:
        """Run the iterations of one turn until the model answers."""
        limit = int(self.subentry.data.get(CONF_MAX_ITERATIONS, DEFAULT_MAX_ITERATIONS))
        # Held calls live for the next turn only, whatever becomes of it.
        question = self._pending.pop(chat_log.conversation_id, None)
        with guard_tools(chat_log) as guard:
            if guard is not None:
                await self._async_guard_sensitive(
                    chat_log, guard, question, attended=attended
                )
            turn = await self._async_turn(chat_log, guard, recalled, structure)
            for iteration in range(1, limit + 1):
                left = limit - iteration
                if guard is not None and guard.answer_now:
                    # A small model would call again until the cap: minutes
                    # on a local server.
                    left = 0
                # LLM_INFERENCE
                stats = StreamStats()
                request = await self._async_request(chat_log, turn, left)
                chunks = await self._async_create(request, turn)
                # TOOL_EXECUTION starts in the chat log as each tool call is read.
                start = len(chat_log.content)
                deltas = _read(
                    chunks,
                    stats,
                    turn,
                    allow_tools=left > 0 and bool(turn.tools),
                    text_tools=_text_tool_parser(guard, turn),
                )
                await self._async_stream_into_log(chat_log, chunks, deltas)
                estimated = self._observe(request, stats, usage)
                self._trace(
                    chat_log, iteration, stats, chat_log.content[start:], estimated
                )
                # TOOL_DECISION
                if guard is not None and guard.held:
                    # RESPONSE_COMPOSITION: the agent's own question, naming
                    # every held call, is the last thing the user hears,
                    # whatever the model said before it; a yes runs exactly
                    # those calls in the next turn.
                    await _async_ask_for_yes(chat_log, self.entity_id, guard.held)
                    _keep_recent(
                        self._pending,
                        chat_log.conversation_id,
                        Question(
                            _asked(guard), len(chat_log.content), tuple(guard.held)
                        ),
                    )
                    break
                try:
                    self._check_answer(stats, turn, left, limit)
                except HomeAssistantError as err:
                    if err.translation_key == "out_of_steps":
                        raise user_error(_unfinished(chat_log, guard)) from err
                    raise
                if not chat_log.unresponded_tool_results:
                    break  # RESPONSE_COMPOSITION: the answer is in the chat log
                # RESULT_AGGREGATION: the results are in the chat log; go again.

    def _check_answer(
        self, stats: StreamStats, turn: _Turn, left: int, limit: int
    ) -> None:
        """Raise what the user hears when a response is no answer, nor calls."""
        if stats.finish_reason == "content_filter":
            LOGGER.warning("The server's content filter stopped the answer")
            raise user_error("content_filtered")
        if stats.cut_short:
            LOGGER.warning(
                "The answer ran past %s characters, the room kept for it in the "
                "context, so the rest was not read; set the agent's Maximum "
                "tokens per answer to choose the limit",
                turn.answer_chars,
            )
        elif stats.finish_reason == "length":
            LOGGER.warning(
                "The answer was cut short at the token limit; the agent's "
                "Maximum tokens per answer is %s",
                self.subentry.data.get(CONF_MAX_TOKENS) or "the server's default",
            )
        if stats.content_chars or not stats.tool_calls:
            if not stats.content_chars:
                LOGGER.warning(
                    "The model answered nothing to say (finish reason %s)",
                    stats.finish_reason,
                )
                raise user_error("empty_response")
            return
        # Only tool calls: they ran, unless none could.
        if not turn.tools:
            LOGGER.warning("The model called tools, but this agent has none")
            raise user_error("empty_response")
        if not left:
            LOGGER.warning("The model still called tools after %s tool rounds", limit)
            raise user_error("out_of_steps")

    async def _async_guard_sensitive(
        self,
        chat_log: conversation.ChatLog,
        guard: ToolGuard,
        question: Question | None,
        *,
        attended: bool,
    ) -> None:
        """Hold sensitive calls for the user's yes; run the ones they said yes to.

        The question's calls run only on a clear yes from whoever was asked,
        as the very next message after the question: a turn that another
        agent answered in between (Home Assistant's own, for a sentence it
        knows) leaves nothing to say yes to.
        """
        options = self.subentry.data
        if not options.get(CONF_CONFIRM, True):
            return
        if not attended and options.get(CONF_UNATTENDED) == UNATTENDED_ALLOW:
            return
        kinds = options.get(CONF_SENSITIVE_KINDS, DEFAULT_KINDS)
        guard.sensitive = lambda tool, args: sensitive_action(
            self.hass, tool, args, guard.llm_context, kinds
        )
        guard.unattended = not attended
        if (
            question is None
            or question.asked != _asked(guard)
            or len(chat_log.content) != question.after + 1
        ):
            return
        answer = chat_log.content[-1]
        if not isinstance(answer, conversation.UserContent) or not is_yes(
            answer.content, guard.llm_context.language
        ):
            # Not a clear yes: the calls are dropped, and a model that reaches
            # for them again in this turn is told so instead of asking again.
            guard.declined = list(question.calls)
            return
        # Exactly the calls the question named, and nothing else, run now.
        guard.confirmed = list(question.calls)
        calls = [
            llm.ToolInput(call.tool_name, dict(call.tool_args))
            for call in question.calls
        ]
        async for _result in chat_log.async_add_assistant_content(
            conversation.AssistantContent(agent_id=self.entity_id, tool_calls=calls)
        ):
            pass

    async def _async_turn(
        self,
        chat_log: conversation.ChatLog,
        guard: ToolGuard | None,
        recalled: str | None,
        structure: dict[str, Any] | None,
    ) -> _Turn:
        """Settle what every request of the turn shares."""
        # The same tools, serialized once, go out in every request of the
        # turn: identical bytes keep the server's prompt cache valid.
        tools = (
            [format_tool(tool, guard.custom_serializer) for tool in guard.tools]
            if guard is not None
            else []
        )
        return _Turn(
            tools=tools,
            recalled=recalled,
            # Only what a conversation agent says may be spoken.
            speech=self.subentry.subentry_type == SUBENTRY_CONVERSATION
            and bool(self.subentry.data.get(CONF_SPEECH, True)),
            structure=structure,
            answer_chars=self._answer_chars(),
            images=await self.hass.async_add_executor_job(
                _read_images, chat_log.content
            ),
        )

    def _answer_chars(self) -> int | None:
        """Return where a spoken answer is cut, when the agent sets no limit.

        Without max_tokens a small local model can run on, repeating itself,
        until its context is full: minutes for a voice satellite. The cut is
        at the room the context budget keeps for the answer. An AI Task's
        answer is not cut: it may be long data, and nobody is listening.
        """
        if (
            self.subentry.data.get(CONF_MAX_TOKENS)
            or self.subentry.subentry_type != SUBENTRY_CONVERSATION
        ):
            return None
        return int(DEFAULT_ANSWER_RESERVE * self._estimator.chars_per_token)

    def _observe(
        self, request: dict[str, Any], stats: StreamStats, usage: TurnUsage
    ) -> int:
        """Learn from what one request cost; return the prompt tokens estimated."""
        estimated = self._estimator.calibrate(
            request["messages"], request.get("tools", ()), stats.prompt_tokens
        )
        usage.add(stats, estimated, self._estimator.chars_per_token)
        return estimated

    def _recall(
        self, chat_log: conversation.ChatLog, memory_key: str | None
    ) -> str | None:
        """Return the memory a conversation started with, fetched on its first turn."""
        conversation_id = chat_log.conversation_id
        if memory_key is None:
            return None
        if not is_new_conversation(chat_log.content):
            return self._recalled.get(conversation_id)
        hours = float(self.subentry.data.get(CONF_MEMORY_HOURS, DEFAULT_MEMORY_HOURS))
        memory = self.entry.runtime_data.memory.recall(memory_key, hours)
        if memory is None:
            self._recalled.pop(conversation_id, None)
            return None
        # With a key, the memory option is "device" or "user": whose it is.
        recalled = render(memory, self.subentry.data[CONF_MEMORY])
        _keep_recent(self._recalled, conversation_id, recalled)
        return recalled

    def _text_tools(self) -> bool:
        """Tell whether tools go in the prompt, by the option or the probe."""
        mode = self.subentry.data.get(CONF_TOOL_MODE, TOOL_MODE_AUTO)
        if mode != TOOL_MODE_AUTO:
            return bool(mode == TOOL_MODE_TEXT)
        verdict = self.entry.runtime_data.capabilities.get(
            self.subentry.data[CONF_MODEL]
        )
        return verdict is not None and verdict.text_tools

    async def _async_request(
        self, chat_log: conversation.ChatLog, turn: _Turn, left: int
    ) -> dict[str, Any]:
        """Build the request for one iteration, inside the context budget."""
        tools = turn.tools
        text_tools = bool(tools) and self._text_tools()
        request = self._settings()
        if tools and not text_tools:
            request["tools"] = tools
            if not left:
                request["tool_choice"] = "none"
        messages = _capped(content_to_messages(chat_log.content, turn.images))
        if turn.recalled:
            # Before fitting, so the budget counts it; it stays for the whole
            # conversation, so the prompt prefix stays stable for the cache.
            _add_to_system_prompt(messages, turn.recalled)
        # Tools in the prompt cost about what they cost in the request.
        messages = await self._async_fit(chat_log.conversation_id, messages, tools)
        # Notes that are the same in every request of a conversation come first,
        # so they stay in the cached prefix.
        if turn.speech:
            # Before the instructions, not after: last before the tools, it
            # made Qwen2.5 1.5B answer the weather and the time from nothing
            # (scripts/eval: 3 of 5 such cases called their tool, against 0).
            _add_to_system_prompt(messages, SPEECH_INSTRUCTIONS, first=True)
        request["messages"] = messages
        if turn.structure is not None:
            self._ask_for_structure(request, turn.structure)
        if text_tools:
            _to_text_tools(request, tools)
        if left < WRAP_UP_ITERATIONS and tools:
            _add_note(
                request["messages"],
                WRAP_UP_NOTE.format(left=left) if left else FINAL_NOTE,
            )
        return request

    def _settings(self) -> dict[str, Any]:
        """Return the request's settings, from the agent's options."""
        options = self.subentry.data
        request: dict[str, Any] = {
            "model": options[CONF_MODEL],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        for key in (CONF_TEMPERATURE, CONF_TOP_P, CONF_MAX_TOKENS):
            if (value := options.get(key)) is not None:
                request[key] = value
        if extra := options.get(CONF_EXTRA_BODY):
            request["extra_body"] = extra
        return request

    def _ask_for_structure(
        self, request: dict[str, Any], response_format: dict[str, Any]
    ) -> None:
        """Ask for JSON: by response_format, or in words where it was refused."""
        verdict = self.entry.runtime_data.capabilities.get(request["model"])
        if verdict is not None and verdict.json_schema is False:
            _add_to_system_prompt(request["messages"], _schema_note(response_format))
        else:
            request["response_format"] = response_format

    async def _async_fit(
        self,
        conversation_id: str,
        messages: list[ChatCompletionMessageParam],
        tools: Sequence[Any],
    ) -> list[ChatCompletionMessageParam]:
        """Keep the history inside the budget, summarizing what has to go.

        The outgoing copy shrinks in blocks, so the prefix stays byte-stable for
        the server's prompt cache between blocks; the chat log keeps everything.
        """
        options = self.subentry.data
        window = int(
            options.get(CONF_CONTEXT_WINDOW)
            or self.entry.runtime_data.context_windows.get(options[CONF_MODEL])
            or DEFAULT_CONTEXT_WINDOW
        )
        reserve = int(options.get(CONF_MAX_TOKENS) or DEFAULT_ANSWER_RESERVE)
        # The estimate is calibrated, not exact: keep a margin below the window.
        budget = int((window - reserve) * BUDGET_MARGIN)
        if share := options.get(CONF_MAX_HISTORY_TOKENS):
            # The share is the conversation's: the prompt and tools come on top.
            fixed = self._estimator.estimate(messages[:1], tools)
            budget = min(budget, fixed + int(int(share) * BUDGET_MARGIN))
        state = self._compactions.get(conversation_id, Compaction())
        result = fit(
            messages,
            budget_tokens=budget,
            estimator=self._estimator,
            state=state,
            tools=tools,
        )
        if result.dropped:
            summary = await self._async_summarize(result.dropped, state.summary)
            if summary is not None:
                result = fit(
                    messages,
                    budget_tokens=budget,
                    estimator=self._estimator,
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
        _keep_recent(self._compactions, conversation_id, result.state)
        return result.messages

    async def _async_summarize(
        self, dropped: Sequence[ChatCompletionMessageParam], previous: str | None
    ) -> str | None:
        """Ask the model to fold what leaves the context into the summary."""
        try:
            response = await self._client.chat.completions.create(
                model=self.subentry.data[CONF_MODEL],
                messages=summary_request(dropped, previous),
                # It joins every later request's prompt, and may be remembered
                # for days: a model that runs on is cut short.
                max_tokens=SUMMARY_MAX_TOKENS,
                extra_body=self.subentry.data.get(CONF_EXTRA_BODY),
            )
            summary = response.choices[0].message.content
        except (openai.OpenAIError, httpx.HTTPError, AttributeError, IndexError) as err:
            # Trimming alone still keeps the turn going.
            LOGGER.debug("Could not summarize the dropped history: %s", describe(err))
            return None
        return summary.strip()[:SUMMARY_MAX_CHARS] if summary else None

    async def _async_create(
        self, request: dict[str, Any], turn: _Turn
    ) -> AsyncStream[ChatCompletionChunk]:
        """Send the request, retrying a rate limit once and a refused tool_choice.

        When the server refuses tools altogether, the request goes again with
        the tools in the prompt, and the agent stays in text mode from then on.
        """
        client = self._client
        rate_limit_retried = False
        while True:
            try:
                chunks: AsyncStream[
                    ChatCompletionChunk
                ] = await client.chat.completions.create(**request)
            except openai.RateLimitError as err:
                if rate_limit_retried or (wait := retry_after(err)) is None:
                    raise self._request_error(err, request) from err
                LOGGER.info("Rate limited; retrying in %.1f s", wait)
                rate_limit_retried = True
                await asyncio.sleep(wait)
            except openai.BadRequestError as err:
                if not self._adapt(request, turn, err):
                    raise self._request_error(err, request) from err
            except openai.OpenAIError as err:
                raise self._request_error(err, request) from err
            else:
                await self._async_check_api_stream(chunks)
                self.coordinator.async_mark_reachable()
                return chunks

    def _adapt(
        self, request: dict[str, Any], turn: _Turn, err: openai.BadRequestError
    ) -> bool:
        """Change a refused request into one the server takes; False if none."""
        if "tool_choice" in request and "tool_choice" in str(err):
            # Some servers (older vLLM, LM Studio) refuse tool_choice "none":
            # the final answer is asked for without tools.
            LOGGER.info("The server refused tool_choice; asking without tools")
            del request["tool_choice"], request["tools"]
        elif "tools" in request and self._refuses_tools(err):
            _to_text_tools(request, turn.tools)
        elif "response_format" in request and "response_format" in str(err):
            # The schema goes in the prompt, and the answer is checked after.
            LOGGER.info("The server refused a JSON schema; asking in words")
            schema = request.pop("response_format")
            _add_to_system_prompt(request["messages"], _schema_note(schema))
        else:
            return False
        return True

    async def _async_check_api_stream(
        self, chunks: AsyncStream[ChatCompletionChunk]
    ) -> None:
        """Refuse a web page where the API's stream should be."""
        if chunks.response.headers.get("content-type", "").startswith("text/html"):
            await chunks.close()
            LOGGER.warning(
                "%s answered with a web page, not an API stream; check that "
                "the URL is the API's (it usually ends in /v1)",
                without_credentials(self.entry.data[CONF_URL]),
            )
            raise user_error("server_error")

    def _refuses_tools(self, err: openai.BadRequestError) -> bool:
        """Tell whether a refusal is of tools; if so, switch to text mode."""
        text = str(err).lower()
        if "tool" not in text or self.subentry.data.get(
            CONF_TOOL_MODE, TOOL_MODE_AUTO
        ) != (TOOL_MODE_AUTO):
            return False
        model = self.subentry.data[CONF_MODEL]
        LOGGER.warning(
            "%s refused tools for %s (%s); describing them in the prompt instead",
            without_credentials(self.entry.data[CONF_URL]),
            model,
            describe(err, self.entry.data.get(CONF_API_KEY)),
        )
        capabilities = self.entry.runtime_data.capabilities
        capabilities[model] = replace(
            capabilities.get(model, Capabilities()), tools=False
        )
        async_update_tools_issue(
            self.hass, self.entry, self.subentry, tools_refused=True
        )
        return True

    def _request_error(
        self, err: openai.OpenAIError, request: dict[str, Any]
    ) -> HomeAssistantError:
        """Log why a request failed and return the error the user hears."""
        LOGGER.warning(
            "Request to %s failed: %s",
            without_credentials(self.entry.data[CONF_URL]),
            describe(err, self.entry.data.get(CONF_API_KEY)),
        )
        if isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError):
            self.entry.async_start_reauth(self.hass)
        if isinstance(err, openai.NotFoundError):
            async_model_missing(self.hass, self.entry, self.subentry)
        if isinstance(err, openai.APIConnectionError) and isinstance(
            err.__cause__, httpx.ConnectError | httpx.ConnectTimeout
        ):
            # Refused, unresolvable, unroutable or unanswered: the server is
            # gone, not slow or broken (a read timeout or a dropped connection
            # is about one request).
            self.coordinator.async_mark_unreachable(err)
        return translate_request_error(err, model=request["model"])

    async def _async_stream_into_log(
        self,
        chat_log: conversation.ChatLog,
        chunks: AsyncStream[ChatCompletionChunk],
        deltas: AsyncIterator[conversation.AssistantContentDeltaDict],
    ) -> None:
        """Stream one response into the chat log, which runs its tool calls."""
        try:
            async with chunks:
                async for _content in chat_log.async_add_delta_content_stream(
                    self.entity_id, deltas
                ):
                    pass
        except (openai.OpenAIError, httpx.HTTPError, ValueError) as err:
            # openai 3.10 lets httpx errors and bad JSON from the stream through;
            # 3.26 wraps them. Either way the answer broke off.
            failure = translate_stream_error(err)
            LOGGER.warning(
                "The answer from %s %s: %s",
                without_credentials(self.entry.data[CONF_URL]),
                "timed out" if failure.translation_key == "timeout" else "broke off",
                describe(err, self.entry.data.get(CONF_API_KEY)),
            )
            raise failure from err

    def _trace(
        self,
        chat_log: conversation.ChatLog,
        iteration: int,
        stats: StreamStats,
        added: list[conversation.Content],
        estimated_prompt_tokens: int,
    ) -> None:
        """Record what one iteration did and cost, for the Assist debug view.

        The estimate stands beside the server's prompt_tokens, so a reader can
        see how closely the budget tracks the model's tokenizer.
        """
        chat_log.async_trace(
            {
                "chatterbox_iteration": {
                    "iteration": iteration,
                    "latency": round(time.monotonic() - stats.started, 3),
                    "tools": [
                        call.tool_name
                        for item in added
                        if isinstance(item, conversation.AssistantContent)
                        for call in item.tool_calls or ()
                    ],
                    **stats.as_dict(),
                    "estimated_prompt_tokens": estimated_prompt_tokens,
                }
            }
        )


@dataclass(slots=True, kw_only=True)
class _Turn:
    """What stays the same in every request of one turn."""

    tools: list[ChatCompletionToolParam]
    recalled: str | None
    """What the conversation started with from an earlier one."""
    speech: bool
    structure: dict[str, Any] | None = None
    """The response_format an AI Task asks for."""
    answer_chars: int | None = None
    """Where an answer is cut: its characters, with tool call arguments."""
    images: dict[Path, str] = field(default_factory=dict)
    """The data URL of each image attached to the conversation."""


def _read_images(content: Sequence[conversation.Content]) -> dict[Path, str]:
    """Read the images attached to the conversation, once per turn."""
    return {
        attachment.path: url
        for item in content
        if isinstance(item, conversation.UserContent)
        for attachment in item.attachments or ()
        if (url := image_data_url(attachment)) is not None
    }


def _schema_note(response_format: dict[str, Any]) -> str:
    """Ask in words for what a refused response_format would have enforced."""
    schema = json.dumps(response_format["json_schema"]["schema"], ensure_ascii=False)
    return (
        "Answer with only a JSON object that matches this JSON schema, and "
        f"nothing else:\n{schema}"
    )


def add_per_subentry(
    entry: ChatterboxConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
    subentry_type: str,
    entity: Callable[[ChatterboxConfigEntry, ConfigSubentry], ChatterboxLLMEntity],
) -> None:
    """Add one entity for each subentry of a type, attached to its subentry."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type == subentry_type:
            async_add_entities(
                [entity(entry, subentry)], config_subentry_id=subentry.subentry_id
            )


def _read(
    chunks: AsyncStream[ChatCompletionChunk],
    stats: StreamStats,
    turn: _Turn,
    *,
    allow_tools: bool,
    text_tools: TextToolCallParser | None,
) -> AsyncIterator[conversation.AssistantContentDeltaDict]:
    """Turn a response's chunks into the chat log deltas of its message."""
    limit = turn.answer_chars
    deltas = transform_stream(
        _until_broken_after_finish(
            chunks if limit is None else _cut_at(chunks, stats, limit), stats
        ),
        stats,
        text_tools=text_tools,
        speech=SpeechFilter() if turn.speech else None,
    )
    return deltas if allow_tools else _without_tool_calls(deltas)


def _text_tool_parser(
    guard: ToolGuard | None, turn: _Turn
) -> TextToolCallParser | None:
    """Return a parser of calls written as text, which must not be read aloud.

    In text mode that is how calls come. With native tools, a server whose
    template expects another format passes the call on as text (llama.cpp
    with Qwen2.5-Coder 0.5B's bare JSON), and on the final round, told to
    answer, small models often write the call the server no longer parses.
    """
    if guard is None or not turn.tools:
        return None
    matcher = tool_name_matcher(tool["function"]["name"] for tool in turn.tools)
    return TextToolCallParser(lambda name: matcher(name) or guard.resolve(name))


def _to_text_tools(
    request: dict[str, Any], tools: list[ChatCompletionToolParam]
) -> None:
    """Move a request's tools into its prompt, and its calls into the text.

    For servers without a tool parser: their chat templates cannot render
    tool calls or tool messages either.
    """
    request.pop("tools", None)
    request.pop("tool_choice", None)
    messages = with_text_tool_calls(request["messages"])
    _add_to_system_prompt(messages, text_tool_prompt(tools))
    request["messages"] = messages


def _asked(guard: ToolGuard) -> str:
    """Say who speaks in a turn, and where: the user and the device.

    Only who was asked may say yes: on HA 2026.10 anyone may continue a
    conversation.
    """
    context = guard.llm_context.context
    user_id = context.user_id if context is not None else None
    return f"{user_id} {guard.llm_context.device_id}"


async def _async_ask_for_yes(
    chat_log: conversation.ChatLog, agent_id: str, held: Sequence[PendingCall]
) -> None:
    """End the turn with the question the held calls wait on.

    As a streamed message, so a voice pipeline that already speaks the model's
    words speaks the question after them.
    """
    actions = and_list([call.action for call in held])
    question = str(user_error("confirm_action", action=actions))

    async def deltas() -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
        yield {"role": "assistant"}
        yield {"content": question}

    async for _content in chat_log.async_add_delta_content_stream(agent_id, deltas()):
        pass


def _unfinished(chat_log: conversation.ChatLog, guard: ToolGuard | None) -> str:
    """Choose what the user hears when the model only ever called tools."""
    if _last_call_failed(chat_log):
        return "could_not"  # asking again would fail again
    if guard is not None and guard.answer_now:
        # It had what it asked for, and called for it again instead of answering.
        return "empty_response"
    return "out_of_steps"


def _last_call_failed(chat_log: conversation.ChatLog) -> bool:
    """Tell whether the turn's last tool call that ran failed.

    A refused repeat says nothing of the call: the call it repeats ran.
    """
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.ToolResultContent):
            if content.result.data.get("error") == REPEATED_CALL:
                continue
            return content.result.error
        if isinstance(content, conversation.UserContent):
            break
    return False


def _keep_recent[T](recent: dict[str, T], key: str, value: T) -> None:
    """Store a conversation's value, evicting the least recently stored ones."""
    # The newest last: re-inserting moves a key to the end of the dict.
    recent.pop(key, None)
    recent[key] = value
    while len(recent) > MAX_TRACKED_CONVERSATIONS:
        del recent[next(iter(recent))]


def _capped(
    messages: list[ChatCompletionMessageParam],
) -> list[ChatCompletionMessageParam]:
    """Shorten long tool results in what is sent; the chat log keeps them whole."""
    return [
        {**message, "content": cap_tool_result(message["content"], TOOL_RESULT_LIMIT)}
        if message["role"] == "tool" and isinstance(message["content"], str)
        else message
        for message in messages
    ]


def _add_to_system_prompt(
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
    """Add a note for this request only to its last message, a result or a question.

    At the end it leaves the prompt cache valid: in the system prompt it would
    make the server read the whole prompt again, a minute on a local model.
    A message with parts (an image) takes it in the system prompt instead.
    """
    last = messages[-1]
    content = last.get("content")
    if last["role"] in {"tool", "user"} and isinstance(content, str):
        messages[-1] = cast(
            "ChatCompletionMessageParam", {**last, "content": f"{content}\n\n{note}"}
        )
    else:
        _add_to_system_prompt(messages, note)


async def _cut_at(
    chunks: AsyncStream[ChatCompletionChunk], stats: StreamStats, limit: int
) -> AsyncGenerator[ChatCompletionChunk]:
    """Pass chunks on until the answer and its calls outgrow the limit.

    The caller then closes the stream, and the server stops writing: llama.cpp,
    Ollama and vLLM cancel a request whose client went away. Reasoning does
    not count: a thinking model may think at length before a short answer.
    """
    written = 0
    async for chunk in chunks:
        yield chunk
        for choice in chunk.choices:
            delta = delta_of(choice)
            written += len(delta.content or "")
            for call in delta.tool_calls or ():
                written += len(call.function.arguments or "") if call.function else 0
        if written > limit:
            stats.cut_short = True
            return


async def _until_broken_after_finish(
    chunks: AsyncIterator[ChatCompletionChunk], stats: StreamStats
) -> AsyncGenerator[ChatCompletionChunk]:
    """Pass chunks on; a connection lost after the finish reason ends them quietly.

    Only the usage chunk and [DONE] follow the finish reason, so the answer is
    complete: failing the turn would make the user repeat an action that ran.
    """
    try:
        async for chunk in chunks:
            yield chunk
    except (openai.OpenAIError, httpx.HTTPError, ValueError) as err:
        if stats.finish_reason is None:
            raise
        LOGGER.info("The stream broke off after the answer was complete: %r", err)


async def _without_tool_calls(
    deltas: AsyncIterator[conversation.AssistantContentDeltaDict],
) -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
    """Drop tool calls the model may not make.

    In the final answer of a turn (its server ignored tool_choice), or from an
    agent without tools.
    """
    async for delta in deltas:
        if "tool_calls" in delta:
            LOGGER.info("Ignoring tool calls: none can run in this answer")
            delta = {k: v for k, v in delta.items() if k != "tool_calls"}  # type: ignore[assignment]  # noqa: PLW2901
            if not delta:
                continue
        yield delta
