"""Measure prompt-cache potential: whether requests start with the one before.

Servers reuse their work for a request that begins with the previous request's
messages byte for byte, so the messages are compared as JSON.
"""

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
import json
from typing import Any

from custom_components.chatterbox.prompts import SUMMARY_HEADING

COMPACTION = "compaction block: oldest turns dropped"


def prefix_stability(bodies: Sequence[Any]) -> float:
    """Return the share of requests whose messages begin with the previous ones."""
    pairs = list(pairwise(bodies))
    kept = sum(
        1
        for before, after in pairs
        if json.dumps(after["messages"][: len(before["messages"])])
        == json.dumps(before["messages"])
    )
    return 100 * kept / len(pairs)


def prefix_breaks(bodies: Sequence[Any]) -> Counter[str]:
    """Count why and where requests did not start with the previous request."""
    reasons: Counter[str] = Counter()
    for before, after in pairwise(bodies):
        old, new = before["messages"], after["messages"]
        if json.dumps(new[: len(old)]) == json.dumps(old):
            continue
        where = "at a new turn" if new[-1]["role"] == "user" else "within a turn"
        reasons[f"{_why_broken(old, new)}, {where}"] += 1
    return reasons


def _why_broken(old: list[Any], new: list[Any]) -> str:
    """Name the first change that makes new not start with old."""
    users = [sum(m["role"] == "user" for m in messages) for messages in (old, new)]
    if users[1] < users[0]:
        if json.dumps(old[0]) != json.dumps(new[0]) and (
            SUMMARY_HEADING in new[0]["content"]
        ):
            return f"{COMPACTION}, summary updated in the system prompt"
        return COMPACTION
    if json.dumps(old[0]) != json.dumps(new[0]):
        return "system prompt changed"
    for before, after in zip(old, new, strict=False):
        if json.dumps(before) == json.dumps(after):
            continue
        if json.dumps(before, sort_keys=True) == json.dumps(after, sort_keys=True):
            return f"an earlier {before['role']} message in another key order"
        return f"an earlier {before['role']} message rewritten"
    return "history shortened"
