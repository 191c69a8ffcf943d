"""Which of a server's models can be an agent's: the ones that chat.

OpenAI's model list is unordered and holds speech, image, embedding and
moderation models beside the chat models; local servers list embedding models
beside them too. What the server says of a model decides where it says it
(OpenRouter's output modalities); elsewhere the well-known names of models
that do not chat leave them out. A name is only a hint: the user may still
type any model, and the probe then finds whether it chats. Pure: no I/O.
"""

from collections.abc import Mapping
import re
from typing import Final

from .client import Listed
from .profile import NAME_LIMIT

# A word of a model's name that marks a model for another endpoint than chat:
# embeddings, speech in or out, images, video, moderation, reranking, and
# OpenAI's completion-only base models.
_NOT_CHAT: Final = re.compile(
    r"(?:^|[-_/:.])(?:\w*embed\w*|whisper|tts|transcribe|dall-e|image|sora|"
    r"moderation|rerank\w*|realtime|davinci|babbage|diffusion|flux)(?=$|[-_/:.\d])"
)


def chats(model: str, listed: Listed | None = None) -> bool:
    """Return whether a listed model is one to chat with, as far as its list says."""
    if listed is not None and listed.chat is not None:
        return listed.chat
    return _NOT_CHAT.search(model[:NAME_LIMIT].lower()) is None


def chat_models(listed: Mapping[str, Listed]) -> list[str]:
    """Return the models to offer for an agent, sorted by name.

    Should the hints leave none, all are offered: the probe has the last word.
    """
    offered = sorted(model for model, of in listed.items() if chats(model, of))
    return offered or sorted(listed)
