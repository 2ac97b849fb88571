"""``croupier ledger check``: are the books of a ledger store right?

    croupier ledger check [--data DIR] [--redis-file PATH] [--json] [--settle SECONDS]

Exit 0 only if the books balance (every balance equals its transfers, the accounts sum to
zero: what the cashier issued is exactly in wallets, stakes, layouts, house, commission and
jackpots), no player balance is negative, every settled round's transfers net to zero on its
layout and pot, no round is left open by a server that is not running, and every jackpot
pool reconciles with the jackpot accounts of its tables (``server/jackpots/reconcile.py``:
contributions less awards, the pools of ``--data`` or of ``--redis``). ``--json`` prints one
object: ``balanced``, ``issued``, ``accounts``, ``rounds_settled``, ``rounds_voided``,
``open_rounds``, ``owners`` (each server with open rounds: ``alive``, ``rounds``),
``jackpots`` (each pool: ``pool_net``, ``ledger_net``, ``tables``), ``problems`` and
``lost``. Exit 1: the books are wrong, or the store lost data; 3: the store cannot be read.

``--redis-file PATH`` (or env ``CROUPIER_REDIS``, the default; ``--redis URL`` shows a password
to ``ps``) checks the ledger a ``croupier serve --redis`` keeps in Redis. Open rounds
there belong to a live server (its round in play) or to a dead one: a server that has just
died still has a liveness entry, so the check watches the entries for ``--settle`` seconds
and names a server whose entry did not move as not running. Either way the store's epoch and
version are compared with the witness file of ``--data DIR`` (:mod:`server.store.witness`):
a store that is empty or older than what the server saw there (Redis restarted without its
data, or from an older snapshot) fails the check (``lost``).
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import trio

from server.cli import OneLineParser, leaves
from server.credentials import CredentialError, add_redis, redis_url
from server.jackpots.reconcile import check_audits, check_pools, embedded_audits
from server.jackpots.service import JackpotService
from server.money import dollars
from server.store import checkpoints
from server.store.model import CheckReport, StoreError
from server.store.sqlite import SqliteStore, default_data_dir
from server.store.witness import Witness, ledger_stream

Books = tuple[dict[str, int], dict[str, str]]


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


def _witness(directory: Path, store_id: str, epoch: str, version: int) -> str | None:
    """Why the store is not to be trusted, from the witness in ``directory`` (if any)."""
    try:
        witness = Witness(directory)
    except (OSError, ValueError, TypeError):
        return None
    return witness.check(ledger_stream(store_id), "the ledger store", epoch, version)


async def _pools(report: CheckReport, service: JackpotService, books: Books) -> None:
    """The jackpot pools against the ledger (``server/jackpots/reconcile.py``)."""
    balances, meta = books
    report.jackpots, problems = await check_pools(service, balances, meta)
    if problems:
        report.balanced = False
        report.problems += problems


def _chain(report: CheckReport, problems: list[str]) -> None:
    """The records' chain and checkpoints (``server/store/chain.py``): broken links fail."""
    if problems:
        report.balanced = False
        report.problems += problems


def check_sqlite(directory: Path, key: Any) -> tuple[CheckReport | None, str | None]:
    store = SqliteStore(directory, lock=False, readonly=True)
    try:
        lost = _witness(directory, store.id, store.epoch, store.version)
        report = store.check(owners_alive=_owned(directory))
        try:
            _chain(report, store.verify_chain(key))
        except sqlite3.OperationalError:  # a data directory older than the chain
            unchained = "the records are not chained yet: start a server on them once"
            _chain(report, [unchained])
        try:
            records = store.jackpot_records()
        except sqlite3.OperationalError:  # a data directory older than the embedded pools
            records = []
        balances, meta = store.books()  # the pools reconciled without an event loop: a
        report.jackpots, problems = check_audits(embedded_audits(records), balances, meta)
        if problems:  # caller may be inside one (a test)
            report.balanced = False
            report.problems += problems
        return report, lost
    finally:
        store.close()


async def _check_redis(
    url: str, directory: Path, settle: float, key: Any
) -> tuple[CheckReport | None, str | None]:
    from server.jackpots.redis_store import open_redis_service
    from server.store.redis import open_redis_store

    async with open_redis_store(url, create=False) as store:
        lost = _witness(directory, store.id, store.epoch, store.version)
        if not store.epoch:  # nothing there: a ledger lost, or none ever
            return None, lost
        report = await store.check(settle)
        _chain(report, await store.verify_chain(key))
        async with open_redis_service(url) as pools:
            await _pools(report, pools, await store.books())
        return report, lost


