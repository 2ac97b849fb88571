"""``croupier jackpot``: look at, reconcile, seed and reset progressive jackpot pools.

    croupier jackpot [--redis URL] show  [POOL ...] [--json]
    croupier jackpot [--redis URL] check [POOL ...] [--json]   exit 1 if any pool is broken
    croupier jackpot [--redis URL] seed  POOL --regime qld|act2004|act2017 [--seed AMOUNT]
                                         [--meter AMOUNT] [--reserve AMOUNT]
                                         [--prize-rate PCT --reserve-rate PCT]
    croupier jackpot [--redis URL] reset POOL --id ID [--meter AMOUNT] [--reserve AMOUNT]

AMOUNT is in dollars with at most two decimals (``10000``, ``73456.20``, ``$73,456.20``).
``--redis`` defaults to ``$CROUPIER_REDIS`` (or give ``--redis-file PATH``: a password on the
command line shows in ``ps``): the pools of ``croupier serve --redis`` (or
``--jackpot-redis``). Without it the command reads the pools a server without Redis keeps
in its data directory (``--data DIR``, default ``./var``, in the ledger's SQLite file);
``seed`` and ``reset`` write there only while no server runs on it.

``check`` verifies digest jackpots.md 5.9, ``meter + reserve + paid = seed + contributions +
house``, from the stored totals and by replaying the audit stream, and reconciles each pool
with the ledger (``server/jackpots/reconcile.py``): the pool's contributions less its awards
must equal what the jackpot accounts of its linked tables hold; a difference fails, with the
pool and the amount. With ``--redis``, ``check`` also compares each pool with what the server
saw of it (the witness file in ``--data DIR``): a pool that is gone, replaced, or at a lower
version than the server saw (Redis restarted empty or from an older snapshot) is broken, even
if it balances. Exit codes: 0 fine, 1 a pool failed ``check``, 2 bad usage or no such pool, 3
the pool store cannot be reached (Redis down, wrong URL or wrong password), or its data
directory is in use by a server (``seed``, ``reset``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio
from coredis.exceptions import ConnectionError as RedisConnectionError

from server.cli import OneLineParser, debug, dollars_option, leaves
from server.credentials import CredentialError, add_redis, redis_url
from server.jackpots.memory import MemoryJackpotService, PoolRecord
from server.jackpots.model import JackpotError, JackpotUnavailable, PoolConfig, Snapshot
from server.jackpots.reconcile import embedded_pools, linked_tables, reconcile
from server.jackpots.service import JackpotService, open_jackpot_service
from server.redis_client import RedisURLError, options, public_url, refusal
from server.store.ledger import Ledger
from server.store.model import StoreUnavailable
from server.store.sqlite import SqliteStore, default_data_dir
from server.store.witness import Witness, pool_stream, witnessed_pools
from server.store.witness import verdict as witness_verdict

#: ``"73456.20"`` -> 7345620 cents, exactly (no floats): :func:`server.money.parse_dollars`
parse_amount = dollars_option


def parse_rate(text: str) -> int:
    """``"25"`` or ``"2.5"`` percent -> basis points."""
    bp = parse_amount(text.removesuffix("%"))
    if bp > 10_000:
        raise argparse.ArgumentTypeError(f"rate above 100%: {text}")
    return bp


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def percent(basis_points: int) -> str:
    return f"{basis_points // 100}.{basis_points % 100:02d}"


def where(url: str | None, data: Path | None = None) -> str:
    """Where the pools were looked for, for people (a password in the URL is hidden)."""
    if url is None:
        return f"the data directory {data or default_data_dir()} (no --redis)"
    return f"the Redis at {public_url(url)}"


def store_problem(exc: BaseException, url: str | None) -> str | None:
    """One line for a pool store that cannot be used (None: another failure)."""
    for e in leaves(exc):
        refused = refusal(e, url) if url is not None else None
        if refused is not None:  # wrong user or password, or an ACL short of a command
            return refused
        if isinstance(e, RedisConnectionError | OSError):
            return f"cannot reach {where(url)}: is Redis running there, and is the URL right?"
    return None


def snapshot_dict(snap: Snapshot) -> dict[str, Any]:
    return {
        "pool": snap.pool,
        "meter": snap.meter,
        "reserve": snap.reserve,
        "paid": snap.paid,
        "seed": snap.seed,
        "contributions": snap.contributions,
        "house": snap.house,
        "version": snap.version,
        "config": snap.config.to_dict(),
    }


def describe(snap: Snapshot) -> str:
    cfg = snap.config
    return "\n".join(
        [
            f"pool {snap.pool} ({cfg.regime}; prize {percent(cfg.prize_bp)}% reserve "
            f"{percent(cfg.reserve_bp)}%; seed level {money(cfg.seed)}; shortfall from "
            f"{cfg.shortfall}; fixed prizes from {cfg.fixed_source})",
            f"  meter         {money(snap.meter):>16}",
            f"  reserve       {money(snap.reserve):>16}",
            f"  paid          {money(snap.paid):>16}",
            f"  seed          {money(snap.seed):>16}   (opening balance of this epoch)",
            f"  contributions {money(snap.contributions):>16}",
            f"  house         {money(snap.house):>16}",
            f"  version       {snap.version:>16}",
        ]
    )


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="croupier jackpot",
        description="progressive jackpot pools",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    add_redis(
        parser,
        "redis://[:PASSWORD@]HOST:PORT, the one the server uses (none: the pools of --data)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=default_data_dir(),
        help="the server's data directory: check compares the pools with its witness file "
        "(default ./var, env CROUPIER_DATA)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in (("show", "print pools"), ("check", "verify the invariant (5.9)")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("pools", nargs="*", metavar="POOL", help="default: every pool")
        p.add_argument("--json", action="store_true", help="machine-readable output")
    seed = sub.add_parser("seed", help="create a pool")
    seed.add_argument("pool")
    seed.add_argument("--regime", required=True, choices=["qld", "act2004", "act2017"])
    seed.add_argument(
        "--seed",
        type=parse_amount,
        default=10_000_00,
        help="meter level the pool is topped up to (default 10000)",
    )
    seed.add_argument("--meter", type=parse_amount, help="opening meter (default: the seed)")
    seed.add_argument("--reserve", type=parse_amount, default=0, help="opening reserve")
    seed.add_argument("--prize-rate", type=parse_rate, help="percent of a wager to the meter")
    seed.add_argument("--reserve-rate", type=parse_rate, help="percent to the reserve")
    reset = sub.add_parser("reset", help="start a new reconciliation epoch")
    reset.add_argument("pool")
    reset.add_argument("--id", required=True, help="reset id (a retried reset is a no-op)")
    reset.add_argument("--meter", type=parse_amount, help="new meter (default: seed level)")
    reset.add_argument("--reserve", type=parse_amount, help="new reserve (default: unchanged)")
    return parser


@asynccontextmanager
async def open_pools(args: argparse.Namespace) -> AsyncIterator[JackpotService]:
    """The pools the command works on: Redis with ``--redis``, else the embedded pools of
    ``--data`` (read-only for ``show`` and ``check``; ``seed`` and ``reset`` write through a
    ledger of their own, which needs the data directory free of any server)."""
    if args.redis is not None:
        async with open_jackpot_service(args.redis) as service:
            yield service
        return
    if args.command in ("show", "check"):
        yield embedded_pools(_kept(args.data))
        return
    store = SqliteStore(args.data)  # DataDirInUse if a server runs on it
    try:
        ledger = Ledger(store)
        service = MemoryJackpotService()
        service.bind(ledger)
        yield service
        ledger.flush_now()
    finally:
        store.close()


def _kept(data: Path) -> list[PoolRecord]:
    """The embedded pools' records in ``data`` (none when it holds no ledger)."""
    try:
        store = SqliteStore(data, lock=False, readonly=True)
    except StoreUnavailable:
        return []
    try:
        return store.jackpot_records()
    except sqlite3.OperationalError:  # a data directory older than the embedded pools
        return []
    finally:
        store.close()


