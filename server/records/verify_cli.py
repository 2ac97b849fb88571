"""``croupier verify``: check rounds against their commitments (``server/records/verify.py``).

    croupier verify ROUNDS.json [ROUNDS.json ...] [--commitment ROOT]
    croupier verify --player HISTORY.json [--commitment ROOT] [--seed SEED]

The first form reads the operator's record (``croupier history export --format journal``:
one round or a list) and checks each round's records, openings, derivation and settlement;
a blackjack round takes its shoe's record from any file given. ``--commitment ROOT`` keeps
the rounds with that commitment (the one a player was shown). The second form reads what a
player received: a ``history`` reply (or its ``rounds``), or the events it received in
order (a list of events or ``events`` frames); ``--seed`` checks that the player's seed is
among each round's seeds.

Each round prints ``verified``, ``not yet verifiable: WHY`` or ``FAILS: WHY``. Exit 0: no
round fails; 1: a round fails; 3: a file cannot be read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from server.cli import OneLineParser
from server.records.verify import Shoes, Verdict, rounds_seen, verify_round, verify_seen
from server.store.journal import JournalRound


def load_rounds(path: Path) -> list[JournalRound]:
    data: Any = json.loads(path.read_text())
    items = data if isinstance(data, list) else [data]
    return [JournalRound.from_json(item) for item in items]


def load_seen(path: Path) -> list[dict[str, Any]]:
    """A player's record: recalled rounds, or the events it received."""
    data: Any = json.loads(path.read_text())
    if isinstance(data, dict):
        data = data.get("rounds", [data])
    if not isinstance(data, list):
        raise ValueError("a list of rounds or events")
    if data and all(isinstance(r, dict) and "round" in r and "events" in r for r in data):
        return data
    return rounds_seen(data)


def report(verdict: Verdict, what: str) -> bool:
    """Print one round's verdict; whether it failed."""
    if verdict.problems:
        for p in verdict.problems:
            print(f"{verdict.ref}: FAILS: {p}")
        return True
    if verdict.pending is not None:
        print(f"{verdict.ref}: not yet verifiable: {verdict.pending}")
    else:
        print(f"{verdict.ref}: verified ({what}: {verdict.checked})")
    return False


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="croupier verify", description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="the operator's record (journal)")
    parser.add_argument("--player", type=Path, help="a player's record (history, or events)")
    parser.add_argument("--commitment", help="the root of the commitment a player was shown")
    parser.add_argument("--seed", help="the player's own seed (with --player)")
    args = parser.parse_args(argv)
    if not args.files and args.player is None:
        parser.error("give the operator's record (FILES) or a player's (--player FILE)")
    verdicts: list[tuple[Verdict, str]] = []
    try:
        if args.player is not None:
            for seen in load_seen(args.player):
                verdicts.append((verify_seen(seen, args.commitment, args.seed), "player"))
        files = [load_rounds(p) for p in args.files]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"croupier verify: cannot read the record: {exc}", file=sys.stderr)
        return 3
    rounds = [rnd for rs in files for rnd in rs]
    shoes = Shoes.of(rounds)
    for rnd in rounds:
        roots = {str(b.get("root")) for b in rnd.of("commit")}
        if args.commitment is not None and args.commitment not in roots:
            continue
        what = f"{rnd.start.get('game')}, " + ", ".join(f"{r[:16]}..." for r in sorted(roots))
        verdicts.append((verify_round(rnd, shoes), what))
    if args.commitment is not None and not verdicts:
        print(f"no round with the commitment {args.commitment}")
        return 1
    bad = sum(report(v, what) for v, what in verdicts)
    pending = sum(1 for v, _ in verdicts if not v.problems and v.pending is not None)
    done = len(verdicts) - bad - pending
    print(f"{done} of {len(verdicts)} rounds verified, {pending} not yet verifiable, {bad} fail")
    return 1 if bad else 0
