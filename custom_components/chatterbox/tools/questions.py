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
as a request for a change is not. Our words alone never refuse a call: a
request in a form they read as a question ("do you think you could…") would
be refused. So the first call that would change something asks Home
Assistant's sentences, once a turn, and only a message they read as a
question about the home refuses it; where they read nothing, the model's
call stands.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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

    async def async_review(
        self,
        tool: llm.Tool,
        tool_args: Mapping[str, Any],
        context: llm.LLMContext,
        *,
        sensitive: bool = False,
    ) -> llm.ToolResult | None:
        """Return why a call may not run in answer to the question, or None.

        When Home Assistant's own sentences read the message as a question
        about the home. Our words alone refuse only a sensitive call, which
        would otherwise be held for a yes: the user who asked whether the
        door is locked is not asked whether to unlock it.
        """
        if only_reads(tool):
            return None
        reached = reach(self.hass, tool, tool_args, context)
        if reached is not None and not reached.direct:
            return None  # a calculator, a timer: nothing in the home changes
        if not sensitive:
            if self.recognized is None:
                self.recognized = await async_recognize(self.hass, self.text, context)
            if not self.recognized.reads:
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
