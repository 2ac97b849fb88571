"""Every jackpot cent survives a restart: the pools on the books, in both stores.

The embedded default keeps its pools in the ledger's SQLite file, in the ledger's own
transactions (``server/jackpots/memory.py``); with ``--redis`` they live in Redis beside the
ledger. A server (its own process) runs a Caribbean stud table linked to a pool:

* the meter is the same before and after a graceful stop, and after a kill -9 it is what the
  store held, less only the coin-in of a round the kill interrupted;
* a round killed the instant its coin-in reached the pool (the table's ``meter`` event)
  leaves the pool as it was before the round: crash recovery voids the round in the ledger
  and in the pool (``jackpot_void`` facts);
* a royal flush whose round result arrived just before the kill is paid exactly once, after
  the restart if not before (``jackpot_award`` facts);
* ``croupier jackpot check`` and ``croupier ledger check`` reconcile each pool with the
  jackpot accounts of its tables (``server/jackpots/reconcile.py``), and a forged
  difference (a balanced transfer into a table's jackpot account) fails both, naming the
  pool and the amount.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from server.store.redis import connect, key
from server.store.sqlite import LEDGER_FILE
from tests.integration.helpers import (
    DEALER_NO_QUALIFY,
    ROYAL,
    RedisServer,
    ServerProcess,
    csp_table,
    write_tables,
)
from tests.integration.test_banked_round import expect
from tests.shared import REPO

pytestmark = pytest.mark.slow

TABLE = "csp-j"
POOL = "durable"
STORES = ["sqlite", "redis"]


class Setup:
    """A data directory, maybe a Redis, and the server processes started on them."""

    def __init__(self, tmp_path: Path, store: str) -> None:
        self.data = tmp_path / "data"
        self.tables = write_tables(
            tmp_path / "t.toml", [csp_table(TABLE, POOL, betting_seconds=0.3)]
        )
        self.redis: RedisServer | None = None
        self.started: list[ServerProcess] = []  # killed at the end if a test failed midway
        if store == "redis":
            (tmp_path / "redis").mkdir()
            self.redis = RedisServer(tmp_path / "redis")
            self.redis.start()

    def server(self) -> ServerProcess:
        url = self.redis.url if self.redis else None
        server = ServerProcess(
            self.tables, url, "--data", str(self.data), ledger_on_redis=url is not None
        )
        self.started.append(server)
        return server

    def where(self) -> list[str]:
        return ["--data", str(self.data)] + (["--redis", self.redis.url] if self.redis else [])

    def croupier(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``croupier jackpot [WHERE] ...`` or ``croupier ledger check [WHERE] ...``."""
        n = 2 if args[0] == "ledger" else 1
        return subprocess.run(
            [sys.executable, "-m", "server.cli", *args[:n], *self.where(), *args[n:]],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def pool(self) -> dict[str, Any]:
        done = self.croupier("jackpot", "show", POOL, "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)[0]

    def checks(self) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
        return self.croupier("jackpot", "check"), self.croupier("ledger", "check", "--json")

    def close(self) -> None:
        for server in self.started:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait(10)
        if self.redis is not None:
            self.redis.kill()


@pytest.fixture(params=STORES)
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    s = Setup(tmp_path, request.param)
    try:
        yield s
    finally:
        s.close()


async def play(url: str, rounds: int, token: str | None = None) -> str:
    """Play ``rounds`` rounds on box 1 with the jackpot wager; the player's token."""
    log: list[dict[str, Any]] = []
    async with Client.connect(url, name="jay", token=token) as c:
        await c.join(TABLE)
        played = 0
        while played < rounds:
            await expect(c, "betting_open", log, timeout=20)
            # a window of 0.3 s may close before a wager reaches it on a slow machine: that
            # round is not counted, and the next window is tried
            try:
                await c.wager(TABLE, 1, "ante", 500)
            except ServerError as exc:
                if exc.code != "betting_closed":
                    raise
                continue
            try:
                await c.wager(TABLE, 1, "jackpot", 100)
                played += 1
            except ServerError as exc:
                if exc.code != "betting_closed":
                    raise
            await expect(c, "decision", log, lambda e: e["box"] == 1)
            await c.decide(TABLE, 1, "bet")
            await expect(c, "round_result", log, lambda e: "1" in e["boxes"])
        return str(c.token)


def kill(server: ServerProcess) -> None:
    server.proc.kill()
    server.proc.wait(10)


def stop(server: ServerProcess) -> None:
    server.stop()
    assert server.proc.returncode == 0, server.proc.stderr.read() if server.proc.stderr else ""


def assert_checks_pass(setup: Setup) -> None:
    jackpot, ledger = setup.checks()
    assert jackpot.returncode == 0, jackpot.stdout + jackpot.stderr
    report = json.loads(ledger.stdout)
    assert ledger.returncode == 0 and report["balanced"], report
    assert [row["pool"] for row in report["jackpots"]] == [POOL]
    assert report["jackpots"][0]["pool_net"] == report["jackpots"][0]["ledger_net"]


async def test_meters_survive_a_graceful_stop_and_a_kill(setup: Setup) -> None:
    server = await setup.server().started()
    token = await play(server.url, 3)
    stop(server)
    before = setup.pool()
    assert before["contributions"] > 0
    server = await setup.server().started()
    try:
        async with Client.connect(server.url, token=token) as c:
            view = await c.join(TABLE)
            assert view.view["jackpot"]["meter"] == before["meter"]  # the same to the cent
        assert setup.pool()["meter"] == before["meter"]
        await play(server.url, 2, token)
    finally:
        kill(server)  # between rounds or not: what the store holds is what the restart shows
    held = setup.pool()
    server = await setup.server().started()
    stop(server)
    after = setup.pool()
    interrupted = held["contributions"] - after["contributions"]
    one = before["contributions"] // 3  # one round's coin-in (the same wager every round)
    assert interrupted in (0, one)  # at most the coin-in of the round the kill interrupted
    assert after["meter"] == held["meter"] - interrupted
    assert after["meter"] > before["meter"]
    assert_checks_pass(setup)


async def test_a_round_killed_after_its_coin_in_leaves_the_pool_as_it_was(
    setup: Setup,
) -> None:
    server = await setup.server().started()
    token = await play(server.url, 1)
    for _trial in range(3):
        log: list[dict[str, Any]] = []
        before = setup.pool()  # no round of this player's in play: the pool is at rest
        async with Client.connect(server.url, token=token) as c:
            view = await c.join(TABLE)
            assert view.view["jackpot"]["meter"] == before["meter"]
            await expect(c, "betting_open", log, timeout=20)
            await c.wager(TABLE, 1, "ante", 500)
            await c.wager(TABLE, 1, "jackpot", 100)
            await expect(c, "meter", log, lambda e: e["op"] == "contribute")
            kill(server)  # the coin-in reached the pool: the round is not over
        server = await setup.server().started()
        after = setup.pool()
        assert (after["meter"], after["reserve"]) == (before["meter"], before["reserve"])
        assert after["contributions"] == before["contributions"]
    stop(server)
    assert_checks_pass(setup)


async def test_a_royal_flush_won_as_the_server_dies_is_paid_once(setup: Setup) -> None:
    server = await setup.server().started()
    token = await play(server.url, 1)
    paid = 0
    for _trial in range(3):
        log: list[dict[str, Any]] = []
        async with Client.connect(server.url, token=token) as c:
            await c.join(TABLE)
            await c.dev_force(TABLE, boxes={"1": ROYAL}, dealer=DEALER_NO_QUALIFY)
            await expect(c, "betting_open", log, timeout=20)
            await c.wager(TABLE, 1, "ante", 500)
            await c.wager(TABLE, 1, "jackpot", 100)
            await expect(c, "decision", log, lambda e: e["box"] == 1)
            await c.decide(TABLE, 1, "bet")
            result = await expect(c, "round_result", log, lambda e: "1" in e["boxes"])
            kill(server)  # the award may be in the pool, paid, or neither yet
        assert result["jackpot_pending"] == [1]
        server = await setup.server().started()
        with trio.fail_after(20):  # the owed award is paid after the restart
            while True:
                prizes = await jackpot_prizes(setup)
                if len(prizes) > paid:
                    break
                await trio.sleep(0.1)
        paid += 1
        assert len(prizes) == paid, prizes  # once per royal flush, never twice
        assert prizes[-1][1] > 0
    stop(server)
    pool = setup.pool()
    assert pool["paid"] == sum(amount for _round, amount in await jackpot_prizes(setup))
    assert_checks_pass(setup)


async def jackpot_prizes(setup: Setup) -> list[tuple[str, int]]:
    """Every jackpot prize the ledger paid: (round, amount)."""
    if setup.redis is None:
        db = sqlite3.connect(f"file:{setup.data / LEDGER_FILE}?mode=ro", uri=True)
        try:
            rows = db.execute(
                "SELECT round, amount FROM transfers WHERE kind = 'jackpot_prize' ORDER BY at"
            ).fetchall()
        finally:
            db.close()
        return [(str(r), int(a)) for r, a in rows]
    async with connect(setup.redis.url) as r:
        found = await r.hgetall(key("transfers"))
    out = []
    for text in found.values():
        _id, _s, _t, amount, kind, ref = json.loads(text)
        if kind == "jackpot_prize":
            out.append((str(ref), int(amount)))
    return out


async def test_a_forged_difference_fails_both_checks(setup: Setup) -> None:
    server = await setup.server().started()
    await play(server.url, 2)
    stop(server)
    assert_checks_pass(setup)
    account, forged = f"table:{TABLE}:jackpot", 100_000  # $1,000 from the house, balanced
    house = f"table:{TABLE}:house"
    row = [f"forged-{uuid.uuid4().hex}", house, account, forged, "coin_in", None]
    if setup.redis is None:
        db = sqlite3.connect(setup.data / LEDGER_FILE, isolation_level=None)
        try:
            db.execute("INSERT INTO transfers VALUES (?, ?, ?, ?, ?, ?, 0)", row)
            db.execute(
                "UPDATE balances SET balance = balance - ? WHERE account = ?", (forged, house)
            )
            db.execute(
                "UPDATE balances SET balance = balance + ? WHERE account = ?", (forged, account)
            )
        finally:
            db.close()
    else:
        async with connect(setup.redis.url) as r:
            await r.hset(key("transfers"), {row[0]: json.dumps([*row[:3], str(forged), *row[4:]])})
            await r.hincrby(key("balances"), house, -forged)
            await r.hincrby(key("balances"), account, forged)
    jackpot, ledger = setup.checks()
    assert jackpot.returncode == 1, jackpot.stdout
    assert f"pool {POOL}" in jackpot.stdout and "$1,000.00 more in the ledger" in jackpot.stdout
    report = json.loads(ledger.stdout)
    assert ledger.returncode == 1 and not report["balanced"]
    assert any(f"pool {POOL}" in p and "$1,000.00" in p for p in report["problems"]), report
