"""Integration helpers: real ``redis-server`` and ``croupier serve`` processes, banked bots.

Everything listens on 127.0.0.1 and is bounded in time; every process a test starts is
stopped by the same test (by its own handle, never by name).
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from clients.client import Client, ServerError
from tests.shared import REPO

ROYAL = ["As", "Ks", "Qs", "Js", "Ts"]
DEALER_NO_QUALIFY = ["2c", "3d", "4h", "6c", "8d"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A ``redis-server`` this test owns, with AOF (fsync always) so a restart keeps pools.

    ``bus``: a cluster node, with a cluster bus port of its own. A port found free may be
    taken by another process before the server binds it (another test's connections use
    the same ephemeral range): a first start that fails is retried on fresh ports, as long
    as nobody has been told the address yet."""

    def __init__(self, directory: Path, *extra: str, bus: bool = False) -> None:
        self.port = free_port()
        self.bus = free_port() if bus else None
        self.dir = directory
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        self._told = False  # the address was handed out (url, port): never moves again

    @property
    def url(self) -> str:
        self._told = True
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        for _ in range(3):
            try:
                self._start()
                self._told = True
                return
            except RuntimeError:
                if self._told:
                    raise
                self.port = free_port()
                self.bus = free_port() if self.bus is not None else None
        self._start()

    def _start(self) -> None:
        bus = () if self.bus is None else ("--cluster-port", str(self.bus))
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                *self.extra,
                *bus,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        code = self.proc.poll()
        if code is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None
        raise RuntimeError(f"redis-server on port {self.port} did not start (exit {code})")

    def kill(self) -> None:
        """An outage: the process dies at once (AOF has every acknowledged write)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


class RedisCluster:
    """A three-master Redis Cluster on loopback ports (Debian's redis-server with
    ``cluster-enabled yes``, then ``redis-cli --cluster create``), AOF on every node."""

    def __init__(self, directory: Path) -> None:
        self.nodes = []
        for i in range(3):
            node_dir = directory / f"node{i}"
            node_dir.mkdir(parents=True)
            # The bus port defaults to port + 10000, past 65535 for an ephemeral port:
            # name a free one (Redis 7 ``cluster-port``).
            self.nodes.append(
                RedisServer(
                    node_dir,
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    str(node_dir / "nodes.conf"),
                    bus=True,
                )
            )

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def start(self) -> None:
        """Start the nodes and form the cluster; on any failure no node is left running."""
        try:
            self._form()
        except BaseException:
            self.kill()
            raise

    def _form(self) -> None:
        for node in self.nodes:
            node.start()
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{n.port}" for n in self.nodes),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            info = subprocess.run(
                ["redis-cli", "-p", str(self.nodes[0].port), "cluster", "info"],
                capture_output=True,
                text=True,
                timeout=5,
            ).stdout
            if "cluster_state:ok" in info:
                return
            time.sleep(0.1)
        raise RuntimeError("the Redis Cluster did not come up")

    def kill(self) -> None:
        for node in self.nodes:
            node.kill()


@contextmanager
def redis_of(kind: str, directory: Path) -> Iterator[str]:
    """A real ``redis-server`` (``kind`` "redis") or a three-master Redis Cluster
    ("cluster") under ``directory``, for the length of the block; its URL."""
    directory.mkdir()
    redis: RedisServer | RedisCluster = (
        RedisCluster(directory) if kind == "cluster" else RedisServer(directory)
    )
    redis.start()
    try:
        yield redis.url
    finally:
        redis.kill()


def croupier(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A ``croupier`` command in a process of its own (no server secret or data directory
    of this shell's: ``env`` adds what the test gives it)."""
    base = {k: v for k, v in os.environ.items() if k not in ("CROUPIER_SECRET", "CROUPIER_DATA")}
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def one_line(done: subprocess.CompletedProcess[str], status: int = 2) -> str:
    """The one line a refused command prints (no traceback), its exit ``status`` checked."""
    assert done.returncode == status, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def write_tables(path: Path, tables: list[dict[str, Any]]) -> Path:
    """A TOML table config (the subset ``croupier serve --tables`` reads)."""
    lines = []
    for t in tables:
        lines.append("[[tables]]")
        for key, value in t.items():
            if key == "options":
                inner = ", ".join(f"{k} = {json.dumps(v)}" for k, v in value.items())
                lines.append(f"options = {{ {inner} }}")
            else:
                lines.append(f"{key} = {json.dumps(value)}")
        lines.append("")
    path.write_text("\n".join(lines))
    return path


def csp_table(table_id: str, pool: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": table_id,
        "game": "caribbean-stud",
        "jackpot_pool": pool,
        "betting_seconds": extra.pop("betting_seconds", 0.5),
        "decision_seconds": extra.pop("decision_seconds", 0.8),
        "options": {"minimum": 100, "maximum": 10000, "jackpot_wager": 100, **extra},
    }


