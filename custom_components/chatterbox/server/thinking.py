"""How much a model thinks before it answers, in the field each server reads.

The local models people run most now think first (Qwen3, gpt-oss,
DeepSeek-R1), and a spoken assistant wants that short or off. No field of the
OpenAI API turns it off everywhere, so each kind of server gets its own:

- Ollama's OpenAI endpoint turns thinking off only through reasoning_effort
  "none", and takes the levels there too.
- llama.cpp and vLLM hand chat_template_kwargs to the model's chat template:
  enable_thinking is Qwen3's switch, reasoning_effort gpt-oss's levels. vLLM
  also reads a top-level reasoning_effort for gpt-oss.
- OpenRouter normalises every provider's control in its reasoning object.
- OpenAI and the rest read reasoning_effort; "none" turns it off on the
  models that can. A server that refuses the field has it dropped (the
  probe's verdicts learn that), and the model then thinks as it likes.

Pure: no I/O.
"""

from collections.abc import Iterable, Mapping
from typing import Any, Final

from ..const import THINKING_DEFAULT, THINKING_OFF
from .client import ServerKind

# The request fields this module may set: the ones a refusal may name.
THINKING_FIELDS: Final = ("reasoning_effort", "chat_template_kwargs", "reasoning")


def thinking_fields(level: str, kind: ServerKind | None) -> dict[str, Any]:
    """Return the request fields that ask a server for this much thinking."""
    if level == THINKING_DEFAULT:
        return {}
    off = level == THINKING_OFF
    match kind:
        case ServerKind.OLLAMA:
            return {"reasoning_effort": "none" if off else level}
        case ServerKind.LLAMA_CPP:
            return {"chat_template_kwargs": _template_switch(level)}
        case ServerKind.VLLM:
            fields: dict[str, Any] = {"chat_template_kwargs": _template_switch(level)}
            if not off:
                fields["reasoning_effort"] = level
            return fields
        case ServerKind.OPENROUTER:
            return {"reasoning": {"enabled": False} if off else {"effort": level}}
        case _:
            return {"reasoning_effort": "none" if off else level}


def fields_for(
    levels: Iterable[str], kind: ServerKind | None, *, thinks: bool | None
) -> dict[str, Any]:
    """Return the thinking fields for a model: the first level set of those.

    A turn gives its agent's level; the probe its model's agents' levels.
    Nothing for a model its server says does not think (Ollama tells): Ollama
    refuses a level for such a model.
    """
    if thinks is False:
        return {}
    level = next((level for level in levels if level != THINKING_DEFAULT), None)
    return {} if level is None else thinking_fields(level, kind)


def _template_switch(level: str) -> dict[str, Any]:
    """Return the chat template's switches: Qwen3's on/off, gpt-oss's level."""
    if level == THINKING_OFF:
        return {"enable_thinking": False}
    return {"enable_thinking": True, "reasoning_effort": level}


def with_extra_body(
    thinking: Mapping[str, Any], extra: Mapping[str, Any]
) -> dict[str, Any]:
    """Return the thinking fields under the agent's extra request body.

    The extra body is the user's own word and wins, field by field: in
    chat_template_kwargs too, where both may set switches.
    """
    merged = {**thinking, **extra}
    inner = [
        source["chat_template_kwargs"]
        for source in (thinking, extra)
        if isinstance(source.get("chat_template_kwargs"), Mapping)
    ]
    if len(inner) == 2:  # noqa: PLR2004  # both set it: the user's switches win
        merged["chat_template_kwargs"] = {**inner[0], **inner[1]}
    return merged
