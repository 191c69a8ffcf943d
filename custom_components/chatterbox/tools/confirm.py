"""Hold sensitive calls for the user's yes, ask for it, and run what was said yes to.

A turn whose model reaches for a sensitive call ends with the agent's own
question, naming every held call. The question is answered only by the very
next message in the conversation, from whoever was asked: a clear yes runs
exactly the held calls, once each, before the model is asked anything; any
other answer drops them, and a model that reaches for one again in that turn
is told it was declined.

A model that asks first ("Shall I unlock the front door?") has asked the
same question: a clear yes to it lets the action it names run in the next
turn, once, without the agent asking again. The model's question must name
the device (by a name Home Assistant knows) and the action's verb, in the
conversation's language or in English; otherwise the agent asks its own.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
import re
from typing import Any, Final

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import (
    CONF_CONFIRM,
    CONF_SENSITIVE_KINDS,
    CONF_UNATTENDED,
    UNATTENDED_ALLOW,
)
from ..context.mentions import Sentence, find_mentions
from ..lang import words_of
from ..lang.answers import is_yes
from ..lang.text import sentences, words_in
from ..lang.wording import Action, say_all
from ..phrases import async_say_phrase
from ..prompts import CONFIRMATION_NEEDED, DECLINED, NOT_ALLOWED
from .own import error_result
from .sensitive import DEFAULT_KINDS, sensitive_action

# The ending of a Romance infinitive (aprire, abrir, ouvrir): without it, the
# stem every form of the verb starts with, "apra" and "apriamo" as "aprire".
_INFINITIVE: Final = re.compile(r"(?<=\w\w\w)[aeiouéè]re?$")
# The most letters a form of a verb has after its stem ("desbloqueemos").
_FORM_ENDING: Final = 4
# The verb of the action that undoes another's.
_UNDONE_BY: Final = {
    "lock": "unlock",
    "unlock": "lock",
    "open": "close",
    "close": "open",
    "turn on": "turn off",
    "turn off": "turn on",
}


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A sensitive call held back until the user says yes."""

    tool_name: str
    tool_args: Mapping[str, Any]
    action: Action
    """What it would do, such as unlock Front door."""


@dataclass(frozen=True, slots=True)
class Question:
    """The question that held calls wait on."""

    asked: str
    """Who was asked, and where: only they may answer."""
    after: int
    """The chat log's length once asked: only the very next message answers."""
    calls: tuple[PendingCall, ...]
    """What a yes runs, exactly as the question named it."""
    said: str = ""
    """The model's own question, when it asked before acting: a yes lets
    the actions it names run."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A sensitive call that does not run now, and what the model is told."""

    result: llm.ToolResult
    final: bool
    """Calling again cannot help: the next request asks for the answer."""


@dataclass(slots=True)
class Confirmation:
    """The sensitive-action policy of one turn, and the calls it holds."""

    sensitive: Callable[[llm.Tool, Mapping[str, Any]], Action | None]
    """Say what a call needing the user's yes would do; None if it needs none."""
    asked: str
    """Who speaks in this turn, and where: who a question would ask."""
    unattended: bool
    """No person is there to say yes: sensitive calls are refused."""
    confirmed: list[PendingCall] = field(default_factory=list)
    """The calls the user said yes to: each runs once, exactly as asked."""
    declined: list[PendingCall] = field(default_factory=list)
    """The calls the user has just not said yes to."""
    held: list[PendingCall] = field(default_factory=list)
    """The calls held back in this turn, for the user's yes."""
    agreed: Callable[[Action], bool] | None = None
    """Whether the user said yes to the model's own question naming an
    action; each action it names runs once."""

    def said_yes_to(self, tool_input: llm.ToolInput) -> bool:
        """Tell whether the user said yes to this very call."""
        return any(
            call.tool_name == tool_input.tool_name
            and call.tool_args == tool_input.tool_args
            for call in self.confirmed
        )

    def review(self, tool: llm.Tool, tool_input: llm.ToolInput) -> Refusal | None:
        """Return why a call may not run now, or None when it may."""
        action = self.sensitive(tool, tool_input.tool_args)
        if action is None:
            return None
        call = PendingCall(tool_input.tool_name, tool_input.tool_args, action)
        if call in self.confirmed:
            # Said yes to, exactly as asked: it runs once.
            self.confirmed.remove(call)
            return None
        if self.agreed is not None and self.agreed(action):
            self.agreed = None
            return None
        if call in self.declined:
            return Refusal(
                error_result("Declined", DECLINED.format(action=action)), final=True
            )
        if self.unattended:
            return Refusal(
                error_result("NotAllowed", NOT_ALLOWED.format(action=action)),
                final=True,
            )
        if call not in self.held:
            self.held.append(call)
        return Refusal(
            error_result(
                "ConfirmationNeeded", CONFIRMATION_NEEDED.format(action=action)
            ),
            final=False,
        )


