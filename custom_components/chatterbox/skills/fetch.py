"""Ask a fixed web service for JSON through Home Assistant's HTTP session."""

from collections.abc import Mapping
from typing import Any, Final

import aiohttp

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from ..const import LOGGER
from ..tools.own import error_result

# Seconds one request may take, connecting included. A tool makes at most a few.
REQUEST_TIMEOUT: Final = 8.0


class ServiceError(Exception):
    """A web service that could not answer; the model reads why."""

    def __init__(self, kind: str, text: str) -> None:
        """Name the failure and explain it for the model."""
        super().__init__(text)
        self.kind = kind
        self.text = text

    @property
    def result(self) -> llm.ToolResult:
        """Return the failure as the tool's error result."""
        return error_result(self.kind, self.text)


async def async_get_json(
    hass: HomeAssistant, service: str, url: str, params: Mapping[str, str]
) -> tuple[int, Any]:
    """GET url and return the status and the JSON body (None if it is not JSON).

    An unreachable service, a timeout, a 429 or a 5xx raise ServiceError; other
    statuses are the caller's to read, as a 404 often just means "not found".
    """
    session = async_get_clientsession(hass)
    try:
        async with session.get(
            url, params=params, timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
        ) as response:
            status = response.status
            if status == 429 or status >= 500:  # noqa: PLR2004
                LOGGER.warning("%s answered HTTP %s", service, status)
                msg = (
                    f"{service} is not available right now (HTTP {status}). "
                    "Tell the user; it may work again later."
                )
                raise ServiceError("ServiceUnavailable", msg)
            try:
                body = await response.json(content_type=None)
            except ValueError:
                body = None
    except TimeoutError as err:
        LOGGER.warning("%s did not answer within %s s", service, REQUEST_TIMEOUT)
        msg = (
            f"{service} did not answer within {REQUEST_TIMEOUT:g} seconds. "
            "Tell the user it is not responding right now."
        )
        raise ServiceError("Timeout", msg) from err
    except aiohttp.ClientError as err:
        LOGGER.warning("Could not reach %s: %s", service, err)
        msg = f"{service} could not be reached ({err}). Tell the user."
        raise ServiceError("ServiceUnavailable", msg) from err
    LOGGER.debug("%s answered HTTP %s", service, status)
    return status, body
