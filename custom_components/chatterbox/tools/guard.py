"""Run a turn's tool calls so that every one ends in a result the model can use."""

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
import json
from typing import Any, Final, TypeGuard, override

import probatio

from homeassistant.components import conversation
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import area_registry as ar, llm

from ..const import LOGGER
from ..prompts import (
    FAILED,
    REPEATED,
    TIMED_OUT,
    TURN_ENDED,
    UNKNOWN_TOOL,
    UNREADABLE_ARGUMENTS,
)
from ..wire.arguments import (
    UnreadableCall,
    by_area,
    drop_unmeant_arguments,
    without_missing_places,
    without_record_details,
)
from ..wire.schema import format_tool, without_long_lists
from .confirm import Confirmation, PendingCall, Refusal
from .names import tool_resolver
from .outcomes import Outcomes, not_there, only_reads
from .own import SkillTool, error_result
from .questions import StateQuestion
from .scope import Scope

# How long one tool may run before the model is told it hung.
TOOL_TIMEOUT: Final = 30.0
# The same tool with the same arguments runs once in a turn: a repeat would
# read the same state or fail the same way. Only a call that timed out is
# tried again, up to this often in all.
MAX_IDENTICAL_CALLS: Final = 2
# After this many failed calls in a turn the model is asked for its answer: a
# small model tries name after name for a device that is not there, while a
# person at a voice satellite waits for any answer.
MAX_FAILED_CALLS: Final = 3
# The error of a call refused because it repeats one that ran already.
REPEATED_CALL: Final = "RepeatedCall"
TIMEOUT: Final = "Timeout"
# Home Assistant's intents found no device by the arguments given.
NO_MATCH: Final = "MatchFailedError"
# What makes two calls the same: the tool's name, and its arguments as JSON.
type CallKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class ToolTally:
    """What the turn's tool calls have come to so far."""

    held: tuple[PendingCall, ...] = ()
    """The sensitive calls held back for the user's yes."""
    answer_now: bool = False
    """The next request asks for the answer, without tools: a call was refused
    as a repeat, or acted again only on what was acted on (the model goes
    round in circles), calls failed MAX_FAILED_CALLS times, or a sensitive
    call was refused for good."""
    missing: tuple[str, ...] = ()
    """What the turn's calls named that the home does not have, as named."""
    acted: bool = False
    """A call that may change something ran without an error."""
    acted_on: frozenset[str] | None = frozenset()
    """The entities such calls reached; None when one's reach is unknown."""
    values: frozenset[float] = frozenset()
    """The numbers such calls ran with."""
    refused: bool = False
    """A call that would change something was refused: the question or the
    request's scope. An answer that says it was done is then held to the
    calls, as after any request."""