def confirmation_for(  # noqa: PLR0913  # the turn's inputs, each separate
    hass: HomeAssistant,
    options: Mapping[str, Any],
    chat_log: conversation.ChatLog,
    question: Question | None,
    language: str,
    *,
    attended: bool,
) -> Confirmation | None:
    """Return the turn's policy, with the answer to an earlier question read.

    None when every call may run: confirmation is off, or an automation's turn
    is allowed everything.
    """
    if (api := chat_log.llm_api) is None or not options.get(CONF_CONFIRM, True):
        return None
    if not attended and options.get(CONF_UNATTENDED) == UNATTENDED_ALLOW:
        return None
    llm_context = api.llm_context
    kinds = options.get(CONF_SENSITIVE_KINDS, DEFAULT_KINDS)
    asked = asked_by(llm_context)
    confirmation = Confirmation(
        lambda tool, args: sensitive_action(hass, tool, args, llm_context, kinds),
        asked,
        unattended=not attended,
    )
    if (
        question is None
        or question.asked != confirmation.asked
        or len(chat_log.content) != question.after + 1
    ):
        # A turn that another agent answered in between (Home Assistant's
        # own, for a sentence it knows) leaves nothing to say yes to.
        return confirmation
    answer = chat_log.content[-1]
    yes = isinstance(answer, conversation.UserContent) and is_yes(
        answer.content, language
    )
    if question.said:
        if yes:
            confirmation.agreed = partial(
                named_by, hass, question.said, language=language
            )
        return confirmation
    if yes:
        confirmation.confirmed = list(question.calls)
    else:
        confirmation.declined = list(question.calls)
    return confirmation


def asked_by(llm_context: llm.LLMContext) -> str:
    """Say who speaks in a turn, and where: the user and the device.

    Only who was asked may say yes: on HA 2026.10 anyone may continue a
    conversation.
    """
    context = llm_context.context
    user_id = context.user_id if context is not None else None
    return f"{user_id} {llm_context.device_id}"


def confirmed_calls(confirmation: Confirmation | None) -> list[llm.ToolInput]:
    """Return exactly the calls the user said yes to, and nothing else."""
    if confirmation is None:
        return []
    return [
        llm.ToolInput(call.tool_name, dict(call.tool_args))
        for call in confirmation.confirmed
    ]


async def async_ask_for_yes(
    chat_log: conversation.ChatLog,
    agent_id: str,
    confirmation: Confirmation,
    language: str,
) -> Question:
    """End the turn with the question the held calls wait on; return it.

    In the conversation's language: a yes in it runs the calls.
    """
    actions = say_all([call.action for call in confirmation.held], language)
    await async_say_phrase(
        chat_log, agent_id, language, "confirm_action", action=actions
    )
    return Question(confirmation.asked, len(chat_log.content), tuple(confirmation.held))


def named_by(
    hass: HomeAssistant, question: str, action: Action, *, language: str
) -> bool:
    """Tell whether a question names an action: each deed's verb and devices.

    Only the sentences that ask count ("The door is unlocked. Shall I lock
    it?" asks to lock). The verb in the language's words or in English
    ("aufschließen", "unlock"), and not the verb that undoes it beside it
    ("shall I lock it or unlock it?"); each device by a name or alias Home
    Assistant knows. A deed whose devices are unknown, or a script's, is
    named by nothing.
    """
    if action.through:
        return False
    asked = " ".join(sentence.text for sentence in sentences(question) if sentence.asks)
    # Words match by stem, as names do: "desbloquee" is "desbloquear", and
    # "unlock" is no "lock".
    said = Sentence(words_in(asked))
    named = set(find_mentions(hass, asked, language=language).named)
    for deed in action.deeds:
        undone_by = _UNDONE_BY.get(deed.verb)
        if (
            not deed.ids
            or not named.issuperset(deed.ids)
            or not _says_verb(said, deed.verb, language)
            or (undone_by is not None and _says_verb(said, undone_by, language))
        ):
            return False
    return True


def _says_verb(said: Sentence, verb: str, language: str) -> bool:
    """Tell whether a sentence says a verb, in English or the language's words.

    In any of its forms: a question asks in the subjunctive in Romance
    languages ("vuoi che apra…", "¿quieres que abra…?"), whose form shares
    only the stem with the infinitive the table has.
    """
    phrase = words_of(language).verbs.get(verb, "")
    return any(
        _says_words(said, words)
        for words in (words_in(verb), words_in(phrase.replace("{names}", " ")))
        if words
    )


def _says_words(said: Sentence, words: Sequence[str]) -> bool:
    """Tell whether a sentence says a verb's words, or a form of a one-word verb."""
    if said.names(words):
        return True
    if len(words) != 1 or (stem := _INFINITIVE.sub("", words[0])) == words[0]:
        return False
    return any(
        word.startswith(stem) and len(word) <= len(stem) + _FORM_ENDING
        for word in said.words
    )
