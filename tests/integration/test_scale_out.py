"""Scale out on Redis: three ``croupier serve --directory`` processes, one lobby, failover.

Three real server processes share one real ``redis-server`` (and, in the cluster variant, a
three-master Redis Cluster), each with 10 Caribbean stud tables in its own ``--tables``
file. Bots (one account each) play at all 30 tables, each first sent to a process that does
not serve its table, so every bot is redirected (``table_elsewhere``) before it plays. The
lobby of every process lists all 30 tables. Then one process is killed with SIGKILL in the
middle of play: within the lease (2 s here) the two others own its tables, the interrupted
rounds are voided through the ledger's recovery and the stakes refunded, and the bots
rejoin (``table_moving``, then a redirect) and play on. ``croupier ledger check`` passes,
nothing is left on a layout, and each account got its starting balance exactly once.

A second test pauses an owner (SIGSTOP) until another process has taken its tables over,
then resumes it (SIGCONT): the paused process writes nothing more with its stale tokens
(the store refuses them, or its renewal finds the lease lost first) and leaves the tables.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio
from websockets.exceptions import ConnectionClosed

from clients.client import Client, ServerError
from server.store.redis import connect, key, parse_transfer
from tests.integration.helpers import RedisServer, ServerProcess, redis_of, write_tables
from tests.shared import REPO

pytestmark = pytest.mark.slow

PROCESSES = 3
TABLES = 10  # per process
LEASE = 3.0
STARTING = 10_000_00  # cents: ServerProcess gives every guest $10,000


def _tables(path: Path, prefix: str, n: int) -> Path:
    return write_tables(
        path,
        [
            {
                "id": f"{prefix}-{j}",
                "game": "caribbean-stud",
                "betting_seconds": 0.3,
                "decision_seconds": 0.4,
                "options": {"minimum": 100, "maximum": 10000},
            }
            for j in range(n)
        ],
    )


@dataclass
class Bot:
    """One account playing one table wherever it is served."""

    table: str
    name: str
    rounds: int = 0
    joins: int = 0
    redirected: int = 0
    moved: int = 0  # ``left`` with reason "moved": the table's server lost it
    in_play: bool = False  # an ante on the layout, no result yet
    urls_played: set[str] = field(default_factory=set)
    token: str | None = None


async def play(bot: Bot, urls: list[str], first: str, stop: trio.Event) -> None:
    """Join ``bot.table`` through ``first`` (maybe the wrong process: the client follows
    the redirect), ante and bet every round; after a ``left`` or a lost connection, rejoin
    through any process that still answers."""
    rng = random.Random(bot.name)
    url = first
    while not stop.is_set():
        try:
            async with Client.connect(url, name=bot.name, token=bot.token) as client:
                bot.token = client.token
                while not stop.is_set():
                    before = client.url
                    await client.join(bot.table)
                    bot.joins += 1
                    bot.redirected += client.url != before
                    assert client.url is not None
                    bot.urls_played.add(client.url)
                    await _rounds(client, bot, stop)
        except (ConnectionClosed, OSError, ServerError, trio.TooSlowError):
            url = rng.choice(urls)  # the process may be dead: any other one
            await trio.sleep(0.2)


async def _rounds(client: Client, bot: Bot, stop: trio.Event) -> None:
    """Play until the table leaves (``left``: it moved) or ``stop``."""
    table = bot.table
    async for message in client:
        if stop.is_set():
            return
        if message.get("type") == "left" and message.get("table") == table:
            bot.moved += message.get("reason") == "moved"
            return
        if message.get("type") != "event" or message.get("table") != table:
            continue
        event = message["event"]
        if event["type"] == "betting_open":
            try:
                await client.wager(table, 1, "ante", 500)
                bot.in_play = True
            except ServerError:
                continue
        elif event["type"] == "decision" and event["box"] == 1:
            await client.decide(table, 1, "bet")
        elif event["type"] == "round_result" and "1" in event["boxes"]:
            bot.rounds += 1
            bot.in_play = False
    raise ConnectionClosed(None, None)


async def _wait(what: str, check: object, timeout: float) -> None:
    with trio.fail_after(timeout):
        while not await check():  # type: ignore[operator]
            await trio.sleep(0.2)


async def _owned(server: ServerProcess) -> list[str]:
    try:
        return list((await server.health())["directory"]["owned"])
    except OSError:
        return []


def _ledger_check(redis_url: str) -> dict[str, object]:
    check = subprocess.run(
        [sys.executable, "-m", "server.cli", "ledger", "check", "--redis", redis_url, "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    report: dict[str, object] = json.loads(check.stdout)
    assert check.returncode == 0, report.get("problems")
    return report


async def _store(redis_url: str) -> tuple[dict[str, int], list[tuple[str, str, int, str]]]:
    async with connect(redis_url) as client:
        raw = await client.hgetall(key("balances"))
        texts = await client.hgetall(key("transfers"))
    transfers = [parse_transfer(t) for t in texts.values()]
    return {a: int(v) for a, v in raw.items()}, [
        (t.source, t.target, t.amount, t.kind) for t in transfers
    ]


@pytest.fixture(params=["redis", "cluster"])
def redis_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with redis_of(request.param, tmp_path / "redis") as url:
        yield url


async def _deploy(tmp_path: Path, redis_url: str, n: int, tables: int) -> list[ServerProcess]:
    servers = []
    for i in range(n):
        path = _tables(tmp_path / f"tables-{i}.toml", f"p{i}", tables)
        server = ServerProcess(
            path, redis_url, "--directory", "--lease", str(LEASE), ledger_on_redis=True
        )
        servers.append(await server.started())
    return servers


def _stop(servers: list[ServerProcess]) -> None:
    for server in servers:
        if server.proc.poll() is None:
            server.proc.send_signal(signal.SIGCONT)
        server.stop()


async def test_three_processes_one_lobby_redirects_and_failover(
    tmp_path: Path, redis_url: str
) -> None:
    servers = await _deploy(tmp_path, redis_url, PROCESSES, TABLES)
    try:
        urls = [s.url for s in servers]
        for i, server in enumerate(servers):  # each owns its own file's tables
            assert sorted(await _owned(server)) == sorted(f"p{i}-{j}" for j in range(TABLES))

        async def all_known() -> bool:  # each process's directory has read the others
            known = [(await s.health())["directory"]["known"] for s in servers]
            return known == [PROCESSES * TABLES] * PROCESSES

        await _wait("the directory", all_known, 10)
        # one lobby: every process lists all 30 tables, each with its owner's URL (as the
        # directory has it: on a loaded box a lease may have moved meanwhile)
        for server in servers:
            async with Client.connect(server.url, name="lobby") as client:
                rows = await client.lobby()
            assert sorted(r["id"] for r in rows) == sorted(
                f"p{i}-{j}" for i in range(PROCESSES) for j in range(TABLES)
            )
            where = {r["id"]: r["url"] for r in rows}
            owners = {t: s.url for s in servers for t in await _owned(s)}
            agree = [t for t in where if where[t] == owners.get(t)]
            assert len(agree) >= PROCESSES * TABLES - 2, (where, owners)

        bots = [Bot(f"p{i}-{j}", f"bot{i}x{j}") for i in range(PROCESSES) for j in range(TABLES)]
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            for bot in bots:  # each sent first to a process that does not serve its table
                owner_index = int(bot.table[1])
                nursery.start_soon(play, bot, urls, urls[(owner_index + 1) % PROCESSES], stop)

            async def everyone_played() -> bool:
                return all(b.rounds >= 2 for b in bots)

            await _wait("every bot plays", everyone_played, 60)
            assert all(b.redirected >= 1 for b in bots)  # followed table_elsewhere

            # SIGKILL process 0 in the middle of play: antes on its layouts
            victim = servers[0]
            lost = [b for b in bots if b.table.startswith("p0-")]

            async def antes_down() -> bool:
                return sum(b.in_play for b in lost) >= 3

            await _wait("antes on the layouts", antes_down, 30)
            before = {b.name: b.rounds for b in lost}
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait(10)
            killed = time.monotonic()

            async def taken_over() -> bool:
                owned = [t for s in servers[1:] for t in await _owned(s)]
                return sorted(owned) == sorted(b.table for b in bots)

            await _wait("failover", taken_over, LEASE * 4 + 10)
            failover = time.monotonic() - killed
            # a lease of LEASE seconds, renewed every LEASE/3: taken within about a lease
            # plus one loop round (a loaded 2-core box: some slack)
            assert failover < LEASE * 3 + 4, failover

            async def rejoined() -> bool:
                return all(b.rounds >= before[b.name] + 2 for b in lost)

            await _wait("bots play on", rejoined, 60)
            assert all(b.urls_played & set(urls[1:]) for b in lost)  # at a survivor
            stop.set()
            nursery.cancel_scope.cancel()
        taken = [(await s.health())["directory"]["taken_over"] for s in servers[1:]]
        # the survivors split them (more if a loaded box let a lease run out meanwhile)
        assert sum(taken) >= TABLES and all(taken), taken
    finally:
        _stop(servers)
    for server in servers[1:]:
        assert server.proc.returncode == 0, server.proc.stderr.read() if server.proc.stderr else ""

    report = _ledger_check(redis_url)
    assert report["balanced"] and report["open_rounds"] == 0, report
    assert int(report["rounds_voided"]) >= 1, report  # type: ignore[call-overload]
    balances, transfers = await _store(redis_url)
    assert any(kind == "void_recovery" for *_, kind in transfers)  # wagers sent back
    # nothing left on any layout; every voided round's wagers went home
    assert {a: v for a, v in balances.items() if v and ":box:" in a} == {}
    # each account got its starting balance exactly once, though it met three processes
    minted: dict[str, int] = {}
    for _source, target, amount, kind in transfers:
        if kind == "starting_balance":
            assert amount == STARTING
            minted[target] = minted.get(target, 0) + 1
    assert minted and all(n == 1 for n in minted.values()), minted
    # no wallet below zero, and the cashier issued exactly what wallets and tables hold
    assert all(v >= 0 for a, v in balances.items() if a.startswith("wallet:"))
    assert sum(balances.values()) == 0


async def test_a_paused_owner_cannot_write_with_its_stale_token(tmp_path: Path) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    servers: list[ServerProcess] = []
    try:
        servers = await _deploy(tmp_path, redis.url, 2, 4)
        paused, other = servers
        urls = [s.url for s in servers]
        bots = [Bot(f"p0-{j}", f"pz{j}") for j in range(4)]
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(play, bot, urls, paused.url, stop)

            async def playing() -> bool:
                return all(b.rounds >= 2 for b in bots)

            await _wait("bots play", playing, 60)
            instance = (await paused.health())["directory"]["instance"]
            paused.proc.send_signal(signal.SIGSTOP)

            async def taken() -> bool:
                return sorted(await _owned(other)) == sorted(
                    [f"p1-{j}" for j in range(4)] + [b.table for b in bots]
                )

            await _wait("takeover", taken, LEASE * 4 + 10)
            _, written = await _ids(redis.url, instance)
            paused.proc.send_signal(signal.SIGCONT)

            async def left() -> bool:
                return await _owned(paused) == []

            await _wait("the paused owner leaves", left, 20)

            async def told() -> bool:  # its players were told the table moved
                return sum(b.moved for b in bots) >= 1

            await _wait("left: moved", told, 10)
            status = (await paused.health())["directory"]
            assert status["lost"] >= 1 or status["refused"] >= 1, status
            await trio.sleep(1.0)
            _, after = await _ids(redis.url, instance)
            assert after == written  # nothing written with the stale tokens

            before = {b.name: b.rounds for b in bots}

            async def play_on() -> bool:
                return all(b.rounds >= before[b.name] + 2 for b in bots)

            await _wait("bots play on at the new owner", play_on, 60)
            assert all(other.url in b.urls_played for b in bots)
            stop.set()
            nursery.cancel_scope.cancel()
    finally:
        _stop(servers)
        report = _ledger_check(redis.url)
        redis.kill()
    assert report["balanced"] and report["open_rounds"] == 0, report


async def _ids(redis_url: str, instance: str) -> tuple[int, set[str]]:
    """The store's version and the transfer ids written by ``instance``."""
    async with connect(redis_url) as client:
        ids = await client.hkeys(key("transfers"))
        version = await client.hget(key("meta"), "version")
    return int(version or 0), {str(i) for i in ids if str(i).startswith(instance + ":")}


