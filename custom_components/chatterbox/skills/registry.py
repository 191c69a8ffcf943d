"""The skills Chatterbox offers, registered once while any server entry is loaded."""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.util.hass_dict import HassKey

from ..const import DOMAIN, LOGGER
from ..tools.own import TOOL_PREFIX
from .calculator import CALCULATOR
from .lookup import LOOKUP
from .skill import Skill, SkillAPI
from .weather import WEATHER

SKILLS: Final[tuple[Skill, ...]] = (WEATHER, CALCULATOR, LOOKUP)


@dataclass
class _Registration:
    """The registered skills and the entries that keep them registered."""

    unregister: list[Callable[[], None]]
    entries: set[str] = field(default_factory=set)


DATA_SKILLS: HassKey[_Registration] = HassKey(f"{DOMAIN}_skills")


class SkillConflictError(HomeAssistantError):
    """Two skills claim the same id or tool name, or a tool breaks the rules."""

    def __init__(self, problem: str) -> None:
        """Say what is wrong; Home Assistant logs it when setup fails."""
        super().__init__(
            translation_domain=DOMAIN,
            translation_key="skill_conflict",
            translation_placeholders={"problem": problem},
        )


def check_skills(skills: Sequence[Skill]) -> None:
    """Refuse duplicate skill ids and tool names, and unprefixed tool names."""
    ids = Counter(skill.id for skill in skills)
    if duplicates := sorted(skill_id for skill_id, n in ids.items() if n > 1):
        msg = f"more than one skill has the id {', '.join(duplicates)}"
        raise SkillConflictError(msg)
    owners: dict[str, str] = {}
    for skill in skills:
        for tool in skill.tools:
            if not tool.name.startswith(TOOL_PREFIX):
                msg = f"{skill.id}'s tool {tool.name} lacks the prefix {TOOL_PREFIX}"
                raise SkillConflictError(msg)
            if (owner := owners.setdefault(tool.name, skill.id)) != skill.id:
                msg = f"{owner} and {skill.id} both define the tool {tool.name}"
                raise SkillConflictError(msg)


@callback
def async_use_skills(
    hass: HomeAssistant, entry_id: str, skills: Sequence[Skill] = SKILLS
) -> Callable[[], None]:
    """Register the skills if no entry has yet; return what lets this entry go.

    The skills stay registered until the last entry that uses them lets go.
    """
    registration = hass.data.get(DATA_SKILLS)
    if registration is None:
        check_skills(skills)
        unregister: list[Callable[[], None]] = []
        try:
            unregister.extend(
                llm.async_register_api(hass, SkillAPI(hass, skill)) for skill in skills
            )
        except HomeAssistantError:
            for undo in unregister:
                undo()
            raise
        registration = hass.data[DATA_SKILLS] = _Registration(unregister)
        LOGGER.debug("Registered the skills %s", ", ".join(s.id for s in skills))
    registration.entries.add(entry_id)

    @callback
    def release() -> None:
        """Let go of the skills; the last entry to do so unregisters them."""
        registration.entries.discard(entry_id)
        if registration.entries or hass.data.get(DATA_SKILLS) is not registration:
            return
        for undo in registration.unregister:
            undo()
        del hass.data[DATA_SKILLS]
        LOGGER.debug("Unregistered the skills")

    return release