async def ledger_books(args: argparse.Namespace) -> tuple[dict[str, int], dict[str, str]] | None:
    """The ledger's balances and facts the pools are reconciled with: the Redis ledger of
    ``--redis`` if there is one, else the SQLite ledger of ``--data`` (None: neither)."""
    if args.redis is not None:
        from server.store.redis import open_redis_store

        async with open_redis_store(args.redis, create=False) as shared:
            if shared.epoch:
                return await shared.books()
    try:
        local = SqliteStore(args.data, lock=False, readonly=True)
    except StoreUnavailable:
        return None
    try:
        return local.books()
    finally:
        local.close()


async def run(args: argparse.Namespace, out: Any) -> int:
    async with open_pools(args) as service:
        if not service.available:
            raise JackpotUnavailable(
                f"cannot reach {where(args.redis)}: is Redis running there, and is the URL right?"
            )
        if args.command in ("show", "check"):
            return await show_or_check(service, args, out)
        if args.command == "seed":
            config = PoolConfig.profile(args.regime, seed=args.seed)
            if args.prize_rate is not None or args.reserve_rate is not None:
                config = PoolConfig(
                    config.regime,
                    config.prize_bp if args.prize_rate is None else args.prize_rate,
                    config.reserve_bp if args.reserve_rate is None else args.reserve_rate,
                    config.seed,
                    config.shortfall,
                    config.fixed_source,
                )
            snap = await service.open_pool(
                args.pool, config, meter=args.meter, reserve=args.reserve
            )
        else:
            snap = await service.reset(args.pool, args.id, meter=args.meter, reserve=args.reserve)
        print(describe(snap), file=out)
        return 0


