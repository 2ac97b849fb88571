"""``croupier ledger check``: are the books of a ledger store right?

    croupier ledger check [--data DIR] [--json]

Exit 0 only if the books balance (every balance equals its transfers, the accounts sum to
zero: what the cashier issued is exactly in wallets, stakes, layouts, house, commission and
jackpots), no player balance is negative, every settled round's transfers net to zero on its
layout and pot, and no round is left open while no server owns the store. ``--json`` prints
one object: ``balanced``, ``issued``, ``accounts``, ``rounds_settled``, ``rounds_voided``,
``open_rounds`` and ``problems``. Exit 1: the books are wrong; 3: the store cannot be read.
"""

from __future__ import annotations

import fcntl
import json
import sys
from pathlib import Path

from server.cli import OneLineParser
from server.money import dollars
from server.store.model import StoreError
from server.store.sqlite import SqliteStore, default_data_dir


def _owned(directory: Path) -> bool:
    """Whether a live server holds the data directory (its lock is taken)."""
    try:
        with open(directory / "lock", "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="croupier ledger", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check the books of a ledger store")
    check.add_argument(
        "--data", type=Path, default=default_data_dir(), help="data directory (default ./var)"
    )
    check.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        store = SqliteStore(args.data, lock=False, readonly=True)
    except (StoreError, OSError) as exc:
        print(f"croupier ledger: cannot read the ledger in {args.data}: {exc}", file=sys.stderr)
        return 3
    try:
        report = store.check(owners_alive=_owned(args.data))
    finally:
        store.close()
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        state = "balanced" if report.balanced else "NOT balanced"
        print(
            f"ledger {args.data}: {state}; issued {dollars(report.issued)}, "
            f"{report.accounts} accounts, {report.rounds_settled} rounds settled, "
            f"{report.rounds_voided} voided, {report.open_rounds} open"
        )
        for problem in report.problems:
            print(f"  problem: {problem}")
    return 0 if report.balanced else 1
