"""A question about the home is answered, not acted on.

Small models answer "is the front door locked?" by calling the lock's tools.
When everything the user said is a question about a state, a call that would
change something is refused before it runs (and before any question about
confirmation), with the current states of what the call would reach, and the
model is asked for its answer.

Whether the user's words ask (lang/questions.py) is read first; where they
are unsure (a question mark alone, a language without words of ours),
Home Assistant's own sentences are asked (intents.py): a message they read as
a question about the home is one ("Er hoveddøren låst?"), and one they read
as a request for a change is not. A question our words read is still
asked of Home Assistant's sentences before a call that would change
something is refused: a request in a polite form our words take for a
question ("do you think you could switch on the pump?") holds a sentence
Home Assistant reads as a request, and the call runs. A question with no
request in it, or one Home Assistant reads as a question, changes nothing.
"""

from collections.abc import Mapping
from dataclasses import dataclass
import re
from typing import Any, Final

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import CONF_ANSWER_QUESTIONS
from ..context.in_view import describe_state
from ..context.mentions import mentions_in
from ..context.message import Message
from ..lang.questions import read_question
from ..prompts import QUESTION_NOT_COMMAND
from .intents import Recognized, async_recognize
from .outcomes import only_reads
from .own import error_result
from .targets import reach

# Where a request may start after the words that make it polite ("would you
# mind", "do you think you could", "czy mógłbyś"): the first few words.
MAX_REQUEST_STARTS: Final = 6
_WORD: Final = re.compile(r"\w+")


async def async_state_question_for(
    hass: HomeAssistant,
    options: Mapping[str, Any],
    message: Message | None,
    language: str,
) -> StateQuestion | None:
    """Return the turn's question about the home; None when it asks for more."""
    if message is None or not options.get(CONF_ANSWER_QUESTIONS, True):
        return None
    question, sure = read_question(message.clauses, language)
    # Home Assistant's sentences cost a few milliseconds a message; they are
    # asked where our words are unsure (a question mark alone, a language we
    # have no words for) about something in the home, as a question about a
    # state names what it asks about.
    recognized = None
    if not sure and mentions_in(hass, message.words, language=language):
        recognized = await async_recognize(hass, message.text, message.api.llm_context)
        question = recognized.reads or (question and not recognized.changes)
    return StateQuestion(hass, message.text, recognized) if question else None


@dataclass(slots=True)
class StateQuestion:
    """The turn's question about the home: calls that would change it wait."""

    hass: HomeAssistant
    text: str
    """The user's message, for Home Assistant's sentences."""
    recognized: Recognized | None = None
    """What Home Assistant's sentences read in it, once asked."""
    request: bool | None = None
    """Whether they find a request in it, once asked."""

    async def async_review(
        self,
        tool: llm.Tool,
        tool_args: Mapping[str, Any],
        context: llm.LLMContext,
        *,
        sensitive: bool = False,
    ) -> llm.ToolResult | None:
        """Return why a call may not run in answer to the question, or None.

        A sensitive call is refused at once: the user who asked whether the
        door is locked is not asked whether to unlock it. Any other runs when
        Home Assistant's own sentences find a request in the message: the
        whole of it, or what follows its first words ("do you think you
        could | switch on the pump"), as a polite request in any language
        puts it. A question they read, or one with no request in it, is
        refused.
        """
        if only_reads(tool):
            return None
        reached = reach(self.hass, tool, tool_args, context)
        if reached is not None and not reached.direct:
            return None  # a calculator, a timer: nothing in the home changes
        if not sensitive and await self._async_asks_for_a_change(context):
            return None
        # Only what Assist may see: an action's ids may name any entity.
        states = [
            describe_state(self.hass, state)
            for entity_id in sorted(reached.direct if reached else ())
            if async_should_expose(self.hass, conversation.DOMAIN, entity_id)
            and (state := self.hass.states.get(entity_id)) is not None
        ]
        trace.async_conversation_trace_append(
            trace.ConversationTraceEventType.AGENT_DETAIL,
            {"chatterbox_question_not_command": {"tool": tool.name, "states": states}},
        )
        return error_result(
            "QuestionNotCommand",
            QUESTION_NOT_COMMAND.format(states="; ".join(states) or "unknown"),
        )

    async def _async_asks_for_a_change(self, context: llm.LLMContext) -> bool:
        """Tell whether Home Assistant's sentences find a request in the message.

        Asked once a turn, and only when a call would change something in
        answer to what our words read as a question: at most
        MAX_REQUEST_STARTS + 1 recognitions of a few milliseconds.
        """
        if self.request is not None:
            return self.request
        if self.recognized is None:
            self.recognized = await async_recognize(self.hass, self.text, context)
        self.request = self.recognized.changes
        if not self.recognized.reads and not self.request:
            starts = [match.start() for match in _WORD.finditer(self.text)]
            for start in starts[1 : MAX_REQUEST_STARTS + 1]:
                found = await async_recognize(self.hass, self.text[start:], context)
                if found.changes:
                    self.request = True
                    break
        return self.request