def _witness(args: argparse.Namespace) -> tuple[Witness | None, str]:
    """The witness of ``--data`` for the Redis of ``--redis`` (None without Redis)."""
    if args.redis is None or args.command != "check":
        return None, ""
    try:
        return Witness(args.data), public_url(args.redis)
    except (OSError, ValueError, TypeError, AttributeError):
        return None, ""


async def show_or_check(service: JackpotService, args: argparse.Namespace, out: Any) -> int:
    witness, store_id = _witness(args)
    names = args.pools or await service.pools()
    if witness is not None and not args.pools:  # a pool the server saw and Redis lost
        names = sorted(set(names) | set(witnessed_pools(witness, store_id)))
    broken = 0
    rows: list[dict[str, Any]] = []
    books = await ledger_books(args) if args.command == "check" else None
    against: dict[str, list[str]] = {}  # pool -> its problems against the ledger
    if books is not None:
        balances, meta = books
        known = set(await service.pools())
        for pool, tables in linked_tables(meta).items():
            if args.pools and pool not in args.pools:
                continue
            entries = await service.audit(pool) if pool in known else []
            against[pool] = reconcile(pool, entries, tables, balances)[2]
        if not args.pools:  # a pool the ledger's tables link to and the store lost, too
            names = sorted(set(names) | set(against))
    for name in names:
        if args.command == "show":
            snap = await service.snapshot(name)
            if snap is None:
                raise JackpotError("no_pool", f"no jackpot pool {name!r}")
            rows.append(snapshot_dict(snap))
            if not args.json:
                print(describe(snap), file=out)
            continue
        report = await service.check(name)
        report.problems += against.get(name, [])
        stamp = getattr(service, "stamp", None)
        if witness is not None and stamp is not None:
            epoch, version = await stamp(name)
            seen = witness.seen(pool_stream(store_id, name))
            why = witness_verdict(f"pool {name}", seen, epoch, version)
            if why is not None:
                report.problems.insert(0, why)
        broken += not report.ok
        rows.append(
            {"pool": name, "ok": report.ok, "entries": report.entries, "problems": report.problems}
        )
        if not args.json:
            verdict = "ok" if report.ok else "BROKEN"
            print(f"{name}: {verdict} ({report.entries} audit entries)", file=out)
            for problem in report.problems:
                print(f"  - {problem}", file=out)
    if args.json:
        print(json.dumps(rows, indent=2), file=out)
    elif not names:
        print(f"no jackpot pools in {where(args.redis, args.data)}", file=out)
        if args.redis is None:
            print(
                "a server's pools: --data DIR (its data directory; default ./var), or --redis"
                " URL (the URL given to croupier serve --redis or --jackpot-redis)",
                file=out,
            )
    return 1 if broken else 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.redis = redis_url(args, "croupier jackpot")
    except CredentialError as exc:
        parser.error(str(exc))
    if args.redis is not None:
        try:
            options(args.redis)
        except RedisURLError as exc:
            print(f"croupier jackpot: --redis {exc}", file=sys.stderr)
            return 3
    try:
        return trio.run(run, args, sys.stdout)
    except (Exception, BaseExceptionGroup) as exc:
        if debug():
            raise
        problem = store_problem(exc, args.redis)
        if problem is not None:
            print(f"croupier jackpot: {problem}", file=sys.stderr)
            return 3
        for e in leaves(exc):
            if isinstance(e, JackpotUnavailable):
                print(f"croupier jackpot: {e.message}", file=sys.stderr)
                return 3
            if isinstance(e, JackpotError):
                print(f"croupier jackpot: {e.code}: {e.message}", file=sys.stderr)
                return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
