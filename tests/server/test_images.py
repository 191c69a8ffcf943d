"""The images endpoint: found without making an image, and its answers read."""

from base64 import b64encode

import openai
import pytest

from custom_components.chatterbox.server import images
from custom_components.chatterbox.server.images import (
    async_make_image,
    async_serves_images,
)
from tests.helpers.common import API_KEY
from tests.helpers.llm_server import LLMServer

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16
WEBP = b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 8


def _client(url: str) -> openai.AsyncOpenAI:
    """Return an SDK client of the test server, as Chatterbox builds one."""
    return openai.AsyncOpenAI(base_url=url, api_key=API_KEY, max_retries=0)


@pytest.mark.parametrize(
    ("images", "serves"),
    [
        # A 400 for a body it cannot read: the endpoint is there.
        ({"gpt-image-1": JPEG}, True),
        # No endpoint.
        (None, False),
        # A server that breaks, a key refused, a busy server: cannot tell.
        ({"gpt-image-1": 500}, None),
        ({"gpt-image-1": 401}, None),
        ({"gpt-image-1": 429}, None),
    ],
)
async def test_the_probe_makes_no_image(
    llm_server: LLMServer,
    images: dict[str, bytes | str | int] | None,
    serves: bool | None,  # noqa: FBT001
) -> None:
    """The probe asks for no image at all: nothing is made, whatever the answer."""
    llm_server.images = images

    async with _client(llm_server.url) as client:
        assert await async_serves_images(client, "gpt-image-1") is serves
    assert all("prompt" not in body for body in llm_server.image_requests)


async def test_an_unreachable_server_cannot_tell(socket_enabled: None) -> None:
    """Nothing listens: the probe cannot tell, and raises nothing."""
    del socket_enabled
    async with _client("http://127.0.0.1:9/v1") as client:
        assert await async_serves_images(client, "gpt-image-1") is None


@pytest.mark.parametrize(
    ("made", "mime_type"),
    [
        (JPEG, "image/jpeg"),
        (WEBP, "image/webp"),
        (b"GIF89a" + b"\x00" * 8, "image/gif"),
        (b"plain text, not an image", None),
        (b"", None),
        ("not base64 at all!", None),
        ("A" * 2000, None),
        (b"RIFF" + b"\x00" * 16, None),
    ],
    ids=["jpeg", "webp", "gif", "text", "empty", "garbage", "huge", "riff"],
)
async def test_an_answer_is_an_image_or_none(
    llm_server: LLMServer,
    monkeypatch: pytest.MonkeyPatch,
    made: bytes | str,
    mime_type: str | None,
) -> None:
    """What the server sends is read by its first bytes; anything else is no image.

    The cap is lowered here to 1 kB: the real one is 20 MB.
    """
    monkeypatch.setattr(images, "MAX_IMAGE_BYTES", 1024)
    llm_server.images = {"gpt-image-1": made}

    async with _client(llm_server.url) as client:
        image = await async_make_image(client, "gpt-image-1", "a lake")

    assert (image.mime_type if image else None) == mime_type
    if image is not None:
        assert image.data == made
        assert b64encode(image.data)


async def test_a_refusal_of_something_else_is_raised(llm_server: LLMServer) -> None:
    """A 400 that is not about response_format is the caller's to tell."""
    llm_server.images = {"gpt-image-1": JPEG}

    async with _client(llm_server.url) as client:
        with pytest.raises(openai.BadRequestError):
            await async_make_image(client, "gpt-image-1", "")
