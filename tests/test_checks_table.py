"""docs/checks.md's tables of the call policy, the verifier and the aids.

A reader predicts a turn from those tables: each finding of the verifier and
each aid is a Check of agent/answer_checks.py, in the same order, with the
same trace key; each call policy entry is one of tools/guard.py's POLICY, in
its order, and its trace key is one the code writes;
and every story the tables name is a test that exists.
"""

from pathlib import Path
import re

from custom_components.chatterbox.agent.answer_checks import CHECKS
from custom_components.chatterbox.tools.guard import POLICY

ROOT = Path(__file__).parent.parent
DOC = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
PACKAGE = "\n".join(
    path.read_text(encoding="utf-8")
    for path in (ROOT / "custom_components" / "chatterbox").rglob("*.py")
)
TESTS = "\n".join(
    path.read_text(encoding="utf-8") for path in (ROOT / "tests").rglob("test_*.py")
)


def table(heading: str) -> list[list[str]]:
    """Return the rows of the first table under a heading, as their cells."""
    lines = DOC.split(heading, 1)[1].splitlines()
    start = next(at for at, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return [
        [cell.strip() for cell in row.strip("|").split("|")]
        for row in rows[2:]  # the header and its rule
    ]


def key(cell: str) -> str:
    """Return the name in a cell's backticks."""
    found = re.search(r"`([^`]+)`", cell)
    assert found is not None, cell
    return found.group(1)


def test_the_verifier_is_the_checks_every_model_gets() -> None:
    """The verifier's findings are the checks that are no aid, in order."""
    rows = table("### The verifier")

    assert [(key(row[0]), key(row[5])) for row in rows] == [
        (check.key, check.trace) for check in CHECKS if not check.aid
    ]


def test_the_aids_are_the_checks_a_small_model_gets() -> None:
    """The aids are the checks that only steer a small model, in order."""
    rows = table("### Small-model aids")

    assert [(key(row[0]), key(row[3])) for row in rows] == [
        (check.key, check.trace) for check in CHECKS if check.aid
    ]


def test_the_call_policy_is_the_guards_in_its_order() -> None:
    """The entries are the guard's policy, in order; each trace key is written."""
    rows = table("### The call policy")

    assert [key(row[0]) for row in rows] == [entry for entry, _review in POLICY]
    for row in rows:
        if "`" in row[5]:
            assert f'"{key(row[5])}"' in PACKAGE, row[5]


def test_every_story_the_tables_name_is_a_test() -> None:
    """Both stories of each entry: where it acts, and where a capable model passes."""
    stories = set(re.findall(r"`(test_\w+)`", DOC))

    assert stories
    missing = [name for name in sorted(stories) if f"def {name}(" not in TESTS]
    assert missing == []
