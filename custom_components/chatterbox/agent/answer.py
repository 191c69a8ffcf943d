"""What a round left in the chat log: its answer, and how its calls went."""

from homeassistant.components import conversation

from ..lang.text import sentences
from ..tools.guard import refused_repeat


def answer_of(chat_log: conversation.ChatLog) -> str:
    """Return the words of the round's answer; none when it ended otherwise.

    A small model often answers and, in the same response, makes again a
    call that ran already. The repeat reads nothing new, so the words beside
    it are the answer, when they end a sentence: another round would only
    cost the user the time to say them again. Words cut off ("The light
    is") wait for the model's answer.
    """
    for refused, item in enumerate(reversed(chat_log.content)):
        if not isinstance(item, conversation.AssistantContent):
            if not refused_repeat(item):
                return ""
            continue
        words = item.content or ""
        if not refused:
            return words
        said = sentences(words)
        return words if said and said[-1].end else ""
    return ""


def tools_ran(chat_log: conversation.ChatLog) -> bool:
    """Tell whether a tool call has a result in the turn."""
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.ToolResultContent):
            return True
        if isinstance(content, conversation.UserContent):
            break
    return False


def last_call_failed(chat_log: conversation.ChatLog) -> bool:
    """Tell whether the turn's last tool call that ran failed.

    A refused repeat says nothing of the call: the call it repeats ran.
    """
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.ToolResultContent):
            if refused_repeat(content):
                continue
            return content.result.error
        if isinstance(content, conversation.UserContent):
            break
    return False


def acted_on_before(chat_log: conversation.ChatLog) -> set[str]:
    """Return the entities earlier calls of the conversation acted on.

    As Home Assistant's intents report them in their results ("success":
    each target's id). A recap ("so far I dimmed the lamp") speaks of them.
    """
    acted: set[str] = set()
    for content in chat_log.content:
        if not isinstance(content, conversation.ToolResultContent):
            continue
        result = content.result
        data = result.data.get("data") if not result.error else None
        success = data.get("success") if isinstance(data, dict) else None
        for target in success if isinstance(success, list) else ():
            if isinstance(target, dict) and isinstance(key := target.get("id"), str):
                acted.add(key)
    return acted
