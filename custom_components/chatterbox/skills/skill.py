"""What a skill is made of, and how it reaches Home Assistant as an LLM API.

A skill is tools plus the knowledge of when to use them. Each one is an LLM API
of its own, so a user switches it on per agent (ours or any integration's) by
selecting it beside Assist, and Home Assistant merges the two.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, override

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..tools.own import SkillTool


@dataclass(frozen=True, kw_only=True)
class Skill:
    """Tools, and a prompt fragment that says when to use them."""

    id: str
    """The LLM API id, as agents store it in their options."""
    name: str
    """The name users pick in an agent's LLM API list."""
    prompt: str
    tools: tuple[type[SkillTool], ...]


class SkillAPI(llm.API):
    """One skill, offered to every conversation agent as an LLM API."""

    def __init__(self, hass: HomeAssistant, skill: Skill) -> None:
        """Make the skill's tools; they live as long as the registration."""
        super().__init__(hass=hass, id=skill.id, name=skill.name)
        self.skill = skill
        self.tools: list[llm.Tool] = [tool() for tool in skill.tools]

    @override
    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """Offer the skill's tools and prompt for one turn."""
        return llm.APIInstance(
            api=self,
            api_prompt=self.skill.prompt,
            llm_context=llm_context,
            tools=list(self.tools),
        )


def compact(values: Mapping[str, Any]) -> dict[str, Any]:
    """Drop what is unknown, so the model reads only what there is to say."""
    return {key: value for key, value in values.items() if value not in (None, "")}
