"""A dataset in the Home LLM Leaderboard's format, read and scored as upstream does.

The format is that of allenporter/home-assistant-datasets (`datasets/assist`):
each folder is a synthetic home, with `_fixtures.yaml` (its areas, devices and
entities, with their states and attributes) and case files beside it, each
with a category and `tests:` of `sentences`, an optional `setup` (states
before), `expect_changes` (states after) and `ignore_changes`. Every sentence
is one case. The project holds no dataset: the user names a folder
(`scripts/eval --dataset PATH`), such as their own clone of that repository.

A case passes as upstream scores it: after the sentence, every entity of the
home is as it was before, but for the expected changes; every attribute
counts, save the ones a case ignores and those that follow from a state.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import enum
import importlib
from pathlib import Path
import re
from typing import Any

import yaml

FIXTURES = "_fixtures.yaml"
# An enum written by name, as the fixtures write device classes and features:
# "binary_sensor.BinarySensorDeviceClass.LOCK".
_ENUM = re.compile(r"([a-z_]+)\.([A-Z][A-Za-z]+)\.([A-Z][A-Z0-9_]*)")
# What follows from a cover's or a valve's state and position, which no case
# declares: a device that moved as asked would otherwise fail on them.
DERIVED = frozenset({"is_closed", "is_opening", "is_closing"})

type Attributes = Mapping[str, Any]


@dataclass(frozen=True)
class Area:
    """An area of a home."""

    id: str
    name: str


@dataclass(frozen=True)
class Device:
    """A device of a home, in an area or none."""

    id: str
    name: str
    area: str | None = None
    info: Attributes = field(default_factory=dict)


@dataclass(frozen=True)
class Entity:
    """An entity of a home, with its starting state and attributes."""

    entity_id: str
    name: str
    area: str | None = None
    device: str | None = None
    state: str | None = None
    attributes: Attributes = field(default_factory=dict)

    @property
    def domain(self) -> str:
        """Return the entity's domain."""
        return self.entity_id.split(".", 1)[0]


@dataclass(frozen=True)
class Expected:
    """An entity's state and attributes as a case sets or expects them."""

    state: str | None = None
    attributes: Attributes = field(default_factory=dict)