class ToolGuard(llm.APIInstance):
    """An LLM API instance whose tool calls never raise.

    The chat log only turns HomeAssistantError and probatio.Invalid into error
    results; anything else would end the turn. Here every failure (bad
    arguments, an unknown tool, a repeat, a hang, any exception) becomes an
    error result that says what to do next.
    """

    def __init__(  # noqa: PLR0913  # the turn's policies, each a separate input
        self,
        inner: llm.APIInstance,
        confirmation: Confirmation | None,
        state_question: StateQuestion | None = None,
        own: Sequence[SkillTool] = (),
        scope: Scope | None = None,
        *,
        guide: bool = True,
    ) -> None:
        """Wrap the API instance the chat log was given for this turn.

        Its own tools are Chatterbox's for this turn only (the device search
        of a large home), run here: an API's tools would be named in every
        prompt Home Assistant writes for it. Guide: the turn guides a small
        model, whose call that matched nothing is tried again by area.
        """
        super().__init__(
            api=inner.api,
            api_prompt=inner.api_prompt,
            llm_context=inner.llm_context,
            tools=[*inner.tools, *own],
            custom_serializer=inner.custom_serializer,
        )
        self.inner = inner
        self._own = {tool.name: tool for tool in own}
        self.confirmation = confirmation
        """The turn's sensitive-action policy; None lets every call run."""
        self.state_question = state_question
        """The turn's question about the home, which no call may change."""
        self.scope = scope
        """What the request names: a change elsewhere is refused."""
        self.guide = guide
        """The turn guides a small model: a call that matched nothing is
        tried again by area, without missing places or record details."""
        # Formatted once: the same bytes go out in every request of the turn,
        # and each call's arguments are checked against its parameters.
        full = [format_tool(tool, self.custom_serializer) for tool in self.tools]
        self.specs = [without_long_lists(spec) for spec in full]
        self._by_name = {tool.name: tool for tool in self.tools}
        self._parameters = {
            spec["function"]["name"]: dict(spec["function"].get("parameters", {}))
            for spec in full
        }
        self.resolve = tool_resolver(tool.name for tool in self.tools)
        self._answer_now = False
        self._calls: Counter[CallKey] = Counter()
        self._timed_out: set[CallKey] = set()
        self._reads: set[CallKey] = set()
        self._failures = 0
        self._refused = False
        self._outcomes = Outcomes(inner.api.hass, inner.llm_context)
        self._running: set[asyncio.Task[Any]] = set()
        self._changing: set[asyncio.Task[Any]] = set()
        self._closed = False

    @override
    async def async_call_tool(self, tool_input: llm.ToolInput) -> llm.ToolResult:
        """Call a tool, answering every failure with an error result."""
        result = await self._async_call(tool_input)
        if result.error:
            self._failures += 1
            if self._failures >= MAX_FAILED_CALLS:
                self._answer_now = True
        return result

    def tally(self) -> ToolTally:
        """Say what the turn's calls have come to so far."""
        held = self.confirmation.held if self.confirmation is not None else ()
        outcomes = self._outcomes
        return ToolTally(
            tuple(held),
            answer_now=self._answer_now or outcomes.redone,
            missing=tuple(outcomes.missing),
            acted=outcomes.acted,
            values=frozenset(outcomes.values),
            refused=self._refused,
            acted_on=None
            if outcomes.acted_on is None
            else frozenset(outcomes.acted_on),
        )

    async def _async_call(self, tool_input: llm.ToolInput) -> llm.ToolResult:
        """Check a call, then run it."""
        name = tool_input.tool_name
        if self._closed:
            return error_result("TurnEnded", TURN_ENDED)
        if isinstance(tool_input, UnreadableCall):
            return error_result(
                "InvalidArguments",
                UNREADABLE_ARGUMENTS.format(name=name, problem=tool_input.problem),
            )
        if (resolved := self.resolve(name)) is None:
            available = ", ".join(tool.name for tool in self.tools)
            return error_result(
                "UnknownTool",
                UNKNOWN_TOOL.format(name=name, available=available),
            )
        if resolved != name:
            tool_input = replace(tool_input, tool_name=resolved)
        tool_input = self._without_unmeant_arguments(tool_input)
        tool = self._by_name[resolved]
        key = (resolved, json.dumps(tool_input.tool_args, sort_keys=True, default=str))
        for _entry, review in POLICY:
            if (refusal := await review(self, tool, tool_input, key)) is not None:
                self._answer_now |= refusal.final
                return refusal.result
        self._calls[key] += 1
        return await self._async_run_once(key, tool_input)

    async def _async_repeat(
        self, tool: llm.Tool, _tool_input: llm.ToolInput, key: CallKey
    ) -> Refusal | None:
        """Refuse a call made already in the turn, but one that timed out."""
        if (made := self._calls[key]) and (
            key not in self._timed_out or made >= MAX_IDENTICAL_CALLS
        ):
            return Refusal(
                error_result(REPEATED_CALL, REPEATED.format(name=tool.name)),
                final=True,
            )
        return None

    async def _async_question(
        self, tool: llm.Tool, tool_input: llm.ToolInput, _key: CallKey
    ) -> Refusal | None:
        """Refuse a change in answer to a question: it is answered, not acted on."""
        confirmation = self.confirmation
        if self.state_question is not None and (
            refused := await self.state_question.async_review(
                tool,
                tool_input.tool_args,
                self.llm_context,
                sensitive=confirmation is not None
                and confirmation.sensitive(tool, tool_input.tool_args) is not None,
            )
        ):
            self._refused = True
            return Refusal(refused, final=True)
        return None

    async def _async_scope(
        self, tool: llm.Tool, tool_input: llm.ToolInput, _key: CallKey
    ) -> Refusal | None:
        """Refuse a change the request did not ask for; what a yes answered runs."""
        if (
            self.scope is not None
            and not (self.confirmation and self.confirmation.said_yes_to(tool_input))
            and (
                refused := self.scope.review(
                    tool,
                    tool_input.tool_args,
                    self._outcomes.reach_of(tool, tool_input.tool_args),
                )
            )
        ):
            self._refused = True
            return Refusal(refused, final=False)
        return None

    async def _async_sensitive(
        self, tool: llm.Tool, tool_input: llm.ToolInput, _key: CallKey
    ) -> Refusal | None:
        """Hold a sensitive call for the user's yes, or run what the yes answered."""
        if self.confirmation is not None:
            return self.confirmation.review(tool, tool_input)
        return None

    async def _async_run_once(
        self, key: CallKey, tool_input: llm.ToolInput
    ) -> llm.ToolResult:
        """Run a call that is no repeat; retry a room's devices named as one."""
        tool = self._by_name[tool_input.tool_name]
        reached = self._outcomes.reach_of(tool, tool_input.tool_args)
        reads = only_reads(tool)
        result, unmatched = await self._async_run(tool_input, reads=reads)
        if result.data.get("error") == TIMEOUT:
            self._timed_out.add(key)
        else:
            self._timed_out.discard(key)
        # An intent's failed match, or a read's (GetLiveContext words its own),
        # for a small model: a capable one reads the error and chooses.
        if (
            self.guide
            and (result.data.get("error") == NO_MATCH or (reads and result.error))
        ) and (
            meant := by_area(
                tool_input.tool_args,
                self._area_names(),
                self.llm_context.language or "en",
                reads=reads,
            )
            or without_missing_places(tool_input.tool_args, unmatched)
            or without_record_details(tool_input.tool_args)
        ):
            LOGGER.debug(
                "Nothing matched %s: calling %s with %s instead",
                tool_input.tool_args,
                tool_input.tool_name,
                meant,
            )
            retried = await self._async_call(replace(tool_input, tool_args=meant))
            if not retried.error:
                return retried
        self._outcomes.add(tool_input, tool, reached, result, unmatched)
        if not reads and not result.error:
            # A read after a change may read something new: the model that
            # checks its work ("is it on now?") reads again, once.
            for made in [made for made in self._calls if made in self._reads]:
                del self._calls[made]
        elif reads:
            self._reads.add(key)
        return result

    def _area_names(self) -> list[str]:
        """Return the name and aliases of every area."""
        return [
            name
            for area in ar.async_get(self.api.hass).async_list_areas()
            for name in (area.name, *sorted(area.aliases))
        ]

    def _without_unmeant_arguments(self, tool_input: llm.ToolInput) -> llm.ToolInput:
        """Drop what a model filled in without meaning: empty or copied whole."""
        name = tool_input.tool_name
        arguments, dropped = drop_unmeant_arguments(
            tool_input.tool_args, self._parameters[name]
        )
        if not dropped:
            return tool_input
        LOGGER.debug(
            "Dropped %s from a call to %s: empty, or naming every value allowed, "
            "or one not allowed beside a name",
            ", ".join(dropped),
            name,
        )
        return replace(tool_input, tool_args=arguments)

    async def _async_run(
        self, tool_input: llm.ToolInput, *, reads: bool
    ) -> tuple[llm.ToolResult, list[str]]:
        """Run the tool with a time limit, catching whatever it raises.

        Return its result, and what a failed match asked for that does not
        exist. A call that only reads waits for the changes running beside it.
        """
        name = tool_input.tool_name
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
            if not reads:
                self._changing.add(task)
        try:
            # Home Assistant runs the calls of a response at once: a read made
            # beside a change ("open the blind, then check it is open")
            # waits for it, and reports the home as the change left it. Each
            # change has its own time limit.
            if reads and (changing := self._changing - {task}):
                await asyncio.wait(changing)
            async with asyncio.timeout(TOOL_TIMEOUT):
                if (tool := self._own.get(name)) is not None:
                    result = await tool.async_call(
                        self.api.hass, tool_input, self.llm_context
                    )
                    return result, []
                return await self.inner.async_call_tool(tool_input), []
        except TimeoutError:
            LOGGER.warning("Tool %s did not answer within %s s", name, TOOL_TIMEOUT)
            return error_result(
                TIMEOUT,
                TIMED_OUT.format(name=name, seconds=TOOL_TIMEOUT),
            ), []
        except (HomeAssistantError, probatio.Invalid) as err:
            LOGGER.debug("Tool %s refused: %s", name, err)
            return error_result(
                type(err).__name__, str(err) or FAILED.format(name=name)
            ), not_there(err)
        except Exception as err:  # noqa: BLE001  # nothing a tool raises may end the turn
            LOGGER.warning(
                "Tool %s failed: %s: %s", name, type(err).__name__, err, exc_info=True
            )
            return error_result(
                type(err).__name__, str(err) or FAILED.format(name=name)
            ), []
        finally:
            if task is not None:
                self._running.discard(task)
                self._changing.discard(task)

    def close(self) -> None:
        """End the turn: cancel the tools still running, refuse new calls."""
        self._closed = True
        for task in self._running:
            task.cancel()


