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
CONF_CONTEXT_WINDOW: Final = "context_window"
CONF_MAX_HISTORY_TOKENS: Final = "max_history_tokens"
CONF_MEMORY: Final = "memory"
CONF_MEMORY_HOURS: Final = "memory_hours"
CONF_SPEECH: Final = "speech"
CONF_TOOL_MODE: Final = "tool_mode"
CONF_KEEP_ALIVE: Final = "keep_alive"
CONF_EXTRA_BODY: Final = "extra_body"
CONF_CONFIRM: Final = "confirm_sensitive"
CONF_UNATTENDED: Final = "unattended_sensitive"
UNATTENDED_REFUSE: Final = "refuse"
UNATTENDED_ALLOW: Final = "allow"
CONF_SENSITIVE_KINDS: Final = "sensitive_kinds"
CONF_STATES_IN_VIEW: Final = "states_in_view"
CONF_DEVICE_LIST_SHARE: Final = "device_list_share"
CONF_ANSWER_QUESTIONS: Final = "answer_questions"
CONF_ANSWER_NOT_FOUND: Final = "answer_not_found"
CONF_CHECK_CLAIMS: Final = "check_claims"
CONF_EVERY_PART: Final = "every_part"
CONF_GUIDE: Final = "guide_small_model"
CONF_THINKING: Final = "thinking"
CONF_IMAGE_MODEL: Final = "image_model"

TOOL_MODE_AUTO: Final = "auto"
TOOL_MODE_NATIVE: Final = "native"
TOOL_MODE_TEXT: Final = "text"
TOOL_MODES: Final = (TOOL_MODE_AUTO, TOOL_MODE_NATIVE, TOOL_MODE_TEXT)
GUIDE_AUTO: Final = "auto"
GUIDE_ON: Final = "on"
GUIDE_OFF: Final = "off"
GUIDES: Final = (GUIDE_AUTO, GUIDE_ON, GUIDE_OFF)
DEFAULT_GUIDE: Final = GUIDE_AUTO
THINKING_DEFAULT: Final = "default"
THINKING_OFF: Final = "off"
THINKING_LEVELS: Final = (THINKING_DEFAULT, THINKING_OFF, "low", "medium", "high")
# The size at or below which Auto guides a model. The 0.5B-3B models need the
# notes and repairs to finish a turn (they stop short, mangle arguments, write
# calls as text); 7B and up follow tools and notes on their own, and the aids
# would only lengthen their requests.
SMALL_MODEL_PARAMETERS: Final = 4_000_000_000
KEEP_ALIVE_OFF: Final = "off"
# Ollama durations; "-1" keeps the model loaded until Ollama stops.
KEEP_ALIVES: Final = (KEEP_ALIVE_OFF, "30m", "1h", "4h", "24h", "-1")
# Request fields the agent owns: the extra body may not replace them.
RESERVED_BODY_KEYS: Final = frozenset(
    {"model", "messages", "stream", "stream_options", "tools", "tool_choice", "n"}
)

SUBENTRY_CONVERSATION: Final = "conversation"
SUBENTRY_AI_TASK: Final = "ai_task_data"
SECTION_ADVANCED: Final = "advanced"

DEFAULT_AGENT_NAME: Final = "Chatterbox"
DEFAULT_AI_TASK_NAME: Final = "Chatterbox AI Task"
DEFAULT_MAX_ITERATIONS: Final = 10
DEFAULT_CONTEXT_WINDOW: Final = 8192
# The most of the context window, in percent, that the list of exposed
# devices may take before an overview replaces it.
DEFAULT_DEVICE_LIST_SHARE: Final = 25
MIN_CONTEXT_WINDOW: Final = 1024
MIN_HISTORY_TOKENS: Final = 256
# Tokens kept free for the answer when max_tokens is not set.
DEFAULT_ANSWER_RESERVE: Final = 1024
# A tool result longer than this is shortened in what is sent (not in the log).
TOOL_RESULT_LIMIT: Final = 4000
# Compaction states kept per agent, one per recent conversation.
MAX_TRACKED_CONVERSATIONS: Final = 200
MIN_ITERATIONS: Final = 1
MAX_ITERATIONS: Final = 50

# How long the connection test waits for the server's model list.
CONNECT_TIMEOUT: Final = 10.0

RECOMMENDED_AGENT_OPTIONS: Final = {
    CONF_PROMPT: llm.DEFAULT_INSTRUCTIONS_PROMPT,
    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
    CONF_MAX_ITERATIONS: DEFAULT_MAX_ITERATIONS,
}

RECOMMENDED_AI_TASK_OPTIONS: Final = {CONF_MAX_ITERATIONS: DEFAULT_MAX_ITERATIONS}
