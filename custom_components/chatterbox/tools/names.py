"""Find the offered tool that a name written by a model means."""

from collections.abc import Callable, Iterable

# What models trained on other APIs write before a tool's name.
_FOREIGN_PREFIXES = ("functions.", "default_api.")


def tool_resolver(names: Iterable[str]) -> Callable[[str], str | None]:
    """Return a function that finds the offered tool a name means, or None.

    A name matches exactly; or else ignoring case and a "functions." or
    "default_api." prefix; or else as the one offered tool that ends in
    `__<name>`: small models often drop the prefix that Home Assistant puts
    on tool names (HassTurnOn for intent__HassTurnOn).
    """
    exact = list(dict.fromkeys(names))
    offered = set(exact)
    folded = {name.casefold(): name for name in exact}

    def resolve(name: str) -> str | None:
        if name in offered:
            return name
        bare = name.strip()
        for prefix in _FOREIGN_PREFIXES:
            bare = bare.removeprefix(prefix)
        if (found := folded.get(bare.casefold())) is not None:
            return found
        matches = [full for full in exact if full.endswith(f"__{name}")]
        return matches[0] if len(matches) == 1 else None

    return resolve
