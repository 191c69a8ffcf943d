"""What a model on a server can do, found out with a few tiny requests.

Local servers differ: llama.cpp accepts tools only with --jinja, vLLM only with
a tool-call parser, some Ollama models have no tool template and some servers
return a tool call as text in the content. OpenAI's reasoning models (the
o-series, GPT-5) take the answer's token limit only as max_completion_tokens,
and no temperature or top_p but their own. The probe asks once per setup, and
its verdicts choose the agent's defaults and the fields of every request.
"""

from collections.abc import Awaitable, Mapping
from dataclasses import asdict, dataclass, replace
import re
from typing import Any, Final, Literal

import httpx
import openai

from ..const import LOGGER
from .client import describe
from .thinking import THINKING_FIELDS

PROBE_TIMEOUT: Final = 30.0
PROBE_MAX_TOKENS: Final = 8
# Enough for the probe's call to be written whole. A server whose parser only
# recognises a finished call (llama.cpp with a template that writes calls as
# fenced JSON) returns a call cut off at 8 tokens as plain content.
PROBE_CALL_MAX_TOKENS: Final = 64
# The probes' own words, so a server log shows what they are.
PROBE_PROMPT: Final = "Capability check: reply with the single word OK."
PROBE_TOOL_PROMPT: Final = "Capability check: call the ping tool."
PROBE_SCHEMA_PROMPT: Final = 'Capability check: answer {"ok": true}.'
PROBE_TOOL: Final = "ping"
# How the common chat templates begin a tool call written as text.
TEXT_CALL_MARKERS: Final = (
    "<tool_call>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<function=",
    "<invoke ",
    '{"name"',
    "```json",
)

# The sampling fields a reasoning model refuses unless at their default.
SAMPLING_FIELDS: Final = ("temperature", "top_p")
# The probe's first request asks at this temperature, to learn whether the
# server takes one of the agent's: not 0, which some servers refuse (it must
# be positive there), nor 1, the only one a reasoning model takes.
PROBE_TEMPERATURE: Final = 0.5
# The fields a server may refuse while taking the rest of the request.
REFUSABLE_FIELDS: Final = ("max_tokens", *SAMPLING_FIELDS, *THINKING_FIELDS)
# Where a refusal names the field it refuses: "Unsupported parameter:
# 'max_tokens' is not supported with this model.", "Unrecognized request
# argument supplied: reasoning_effort". Bounded: the message is the server's.
_NAMED_FIELD: Final = re.compile(
    rf"(?:['\"`]|argument supplied: )({'|'.join(REFUSABLE_FIELDS)})\b"
)
_MAX_MESSAGE: Final = 1000
# Refusals of thinking that name no field: Ollama's for a level asked of a
# model that cannot think, OpenRouter's for "off" asked of one that must.
_THINKING_REFUSED: Final = re.compile(
    r"(does not support thinking)|(reasoning is mandatory)", re.IGNORECASE
)
# Refusals that say the model is not one to chat with: OpenAI's for a speech,
# image or embedding model, Ollama's for an embedding model.
_NOT_CHAT: Final = re.compile(
    r"not a chat model|does not support (?:chat|generate)|embedding",
    re.IGNORECASE,
)