async def test_loadtest_spreads_bots_over_a_deployment(tmp_path: Path) -> None:
    """``croupier loadtest --redis URL`` reads the directory, sends each table's bots to its
    owner, and checks the deployment's ledger."""
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    servers: list[ServerProcess] = []
    try:
        for i in range(2):
            path = write_tables(
                tmp_path / f"poker-{i}.toml",
                [
                    {"id": f"h{i}-{j}", "game": "holdem-act", "options": {"blinds": [100, 200]}}
                    for j in range(2)
                ],
            )
            server = ServerProcess(
                path, redis.url, "--directory", "--lease", str(LEASE), ledger_on_redis=True
            )
            servers.append(await server.started())
        out = tmp_path / "report.json"
        run = await trio.to_thread.run_sync(
            lambda: subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "loadtest",
                    "--url",
                    servers[0].url,
                    "--redis",
                    redis.url,
                    "--tables",
                    "4",
                    "--seats",
                    "3",
                    "--duration",
                    "6",
                    "--quiet",
                    "--seed",
                    "7",
                    "--json",
                    str(out),
                ],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=120,
            )
        )
        report = json.loads(out.read_text())
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert sorted(report["config"]["owners"]) == sorted(s.url for s in servers)
        assert report["hands"] > 0 and report["ok"], report["conservation"]
        assert report["conservation"]["ledger"]["balanced"]
    finally:
        _stop(servers)
        redis.kill()


