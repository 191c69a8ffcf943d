"""A question about the home is answered, not acted on.

Small models answer "is the front door locked?" by calling the lock's tools.
When everything the user said is a question about a state, a call that would
change something is refused before it runs (and before any question about
confirmation), with the current states of what the call would reach, and the model is
asked for its answer.

Home Assistant's own sentences are asked first (intents.py): a message they
read as a question about the home is one ("Er hoveddøren låst?"), and one
they read as a request for a change is not. Otherwise the words tell.

A sentence is a question when it starts with a question word or a verb that
opens a question in the conversation's language or in English ("is", "what",
"ist", "czy", "est-ce"), or asks to be told ("tell me", "sag mir"), or, in
any language, ends with a question mark: in Italian, Portuguese, Swedish or
Danish a yes/no question may keep the order of a statement. A request
phrased as a question is still a request: one that starts with "can you",
"kannst du", "czy możesz", "pourriez-vous", "how about" or "please" is not a
question. A message with a command beside its question ("Is it cold? Turn on
the heater.") is not a question either. The words are data, one entry per
language.
"""

from collections.abc import Mapping, Sequence
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
from ..context.kinds import word_list
from ..context.mentions import find_mentions
from ..phrases import base_language
from ..prompts import QUESTION_NOT_COMMAND
from .intents import async_recognize
from .outcomes import only_reads
from .results import error_result
from .targets import reach

_OPENERS: Final[Mapping[str, frozenset[str]]] = {
    "en": word_list(
        "is are was were does do did has have what what's whats which how where "
        "when who whose why"
    ),
    "de": word_list(
        "ist sind war waren hat haben läuft laufen brennt wie was welche "
        "welcher welches wo wann wer warum"
    ),
    "pl": word_list(
        "czy jaki jaka jakie jaką ile co gdzie kiedy kto dlaczego który która które"
    ),
    "fr": word_list(
        "est est-ce sont quel quelle quels quelles combien où quand qui "
        "pourquoi comment"
    ),
    "es": word_list(
        "está están es son hay cuál cuáles qué cuánto cuánta cuántos cuántas "
        "dónde cuándo quién cómo"
    ),
    "it": word_list(
        "è sono c'è qual quale quali quanto quanta quanti dove quando chi perché come"
    ),
    "nl": word_list("is zijn staat staan brandt wat welke hoe waar wanneer wie waarom"),
    "pt": word_list(
        "está estão é são há qual quais quanto quanta quantos quantas onde "
        "quando quem como porquê será"
    ),
    "sv": word_list("är var vad vilken vilket vilka hur när vem varför finns"),
    "da": word_list(
        "er var hvad hvilken hvilket hvilke hvor hvornår hvem hvorfor hvordan"
    ),
}
# How a request for information starts without a question word.
_ASKING: Final[Mapping[str, tuple[tuple[str, ...], ...]]] = {
    "en": (("tell", "me"), ("let", "me", "know")),
    "de": (("sag", "mir"), ("sagen", "sie", "mir")),
    "pl": (("powiedz",),),
    "fr": (("dis-moi",), ("dites-moi",)),
    "es": (("dime",), ("dígame",)),
    "it": (("dimmi",),),
    "nl": (("vertel",), ("zeg", "me")),
    "pt": (("diz-me",), ("diga-me",)),
    "sv": (("berätta",), ("tala", "om")),
    "da": (("fortæl",), ("sig", "mig")),
}
# How a request phrased as a question starts.
_POLITE: Final[Mapping[str, tuple[tuple[str, ...], ...]]] = {
    "en": (
        ("can", "you"),
        ("could", "you"),
        ("would", "you"),
        ("will", "you"),
        ("can", "i"),
        ("could", "i"),
        ("is", "it", "possible"),
        ("would", "it", "be"),
        ("would", "you", "mind"),
        ("do", "me"),
        ("when", "you"),
        ("how", "about"),
        ("what", "about"),
        ("please",),
    ),
    "de": (
        ("kannst", "du"),
        ("könntest", "du"),
        ("können", "sie"),
        ("könnten", "sie"),
        ("würdest", "du"),
        ("würden", "sie"),
        ("ist", "es", "möglich"),
        ("wie", "wäre"),
        ("was", "ist", "mit"),
        ("bitte",),
    ),
    "pl": (
        ("czy", "możesz"),
        ("czy", "mógłbyś"),
        ("czy", "mogłabyś"),
        ("czy", "możecie"),
        ("czy", "można"),
        ("możesz",),
        ("proszę",),
    ),
    "fr": (
        ("peux", "tu"),
        ("peux-tu",),
        ("pouvez", "vous"),
        ("pouvez-vous",),
        ("pourrais", "tu"),
        ("pourrais-tu",),
        ("pourriez", "vous"),
        ("pourriez-vous",),
        ("est-ce", "que", "tu", "peux"),
        ("est-ce", "que", "vous", "pouvez"),
    ),
    "es": (("puedes",), ("podrías",), ("puede",), ("podría",), ("por", "favor")),
    "it": (("puoi",), ("potresti",), ("può",), ("potrebbe",), ("per", "favore")),
    "nl": (
        ("kun", "je"),
        ("kan", "je"),
        ("kunt", "u"),
        ("zou", "je"),
        ("wil", "je"),
        ("alsjeblieft",),
    ),
    "pt": (
        ("pode",),
        ("podes",),
        ("poderia",),
        ("poderias",),
        ("podia",),
        ("consegues",),
        ("você", "pode"),
        ("por", "favor"),
        ("faz", "favor"),
        ("se", "faz", "favor"),
    ),
    "sv": (
        ("kan", "du"),
        ("kan", "ni"),
        ("kunde", "du"),
        ("skulle", "du"),
        ("vill", "du"),
        ("går", "det"),
        ("var", "snäll"),
        ("snälla",),
    ),
    "da": (
        ("kan", "du"),
        ("kunne", "du"),
        ("vil", "du"),
        ("ville", "du"),
        ("gider", "du"),
        ("må", "jeg"),
        ("vær", "sød"),
        ("venligst",),
    ),
}
# Words that ask to be shown or told how, not for a change: an example, an
# explanation. A call written in the answer to such a request is an example.
_SHOWING: Final = word_list(
    "example examples explain describe "
    "beispiel beispiele erkläre erklär erklären beschreibe "
    "przykład przykłady przykładu wyjaśnij opisz "
    "exemple exemples explique expliquez décris "
    "ejemplo ejemplos explica explícame "
    "esempio esempi spiega spiegami descrivi "
    "voorbeeld voorbeelden uitleggen beschrijf "
    "exemplo exemplos explique descreve "
    "exempel förklara beskriv "
    "eksempel eksempler forklar"
)
# The ends of sentences, with Spanish openers and full-width marks; kept
# apart, as a question mark among them makes a question.
_SENTENCE_END: Final = re.compile("([.!?;\u00bf\u00a1\u3002\uff1f\uff01]+)")
# The marks that end a question.
_QUESTION_MARKS: Final = frozenset("?\uff1f")
# Words, with their apostrophes (typed or typographic) and hyphens.
_WORD: Final = re.compile("[\\w'\u2019-]+")
# The longest message read: a question is short.
_MAX_CHARS: Final = 500


