"""Every store in Redis (``croupier serve --redis URL``), against a real ``redis-server``.

* Outage: the redis-server is killed mid-play: no round starts and no money moves, the
  tables say why (``store_status`` event, the view's ``table.store``); it is restarted: play
  resumes, and ``croupier ledger check --redis`` passes: nothing lost, nothing doubled.
* Lost data: Redis restarted empty, or from an older snapshot of its AOF: the server stops
  money movement on it and says why; ``croupier ledger check`` and ``croupier jackpot check``
  exit non-zero (the witness file in the server's data directory saw more).
* Refusals through the real command: a dev-mode server without ``--dev-redis``, a Redis
  without AOF without ``--allow-volatile-redis``: one line on stderr, exit 2, no traceback.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client
from tests.integration.helpers import (
    BotStats,
    RedisServer,
    ServerProcess,
    banked_bot,
    croupier,
    csp_table,
    free_port,
    write_tables,
)
from tests.shared import REPO
from tests.support import until

pytestmark = pytest.mark.slow


class Watcher:
    """A spectator: every ``store_status`` event the table sends, and every ``server_status``
    notice (sent ahead of the frames that wait for the store: commit, then speak)."""

    def __init__(self) -> None:
        self.statuses: list[dict[str, Any]] = []

    async def run(self, url: str, table: str, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        async with Client.connect(url, name="watcher") as client:
            await client.join(table, role="spectator")
            task_status.started()
            async for message in client:
                event = message.get("event") or {}
                if message.get("type") == "event" and event.get("type") == "store_status":
                    self.statuses.append(event)
                elif message.get("type") == "server_status":
                    self.statuses.append(message)


async def store_said(url: str) -> str:
    """What a new session is told of the store at ``hello`` (``server_status``; a table's
    snapshot waits for the store if the table has writes in flight: commit, then speak)."""
    async with Client.connect(url, hello=False) as look:  # a dev welcome opens an account:
        await look.send({"type": "hello", "protocol": 1, "name": "look"})  # it waits too
        with trio.fail_after(10):
            while True:
                message = await look.recv()
                if message["type"] == "server_status":
                    assert message["ok"] is False
                    return str(message["status"])


class Play:
    """Two banked bots and a watcher at ``csp-r`` of a server on ``redis``."""

    def __init__(self, tmp_path: Path, redis: RedisServer) -> None:
        self.data = tmp_path / "data"
        self.pool = f"redis-ledger-{os.getpid()}"
        self.tables = write_tables(tmp_path / "t.toml", [csp_table("csp-r", self.pool)])
        self.redis = redis
        self.bots = {1: BotStats(), 2: BotStats()}
        self.watcher = Watcher()

    def server(self) -> ServerProcess:
        return ServerProcess(
            self.tables, self.redis.url, "--data", str(self.data), ledger_on_redis=True
        )

    def rounds(self) -> int:
        return min(s.rounds for s in self.bots.values())

    async def start(self, nursery: trio.Nursery, url: str) -> None:
        await nursery.start(self.watcher.run, url, "csp-r")
        for box, stats in self.bots.items():
            nursery.start_soon(
                functools.partial(
                    banked_bot,
                    url,
                    "csp-r",
                    box,
                    stats,
                    rounds=10_000,
                    name=f"bot{box}",
                    seed=box,
                    deadline=90,
                )
            )

    def check(self, *extra: str) -> tuple[int, dict[str, Any]]:
        done = croupier(
            "ledger", "check", "--redis", self.redis.url, "--data", str(self.data), *extra
        )
        return done.returncode, json.loads(done.stdout or "{}")

    def jackpot_check(self) -> subprocess.CompletedProcess[str]:
        return croupier("jackpot", "--redis", self.redis.url, "--data", str(self.data), "check")


async def test_redis_outage_stops_rounds_then_play_resumes(
    tmp_path: Path, redis: RedisServer
) -> None:
    play = Play(tmp_path, redis)
    server = await play.server().started()
    try:
        async with trio.open_nursery() as nursery:
            await play.start(nursery, server.url)
            await until(lambda: play.rounds() >= 2, 30)
            redis.kill()  # the store fails mid-play
            await until(lambda: any(not s["ok"] for s in play.watcher.statuses), 10)
            down = next(s for s in play.watcher.statuses if not s["ok"])
            assert "cannot be reached" in down["status"]
            assert "cannot be reached" in await store_said(server.url)
            stopped = play.rounds()
            await trio.sleep(3)
            assert play.rounds() <= stopped + 1  # at most the round in play ends
            assert (await server.health())["status"] == "store"

            redis.start()  # back (its AOF has every acknowledged commit)
            await until(lambda: play.watcher.statuses[-1]["ok"], 15)
            resumed = play.rounds()
            await until(lambda: play.rounds() >= resumed + 2, 30)
            nursery.cancel_scope.cancel()
    finally:
        server.stop()
    assert server.proc.returncode == 0, server.proc.stderr.read() if server.proc.stderr else ""
    code, report = play.check("--json")
    assert code == 0, report
    assert report["balanced"] and report["open_rounds"] == 0 and report["lost"] is None
    assert report["rounds_settled"] >= 4
    assert play.jackpot_check().returncode == 0


async def _lost_seen(play: Play, server: ServerProcess) -> None:
    """The server found the store lost: the tables say so, and so does /health."""
    await until(lambda: any("lost data" in s["status"] for s in play.watcher.statuses), 20)
    assert "lost data" in await store_said(server.url)
    assert (await server.health())["status"] == "store"


def _wipe(directory: Path) -> None:
    for path in directory.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()


async def test_redis_restarted_empty_is_lost_and_both_checks_fail(
    tmp_path: Path, redis: RedisServer
) -> None:
    play = Play(tmp_path, redis)
    server = await play.server().started()
    try:
        async with trio.open_nursery() as nursery:
            await play.start(nursery, server.url)
            await until(lambda: play.rounds() >= 2, 30)
            redis.kill()
            _wipe(redis.dir)  # Redis comes back without its data
            redis.start()
            await _lost_seen(play, server)
            nursery.cancel_scope.cancel()
    finally:
        server.stop()
    code, report = play.check("--json")
    assert code == 1 and "empty" in report["lost"], report
    jackpot = play.jackpot_check()
    assert jackpot.returncode == 1 and "BROKEN" in jackpot.stdout, jackpot.stdout
    # a new server on it (same data directory) refuses it, in one line (issue 22)
    again = play.server()
    with pytest.raises(RuntimeError, match="lost data") as refused:
        await again.started()
    assert "Traceback" not in str(refused.value)
    again.proc.wait(10)
    assert again.proc.returncode == 2
    assert croupier("ledger", "check", "--redis", redis.url, "--data", str(play.data)).returncode


async def test_redis_restored_from_an_older_snapshot_is_lost_and_both_checks_fail(
    tmp_path: Path, redis: RedisServer
) -> None:
    play = Play(tmp_path, redis)
    server = await play.server().started()
    snapshot = tmp_path / "snapshot"
    try:
        async with trio.open_nursery() as nursery:
            await play.start(nursery, server.url)
            await until(lambda: play.rounds() >= 2, 30)
            redis.kill()  # an operator's copy of the AOF, taken now
            shutil.copytree(redis.dir, snapshot)
            redis.start()
            copied = play.rounds()
            await until(lambda: play.rounds() >= copied + 3, 30)  # more rounds after it
            redis.kill()
            _wipe(redis.dir)
            shutil.copytree(snapshot, redis.dir, dirs_exist_ok=True)
            redis.start()  # restored from the older copy
            await _lost_seen(play, server)
            nursery.cancel_scope.cancel()
    finally:
        server.stop()
    code, report = play.check("--json")
    assert code == 1 and "older snapshot" in report["lost"], report
    jackpot = play.jackpot_check()
    assert jackpot.returncode == 1 and "older snapshot" in jackpot.stdout, jackpot.stdout


async def test_accounts_and_dev_secret_survive_a_restart_on_redis(
    tmp_path: Path, redis: RedisServer
) -> None:
    """The cashier's deposit, the wallet and the dev secret live in Redis: a new server (a new
    data directory, even) on the same Redis knows them."""
    play = Play(tmp_path, redis)
    server = await play.server().started()
    try:
        cashier = ["cashier", "--url", server.url, "--redis", redis.url]
        done = croupier(*cashier[:1], "deposit", "alice", "50", *cashier[1:], "--request", "r1")
        assert done.returncode == 0 and "alice: $50" in done.stdout, done.stderr
        again = croupier(*cashier[:1], "deposit", "alice", "50", *cashier[1:], "--request", "r1")
        assert again.returncode == 0 and "already applied" in again.stdout, again.stderr
    finally:
        server.stop()
    play.data = tmp_path / "other"
    server = await play.server().started()
    try:
        done = croupier("cashier", "balance", "alice", "--url", server.url, "--redis", redis.url)
        assert done.returncode == 0 and "alice: $50" in done.stdout, done.stderr
    finally:
        server.stop()
    code, report = play.check("--json")
    assert code == 0 and report["balanced"] and report["issued"] >= 5000, report


def _refused(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_dev_server_refuses_a_redis_without_dev_redis(redis: RedisServer, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CROUPIER_SECRET"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "serve",
            "--port",
            "0",
            "--redis",
            redis.url,
            "--data",
            str(tmp_path / "d"),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    line = _refused(done)
    assert "dev-mode" in line and "--dev-redis" in line and "minted money" in line


def test_serve_refuses_a_redis_without_aof(tmp_path: Path) -> None:
    port = free_port()
    volatile = subprocess.Popen(
        [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data"]
        done = None
        for _ in range(50):  # until redis-server listens
            done = subprocess.run(
                [
                    *base,
                    str(tmp_path / "d"),
                    "--redis",
                    f"redis://127.0.0.1:{port}",
                    "--origin",
                    "https://casino.example",
                ],
                cwd=REPO,
                env={**os.environ, "CROUPIER_SECRET": "s" * 32},
                capture_output=True,
                text=True,
                timeout=60,
            )
            if "cannot" not in done.stderr:
                break
        assert done is not None
        line = _refused(done)
        assert "no AOF persistence" in line and "--allow-volatile-redis" in line
    finally:
        volatile.kill()
        volatile.wait(10)
