"""The knowledge lookup skill (opt-in): short summaries from Wikipedia.

It sends the topic the model asks about to Wikipedia, which is why it is a
skill of its own that users select deliberately. The host is fixed: only the
language code comes from Home Assistant, and the topic goes into the path
percent-encoded.
"""

import re
from typing import Any, Final, override
from urllib.parse import quote

import probatio

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..lang import base_language
from ..tools.own import SkillTool, error_result, reads_only
from .fetch import ServiceError, async_get_json
from .skill import Skill, compact

SERVICE: Final = "Wikipedia"
SUMMARY_URL: Final = "https://{language}.wikipedia.org/api/rest_v1/page/summary/{title}"
SEARCH_URL: Final = "https://{language}.wikipedia.org/w/api.php"
FALLBACK_LANGUAGE: Final = "en"
MAX_SUMMARY: Final = 1200
_LANGUAGE_CODE: Final = re.compile(r"[a-z]{2,3}")
# Wikipedias named otherwise than Home Assistant names their language:
# Norwegian Bokmål's is no.wikipedia.org.
_WIKIPEDIAS: Final = {"nb": "no"}


class WikipediaSummaryTool(SkillTool):
    """A short summary of a topic, in the user's language where there is one."""

    name = "chatterbox__wikipedia_summary"
    title = "Wikipedia summary"
    description = (
        "Get a short summary of a topic from Wikipedia: people, places, things, "
        "events. In the user's language where Wikipedia has an article, else in "
        "English."
    )
    parameters = probatio.Schema(
        {
            probatio.Required(
                "topic", description="The article's subject, e.g. Eiffel Tower"
            ): probatio.All(str, probatio.Length(min=1, max=200)),
        }
    )
    annotations = reads_only(online=True)

    @override
    async def async_run(
        self,
        hass: HomeAssistant,
        arguments: dict[str, Any],
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Look the topic up in the user's Wikipedia, then the English one."""
        topic = " ".join(arguments["topic"].split())
        language = base_language(llm_context.language)
        language = _WIKIPEDIAS.get(language, language)
        if not _LANGUAGE_CODE.fullmatch(language):
            language = FALLBACK_LANGUAGE
        try:
            for wiki in dict.fromkeys((language, FALLBACK_LANGUAGE)):
                if (summary := await _async_find(hass, topic, wiki)) is not None:
                    return llm.ToolResult(data=summary)
        except ServiceError as err:
            return err.result
        return error_result(
            "NotFound",
            f"{SERVICE} has no article about {topic!r}. Tell the user, or try "
            "another name for it.",
        )


async def _async_find(
    hass: HomeAssistant, topic: str, language: str
) -> dict[str, Any] | None:
    """Return the summary of the article on the topic, searching if need be."""
    if (summary := await _async_summary(hass, topic, language)) is not None:
        return summary
    title = await _async_search(hass, topic, language)
    if title is None or title == topic:
        return None
    return await _async_summary(hass, title, language)


async def _async_summary(
    hass: HomeAssistant, title: str, language: str
) -> dict[str, Any] | None:
    """Return the summary of the article with this title, None if there is none."""
    url = SUMMARY_URL.format(
        language=language, title=quote(title.replace(" ", "_"), safe="")
    )
    status, body = await async_get_json(hass, SERVICE, url, {})
    if status == 404:  # noqa: PLR2004
        return None
    if status != 200 or not isinstance(body, dict) or "extract" not in body:  # noqa: PLR2004
        msg = f"{SERVICE} refused the request (HTTP {status})."
        raise ServiceError("ServiceError", msg)
    summary = compact(
        {
            "title": body.get("title"),
            "description": body.get("description"),
            "summary": _shorten(str(body["extract"])),
            "language": language,
            "source": SERVICE,
        }
    )
    if body.get("type") == "disambiguation":
        summary["ambiguous"] = "The title means several things: ask which one."
    return summary


async def _async_search(hass: HomeAssistant, topic: str, language: str) -> str | None:
    """Return the title of the article that best matches the topic."""
    status, body = await async_get_json(
        hass,
        SERVICE,
        SEARCH_URL.format(language=language),
        {
            "action": "opensearch",
            "search": topic,
            "limit": "1",
            "namespace": "0",
            "format": "json",
        },
    )
    # OpenSearch answers [query, [titles], [descriptions], [urls]].
    if status != 200 or not isinstance(body, list) or len(body) < 2:  # noqa: PLR2004
        msg = f"{SERVICE} search refused the request (HTTP {status})."
        raise ServiceError("ServiceError", msg)
    titles = body[1]
    return str(titles[0]) if isinstance(titles, list) and titles else None


def _shorten(text: str) -> str:
    """Cut a long summary after its last whole sentence that fits."""
    if len(text) <= MAX_SUMMARY:
        return text
    cut = text[:MAX_SUMMARY]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > 0 else f"{cut.rstrip()}…"


LOOKUP: Final = Skill(
    id="chatterbox_lookup",
    name="Chatterbox knowledge lookup",
    prompt=(
        "For facts about people, places, things and events that you are not "
        "sure of, use wikipedia_summary, and answer from its summary in a few "
        "sentences."
    ),
    tools=(WikipediaSummaryTool,),
)
