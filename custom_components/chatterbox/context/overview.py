"""A large home's device list, folded into an overview that fits.

Home Assistant's Assist API lists every exposed entity in the system prompt
("Static Context": a YAML list of names, domains and areas). In a home of a
thousand devices that list alone is bigger than a small model's context
window. When it would take more than a share of the window, it is replaced by
an overview: the home's floors and areas, and in each area how many devices
of each kind it has. The devices a request names come with the request
(in_view.py), and the model can look for others (chatterbox__find_devices).

The overview depends on the list only, so it is the same bytes on every turn
of a conversation, and the server's prompt cache holds. The list is read line
by line, once per change of the home: linear in its length.
"""

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, floor_registry as fr

# How Home Assistant's Assist API starts the list, in every version we support.
STATIC_HEADING: Final = (
    "Static Context: An overview of the areas and the devices in this smart home:"
)
# Characters per token for the decision. Fixed, not the calibrated estimate:
# a decision that moved with each server report would change the system
# prompt in the middle of a conversation. Names are dense in tokens, so this
# is on the safe side of the usual four.
CHARS_PER_TOKEN: Final = 3.5
# The overview's own heading, and what it tells the model to do.
OVERVIEW_HEADING: Final = (
    "Static Context: An overview of the areas and the devices in this smart "
    "home. It has too many devices to list one by one: each area is listed "
    "with how many devices of each kind it has."
)
NAMED_NOTE: Final = "The devices a request names are listed after it."
OVERVIEW_NOTE: Final = (
    f"{NAMED_NOTE} To find any other device, call chatterbox__find_devices."
)
# Without the search, Home Assistant's own tool finds the rest.
LIVE_CONTEXT_NOTE: Final = (
    f"{NAMED_NOTE} To find any other device, call GetLiveContext with words of "
    "its name, its area or its domain."
)
FEW_HEADING: Final = "The devices of the kinds this home has only a few of:"
NO_AREA: Final = "(no area)"
# A kind with this many devices or fewer is listed by name...
FEW_OF_A_KIND: Final = 3
# ...up to this many devices in all.
MAX_FEW: Final = 30


