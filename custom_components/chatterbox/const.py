"""Constants for the Chatterbox integration."""

import logging
from typing import Final

from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT
from homeassistant.helpers import llm

DOMAIN: Final = "chatterbox"
LOGGER = logging.getLogger(__package__)

# Subentry data keys. Code outside the project relies on these names.
CONF_TEMPERATURE: Final = "temperature"
CONF_TOP_P: Final = "top_p"
CONF_MAX_TOKENS: Final = "max_tokens"
CONF_MAX_ITERATIONS: Final = "max_iterations"

SUBENTRY_CONVERSATION: Final = "conversation"
SECTION_ADVANCED: Final = "advanced"

DEFAULT_AGENT_NAME: Final = "Chatterbox"
DEFAULT_MAX_ITERATIONS: Final = 10
MIN_ITERATIONS: Final = 1
MAX_ITERATIONS: Final = 50

# How long the connection test waits for the server's model list.
CONNECT_TIMEOUT: Final = 10.0

RECOMMENDED_AGENT_OPTIONS: Final = {
    CONF_PROMPT: llm.DEFAULT_INSTRUCTIONS_PROMPT,
    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
    CONF_MAX_ITERATIONS: DEFAULT_MAX_ITERATIONS,
}