@dataclass(frozen=True)
class DatasetCase:
    """One sentence said to a home, and what must be true after it."""

    id: str
    home: str
    category: str
    sentence: str
    setup: Mapping[str, Expected] = field(default_factory=dict)
    expect: Mapping[str, Expected] = field(default_factory=dict)
    ignore: Mapping[str, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Home:
    """A synthetic home and the cases said to it."""

    name: str
    areas: tuple[Area, ...]
    devices: tuple[Device, ...]
    entities: tuple[Entity, ...]
    cases: tuple[DatasetCase, ...] = ()


def load_dataset(path: Path) -> list[Home]:
    """Read every home of a dataset folder, in name order, with its cases."""
    folders = sorted(p.parent for p in path.glob(f"*/{FIXTURES}"))
    if not folders:
        msg = f"{path}: no home folder with a {FIXTURES}"
        raise ValueError(msg)
    return [load_home(folder) for folder in folders]


def load_home(folder: Path) -> Home:
    """Read one home: its fixtures, then every case file beside them."""
    raw = _yaml(folder / FIXTURES)
    home = Home(
        folder.name,
        tuple(Area(a["id"], a["name"]) for a in raw.get("areas") or ()),
        tuple(
            Device(d["id"], d["name"], d.get("area"), d.get("info") or {})
            for d in raw.get("devices") or ()
        ),
        tuple(
            Entity(
                e["id"],
                e["name"],
                e.get("area"),
                e.get("device"),
                None if e.get("state") is None else _state(e["state"]),
                resolved(e.get("attributes") or {}),
            )
            for e in raw.get("entities") or ()
        ),
    )
    cases = [
        case
        for file in sorted(folder.glob("*.yaml"))
        if file.name != FIXTURES
        for case in _cases(home, file)
    ]
    return Home(home.name, home.areas, home.devices, home.entities, tuple(cases))


def _cases(home: Home, file: Path) -> list[DatasetCase]:
    """Read a case file: one case per sentence of each test."""
    raw = _yaml(file)
    category = str(raw.get("category") or file.stem)
    known = {entity.entity_id for entity in home.entities}
    cases = []
    for number, test in enumerate(raw.get("tests") or (), start=1):
        setup = _states(test.get("setup"))
        expect = _states(test.get("expect_changes"))
        if unknown := sorted((set(setup) | set(expect)) - known):
            msg = f"{file}: test {number} names entities the home lacks: {unknown}"
            raise ValueError(msg)
        ignore = {
            entity_id: frozenset(names)
            for entity_id, names in (test.get("ignore_changes") or {}).items()
        }
        cases.extend(
            DatasetCase(
                f"{home.name}/{file.stem}-{number}.{index}",
                home.name,
                category,
                str(sentence),
                setup,
                expect,
                ignore,
            )
            for index, sentence in enumerate(test["sentences"], start=1)
        )
    return cases


def _states(raw: Mapping[str, Any] | None) -> dict[str, Expected]:
    """Read `{entity_id: {state: …, attributes: {…}}}`."""
    return {
        entity_id: Expected(
            None if values.get("state") is None else _state(values["state"]),
            resolved(values.get("attributes") or {}),
        )
        for entity_id, values in (raw or {}).items()
    }


def _state(value: Any) -> str:
    """Return a state as Home Assistant writes it: YAML's `false` is "off"."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _yaml(path: Path) -> dict[str, Any]:
    """Read a YAML file of mappings (every fixture and case file is one)."""
    raw = yaml.safe_load(path.read_text("utf-8"))
    if not isinstance(raw, dict):
        msg = f"{path}: not a mapping"
        raise TypeError(msg)
    return raw


def resolved(attributes: Attributes) -> dict[str, Any]:
    """Return attributes with enums written by name as their values.

    A list of flags (supported_features) is their sum as Home Assistant
    keeps it; a device class is its string.
    """
    found: dict[str, Any] = {}
    for name, value in attributes.items():
        if isinstance(value, list) and value and all(map(_is_enum, value)):
            members = [_member(item) for item in value]
            if all(isinstance(member, enum.Flag) for member in members):
                total = 0
                for member in members:
                    total |= int(member.value)
                found[name] = total
            else:
                found[name] = [_plain(member) for member in members]
        elif _is_enum(value):
            found[name] = _plain(_member(value))
        else:
            found[name] = value
    return found


def _is_enum(value: Any) -> bool:
    """Tell an enum written by name."""
    return isinstance(value, str) and _ENUM.fullmatch(value) is not None


def _member(text: str) -> enum.Enum:
    """Return the member an enum's name means, from Home Assistant's component."""
    match = _ENUM.fullmatch(text)
    assert match is not None  # _is_enum said so
    domain, kind, name = match.groups()
    module = importlib.import_module(f"homeassistant.components.{domain}")
    member = getattr(getattr(module, kind), name)
    if not isinstance(member, enum.Enum):
        msg = f"{text} is no enum member"
        raise TypeError(msg)
    return member


def _plain(member: enum.Enum) -> Any:
    """Return what Home Assistant writes of a member: a string enum's string."""
    return member.value


# Scoring


type Snapshot = Mapping[str, Attributes]
"""Each entity's state and attributes, flat: {"state": "on", "brightness": 128}."""


def unexpected_changes(
    before: Snapshot, after: Snapshot, case: DatasetCase
) -> dict[str, dict[str, Any]]:
    """Return what differs from what the case expects, by entity; empty: passed.

    The expected end is the state before with the case's changes over it.
    Every entity counts, every attribute but those the case ignores and those
    that follow from a state. An entity that appeared or went counts too.
    """
    diffs: dict[str, dict[str, Any]] = {}
    for entity_id in sorted(set(before) | set(after)):
        if entity_id not in after or entity_id not in before:
            diffs[entity_id] = {"gone" if entity_id in before else "new": True}
            continue
        wanted = dict(before[entity_id])
        if (expected := case.expect.get(entity_id)) is not None:
            if expected.state is not None:
                wanted["state"] = expected.state
            wanted.update(expected.attributes)
        ignored = DERIVED | case.ignore.get(entity_id, frozenset())
        got = after[entity_id]
        names = [
            name
            for name in dict.fromkeys([*wanted, *got])
            if name not in ignored and not same(wanted.get(name), got.get(name))
        ]
        if names:
            diffs[entity_id] = {
                "expected": {name: wanted.get(name) for name in names},
                "got": {name: got.get(name) for name in names},
            }
    return diffs


def same(wanted: Any, got: Any) -> bool:
    """Tell equal values, as upstream does: a tuple is a list, 1 is "1"."""
    if isinstance(wanted, tuple | list) and isinstance(got, tuple | list):
        return list(wanted) == list(got)
    return wanted == got or str(wanted) == str(got)


def flat(state: str, attributes: Attributes) -> dict[str, Any]:
    """Return a state and its attributes as one mapping, as the scorer reads it."""
    return {"state": state, **attributes}


def describe(diffs: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Say each unexpected change in a line: "light.x brightness is 0, not 128"."""
    lines = []
    for entity_id, diff in diffs.items():
        if "expected" not in diff:
            lines.append(f"{entity_id} is {'gone' if 'gone' in diff else 'new'}")
            continue
        lines.extend(
            f"{entity_id} {name} is {diff['got'][name]!r}, not {wanted!r}"
            for name, wanted in diff["expected"].items()
        )
    return lines


def categories(homes: Sequence[Home]) -> list[str]:
    """Return the dataset's categories, in the order they first appear."""
    return list(dict.fromkeys(case.category for home in homes for case in home.cases))
