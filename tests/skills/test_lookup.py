"""The opt-in knowledge lookup: Wikipedia summaries (replaced by aioclient_mock)."""

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
EXTRACT = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in "
    "Paris, France. It is named after the engineer Gustave Eiffel, whose company "
    "designed and built the tower from 1887 to 1889."
)


def _summary(
    title: str, extract: str, *, language: str = "en", kind: str = "standard"
) -> dict[str, Any]:
    """Answer like the REST API's page/summary endpoint."""
    canonical = title.replace(" ", "_")
    page = f"https://{language}.wikipedia.org/wiki/{canonical}"
    return {
        "type": kind,
        "title": title,
        "displaytitle": f'<span class="mw-page-title-main">{title}</span>',
        "namespace": {"id": 0, "text": ""},
        "wikibase_item": "Q243",
        "titles": {"canonical": canonical, "normalized": title, "display": title},
        "pageid": 9232,
        "lang": language,
        "dir": "ltr",
        "revision": "1290000000",
        "tid": "7c5e3a60-0000-11f0-0000-000000000000",
        "timestamp": "2026-04-20T10:00:00Z",
        "description": "Tower in Paris, France",
        "description_source": "local",
        "content_urls": {
            "desktop": {"page": page, "revisions": f"{page}?action=history"},
            "mobile": {"page": page.replace(".wikipedia", ".m.wikipedia")},
        },
        "extract": extract,
        "extract_html": f"<p>{extract}</p>",
    }


def _not_found(language: str, title: str) -> dict[str, Any]:
    """Answer like the REST API for a page that does not exist (HTTP 404)."""
    return {
        "type": "https://mediawiki.org/wiki/HyperSwitch/errors/not_found",
        "title": "Not found.",
        "method": "get",
        "detail": "Page or revision not found.",
        "uri": f"/{language}.wikipedia.org/v1/page/summary/{title}",
    }


def _no_page(aioclient_mock: AiohttpClientMocker, language: str, title: str) -> None:
    """Let the summary endpoint answer that the page does not exist."""
    aioclient_mock.get(
        _summary_url(language, title),
        status=HTTPStatus.NOT_FOUND,
        json=_not_found(language, title),
    )


def _summary_url(language: str, title: str) -> str:
    return f"https://{language}.wikipedia.org/api/rest_v1/page/summary/{title}"


def _search_url(language: str) -> str:
    return f"https://{language}.wikipedia.org/w/api.php"


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent the knowledge lookup skill only."""
    return {CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: ["chatterbox_lookup"]}


@pytest.mark.usefixtures("loaded_entry")
async def test_summary_of_a_topic(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """Who built the Eiffel Tower? The model reads Wikipedia's summary."""
    aioclient_mock.get(
        _summary_url("en", "Eiffel_Tower"), json=_summary("Eiffel Tower", EXTRACT)
    )

    result = await call_tool(
        hass,
        llm_server,
        "Who built the Eiffel Tower?",
        SUMMARY,
        {"topic": "Eiffel Tower"},
    )

    assert result == {
        "data": {
            "title": "Eiffel Tower",
            "description": "Tower in Paris, France",
            "summary": EXTRACT,
            "language": "en",
            "source": "Wikipedia",
        },
        "error": False,
    }
    assert aioclient_mock.call_count == 1