type Review = Callable[
    [ToolGuard, llm.Tool, llm.ToolInput, CallKey], Awaitable[Refusal | None]
]

# The call policy, in the order it is read: the first entry that refuses or
# holds a call decides, and the call does not run. docs/checks.md has its
# table (tests/test_checks_table.py holds the two to each other).
POLICY: Final[tuple[tuple[str, Review], ...]] = (
    ("repeat", ToolGuard._async_repeat),  # noqa: SLF001  # the guard's own
    ("question", ToolGuard._async_question),  # noqa: SLF001
    ("scope", ToolGuard._async_scope),  # noqa: SLF001
    ("sensitive", ToolGuard._async_sensitive),  # noqa: SLF001
)


@contextmanager
def guard_tools(  # noqa: PLR0913  # the turn's policies, each a separate input
    chat_log: conversation.ChatLog,
    confirmation: Confirmation | None,
    state_question: StateQuestion | None = None,
    *,
    own: Sequence[SkillTool] = (),
    scope: Scope | None = None,
    guide: bool = True,
) -> Iterator[ToolGuard | None]:
    """Let the chat log run this turn's tools through a guard.

    The chat log keeps its API instance between turns (2026.11 reuses it so the
    prompt stays cacheable), so the original goes back when the turn ends.
    """
    if (inner := chat_log.llm_api) is None:
        yield None
        return
    guard = ToolGuard(inner, confirmation, state_question, own, scope, guide=guide)
    chat_log.llm_api = guard
    try:
        yield guard
    finally:
        guard.close()
        chat_log.llm_api = inner


def refused_repeats(content: Iterable[conversation.Content]) -> frozenset[str]:
    """Return the ids of the calls refused as repeats, which the model is not shown.

    A small model that reads its repeat and the refusal calls the same tool
    once more, even when told to answer: it copies the pattern in front of it.
    Without them, the conversation ends on the result the repeat asked for
    again, and the model answers from it. The chat log keeps them.
    """
    return frozenset(item.tool_call_id for item in content if refused_repeat(item))


def refused_repeat(
    content: conversation.Content,
) -> TypeGuard[conversation.ToolResultContent]:
    """Tell whether a message is the refusal of a call that repeats one that ran."""
    return (
        isinstance(content, conversation.ToolResultContent)
        and content.result.error
        and content.result.data.get("error") == REPEATED_CALL
    )
