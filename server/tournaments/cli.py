"""``croupier tournament``: tournament conditions.

    croupier tournament validate FILE [FILE ...]

``validate`` reads each conditions file (TOML, :mod:`server.tournaments.conditions`) and checks
it against the rules of its game: one line per file that is good (what it is), one line per
problem of a file that is not. Exit status 0 when every file is good, 1 when any is not, 2 on
bad usage.
"""

from __future__ import annotations

import sys

from server.cli import OneLineParser
from server.money import dollars
from server.tournaments.conditions import Conditions, ConditionsError, decode, problems


def summary(c: Conditions) -> str:
    """One line for people: what the conditions describe."""
    start = f"sit-and-go at {c.sit_and_go}" if c.sit_and_go else f"starts {c.starts_at}"
    return (
        f"{c.name} ({c.game}, {c.rulebook.title}): {start}, {c.min_players}-{c.max_players} "
        f"players, entry {dollars(c.entry_fee)} of which {dollars(c.commission)} commission, "
        f"{len(c.sessions)} session(s), {len(c.prizes)} paid place(s)"
    )


def check(path: str) -> tuple[Conditions | None, list[str]]:
    """The conditions in the file at ``path`` and their problems (none: good)."""
    try:
        with open(path, "rb") as f:
            conditions = decode(f.read())
    except OSError as exc:
        return None, [f"cannot read it: {exc.strerror}"]
    except ConditionsError as exc:
        return None, [str(exc)]
    return conditions, problems(conditions)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="croupier tournament", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check conditions files against the rules")
    v.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    bad = False
    for path in args.files:
        conditions, found = check(path)
        for problem in found:
            print(f"{path}: {problem}", file=sys.stderr)
        if conditions is None or found:
            bad = True
        else:
            print(f"{path}: ok: {summary(conditions)}")
    return 1 if bad else 0
