"""RECEIVE_INPUT: what a turn settles before its first request, as one value.

Two kinds of question meet here, each with its own name: the agent's own
question of the turn before, which this message may answer ("Do you want me
to unlock the front door?": `pending`); and the user's question about the
home ("Is the door locked?": `state_question`).
"""

from dataclasses import dataclass, replace
from typing import Any

from homeassistant.components import conversation

from ..const import CONF_DEVICE_LIST_SHARE, DEFAULT_DEVICE_LIST_SHARE
from ..context.mentions import Mentions
from ..context.message import read_message
from ..context.overview import Overview, overview_for
from ..context.turn_mentions import turn_mentions
from ..skills.finder import FindDevicesTool
from ..tools.command import Command, command_for
from ..tools.confirm import Confirmation, Question, confirmation_for
from ..tools.intents import async_recognize
from ..tools.own import SkillTool
from ..tools.questions import StateQuestion, async_state_question_for
from ..tools.scope import Scope, turn_scope
from ..tools.statements import StateWords, async_state_words
from .request import context_window, tools_in_prompt
from .stage import Stage


@dataclass(frozen=True, slots=True)
class Plan:
    """What a turn is, and what its calls and its answer are held to."""

    pending: Question | None
    """The agent's question of the turn before, which this message answers."""
    confirmation: Confirmation | None
    """The calls a yes runs now, and how this turn asks before sensitive ones."""
    state_question: StateQuestion | None
    """The message asks how the home is: a call that would change it waits."""
    mentions: Mentions
    """What the message names, or refers back to."""
    command: Command | None
    """What the answer is held to; None for an AI Task's data."""
    overview: Overview | None
    """The home's overview, when its device list is too long for the window."""
    scope: Scope | None
    """What a change may reach: what the words named."""
    own_tools: tuple[SkillTool, ...]
    """The agent's own tools for the turn: the search of a large home."""
    state_words: StateWords | None
    """Home Assistant's names of states and kinds, in the turn's language: what
    the answers say of the home is read in them; None for an AI Task's data."""


async def async_prepare(
    stage: Stage,
    chat_log: conversation.ChatLog,
    *,
    structure: dict[str, Any] | None,
    attended: bool,
    language: str,
) -> Plan:
    """Read the user's message in the chat log once, for the whole turn.

    In the turn's language, which the user's input gives: Home Assistant
    gives the API's context none for an AI Task.
    """
    # A home too large to list gets an overview, and the tool to find the rest
    # when the server reads calls natively (see home_overview below).
    overview = home_overview(stage, chat_log)
    hass = stage.hass
    options = stage.options
    # A question asked in the turn before lives for this turn only, whatever
    # becomes of it.
    pending = stage.conversations.pending.pop(chat_log.conversation_id, None)
    confirmation = confirmation_for(
        hass, options, chat_log, pending, language, attended=attended
    )
    message = read_message(chat_log)
    # An answer to the agent's own question ("Do it") asks nothing; an
    # answer to the model's own question (no calls held) is read as any
    # message is.
    answers = pending is not None and bool(pending.calls)
    state_question = (
        None
        if answers
        else await async_state_question_for(hass, options, message, language)
    )
    # A request for a change may refer back ("turn it off again").
    mentions = turn_mentions(
        hass, message, language, request=not answers and state_question is None
    )
    # An AI Task's answer is data, not a claim to check.
    checked = stage.conversational and structure is None
    words = await async_state_words(hass, language) if checked else None
    command = (
        command_for(
            hass,
            options,
            message,
            mentions,
            language,
            question=bool(state_question),
            words=words,
        )
        if checked
        else None
    )
    if (
        command is not None
        and command.question
        and mentions.in_areas
        and not mentions.named
        and message is not None
    ):
        # A question that names a room, not a device, is about the room's
        # devices only when Home Assistant's sentences read it so ("how
        # warm is the living room?"), not "what humidity suits a bedroom?".
        recognized = (
            state_question.recognized
            if state_question is not None and state_question.recognized
            else await async_recognize(hass, message.text, message.api.llm_context)
        )
        if not recognized.reads:
            command = replace(command, asked_about=())
    return Plan(
        pending,
        confirmation,
        state_question,
        mentions,
        command,
        overview,
        # A change to what the words did not name is refused (tools/scope.py).
        turn_scope(hass, options, message, mentions, language),
        (FindDevicesTool(),) if overview is not None and overview.search else (),
        words,
    )


def home_overview(stage: Stage, chat_log: conversation.ChatLog) -> Overview | None:
    """Return the prompt with the home's overview, when its device list is too long.

    Decided from the list, the window and the tool mode alone, so every turn
    of a conversation decides the same and sends the same system prompt.
    With tools in the prompt, the search is not offered: in the tool list of
    a text-mode prompt, small models called the weather and time tools less
    often, wrote results themselves, or answered without a call. There,
    Home Assistant's GetLiveContext, with its name, area and domain
    filters, finds what a request does not name.
    """
    system = chat_log.content[0] if chat_log.content else None
    if not isinstance(system, conversation.SystemContent):
        return None
    share = stage.options.get(CONF_DEVICE_LIST_SHARE) or DEFAULT_DEVICE_LIST_SHARE
    overview = overview_for(
        stage.hass,
        system.content,
        window=context_window(stage),
        share=int(share),
        search=not tools_in_prompt(stage),
    )
    if overview is not None:
        chat_log.async_trace(
            {
                "chatterbox_home_overview": {
                    "entities": overview.entities,
                    "tokens": overview.tokens,
                    "limit": overview.limit,
                }
            }
        )
    return overview
