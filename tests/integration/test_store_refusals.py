"""Bounds and clear refusals around the ledger's store (issue 22, "Bounds and clear refusals").

* A store that lost data is one clear line at start, exit 2, no traceback: a SQLite ledger
  replaced behind the server's back, a Redis that came back empty.
* A flushed Redis never passes for a new one: a server refuses an empty Redis unless it is
  told to create a store (``--new-store``), whatever its data directory (a new, empty one
  included) says.
* ``croupier ledger check --redis`` right after a server died: the open rounds are named as
  the dead server's, and the check fails, instead of calling the store balanced because
  the dead server's liveness entry has not expired yet.
* The cashier refuses a deposit above ``--max-deposit`` or one that would bring a wallet
  above ``--max-wallet`` (``over_limit``), and nothing moves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from clients.client import Client, ServerError
from server.room.accounts import Accounts
from tests.integration.helpers import (
    RedisServer,
    ServerProcess,
    croupier,
    one_line,
    write_tables,
)
from tests.shared import REPO

pytestmark = pytest.mark.slow

SECRET = "refusals-secret-" + "x" * 16


def tables(tmp_path: Path) -> Path:
    return write_tables(
        tmp_path / "t.toml",
        [
            {"id": "p", "game": "holdem-act", "options": {"blinds": [100, 200]}},
            {
                "id": "w",
                "game": "casino-war",
                "betting_seconds": 0.2,
                "options": {"minimum": 100, "maximum": 10_000},
            },
        ],
    )


async def play_a_little(url: str) -> None:
    """Put some money on the books (a buy-in, a stake)."""
    async with Client.connect(url, name="ann") as ann:
        await ann.join("p", seat=1)
        await ann.buy_in("p", 5_000)


async def test_a_replaced_sqlite_ledger_is_one_line_at_start(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    data = tmp_path / "data"
    servers.append(ServerProcess(tables(tmp_path), None, "--data", str(data)))
    server = await servers[-1].started()
    await play_a_little(server.url)
    server.stop()
    for f in data.glob("ledger.sqlite3*"):
        f.unlink()  # the ledger is gone; the witness in the data directory saw it
    line = one_line(croupier("serve", "--port", "0", "--tables", str(tables(tmp_path)),
                             "--data", str(data)))  # fmt: skip
    assert "lost data" in line and "restore it" in line


async def test_a_flushed_redis_is_refused_whatever_the_data_directory(
    tmp_path: Path, redis: RedisServer
) -> None:
    env = {"CROUPIER_SECRET": SECRET}
    t = tables(tmp_path)
    base = ["serve", "--port", "0", "--tables", str(t), "--origin", "https://casino.example"]
    base += ["--redis", redis.url]
    # a new deployment: refused without --new-store, then created with it
    line = one_line(croupier(*base, "--data", str(tmp_path / "d0"), env=env))
    assert "holds no croupier ledger" in line and "--new-store" in line
    proc = subprocess.Popen(  # ServerProcess is dev mode: a production server by hand
        [sys.executable, "-m", "server.cli", *base, "--data", str(tmp_path / "d1"), "--new-store"],
        cwd=REPO,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        with trio.fail_after(20):
            while "clients:" not in await trio.to_thread.run_sync(proc.stdout.readline):
                pass
    finally:
        proc.terminate()
        proc.wait(20)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    subprocess.run(["redis-cli", "-p", str(redis.port), "FLUSHALL"], check=True, timeout=10)
    # the same data directory: its witness saw the store
    line = one_line(croupier(*base, "--data", str(tmp_path / "d1"), env=env))
    assert "lost data" in line
    # a new, empty data directory: nothing witnessed, and still refused
    line = one_line(croupier(*base, "--data", str(tmp_path / "d2"), env=env))
    assert "holds no croupier ledger" in line
    # told to create a store, but this data directory saw the old one: lost, not new
    line = one_line(croupier(*base, "--data", str(tmp_path / "d1"), "--new-store", env=env))
    assert "lost data" in line


async def test_ledger_check_names_a_dead_servers_open_rounds(
    tmp_path: Path, redis: RedisServer, servers: list[ServerProcess]
) -> None:
    data = tmp_path / "data"
    servers.append(
        ServerProcess(tables(tmp_path), redis.url, "--data", str(data), ledger_on_redis=True)
    )
    server = await servers[-1].started()
    async with (
        Client.connect(server.url, name="bob") as bob,
        Client.connect(server.url, name="cy") as cy,
    ):
        for c, seat in ((bob, 1), (cy, 2)):
            await c.join("p", seat=seat)
            await c.buy_in("p", 5_000)
        with trio.fail_after(10):  # a hand in play: its round is open in the store
            async for msg in bob:
                if msg["type"] == "turn":
                    break
        alive = croupier("ledger", "check", "--redis", redis.url, "--data", str(data), "--json")
        report = json.loads(alive.stdout)
        assert alive.returncode == 0 and report["open_rounds"] >= 1, report
        assert all(row["alive"] for row in report["owners"].values()), report
        server.proc.kill()  # dies with the hand open; its liveness entry lives on 5 s
        server.proc.wait(10)
    dead = croupier("ledger", "check", "--redis", redis.url, "--data", str(data), "--json")
    report = json.loads(dead.stdout)
    assert dead.returncode == 1 and not report["balanced"], report
    assert report["owners"] and not any(row["alive"] for row in report["owners"].values())
    assert any("server is not running" in p for p in report["problems"]), report
    # the next server voids the round: balanced again
    servers.append(
        ServerProcess(tables(tmp_path), redis.url, "--data", str(data), ledger_on_redis=True)
    )
    server = await servers[-1].started()
    server.stop()
    done = croupier("ledger", "check", "--redis", redis.url, "--data", str(data), "--json")
    assert done.returncode == 0, done.stdout


async def test_deposits_above_the_limits_are_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    t = tables(tmp_path)
    accounts = Accounts(SECRET)
    till = accounts.issue("till", "Till", role="cashier")
    env = {**os.environ, "CROUPIER_SECRET": SECRET}
    args = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--tables", str(t)]
    args += ["--data", str(data), "--origin", "https://casino.example"]
    args += ["--max-deposit", "1000", "--max-wallet", "1500"]
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = ""
        with trio.fail_after(20):
            while not url:
                line = await trio.to_thread.run_sync(proc.stdout.readline)
                if "clients:" in line:
                    url = line.split()[-1]
        async with Client.connect(url, token=till) as c:

            async def deposit(amount: int, request: str) -> dict[str, object]:
                call = {"type": "cashier", "op": "deposit", "account": "ann", "amount": amount}
                return await c.request({**call, "request": request}, "cashier")

            with pytest.raises(ServerError) as big:
                await deposit(100_001, "r1")  # above $1,000 in one deposit
            assert big.value.code == "over_limit" and "$1,000.00" in str(big.value)
            assert (await deposit(100_000, "r2"))["balance"] == 100_000
            with pytest.raises(ServerError) as full:
                await deposit(50_001, "r3")  # would bring the wallet above $1,500
            assert full.value.code == "over_limit" and "$1,500.00" in str(full.value)
            assert (await deposit(50_000, "r4"))["balance"] == 150_000
    finally:
        proc.terminate()
        proc.wait(20)