def _keygen(out: Path) -> int:
    """A new Ed25519 key pair: the private key to ``out`` (mode 600), the public key printed
    (give it to ``croupier ledger check`` as ``--verify-key-file`` or CROUPIER_VERIFY_KEY)."""
    if out.exists():
        print(f"croupier ledger: {out} exists: choose another --out", file=sys.stderr)
        return 2
    private, public = checkpoints.new_key()
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        print(f"croupier ledger: cannot write {out}: {exc.strerror}", file=sys.stderr)
        return 2
    with os.fdopen(fd, "w") as f:
        f.write(private + "\n")
    print(f"signing key written to {out} (keep it away from the store and its backups)")
    print(f"verify key: {public}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="croupier ledger", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check the books of a ledger store")
    check.add_argument(
        "--data", type=Path, default=default_data_dir(), help="data directory (default ./var)"
    )
    add_redis(
        check,
        "the Redis of croupier serve --redis; --data is then where the server keeps its "
        "witness file",
    )
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument(
        "--verify-key-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="the public key of the server's signing key (or env CROUPIER_VERIFY_KEY): every "
        "checkpoint's signature is checked, and a chain without one is a problem",
    )
    keygen = sub.add_parser(
        "keygen", help="make a signing key for croupier serve --signing-key-file"
    )
    keygen.add_argument(
        "--out", type=Path, required=True, metavar="PATH", help="where to write the private key"
    )
    check.add_argument(
        "--settle",
        type=float,
        default=1.5,
        metavar="SECONDS",
        help="with --redis and open rounds: how long to watch their servers' liveness "
        "(a live server refreshes it every second; a crashed one's entry stays put until it "
        "expires); default 1.5",
    )
    args = parser.parse_args(argv)
    if args.command == "keygen":
        return _keygen(args.out)
    try:  # never a password in argv (server/credentials.py)
        args.redis = redis_url(args, "croupier ledger")
    except CredentialError as exc:
        check.error(str(exc))
    try:
        key = checkpoints.verify_key(args.verify_key_file)
    except checkpoints.BadKey as exc:
        print(f"croupier ledger: {exc}", file=sys.stderr)
        return 2
    if args.redis:
        from server.store.redis import public_url

        where = public_url(args.redis)  # never a password in the output
    else:
        where = str(args.data)
    try:
        if args.redis:
            report, lost = trio.run(_check_redis, args.redis, args.data, args.settle, key)
        else:
            report, lost = check_sqlite(args.data, key)
    except (StoreError, OSError, BaseExceptionGroup) as exc:  # coredis wraps in groups
        cause = next((e for e in leaves(exc) if isinstance(e, StoreError | OSError)), None)
        if cause is None:
            raise
        print(f"croupier ledger: cannot read the ledger in {where}: {cause}", file=sys.stderr)
        return 3
    if report is None:
        if lost is None:
            print(f"croupier ledger: no ledger in {where}", file=sys.stderr)
            return 3
        report = CheckReport(False, 0, 0, 0, 0, 0, [])
    if lost is not None:
        report.balanced = False
        report.problems.insert(0, lost)
    if args.json:
        print(json.dumps({**report.to_json(), "lost": lost}))
    else:
        state = "balanced" if report.balanced else "NOT balanced"
        print(
            f"ledger {where}: {state}; issued {dollars(report.issued)}, "
            f"{report.accounts} accounts, {report.rounds_settled} rounds settled, "
            f"{report.rounds_voided} voided, {report.open_rounds} open"
        )
        for owner, row in report.owners.items():
            state = "running" if row["alive"] else "NOT running"
            print(f"  server {owner or '?'} ({state}): {row['rounds']} rounds open")
        for row in report.jackpots:
            print(
                f"  jackpot pool {row['pool']}: contributions less awards "
                f"{dollars(row['pool_net'])}, its tables' jackpot accounts "
                f"{dollars(row['ledger_net'])}"
            )
        for problem in report.problems:
            print(f"  problem: {problem}")
    return 0 if report.balanced else 1
