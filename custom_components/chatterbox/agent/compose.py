"""RESPONSE_COMPOSITION: what the user hears of the way a turn ended.

The model's answer stands when the turn was answered. Otherwise the agent
says its own sentence, in the conversation's language, as the last message
of the chat log (the model's words stay in the history before it), or
raises the error the user hears.
"""

from typing import assert_never

from homeassistant.components import conversation

from ..const import CONF_ANSWER_NOT_FOUND
from ..context.in_view import async_said_states
from ..phrases import async_say_phrase
from ..server.errors import user_error
from ..tools.confirm import Question, async_ask_for_yes
from .outcome import (
    Answered,
    AskUser,
    Ending,
    Fail,
    NotFound,
    NothingDone,
    NotRead,
    StatesAnswer,
)
from .plan import Plan
from .stage import Stage
from .turn import keep_recent


async def async_compose(  # noqa: C901  # one case for each way a turn ends
    stage: Stage,
    chat_log: conversation.ChatLog,
    ending: Ending,
    plan: Plan,
    language: str,
) -> None:
    """End the turn as the decision says, or raise the error the user hears."""
    match ending:
        case Answered(said) if said:
            # The chat log ends on the refusals of the round's repeats. Not
            # streamed: a voice pipeline spoke these words as they came.
            chat_log.async_add_assistant_content_without_tools(
                conversation.AssistantContent(agent_id=stage.agent_id, content=said)
            )
            _keep_models_question(stage, chat_log, plan)
        case Answered():
            # The model's answer is the chat log's last message.
            _keep_models_question(stage, chat_log, plan)
        case AskUser():
            # Only a turn with a confirmation holds calls (tools/guard.py).
            if plan.confirmation is not None:
                # The agent's own question, naming every held call, is the
                # last thing the user hears, whatever the model said before.
                keep_recent(
                    stage.conversations.pending,
                    chat_log.conversation_id,
                    await async_ask_for_yes(
                        chat_log, stage.agent_id, plan.confirmation, language
                    ),
                )
        case NotFound(names) if stage.options.get(CONF_ANSWER_NOT_FOUND, True):
            # Not an error: the home has no such device.
            chat_log.async_trace({"chatterbox_not_found": {"names": list(names)}})
            await async_say_phrase(
                chat_log, stage.agent_id, language, "not_found", names=", ".join(names)
            )
        case NotFound():
            raise user_error("could_not")
        case StatesAnswer(entity_ids):
            chat_log.async_trace(
                {"chatterbox_states_answer": {"entities": list(entity_ids)}}
            )
            states = await async_said_states(stage.hass, entity_ids, language)
            await async_say_phrase(
                chat_log, stage.agent_id, language, "states_now", states=states
            )
        case NothingDone():
            # The model's claim stays in the history; the last words say that
            # it was not so.
            await async_say_phrase(chat_log, stage.agent_id, language, "nothing_done")
        case NotRead():
            await async_say_phrase(chat_log, stage.agent_id, language, "not_read")
        case Fail(key):
            raise user_error(key)
        case _:
            assert_never(ending)


def _keep_models_question(
    stage: Stage, chat_log: conversation.ChatLog, plan: Plan
) -> None:
    """Keep the model's answer when it asks the user, for a yes to it.

    A model that asks before a sensitive action ("Shall I unlock the front
    door?") is answered by the next message: a clear yes lets the action
    it names run then (tools/confirm.py).
    """
    confirmation = plan.confirmation
    last = chat_log.content[-1] if chat_log.content else None
    if (
        confirmation is None
        or confirmation.unattended
        or not isinstance(last, conversation.AssistantContent)
        or not (said := last.content or "").rstrip().endswith(("?", "\uff1f"))
    ):
        return
    keep_recent(
        stage.conversations.pending,
        chat_log.conversation_id,
        Question(confirmation.asked, len(chat_log.content), (), said),
    )
