"""Fail when any module of the integration has less line coverage than asked."""

import sys

from coverage import Coverage


def main() -> int:
    """Print each module's line coverage and return 1 if one is under the bar."""
    bar = float(sys.argv[1])
    cov = Coverage()
    cov.load()
    below: list[str] = []
    for path in sorted(cov.get_data().measured_files()):
        _, statements, _, missing, _ = cov.analysis2(path)
        if not statements:
            continue
        percent = 100 * (len(statements) - len(missing)) / len(statements)
        name = path.split("custom_components/", 1)[-1]
        print(f"{percent:6.1f}%  {name}")
        if percent < bar:
            below.append(name)
    if below:
        print(f"under {bar:.0f}% line coverage: {', '.join(below)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