type ToolCallStyle = Literal["native", "text"]
type LimitField = Literal["max_tokens", "max_completion_tokens"]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """The probe's verdicts on one model; None where it could not tell."""

    chat: bool | None = None
    """The model answers a chat request (not a speech, image or embedding model)."""
    tools: bool | None = None
    """The server accepts a request with `tools`."""
    tool_calls: ToolCallStyle | None = None
    """Whether calls come back parsed in tool_calls, or as text in the content."""
    streaming: bool | None = None
    reasoning: bool = False
    """The model sends reasoning (a reasoning field or <think> in the content)."""
    json_schema: bool | None = None
    """The server accepts response_format with a JSON schema."""
    limit_field: LimitField = "max_tokens"
    """The field the server takes an answer's token limit in."""
    sampling: bool = True
    """The server takes a temperature and a top_p of the agent's."""
    thinking_refused: tuple[str, ...] = ()
    """The fields of the thinking option that the server refused."""

    @property
    def text_tools(self) -> bool:
        """Return whether tools should go in the prompt rather than the request."""
        return self.tools is False or self.tool_calls == "text"

    def as_dict(self) -> dict[str, Any]:
        """Return the verdicts for diagnostics."""
        return asdict(self)

    def fitted(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Return a request in the fields the server takes.

        The token limit in its field; no temperature or top_p, or no
        thinking fields (in the extra body too), where the server refuses them.
        """
        fitted = dict(request)
        if self.limit_field != "max_tokens" and "max_tokens" in fitted:
            fitted[self.limit_field] = fitted.pop("max_tokens")
        refused = [*(() if self.sampling else SAMPLING_FIELDS), *self.thinking_refused]
        for name in refused:
            fitted.pop(name, None)
        if refused and isinstance(extra := fitted.get("extra_body"), Mapping):
            fitted["extra_body"] = {
                name: value for name, value in extra.items() if name not in refused
            }
        return fitted

    def learned(self, err: openai.BadRequestError) -> Capabilities | None:
        """Return the verdicts a refusal of a field teaches; None if it names none.

        A 400 that names max_tokens asks for max_completion_tokens; one that
        names temperature or top_p refuses a value not the model's own; one
        that names a thinking field refuses it or the level asked.
        """
        field = refused_field(err)
        if field == "max_tokens" and self.limit_field == "max_tokens":
            return replace(self, limit_field="max_completion_tokens")
        if field in SAMPLING_FIELDS and self.sampling:
            return replace(self, sampling=False)
        if field in THINKING_FIELDS and field not in self.thinking_refused:
            return replace(self, thinking_refused=(*self.thinking_refused, field))
        return None


def refused_field(err: openai.BadRequestError) -> str | None:
    """Return the request field a refusal names, of those a server may refuse."""
    if err.param in REFUSABLE_FIELDS:
        return err.param
    message = str(err.message)[:_MAX_MESSAGE]
    if found := _NAMED_FIELD.search(message):
        return found.group(1)
    if found := _THINKING_REFUSED.search(message):
        return "reasoning_effort" if found.group(1) else "reasoning"
    return None


async def async_probe(
    client: openai.AsyncOpenAI, model: str, thinking: Mapping[str, Any] | None = None
) -> Capabilities:
    """Ask the server three tiny questions about the model.

    The first carries the thinking fields an agent of the model asks for, so
    that a server that refuses them is known before the first turn.
    """
    probe = client.with_options(timeout=PROBE_TIMEOUT, max_retries=0)
    chat, streaming, reasoning, fields = await _async_first_word(
        probe, model, thinking or {}
    )
    if chat is False:
        # Nothing else to learn of a model that does not chat.
        return replace(fields, chat=False, streaming=False)
    tools, tool_calls = await _async_probe_tools(probe, model, fields)
    return replace(
        fields,
        chat=chat,
        tools=tools,
        tool_calls=tool_calls,
        streaming=streaming,
        reasoning=reasoning,
        json_schema=await _async_probe_json_schema(probe, model, fields),
    )


async def async_chats(client: openai.AsyncOpenAI, model: str) -> bool | None:
    """Tell whether the model chats, with the probe's first tiny request.

    What the add-server step asks before it saves the model. One more
    request only where streaming failed; the rest of the probe runs at setup.
    """
    probe = client.with_options(timeout=PROBE_TIMEOUT, max_retries=0)
    chat, *_ = await _async_first_word(probe, model, {})
    return chat


async def _async_first_word(
    probe: openai.AsyncOpenAI, model: str, thinking: Mapping[str, Any]
) -> tuple[bool | None, bool | None, bool, Capabilities]:
    """Ask the model for a word; return whether it chats, streams and reasons.

    With the fields the server takes. Asked again without streaming only
    where streaming failed.
    """
    streaming, reasoning, fields = await _async_probe_streaming(probe, model, thinking)
    chat = True if streaming else await _async_probe_chat(probe, model, fields)
    return chat, streaming, reasoning, fields


def _ask(prompt: str) -> list[Any]:
    """Return the messages of a probe."""
    return [{"role": "user", "content": prompt}]


async def _async_verdict[T](
    request: Awaitable[T], model: str, refusal: str, probe_name: str
) -> tuple[bool | None, T | None]:
    """Send one probe request and say whether the server accepted it.

    True with the answer; False when the server refused the request (HTTP
    400), which is the verdict; None when the probe failed and cannot tell.
    """
    try:
        answer = await request
    except openai.BadRequestError as err:
        if refused_field(err) is not None:
            # A refusal of a field beside what is probed says nothing of it.
            LOGGER.debug("%s probe of %s failed: %s", probe_name, model, describe(err))
            return None, None
        LOGGER.debug("%s %s: %s", model, refusal, describe(err))
        return False, None
    except (
        openai.OpenAIError,
        httpx.HTTPError,
        ValueError,
        AttributeError,
        TypeError,
    ) as err:
        # AttributeError, TypeError: a web page where JSON was due.
        LOGGER.debug("%s probe of %s failed: %s", probe_name, model, describe(err))
        return None, None
    return True, answer


async def _async_probe_streaming(
    probe: openai.AsyncOpenAI, model: str, thinking: Mapping[str, Any]
) -> tuple[bool | None, bool, Capabilities]:
    """Return whether the server streams, whether the model reasons, its fields.

    The first probe asks at a temperature, with max_tokens: a refusal that
    names one of them is learned, and the probe asked again (at most once a
    field), so that no later request is refused for it.
    """
    fields = Capabilities()
    while True:
        try:
            chunks, reasoning = await _async_read_stream(probe, model, fields, thinking)
        except openai.BadRequestError as err:
            if (learned := fields.learned(err)) is not None:
                LOGGER.debug("%s refuses a field: %s", model, describe(err))
                fields = learned
                continue
            if sent := [
                name for name in thinking if name not in fields.thinking_refused
            ]:
                # A refusal that names nothing, of a request with thinking
                # fields: asked again without them, which tells whether it
                # was they that were refused.
                LOGGER.debug("%s refused thinking fields: %s", model, describe(err))
                fields = replace(
                    fields, thinking_refused=(*fields.thinking_refused, *sent)
                )
                continue
            LOGGER.debug("%s does not stream: %s", model, describe(err))
            return False, False, fields
        except (openai.OpenAIError, httpx.HTTPError, ValueError) as err:
            LOGGER.debug("Streaming probe of %s failed: %s", model, describe(err))
            return None, False, fields
        return chunks > 0, reasoning, fields


async def _async_probe_chat(
    probe: openai.AsyncOpenAI, model: str, fields: Capabilities
) -> bool | None:
    """Return whether the model answers a chat request that does not stream.

    Asked only when streaming failed. OpenAI answers 404 for a speech, image
    or embedding model ("This is not a chat model"), Ollama 400 for an
    embedding model or 404 for a model it does not have: no chat either way.
    Any other refusal leaves it open, so that no chat model is turned away.
    """
    try:
        await probe.chat.completions.create(
            **fields.fitted(
                {
                    "model": model,
                    "messages": _ask(PROBE_PROMPT),
                    "max_tokens": PROBE_MAX_TOKENS,
                }
            )
        )
    except openai.APIStatusError as err:
        text = str(err.message)[:_MAX_MESSAGE]
        if isinstance(err, openai.NotFoundError) or _NOT_CHAT.search(text):
            LOGGER.debug("%s does not chat: %s", model, describe(err))
            return False
        # Any other refusal proves nothing: the model is given the benefit.
        LOGGER.debug("Chat probe of %s failed: %s", model, describe(err))
        return None
    except (openai.OpenAIError, httpx.HTTPError, ValueError, AttributeError) as err:
        LOGGER.debug("Chat probe of %s failed: %s", model, describe(err))
        return None
    return True


async def _async_read_stream(
    probe: openai.AsyncOpenAI,
    model: str,
    fields: Capabilities,
    thinking: Mapping[str, Any],
) -> tuple[int, bool]:
    """Stream a short answer; return its chunk count and whether it reasons."""
    chunks = 0
    reasoning = False
    stream = await probe.chat.completions.create(
        **fields.fitted(
            {
                "model": model,
                "messages": _ask(PROBE_PROMPT),
                "max_tokens": PROBE_MAX_TOKENS,
                "temperature": PROBE_TEMPERATURE,
                "stream": True,
                "extra_body": dict(thinking) or None,
            }
        )
    )
    async with stream:
        async for chunk in stream:
            chunks += 1
            for choice in chunk.choices:
                extra = choice.delta.model_extra or {}
                reasoning = reasoning or any(
                    extra.get(key) for key in ("reasoning_content", "reasoning")
                )
                reasoning = reasoning or "<think>" in (choice.delta.content or "")
    return chunks, reasoning


async def _async_probe_tools(
    probe: openai.AsyncOpenAI, model: str, fields: Capabilities
) -> tuple[bool | None, ToolCallStyle | None]:
    """Return whether tools are accepted, and how a call comes back."""
    return await _async_verdict(
        _async_call_style(probe, model, fields, PROBE_MAX_TOKENS),
        model,
        "refuses tools",
        "Tool",
    )


async def _async_call_style(
    probe: openai.AsyncOpenAI, model: str, fields: Capabilities, max_tokens: int
) -> ToolCallStyle | None:
    """Ask the model to call a tool; return how the call came back, if it did."""
    response = await probe.chat.completions.create(
        **fields.fitted(
            {
                "model": model,
                "messages": _ask(PROBE_TOOL_PROMPT),
                "max_tokens": max_tokens,
                "tools": [
                    {
                        "type": "function",
                        "function": {
                            "name": PROBE_TOOL,
                            "description": "Answers pong. Takes no arguments.",
                            "parameters": {"type": "object", "properties": {}},
                        },
                    }
                ],
            }
        )
    )
    if not response.choices:
        return None
    choice = response.choices[0]
    if choice.message.tool_calls:
        return "native"
    content = (choice.message.content or "").lstrip()
    if not any(marker in content for marker in TEXT_CALL_MARKERS):
        # The model answered in words: it may still call tools when it needs to.
        return None
    if choice.finish_reason == "length" and max_tokens < PROBE_CALL_MAX_TOKENS:
        # Cut off while writing the call: the server may still parse a whole
        # one, so let the model finish it once.
        return await _async_call_style(probe, model, fields, PROBE_CALL_MAX_TOKENS)
    return "text"


async def _async_probe_json_schema(
    probe: openai.AsyncOpenAI, model: str, fields: Capabilities
) -> bool | None:
    """Return whether the server accepts a JSON schema response format."""
    request = probe.chat.completions.create(
        **fields.fitted(
            {
                "model": model,
                "messages": _ask(PROBE_SCHEMA_PROMPT),
                "max_tokens": PROBE_MAX_TOKENS,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": "probe",
                        "schema": {
                            "type": "object",
                            "properties": {"ok": {"type": "boolean"}},
                            "required": ["ok"],
                        },
                    },
                },
            }
        )
    )
    accepted, _ = await _async_verdict(
        request, model, "refuses JSON schemas", "JSON schema"
    )
    return accepted
