"""A web service that cannot answer: the model reads what went wrong."""

from http import HTTPStatus
from typing import Any

import pytest

from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.test_util.aiohttp import AiohttpClientMocker

from tests.helpers.common import MODELS
from tests.helpers.llm_server import LLMServer
from tests.helpers.skills import call_tool

SUMMARY = "chatterbox__wikipedia_summary"
EIFFEL_TOWER = "https://en.wikipedia.org/api/rest_v1/page/summary/Eiffel_Tower"


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent the knowledge lookup skill, which asks Wikipedia."""
    return {CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: ["chatterbox_lookup"]}


@pytest.mark.parametrize(
    ("reply", "kind", "says"),
    [
        (
            {"status": HTTPStatus.SERVICE_UNAVAILABLE, "text": "<html>down</html>"},
            "ServiceUnavailable",
            "Wikipedia is not available right now (HTTP 503)",
        ),
        ({"exc": TimeoutError()}, "Timeout", "Wikipedia did not answer"),
        (
            {"status": HTTPStatus.FORBIDDEN, "text": "<html>blocked</html>"},
            "ServiceError",
            "Wikipedia refused the request (HTTP 403)",
        ),
    ],
    ids=["down", "timeout", "refused"],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_service_failures(
    hass: HomeAssistant,
    llm_server: LLMServer,
    aioclient_mock: AiohttpClientMocker,
    reply: dict[str, Any],
    kind: str,
    says: str,
) -> None:
    """Wikipedia down, slow or refusing: the model reads what went wrong."""
    aioclient_mock.get(EIFFEL_TOWER, **reply)

    result = await call_tool(
        hass, llm_server, "Eiffel Tower?", SUMMARY, {"topic": "Eiffel Tower"}
    )

    assert result["error"] is True
    assert result["data"]["error"] == kind
    assert says in result["data"]["error_text"]