@dataclass(frozen=True, slots=True)
class StaticList:
    """Where the device list stands in a system prompt."""

    start: int
    """Where its heading starts."""
    end: int
    """Where the text after it starts."""
    entities: int
    """How many devices it lists."""

    @property
    def tokens(self) -> int:
        """Return about how many tokens the list takes."""
        return round((self.end - self.start) / CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class Overview:
    """A system prompt whose device list was too long, with the overview instead."""

    system: str
    entities: int
    """How many devices the list had."""
    tokens: int
    """About how many tokens the list took."""
    limit: int
    """The most tokens it could take: the share of the window."""
    search: bool
    """Whether it points to chatterbox__find_devices."""


def overview_for(
    hass: HomeAssistant, system: str, *, window: int, share: int, search: bool = True
) -> Overview | None:
    """Return the system prompt with an overview, if its list is over the share.

    A home whose list fits keeps it as Home Assistant wrote it. Search says
    whether the agent offers chatterbox__find_devices, which the overview
    then points to; otherwise it points to Home Assistant's GetLiveContext.
    """
    found = find_static_list(system)
    limit = window * share // 100
    if found is None or found.tokens <= limit:
        return None
    floors = tuple(sorted(_floors(hass).items()))
    areas = tuple(sorted(area.name for area in ar.async_get(hass).async_list_areas()))
    text = _overview(system[found.start : found.end], floors, areas, search)
    return Overview(
        system[: found.start] + text + system[found.end :],
        found.entities,
        found.tokens,
        limit,
        search,
    )


def find_static_list(system: str) -> StaticList | None:
    """Return where the Assist API's device list is, if the prompt has one.

    Its heading stands on a line of its own. The last such heading is Home
    Assistant's: the user's instructions come before the API's prompt, and
    may quote it. A device's name never starts a line: YAML indents what
    wraps, and a name's own line break leaves a blank line followed by an
    indented one, which is still the list.
    """
    start = f"\n{system}".rfind(f"\n{STATIC_HEADING}\n")
    if start < 0:
        return None
    end = system.find("\n", start)
    entities = 0
    while end >= 0 and (system.startswith(("\n- ", "\n  ", "\n\n  "), end)):
        entities += system.startswith("\n- ", end)
        end = system.find("\n", end + 1)
    return StaticList(start, len(system) if end < 0 else end, entities)


@dataclass(frozen=True, slots=True)
class Listed:
    """One device as the list has it."""

    names: str
    """Its name and aliases, as the list writes them."""
    domain: str
    area: str
    text: str = ""
    """Its lines in the list, as Home Assistant wrote them."""


def read_devices(listing: str, areas: Iterable[str] = ()) -> list[Listed]:
    """Read the devices of a device list: their names, domain and area.

    Home Assistant writes each device as "- names: …", then "  domain: …" and,
    when it has one, "  areas: Kitchen, alias…": the area's name first, then
    its aliases, joined by commas. An area of the home whose name starts the
    field is taken whole, so "Kitchen, upstairs" stays one area. A name that
    wraps onto more lines is read from its first.
    """
    known = frozenset(areas)
    devices: list[Listed] = []
    names = ""
    domain: str | None = None
    area = NO_AREA
    lines: list[str] = []
    # One more item at the end keeps the last device.
    for line in [*listing.splitlines(), "- "]:
        if line.startswith("- "):
            if domain is not None:
                devices.append(Listed(names, domain, area, "\n".join(lines)))
            names, domain, area, lines = "", None, NO_AREA, []
        if lines or line.startswith("- "):
            lines.append(line)
        field = f"  {line[2:]}" if line.startswith("- ") else line
        if field.startswith("  names: "):
            names = _scalar(field[len("  names: ") :])
        elif field.startswith("  domain: "):
            domain = _scalar(field[len("  domain: ") :])
        elif field.startswith("  areas: "):
            area = _area(_scalar(field[len("  areas: ") :]), known)
    return devices


def _area(field: str, known: frozenset[str]) -> str:
    """Return the area's name from its field: the longest known name it starts with."""
    parts = field.split(", ")
    for end in range(len(parts), 0, -1):
        if (name := ", ".join(parts[:end])) in known:
            return name
    # A field too long for a line wraps onto the next one: its start is all
    # there is here.
    wrapped = sorted(name for name in known if name.startswith(field))
    return (wrapped[0] if wrapped else parts[0]) or NO_AREA


def write_overview(
    devices: Sequence[Listed], floors: Mapping[str, str], *, search: bool = True
) -> str:
    """Write the overview: each area, with its floor and its devices' kinds.

    Then the devices of the kinds the home has only a few of (the weather,
    the thermostat, the front door), as Home Assistant's list has them: what
    the list told the model most. floors maps an area's name to its floor's
    name. Areas go by floor, then name; areas without a floor and devices
    without an area last. The order is fixed, so the same home gives the same
    bytes.
    """
    counts: dict[str, Counter[str]] = {}
    for device in devices:
        counts.setdefault(device.area, Counter())[device.domain] += 1
    lines = [OVERVIEW_HEADING]
    for area in sorted(
        counts,
        key=lambda name: (
            name == NO_AREA,
            name not in floors,
            floors.get(name, "").casefold(),
            name.casefold(),
        ),
    ):
        lines.append(f"- area: {area}")
        if floor := floors.get(area):
            lines.append(f"  floor: {floor}")
        kinds = ", ".join(
            f"{count} {domain}" for domain, count in sorted(counts[area].items())
        )
        lines.append(f"  devices: {kinds}")
    per_domain = Counter(device.domain for device in devices)
    few = sorted(
        (device for device in devices if per_domain[device.domain] <= FEW_OF_A_KIND),
        key=lambda device: (device.domain, device.names.casefold()),
    )[:MAX_FEW]
    if few:
        # As Home Assistant lists them, which is what models know.
        lines.append(FEW_HEADING)
        lines += [device.text for device in few]
    lines.append(OVERVIEW_NOTE if search else LIVE_CONTEXT_NOTE)
    return "\n".join(lines)


@lru_cache(maxsize=8)
def _overview(
    listing: str,
    floors: tuple[tuple[str, str], ...],
    areas: tuple[str, ...],
    search: bool,  # noqa: FBT001  # positional, for the cache's key
) -> str:
    """Return the overview of a list, once per list: the home rarely changes."""
    return write_overview(read_devices(listing, areas), dict(floors), search=search)


def overview_cache_clear() -> None:
    """Forget the overviews written: for measuring the first one of a home."""
    _overview.cache_clear()


def _floors(hass: HomeAssistant) -> dict[str, str]:
    """Return each area's floor, by the area's name."""
    floors = fr.async_get(hass)
    return {
        area.name: floor.name
        for area in ar.async_get(hass).async_list_areas()
        if area.floor_id and (floor := floors.async_get_floor(area.floor_id))
    }


def _scalar(value: str) -> str:
    """Return a YAML scalar as written on its first line, without its quotes.

    A quoted value that wraps onto the next line has only its opening quote.
    """
    value = value.strip()
    for quote, escaped in (("'", "''"), ('"', '\\"')):
        if value.startswith(quote):
            closed = len(value) >= 2 and value.endswith(quote)  # noqa: PLR2004
            return value[1 : -1 if closed else None].replace(escaped, quote)
    return value
