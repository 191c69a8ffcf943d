"""The outcomes of a round, as values: what the turn does next.

decision.py decides which one a round comes to; loop.py runs another round
on RunAgain, and compose.py turns every other one into what the user hears.
"""

from dataclasses import dataclass

from homeassistant.helpers import llm


@dataclass(frozen=True, slots=True)
class Answered:
    """The answer is in the chat log."""

    said: str = ""
    """The answer to say once more, when the chat log ends on the refusals of
    the calls its round repeated (answer.answer_of)."""


@dataclass(frozen=True, slots=True)
class RunAgain:
    """Tool results wait for the model, or a correction does: another round."""

    note: str | None = None
    """What the model is told in the next request only."""
    why: str | None = None
    """The check that gave the note or the calls: each acts once in a turn."""
    calls: tuple[llm.ToolInput, ...] = ()
    """Calls the answer described instead of making: run before the request."""
    final: bool = False
    """The model is to answer now: the next round is the turn's last."""


@dataclass(frozen=True, slots=True)
class AskUser:
    """Sensitive calls wait for the user's yes: the agent asks for it."""


@dataclass(frozen=True, slots=True)
class NotFound:
    """The calls found no such device: the agent says what it could not find."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StatesAnswer:
    """A question got no answer from the model: the states it asked about are."""

    entity_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NothingDone:
    """The answer claims a change that no call made, even after a correction."""


@dataclass(frozen=True, slots=True)
class NotRead:
    """An answer's figure that nothing read gives stays after a note.

    It names nothing whose state could say it: the agent says it could not
    read it.
    """


@dataclass(frozen=True, slots=True)
class Fail:
    """The turn ends without an answer; the user hears the error of this key."""

    key: str


type Ending = (
    Answered | AskUser | NotFound | StatesAnswer | NothingDone | NotRead | Fail
)
"""How a turn ends: every outcome but another round (compose.py says each)."""

type Decision = RunAgain | Ending
"""What a round comes to: another round, or the turn's end."""
