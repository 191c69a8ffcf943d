"""What the scripted model answers in each benchmark scenario.

Each scenario is a responder for LLMServer: it reads the request the agent sent
and returns the reply, so the same script serves both agents, in any order and
concurrently. Tool names carry the prefixes Home Assistant's Assist API gives
them, so that both agents run the tools.
"""

from collections.abc import Callable
from dataclasses import replace
import json
import math
import random
from typing import Any

from tests.helpers.llm_server import Call, ChatReply, Text, ToolCalls

type Responder = Callable[[Any], ChatReply]

LIVE_CONTEXT = "homeassistant__GetLiveContext"
TURN_ON = "intent__HassTurnOn"
TURN_OFF = "intent__HassTurnOff"
SUMMARY = "The user checked the home several times and switched a few devices."
ANSWER = "It is sunny and mild today, a fine day to go outside."


def tokens(body: Any) -> int:
    """Stand in for the model's tokenizer: about 3.5 characters a token."""
    text = json.dumps(body["messages"]) + json.dumps(body.get("tools", []))
    return math.ceil(len(text) / 3.5)


def is_summary_request(body: Any) -> bool:
    """Tell Chatterbox's side request that summarizes dropped history."""
    first = body["messages"][0]
    return first["role"] == "system" and "running summary" in first["content"]


def _since_user(body: Any) -> list[dict[str, Any]]:
    """Return the messages after the last user message."""
    messages = body["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return messages[last_user + 1 :]


def _user_text(body: Any) -> str:
    """Return what the user said last."""
    return next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]


def _tool_rounds(body: Any) -> int:
    """Return how many tool results the turn has gathered so far."""
    return sum(1 for message in _since_user(body) if message["role"] == "tool")


def _script(turn: Callable[[Any], ChatReply]) -> Responder:
    """Answer summary requests, and the turn's requests with the scenario."""

    def respond(body: Any) -> ChatReply:
        if is_summary_request(body):
            return Text(SUMMARY)
        return turn(body)

    return respond


def _plain(_body: Any) -> ChatReply:
    """Answer at once, without tools."""
    return Text(ANSWER)


def _light(body: Any) -> ChatReply:
    """Turn on the kitchen light, then say so."""
    if _tool_rounds(body) == 0:
        return ToolCalls([Call(TURN_ON, {"name": "Kitchen light"})])
    return Text("The kitchen light is on.")


_CHAIN = (
    Call(LIVE_CONTEXT, {}),
    Call(TURN_ON, {"name": "Kitchen light"}),
    Call(TURN_OFF, {"name": "Office lamp 3"}),
)


def _chain(body: Any) -> ChatReply:
    """Look at the home, turn the kitchen light on and the office lamp off; answer."""
    done = _tool_rounds(body)
    if done < len(_CHAIN):
        return ToolCalls([_CHAIN[done]])
    return Text("The kitchen light is on and the office lamp is off.")


PLAIN = _script(_plain)
LIGHT = _script(_light)
CHAIN = _script(_chain)

# The 20-turn conversation: what the user says, turn by turn, in a cycle.
HOUSEHOLD_QUESTIONS = (
    "What is on in the house right now?",
    "Turn on the kitchen light.",
    "Turn off the office lamp 3.",
    "Thanks. What should I cook tonight?",
)


def _household(body: Any) -> ChatReply:
    """Answer each kind of question of the household conversation."""
    text = _user_text(body)
    done = _tool_rounds(body)
    if text.startswith("What is on"):
        call = Call(LIVE_CONTEXT, {})
        answer = "The kitchen light and a few helpers are on; the rest is off."
    elif text.startswith("Turn on"):
        call = Call(TURN_ON, {"name": "Kitchen light"})
        answer = "The kitchen light is on."
    elif text.startswith("Turn off"):
        call = Call(TURN_OFF, {"name": "Office lamp 3"})
        answer = "The office lamp is off."
    else:
        return Text("How about a mushroom risotto? It takes about 30 minutes.")
    return ToolCalls([call]) if done == 0 else Text(answer)


HOUSEHOLD = _script(_household)


def streaming(token_delay: float, text: str) -> Responder:
    """Answer with text, one token every token_delay seconds."""
    return _script(lambda _body: Text(text, token_delay=token_delay))


def with_latency(responder: Responder, rng: random.Random, most: float) -> Responder:
    """Make every reply wait a random 0 to most seconds before answering."""

    def respond(body: Any) -> ChatReply:
        return replace(responder(body), delay=rng.uniform(0, most))

    return respond


def with_delay(responder: Responder, seconds: float) -> Responder:
    """Make every reply wait the same time before answering."""

    def respond(body: Any) -> ChatReply:
        return replace(responder(body), delay=seconds)

    return respond