async def test_a_restarted_process_takes_its_tables_back_at_once(tmp_path: Path) -> None:
    """kill -9, then a restart on the same data directory: the witness names the dead
    instance, whose leases the new process takes at once (not after the lease), voiding the
    interrupted rounds."""
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    data = tmp_path / "data"
    path = _tables(tmp_path / "tables.toml", "r", 3)

    def start() -> ServerProcess:
        return ServerProcess(
            path, redis.url, "--directory", "--lease", "60", "--data", str(data),
            ledger_on_redis=True,
        )  # fmt: skip

    server = await start().started()
    try:
        bots = [Bot(f"r-{j}", f"rb{j}") for j in range(3)]
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(play, bot, [server.url], server.url, stop)

            async def in_play() -> bool:
                return sum(b.in_play for b in bots) >= 2 and all(b.rounds >= 1 for b in bots)

            await _wait("antes down", in_play, 60)
            server.proc.kill()
            server.proc.wait(10)
            stop.set()
            nursery.cancel_scope.cancel()
        started = time.monotonic()
        server = await start().started()
        assert sorted(await _owned(server)) == ["r-0", "r-1", "r-2"]
        assert time.monotonic() - started < 30  # well inside the 60 s lease
        server.stop()
        assert server.proc.returncode == 0
        report = _ledger_check(redis.url)
        assert report["balanced"] and report["open_rounds"] == 0, report
        assert int(report["rounds_voided"]) >= 1, report  # type: ignore[call-overload]
    finally:
        server.stop()
        redis.kill()
