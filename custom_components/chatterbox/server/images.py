"""Images from a server's images endpoint, for the AI Task.

OpenAI, LocalAI and others serve /v1/images/generations. Whether a server
does is found without making an image: a body no server can read (no prompt,
a count that is no number) is refused with a 400 or 422 where the endpoint
exists, and a 404 where it does not. A server that fills in what is missing
(LocalAI makes one image of an empty prompt) cannot fill in a count that
fails to parse.
"""

from base64 import b64decode
import binascii
from dataclasses import dataclass
from http import HTTPStatus
from typing import Final

import httpx
import openai

from ..const import LOGGER
from .client import describe

# Making an image takes a while on a local server.
IMAGE_TIMEOUT: Final = 300.0
PROBE_TIMEOUT: Final = 30.0
# An image a server sends whole in its answer; anything bigger is not one.
MAX_IMAGE_BYTES: Final = 20 * 1024 * 1024
# The first bytes of the image formats servers send.
_MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
)


@dataclass(frozen=True, slots=True)
class Image:
    """An image the server made."""

    data: bytes
    mime_type: str
    revised_prompt: str | None = None


async def async_serves_images(client: openai.AsyncOpenAI, model: str) -> bool | None:
    """Tell whether the server has an images endpoint; None if it cannot tell."""
    probe = client.with_options(timeout=PROBE_TIMEOUT, max_retries=0)
    try:
        await probe.post(
            "/images/generations",
            body={"model": model, "n": "none"},
            cast_to=object,
        )
    except openai.APIStatusError as err:
        if err.status_code in (HTTPStatus.NOT_FOUND, HTTPStatus.METHOD_NOT_ALLOWED):
            LOGGER.debug("No images endpoint for %s: %s", model, describe(err))
            return False
        if err.status_code in (
            HTTPStatus.BAD_REQUEST,
            HTTPStatus.UNPROCESSABLE_ENTITY,
        ):
            # It read the request, and refused what no server can read.
            return True
        LOGGER.debug("Images probe of %s failed: %s", model, describe(err))
        return None
    except (openai.OpenAIError, httpx.HTTPError) as err:
        LOGGER.debug("Images probe of %s failed: %s", model, describe(err))
        return None
    LOGGER.warning("%s made an image of a request without a prompt", model)
    return True


async def async_make_image(
    client: openai.AsyncOpenAI, model: str, prompt: str
) -> Image | None:
    """Ask the server for one image; None when its answer holds none.

    The image is asked for as base64 in the answer: a link would have to be
    fetched from wherever the server put it. OpenAI's gpt-image models send
    nothing else, and refuse to be asked: they are asked again without it.
    """
    # Long to make, but as quick to connect to as any request.
    given = client.timeout
    connect = given.connect if isinstance(given, openai.Timeout) else None
    request = client.with_options(
        timeout=openai.Timeout(IMAGE_TIMEOUT, connect=connect)
    )
    try:
        answer = await request.images.generate(
            model=model, prompt=prompt, n=1, response_format="b64_json"
        )
    except openai.BadRequestError as err:
        if "response_format" not in str(err.message)[:1000]:
            raise
        answer = await request.images.generate(model=model, prompt=prompt, n=1)
    first = answer.data[0] if answer.data else None
    if first is None or not first.b64_json:
        return None
    if len(first.b64_json) > MAX_IMAGE_BYTES * 4 // 3 + 4:
        return None
    try:
        data = b64decode(first.b64_json, validate=True)
    except binascii.Error, ValueError:
        return None
    mime_type = next(
        (kind for magic, kind in _MAGIC if data.startswith(magic)),
        "image/webp" if data[:4] == b"RIFF" and data[8:12] == b"WEBP" else None,
    )
    if mime_type is None:
        return None
    return Image(data, mime_type, first.revised_prompt)
