"""Ledger store benchmark: transfers committed per second, SQLite and Redis, in one run.

    .venv/bin/python benchmarks/ledger_bench.py [--seconds S] [--group N] [--redis URL]

Four cases, each for ``--seconds`` (default 3):

* SQLite single: :class:`~server.store.sqlite.SqliteStore` (WAL, ``synchronous=FULL``), one
  transfer per commit (one table step, nothing else waiting);
* SQLite grouped: ``--group`` (default 200) batches of one transfer each per commit (the
  ledger's group commit when many tables move money at once);
* Redis single and grouped: :class:`~server.store.redis.RedisStore`, one ``ledger.lua``
  call per commit, on a ``redis-server`` this benchmark starts with the settings the README
  asks of an operator (``appendonly yes``, ``appendfsync always``), or on ``--redis URL``.

Every commit is awaited before the next (as the ledger's one committer does). Prints
transfers/s per case, grouped/single per store and Redis/SQLite per mode.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.store.model import Batch, Transfer
from server.store.redis import open_redis_store
from server.store.sqlite import SqliteStore
from tests.integration.helpers import RedisServer

_ids = itertools.count()


def batches(n: int) -> list[Batch]:
    """``n`` batches of one deposit each (fresh ids: every one moves money)."""
    return [
        Batch(transfers=[Transfer(f"b{i}", "cashier", f"wallet:p{i % 1000}", 100, "deposit")])
        for i in (next(_ids) for _ in range(n))
    ]


async def measure(
    commit: Callable[[list[Batch]], Awaitable[object]], group: int, seconds: float
) -> float:
    """Transfers per second committing ``group`` transfers per commit for ``seconds``."""
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        await commit(batches(group))
        done += group
    return done / elapsed


async def run(seconds: float, group: int, redis_url: str | None) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ledger-bench-") as tmp:
        sqlite = SqliteStore(Path(tmp) / "sqlite")

        async def sqlite_commit(b: list[Batch]) -> object:
            return await trio.to_thread.run_sync(sqlite.commit, b)

        out["sqlite single"] = await measure(sqlite_commit, 1, seconds)
        out["sqlite grouped"] = await measure(sqlite_commit, group, seconds)
        sqlite.close()
        server = None
        if redis_url is None:
            (Path(tmp) / "redis").mkdir()
            server = RedisServer(Path(tmp) / "redis")  # appendonly yes, appendfsync always
            server.start()
            redis_url = server.url
        try:
            async with open_redis_store(redis_url) as redis:
                out["redis single"] = await measure(redis.commit, 1, seconds)
                out["redis grouped"] = await measure(redis.commit, group, seconds)
        finally:
            if server is not None:
                server.kill()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per case (default 3)")
    parser.add_argument("--group", type=int, default=200, help="transfers per grouped commit")
    parser.add_argument("--redis", default=None, help="an existing Redis (default: start one)")
    args = parser.parse_args()
    figures = trio.run(run, args.seconds, args.group, args.redis)
    for name, rate in figures.items():
        print(f"{name:<16} {rate:>12,.0f} transfers/s")
    for store in ("sqlite", "redis"):
        ratio = figures[f"{store} grouped"] / figures[f"{store} single"]
        print(f"{store} grouped/single: {ratio:.1f}x")
    for mode in ("single", "grouped"):
        ratio = figures[f"redis {mode}"] / figures[f"sqlite {mode}"]
        print(f"redis/sqlite {mode}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
