"""``croupier history export`` and ``croupier verify``: rounds on the record, out of the store.

    croupier history export --format ohh|pokerstars|phh|journal [--table T] [--since TIME]
                            [--data DIR | --redis-file PATH] [--out FILE]
    croupier verify ROUND.json [ROUND.json ...]

``history export`` reads the journal of the ledger store in ``--data DIR`` (default
``./var``; a running server's store can be read), or in the Redis of ``croupier serve
--redis`` (``--redis-file PATH`` or env ``CROUPIER_REDIS``), and writes every round of
``--table`` (all tables by default) that started at or after ``--since`` (ISO 8601, e.g.
``2026-11-27`` or ``2026-11-27T20:00:00Z``): ``ohh`` one Open Hand History JSON object per
line (every game: poker per the spec, Manila, the banked and stadium games OHH-style),
``pokerstars`` PokerStars hand history text and ``phh`` PHH files (hold'em and Omaha only:
a line on stderr says which rounds they leave out), ``journal`` the rounds' records as JSON
(what ``croupier verify`` reads).

``verify`` checks rounds against their commitments: the operator's record (this export) or a
player's; see :mod:`server.records.verify_cli` and :mod:`server.records.verify`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import trio

from server.cli import OneLineParser, iso_time
from server.credentials import CredentialError, add_redis, redis_url
from server.store.journal import JournalQuery, JournalRound
from server.store.model import StoreError
from server.store.sqlite import SqliteStore, default_data_dir


def read_rounds(
    data: Path, table: str | None, since: float | None, redis: str | None = None
) -> list[JournalRound]:
    """The journal's rounds of ``table`` (all: None) since ``since``, oldest first: from the
    Redis of ``croupier serve --redis`` when ``redis`` is given, else from SQLite in
    ``data``."""
    query = JournalQuery(table=table, since=since)
    if redis is not None:
        return trio.run(_read_redis, redis, query)
    store = SqliteStore(data, lock=False, readonly=True)
    try:
        return store.journal_rounds(query)
    finally:
        store.close()


async def _read_redis(url: str, query: JournalQuery) -> list[JournalRound]:
    from server.store.redis import open_redis_store, public_url

    async with open_redis_store(url, create=False) as store:
        if not store.epoch:
            raise StoreError(f"no ledger store in the Redis at {public_url(url)}")
        if query.table is not None:
            return await store.journal_rounds(query)
        rounds = []
        for table in await store.journal_tables():
            rounds += await store.journal_rounds(dataclasses.replace(query, table=table))
        return sorted(rounds, key=lambda r: r.entries[0].at if r.entries else 0.0)


def formatters() -> dict[str, Callable[[list[JournalRound]], str]]:
    from server.records import histories, phh, pokerstars

    return {
        "phh": phh.export,
        "pokerstars": pokerstars.export,
        "ohh": lambda rounds: "".join(
            histories.dumps_json(histories.ohh(r)) + "\n" for r in rounds
        ),
        "journal": lambda rounds: json.dumps([r.to_json() for r in rounds], indent=1) + "\n",
    }


def expresses() -> dict[str, Callable[[JournalRound], bool]]:
    """The formats that cannot express every round: whether each can express one (the
    others, ``ohh`` and ``journal``, write every round of every game)."""
    from server.records import phh, pokerstars

    return {
        "phh": lambda r: phh.phh_variant(r) is not None,
        "pokerstars": lambda r: pokerstars.game_name(r) is not None,
    }


def skipped_line(fmt: str, rounds: list[JournalRound]) -> str | None:
    """The line that says which rounds ``fmt`` leaves out, by game (None: none)."""
    can = expresses().get(fmt)
    if can is None:
        return None
    left = Counter(str(r.start.get("game")) for r in rounds if not can(r))
    if not left:
        return None
    games = ", ".join(f"{game} {n}" for game, n in sorted(left.items()))
    return (
        f"croupier history: {left.total()} of {len(rounds)} rounds not in the {fmt} format "
        f"(it writes settled hold'em and Omaha hands only; ohh and journal write every "
        f"round): {games}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="croupier history", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="hand histories from the journal")
    export.add_argument("--format", choices=sorted(formatters()), required=True)
    export.add_argument("--table", help="only this table")
    export.add_argument("--since", type=iso_time, help="rounds started at or after (ISO 8601)")
    export.add_argument(
        "--data", type=Path, default=default_data_dir(), help="data directory (default ./var)"
    )
    add_redis(export, "the Redis of croupier serve --redis (instead of --data)")
    export.add_argument("--out", type=Path, help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        redis = redis_url(args, "croupier history")
    except CredentialError as exc:
        export.error(str(exc))
    try:
        rounds = read_rounds(args.data, args.table, args.since, redis)
    except (StoreError, OSError) as exc:
        where = "its Redis" if redis else str(args.data)
        print(f"croupier history: cannot read the journal in {where}: {exc}", file=sys.stderr)
        return 3
    text = formatters()[args.format](rounds)
    skipped = skipped_line(args.format, rounds)
    if skipped is not None:
        print(skipped, file=sys.stderr)
    if args.out is not None:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def load_rounds(path: Path) -> list[JournalRound]:
    from server.records.verify_cli import load_rounds as load

    return load(path)


def verify_main(argv: list[str] | None = None) -> int:
    """``croupier verify``: :mod:`server.records.verify_cli`."""
    from server.records.verify_cli import main as verify

    return verify(argv)