def _default_sigint() -> None:
    """A shell without job control starts background jobs with SIGINT ignored; the server's
    graceful stop (KeyboardInterrupt) needs the default handler back."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class ServerProcess:
    """``croupier serve --port 0`` in its own OS process; the URL is read from its output.

    ``redis_url``: the jackpot pools there (``--jackpot-redis``), or every store with
    ``ledger_on_redis`` (``--redis``); a dev-mode server on a Redis needs ``--dev-redis``."""

    def __init__(
        self, tables: Path, redis_url: str | None, *extra: str, ledger_on_redis: bool = False
    ) -> None:
        args = [
            sys.executable,
            "-m",
            "server.cli",
            "serve",
            "--port",
            "0",
            "--tables",
            str(tables),
            "--round-pause",
            "0.1",
            "--starting-balance",
            "10000",
            "--data",
            tempfile.mkdtemp(prefix="croupier-it-"),
            *extra,
        ]
        if redis_url:
            args += ["--redis" if ledger_on_redis else "--jackpot-redis", redis_url]
            args += ["--dev-redis"]
        env = {k: v for k, v in os.environ.items() if k != "CROUPIER_SECRET"}
        self.proc = subprocess.Popen(
            args,
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_default_sigint,
        )
        self.url = ""
        self.http = ""

    async def started(self) -> ServerProcess:
        assert self.proc.stdout is not None
        with trio.fail_after(20):
            while not self.url:
                line = await trio.to_thread.run_sync(self.proc.stdout.readline)
                if not line:
                    raise RuntimeError("croupier serve exited: " + self.proc.stderr.read())
                if "page:" in line:
                    self.http = line.split()[-1]
                if "clients:" in line:
                    self.url = line.split()[-1]
        return self

    async def health(self) -> dict[str, Any]:
        def get() -> dict[str, Any]:
            with urllib.request.urlopen(self.http + "status", timeout=5) as r:
                return json.loads(r.read())

        return await trio.to_thread.run_sync(get)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@dataclass
class BotStats:
    """What one bot did and saw."""

    rounds: int = 0
    jackpot_placed: int = 0
    jackpot_returned: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    jackpot_closed_seen: bool = False
    jackpot_reopened_seen: bool = False
    results: list[dict[str, Any]] = field(default_factory=list)
    paid: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    token: str | None = None  # the bot's account, for a later connection (recall)

    @property
    def jackpot_accepted(self) -> int:
        return self.jackpot_placed - self.jackpot_returned


async def banked_bot(
    url: str,
    table: str,
    box: int,
    stats: BotStats,
    *,
    rounds: int,
    name: str,
    seed: int = 0,
    force: dict[str, Any] | None = None,
    ante: int = 500,
    deadline: float = 60,
) -> None:
    """Play ``rounds`` rounds on ``box``: ante, and the jackpot wager whenever it is offered;
    bet or fold at random (sometimes let the clock decide). ``force``: dev_force first and
    always bet."""
    rng = random.Random(seed)
    with trio.fail_after(deadline):
        async with Client.connect(url, name=name) as client:
            stats.token = client.token
            view = await client.join(table)
            jackpot_open = bool((view.view.get("jackpot") or {}).get("open"))
            if force is not None:
                await client.dev_force(table, **force)
            async for message in client:
                if message.get("type") != "event" or message.get("table") != table:
                    continue
                event = message["event"]
                kind = event["type"]
                if kind == "jackpot_status":
                    jackpot_open = event["open"]
                    if not event["open"]:
                        stats.jackpot_closed_seen = True
                    elif stats.jackpot_closed_seen:
                        stats.jackpot_reopened_seen = True
                elif kind == "betting_open":
                    if stats.rounds >= rounds:
                        return
                    try:
                        await client.wager(table, box, "ante", ante)
                    except ServerError as exc:
                        stats.refused[exc.code] += 1
                        continue
                    try:
                        await client.wager(table, box, "jackpot", 100)
                        stats.jackpot_placed += 1
                    except ServerError as exc:
                        stats.refused[exc.code] += 1
                        jackpot_open = jackpot_open and exc.code != "jackpot_unavailable"
                elif kind == "jackpot_wager_returned" and event["box"] == box:
                    stats.jackpot_returned += 1
                elif kind == "decision" and event["box"] == box:
                    roll = rng.random()
                    if force is not None or roll < 0.7:
                        await client.decide(table, box, "bet")
                    elif roll < 0.9:
                        await client.decide(table, box, "fold")
                    # else: the decision clock runs out (the engine's timeout: fold)
                elif kind == "round_result" and str(box) in event["boxes"]:
                    stats.rounds += 1
                    stats.results.append(event["boxes"][str(box)])
                elif kind == "jackpot_paid" and event["box"] == box:
                    stats.paid.append((time.monotonic(), event))
                    if force is not None:
                        return


def conserved(health: dict[str, Any]) -> bool:
    """One process: issued == wallets + in play + house + contributed - jackpot paid."""
    m = health["money"]
    return m["issued"] == (
        m["wallets"] + m["stakes"] + m["house"] + m["jackpot_contributed"] - m["jackpot_paid"]
    )
