"""What Home Assistant's own sentences make of what the user said.

Home Assistant's default conversation agent knows the sentences of
home-assistant-intents, in every language Assist speaks, and the home's
custom sentences. It is asked only to recognise the user's message, never to
run it: whether the message asks about the home ("Er hoveddøren låst?") or
asks for a change, in whatever word order the language allows.

It matches the names of the entities exposed to Assist only, and an area
left unsaid is the area of the device spoken to, as when the default agent
answers itself. Whatever goes wrong (no default agent, a language it does not
speak, an error inside it) is an intent not known, never a failed turn.
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from homeassistant.components import conversation
from homeassistant.components.conversation.agent_manager import get_agent_manager
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.util import language as language_util

from ..const import LOGGER
from ..lang.text import word_list
from .targets import TIMER_INTENTS

# The intents whose handlers only read: a state, a temperature, the weather,
# the clock, the timers, the shopping list. Their names are Home Assistant's
# (homeassistant.helpers.intent and the components' intent.py); each handler
# answers from what it reads and calls no action.
_READS: Final = frozenset(
    {
        intent.INTENT_GET_STATE,
        intent.INTENT_GET_TEMPERATURE,
        intent.INTENT_GET_CURRENT_DATE,
        intent.INTENT_GET_CURRENT_TIME,
        intent.INTENT_TIMER_STATUS,
    }
) | word_list("HassGetWeather HassShoppingListLastItems")
# The intents whose handlers change something: they call an action on a
# device, a list or a timer, or speak on other satellites. The names are in
# the components' intent.py, written out: importing a component for its
# constant would load it.
_CHANGES: Final = (
    frozenset(
        {
            intent.INTENT_TURN_ON,
            intent.INTENT_TURN_OFF,
            intent.INTENT_TOGGLE,
            intent.INTENT_SET_POSITION,
            intent.INTENT_STOP_MOVING,
            intent.INTENT_BROADCAST,
        }
    )
    | (TIMER_INTENTS - {intent.INTENT_TIMER_STATUS})
    | word_list(
        "HassOpenCover HassCloseCover HassLightSet HassFanSetSpeed "
        "HassClimateSetTemperature HassClimateSetFanMode HassHumidifierMode "
        "HassHumidifierSetpoint HassMediaPause HassMediaUnpause HassMediaNext "
        "HassMediaPrevious HassSetVolume HassSetVolumeRelative "
        "HassMediaPlayerMute HassMediaPlayerUnmute HassMediaSearchAndPlay "
        "HassVacuumStart HassVacuumReturnToBase HassVacuumCleanArea "
        "HassLawnMowerStartMowing HassLawnMowerDock HassListAddItem "
        "HassListCompleteItem HassListRemoveItem HassShoppingListAddItem "
        "HassShoppingListCompleteItem"
    )
)
# The longest message recognised. A spoken request is a sentence or two; a
# longer text is no intent's sentence, and the recognizer's time grows with it.
MAX_CHARS: Final = 300


@dataclass(frozen=True, slots=True)
class Recognized:
    """The intent Home Assistant's sentences found in a message, or None."""

    intent: str | None

    @property
    def reads(self) -> bool:
        """Tell whether the intent only reads: the message asks about the home."""
        return self.intent in _READS

    @property
    def changes(self) -> bool:
        """Tell whether the intent would change something."""
        return self.intent in _CHANGES


NOTHING: Final = Recognized(None)


async def async_recognize(
    hass: HomeAssistant, text: str, llm_context: llm.LLMContext
) -> Recognized:
    """Return the intent the default agent recognises in text; never raises."""
    agent = get_agent_manager(hass).default_agent
    language = llm_context.language or hass.config.language
    if (
        agent is None
        or not text.strip()
        or len(text) > MAX_CHARS
        # Asked in a language it lacks, the agent logs a warning every time.
        or not _speaks(language, tuple(agent.supported_languages))
    ):
        return NOTHING
    said = conversation.ConversationInput(
        text=text,
        context=llm_context.context or Context(),
        conversation_id=None,
        device_id=llm_context.device_id,
        satellite_id=None,
        language=language,
        agent_id=conversation.HOME_ASSISTANT_AGENT,
    )
    try:
        # Strict: the names of exposed entities only. The sentences are
        # matched in the executor; a language's first use loads them there.
        result = await agent.async_recognize_intent(said, strict_intents_only=True)
    except Exception:  # noqa: BLE001  # a recognizer that fails must not end the turn
        LOGGER.debug("Could not recognise an intent in %s", language, exc_info=True)
        return NOTHING
    return NOTHING if result is None else Recognized(result.intent.name)


@lru_cache(maxsize=32)
def _speaks(language: str, supported: tuple[str, ...]) -> bool:
    """Tell whether a language is one of those supported, or a variant of one.

    Remembered: matching parses every supported tag, about 0.1 ms a turn.
    """
    return bool(language_util.matches(language, supported))