async def async_state_question_for(
    hass: HomeAssistant, options: Mapping[str, Any], chat_log: conversation.ChatLog
) -> StateQuestion | None:
    """Return the turn's question about the home; None when it asks for more."""
    api = chat_log.llm_api
    said = chat_log.content[-1]
    if (
        api is None
        or not options.get(CONF_ANSWER_QUESTIONS, True)
        or not isinstance(said, conversation.UserContent)
    ):
        return None
    language = api.llm_context.language or "en"
    question, sure = _read_words(said.content, language)
    # Home Assistant's sentences cost a few milliseconds a message; they are
    # asked where our words are unsure (a question mark alone, a language we
    # have no words for) about something in the home, as a question about a
    # state names what it asks about.
    if not sure and find_mentions(hass, said.content):
        recognized = await async_recognize(hass, said.content, api.llm_context)
        question = recognized.reads or (question and not recognized.changes)
    return StateQuestion(hass) if question else None


def asks_about_state(text: str, language: str) -> bool:
    """Tell whether everything said is a question, none of it a request."""
    return _read_words(text, language)[0]


def asks_to_be_shown(text: str) -> bool:
    """Tell whether a message asks for an example or an explanation.

    In every language of ours at once: the words are not another language's
    words for anything a request for a change says.
    """
    return not _SHOWING.isdisjoint(
        w.replace("\u2019", "'") for w in _WORD.findall(text[:_MAX_CHARS].casefold())
    )


def _read_words(text: str, language: str) -> tuple[bool, bool]:
    """Tell whether the words ask a question, and whether the words are sure.

    Sure: every sentence opens as a question, or one opens as a request, in
    a language of ours. Not sure: a question mark alone makes a sentence a
    question, or the language is none of ours.
    """
    own = base_language(language)
    languages = list(dict.fromkeys((own, "en")))
    # split() with a group gives each sentence, then the marks that end it.
    pieces = [*_SENTENCE_END.split(text[:_MAX_CHARS].casefold()), ""]
    sentences = [
        (words, not _QUESTION_MARKS.isdisjoint(end))
        for sentence, end in zip(pieces[::2], pieces[1::2], strict=True)
        if (words := [w.replace("\u2019", "'") for w in _WORD.findall(sentence)])
    ]
    if not sentences or any(_polite(words, languages) for words, _ in sentences):
        return False, True
    opened = all(_opens_question(words, languages) for words, _ in sentences)
    question = all(
        marked or _opens_question(words, languages) for words, marked in sentences
    )
    return question, opened or (own in _OPENERS and not question)


def _polite(words: Sequence[str], languages: Sequence[str]) -> bool:
    """Tell whether a sentence opens or ends as a request phrased as a question.

    "Can you lock the door?", "Lock the door, would you?", "… please?"
    """
    said = tuple(words)
    return any(
        said[: len(polite)] == polite or said[-len(polite) :] == polite
        for language in languages
        for polite in _POLITE.get(language, ())
    )


def _opens_question(words: Sequence[str], languages: Sequence[str]) -> bool:
    """Tell whether a sentence opens with a question word, or asks to be told."""
    start = tuple(words)
    return any(
        words[0] in _OPENERS.get(language, ())
        or any(start[: len(asking)] == asking for asking in _ASKING.get(language, ()))
        for language in languages
    )


@dataclass(frozen=True, slots=True)
class StateQuestion:
    """The turn's question about the home: calls that would change it wait."""

    hass: HomeAssistant

    def review(
        self, tool: llm.Tool, tool_args: Mapping[str, Any], context: llm.LLMContext
    ) -> llm.ToolResult | None:
        """Return why a call may not run in answer to the question, or None."""
        if only_reads(tool):
            return None
        reached = reach(self.hass, tool, tool_args, context)
        if reached is not None and not reached.direct:
            return None  # a calculator, a timer: nothing in the home changes
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
