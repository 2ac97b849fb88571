"""Money that survives a kill -9: ``croupier serve --data DIR`` killed for real, five times.

A server process with 12 poker tables (the load tester's bots) and 10 Caribbean stud tables
(banked bots with ante and jackpot wagers) is killed with SIGKILL at a random moment, and
restarted on the same data directory, five times. Each restart voids the rounds the dead
process left open and returns every table stake (docs/rulings.md, "Crash recovery"). After
the last cycle ``croupier ledger check`` must pass, no money may remain on any table's
layout, pot or stake, and every wallet must equal its transfers: its deposits plus the nets
of its rounds, recomputed from the store's transfers by this test.

The same test runs with every store in Redis (``croupier serve --redis URL``, a real
``redis-server`` with AOF and ``appendfsync always``) and ``croupier ledger check --redis``.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from server.store.redis import connect, key, parse_transfer
from tests.integration.helpers import (
    BotStats,
    ServerProcess,
    banked_bot,
    redis_of,
    write_tables,
)
from tests.shared import REPO

pytestmark = pytest.mark.slow

POKER = 12
BANKED = 10


def _tables(path: Path) -> Path:
    tables = [
        {"id": f"poker-{i}", "game": "holdem-act", "options": {"blinds": [100, 200]}}
        for i in range(POKER)
    ]
    tables += [
        {
            "id": f"csp-{i}",
            "game": "caribbean-stud",
            "jackpot_pool": "crash-link",
            "betting_seconds": 0.3,
            "decision_seconds": 0.5,
            "options": {"minimum": 100, "maximum": 10000, "jackpot_wager": 100},
        }
        for i in range(BANKED)
    ]
    return write_tables(path, tables)


async def _play_until_killed(url: str, server: ServerProcess, seconds: float, seed: int) -> None:
    """Bots at every table, then SIGKILL mid-play (whatever the tables are doing)."""
    loadtest = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "loadtest",
            "--url",
            url,
            "--tables",
            str(POKER),
            "--seats",
            "3",
            "--duration",
            "60",
            "--quiet",
            "--seed",
            str(seed),
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with trio.open_nursery() as nursery:

            async def bot(i: int) -> None:
                try:
                    await banked_bot(
                        url, f"csp-{i}", 1, BotStats(), rounds=1000, name=f"b{i}", seed=seed + i
                    )
                except Exception:  # the server is killed under it
                    pass

            for i in range(BANKED):
                nursery.start_soon(bot, i)
            await trio.sleep(seconds)
            server.proc.send_signal(signal.SIGKILL)
            server.proc.wait(10)
            await trio.sleep(0.5)
            nursery.cancel_scope.cancel()
    finally:
        loadtest.kill()
        loadtest.wait(10)


@pytest.fixture(params=["sqlite", "redis", "cluster"])
def redis_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    """None: the SQLite store of --data; else every store in this (AOF) redis-server, or in
    a three-master Redis Cluster (``redis+cluster://``)."""
    if request.param == "sqlite":
        yield None
        return
    with redis_of(request.param, tmp_path / "redis") as url:
        yield url


async def _contents(
    data: Path, redis_url: str | None
) -> tuple[dict[str, int], list[tuple[str, str, int]]]:
    """The store's balances and every transfer's (source, target, amount)."""
    if redis_url is None:
        db = sqlite3.connect(data / "ledger.sqlite3")
        balances = dict(db.execute("SELECT account, balance FROM balances"))
        return balances, list(db.execute("SELECT source, target, amount FROM transfers"))
    async with connect(redis_url) as client:
        raw = await client.hgetall(key("balances"))
        texts = await client.hgetall(key("transfers"))
    transfers = [parse_transfer(t) for t in texts.values()]
    return {a: int(v) for a, v in raw.items()}, [(t.source, t.target, t.amount) for t in transfers]


async def test_kill_9_five_times_loses_and_doubles_nothing(
    tmp_path: Path, redis_url: str | None
) -> None:
    data = tmp_path / "data"
    tables = _tables(tmp_path / "tables.toml")
    rng = random.Random(20261127)

    def start() -> ServerProcess:
        return ServerProcess(tables, redis_url, "--data", str(data), ledger_on_redis=True)

    for cycle in range(5):
        server = await start().started()
        try:
            await _play_until_killed(server.url, server, rng.uniform(3.0, 7.0), seed=cycle)
        finally:
            server.proc.kill()
            server.proc.wait(10)
    # a last start recovers the fifth kill; a graceful stop then commits everything
    server = await start().started()
    health = await server.health()
    assert health["status"] == "ok"
    server.stop()
    assert server.proc.returncode == 0, server.proc.stderr.read() if server.proc.stderr else ""

    where = ["--redis", redis_url] if redis_url else []
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "ledger",
            "check",
            "--data",
            str(data),
            "--json",
            *where,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    report = json.loads(check.stdout)
    assert check.returncode == 0, report
    assert report["balanced"] and report["open_rounds"] == 0
    assert report["rounds_voided"] >= 1 and report["rounds_settled"] >= 50, report

    assert report["lost"] is None  # the store is what the witness saw, or newer
    balances, transfers = await _contents(data, redis_url)
    # nothing is left on any layout, pot or seat: every stake went home at recovery
    on_tables = {a: v for a, v in balances.items() if v and (":box:" in a or ":stake:" in a)}
    assert on_tables == {}
    assert not any(v for a, v in balances.items() if a.endswith(":pot"))
    # every wallet: its deposits plus the nets of its rounds, from the transfers themselves
    wallets: dict[str, int] = {}
    deposits: dict[str, int] = {}
    for source, target, amount in transfers:
        if target.startswith("wallet:"):
            wallets[target] = wallets.get(target, 0) + amount
            if source == "cashier":
                deposits[target] = deposits.get(target, 0) + amount
        if source.startswith("wallet:"):
            wallets[source] = wallets.get(source, 0) - amount
    assert len(wallets) >= 50  # every bot of every cycle has its own account
    for account, value in wallets.items():
        assert balances.get(account, 0) == value, account
        assert value >= 0
    issued = sum(deposits.values())
    assert issued == report["issued"]
    house = sum(v for a, v in balances.items() if a.endswith((":house", ":commission")))
    jackpot = sum(v for a, v in balances.items() if a.endswith(":jackpot"))
    assert sum(wallets.values()) + house + jackpot == issued