@pytest.mark.usefixtures("loaded_entry")
async def test_in_the_users_language_then_english(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """German first; where German Wikipedia has nothing, the English article."""
    topic = "Home_Assistant_Yellow"
    _no_page(aioclient_mock, "de", topic)
    aioclient_mock.get(
        _search_url("de"),
        params={"action": "opensearch", "search": "Home Assistant Yellow"},
        json=["Home Assistant Yellow", [], [], []],
    )
    extract = "Home Assistant Yellow is a home automation hub."
    aioclient_mock.get(
        _summary_url("en", topic), json=_summary("Home Assistant Yellow", extract)
    )

    result = await call_tool(
        hass,
        llm_server,
        "Was ist Home Assistant Yellow?",
        SUMMARY,
        {"topic": "Home Assistant Yellow"},
        language="de-DE",
    )

    assert result["data"]["summary"] == extract
    assert result["data"]["language"] == "en"
    assert [url.host for _m, url, _d, _h in aioclient_mock.mock_calls] == [
        "de.wikipedia.org",
        "de.wikipedia.org",
        "en.wikipedia.org",
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_topic_found_by_search(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """No page under the model's words: the search finds the article's title."""
    _no_page(aioclient_mock, "en", "eiffel_tower_paris")
    aioclient_mock.get(
        _search_url("en"),
        json=[
            "eiffel tower paris",
            ["Eiffel Tower"],
            [""],
            ["https://en.wikipedia.org/wiki/Eiffel_Tower"],
        ],
    )
    aioclient_mock.get(
        _summary_url("en", "Eiffel_Tower"), json=_summary("Eiffel Tower", EXTRACT)
    )

    result = await call_tool(
        hass, llm_server, "Eiffel tower?", SUMMARY, {"topic": "eiffel tower paris"}
    )

    assert result["data"]["title"] == "Eiffel Tower"
    assert aioclient_mock.call_count == 3


@pytest.mark.usefixtures("loaded_entry")
async def test_no_article(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """Nothing about it anywhere: the model hears so, by the topic's name."""
    _no_page(aioclient_mock, "en", "Xyzzy_plugh")
    aioclient_mock.get(_search_url("en"), json=["Xyzzy plugh", [], [], []])

    result = await call_tool(
        hass, llm_server, "What is xyzzy plugh?", SUMMARY, {"topic": "Xyzzy plugh"}
    )

    assert result["error"] is True
    assert result["data"]["error"] == "NotFound"
    assert "'Xyzzy plugh'" in result["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_ambiguous_title_and_long_summary(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """A disambiguation page is marked; a long extract is cut after a sentence."""
    sentence = "Mercury may refer to a planet, an element, or a Roman god. "
    aioclient_mock.get(
        _summary_url("en", "Mercury"),
        json=_summary("Mercury", sentence * 40, kind="disambiguation"),
    )

    result = await call_tool(
        hass, llm_server, "Mercury?", SUMMARY, {"topic": "Mercury"}
    )

    data = result["data"]
    assert data["ambiguous"] == "The title means several things: ask which one."
    assert len(data["summary"]) <= 1200
    assert data["summary"].endswith("Roman god.")


@pytest.mark.usefixtures("loaded_entry")
async def test_search_refused(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """The search answers something that is not an OpenSearch list."""
    _no_page(aioclient_mock, "en", "Eiffel")
    aioclient_mock.get(_search_url("en"), status=HTTPStatus.BAD_REQUEST, json={})

    result = await call_tool(hass, llm_server, "Eiffel?", SUMMARY, {"topic": "Eiffel"})

    assert result["data"]["error"] == "ServiceError"
    assert "search refused the request (HTTP 400)" in result["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_language_code_never_reaches_the_host_unchecked(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """A language that is not a plain code falls back to English Wikipedia."""
    aioclient_mock.get(
        _summary_url("en", "Eiffel_Tower"), json=_summary("Eiffel Tower", EXTRACT)
    )

    result = await call_tool(
        hass,
        llm_server,
        "Eiffel Tower?",
        SUMMARY,
        {"topic": "Eiffel Tower"},
        language="evil.example.com/x",
    )

    assert result["data"]["language"] == "en"
    assert [url.host for _m, url, _d, _h in aioclient_mock.mock_calls] == [
        "en.wikipedia.org"
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_norwegian_bokmal_reads_the_norwegian_wikipedia(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """Home Assistant's "nb" is Wikipedia's "no": the article comes from there."""
    extract = "Oslo er Norges hovedstad."
    aioclient_mock.get(_summary_url("no", "Oslo"), json=_summary("Oslo", extract))

    result = await call_tool(
        hass, llm_server, "Hva er Oslo?", SUMMARY, {"topic": "Oslo"}, language="nb"
    )

    assert result["data"]["summary"] == extract
    assert result["data"]["language"] == "no"
    assert [url.host for _m, url, _d, _h in aioclient_mock.mock_calls] == [
        "no.wikipedia.org"
    ]
