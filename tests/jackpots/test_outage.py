"""Jackpot store outages (ACT-2017 r.4.2, r.14.5; QLD Sch 3 s13(2), s34; digest 5.8).

The Redis process is really killed (SIGKILL) and restarted on the same port and data
directory (``--appendonly yes --appendfsync always``: every acknowledged commit survives).
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import coredis.exceptions
import pytest
import trio

from server.jackpots.model import JackpotError, JackpotUnavailable, MeterUpdate, PoolConfig
from server.jackpots.redis_store import open_redis_service
from tests.jackpots.conftest import fresh_pool
from tests.support import until


class RedisProcess:
    """A redis-server we can kill and restart on the same port with the same data."""

    def __init__(self, datadir: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.datadir = datadir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.datadir),
            ],
            stdout=subprocess.DEVNULL,
        )

    async def ready(self) -> None:
        with trio.fail_after(10):
            while True:
                try:
                    stream = await trio.open_tcp_stream("127.0.0.1", self.port)
                except OSError:
                    await trio.sleep(0.02)
                    continue
                await stream.aclose()
                return

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProcess]:
    server = RedisProcess(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


async def test_kill_and_restart_redis_nothing_lost_or_doubled_r4_2_s34(
    redis_server: RedisProcess,
) -> None:
    """Tables keep coining in across a Redis kill: unavailable is reported within 1 s and new
    jackpot wagers are refused (r.4.2, s34); wagers accepted but unconfirmed are retried by the
    outbox after the restart; every accepted wager is credited exactly once (5.5, 5.9), and a
    watching table's meter resumes with every commit."""
    await redis_server.ready()
    pool = fresh_pool("outage")
    async with open_redis_service(redis_server.url, op_timeout=0.5, ping_interval=0.05) as svc:
        await svc.open_pool(pool, PoolConfig.profile("act2017"), meter=1_000_000)
        accepted: dict[str, str] = {}
        refused = 0
        stop = trio.Event()
        seen: list[MeterUpdate] = []

        async def table(name: str) -> None:
            nonlocal refused
            k = 0
            while not stop.is_set():
                k += 1
                try:
                    if name == "t3":  # a whole round's coin-in in one call
                        boxes = {"box1": 100, "box4": 100, "box6": 100}
                        results = await svc.contribute_round(pool, f"{name}-r{k}", boxes)
                        for box, result in results.items():
                            accepted[f"{name}-r{k}/{box}"] = result.status
                    else:
                        result = await svc.contribute(pool, f"{name}-r{k}", "box1", 100)
                        accepted[f"{name}-r{k}"] = result.status
                except JackpotUnavailable:
                    refused += 1
                await trio.sleep(0.002)

        async def meter_display() -> None:
            async with svc.watch(pool) as updates:
                async for update in updates:
                    seen.append(update)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(meter_display)
            async with trio.open_nursery() as tables:
                for name in ("t1", "t2", "t3"):
                    tables.start_soon(table, name)
                await trio.sleep(0.3)
                redis_server.kill()
                with trio.fail_after(1.0):  # "quickly": tables close jackpot wagers at once
                    await svc.wait_unavailable()
                await trio.sleep(0.3)
                assert refused > 0 and not svc.available
                redis_server.start()
                await redis_server.ready()
                with trio.fail_after(5):
                    await svc.wait_available()
                await trio.sleep(0.3)
                stop.set()
            with trio.fail_after(5):
                await svc.drained()
            snap = await svc.snapshot(pool)
            assert snap is not None
            await until(lambda: bool(seen) and seen[-1].version == snap.version, 3)
            nursery.cancel_scope.cancel()

    assert snap.contributions == 100 * len(accepted)
    assert (snap.meter, snap.reserve) == (1_000_000 + 30 * len(accepted), 70 * len(accepted))
    async with open_redis_service(redis_server.url) as svc:
        report = await svc.check(pool)
        assert report.ok, report.problems
        assert report.entries == 1 + len(accepted)


async def test_lost_reply_is_retried_with_same_id_applied_once_5_8(redis_url: str) -> None:
    """The script ran but its reply was lost: the result is ``pending``, the outbox retries
    with the same id, Redis answers ``duplicate``, and the wager counts once."""
    pool = fresh_pool("lost")
    async with open_redis_service(redis_url, op_timeout=0.5, ping_interval=0.05) as svc:
        await svc.open_pool(pool, PoolConfig.profile("qld"), meter=1_000_000)
        real = svc._script
        lost: list[list[str]] = []

        def reply_lost(keys: list[str], args: list[str]):
            async def call():
                reply = await real(keys, args)
                # the op, maybe with the guard of what the service saw ("op|epoch|version")
                if args[0].split("|")[0] == "contribute" and not lost:
                    lost.append(args)
                    raise coredis.exceptions.ConnectionError("connection lost mid-reply")
                return reply

            return call()

        svc._script = reply_lost  # type: ignore[method-assign]
        result = await svc.contribute(pool, "r1", "w1", 1_000)
        assert result.status == "pending" and svc.pending == 1
        with trio.fail_after(5):
            await svc.drained()
        snap = await svc.snapshot(pool)
        assert snap is not None and (snap.meter, snap.contributions) == (1_000_250, 300)
        assert (await svc.check(pool)).ok


async def test_awards_refused_while_down_then_applied_once_5_8(
    redis_server: RedisProcess,
) -> None:
    """Digest 5.8: the jackpot phase is held while the store is down and retried with the
    same id afterwards; a pool service started while Redis is down comes up by itself."""
    await redis_server.ready()
    pool = fresh_pool("held")
    redis_server.kill()
    async with open_redis_service(redis_server.url, op_timeout=0.5, ping_interval=0.05) as svc:
        assert not svc.available
        with pytest.raises(JackpotUnavailable):
            await svc.open_pool(pool, PoolConfig.profile("qld"), meter=2_000_000)
        redis_server.start()
        with trio.fail_after(5):
            await svc.wait_available()
        await svc.open_pool(pool, PoolConfig.profile("qld"), meter=2_000_000)
        redis_server.kill()
        with pytest.raises(JackpotUnavailable):
            await svc.award(pool, "r1", "settle", 500_000)
        redis_server.start()
        with trio.fail_after(5):
            await svc.wait_available()
        first = await svc.award(pool, "r1", "settle", 500_000)
        again = await svc.award(pool, "r1", "settle", 500_000)
        assert (first.status, again.status) == ("applied", "duplicate")
        snap = await svc.snapshot(pool)
        assert snap is not None and (snap.meter, snap.paid) == (1_500_000, 500_000)


async def test_script_error_reported_with_code_service_keeps_running(redis_url: str) -> None:
    """A pool whose keys were damaged outside the service: the request fails with a stable
    code, nothing is applied, and the service (health, outbox, other pools) carries on."""
    pool, healthy = fresh_pool("damaged"), fresh_pool("healthy")
    async with open_redis_service(redis_url) as svc:
        await svc.open_pool(pool, PoolConfig.profile("qld"))
        await svc.open_pool(healthy, PoolConfig.profile("qld"))
        await svc._client.hset(f"jp:{{{pool}}}:state", {"prize_bp": "lots"})
        with pytest.raises(JackpotError) as err:
            await svc.contribute(pool, "r1", "w1", 100)
        assert err.value.code == "store_error" and svc.pending == 0
        assert (await svc.contribute(healthy, "r1", "w1", 100)).status == "applied"
        assert svc.available


async def test_script_cache_flushed_evalsha_falls_back_to_load(redis_url: str) -> None:
    """A restarted or failed-over Redis has no scripts: EVALSHA's NOSCRIPT is answered by
    loading the script and running it once (digest 5.5 "EVALSHA jp_commit")."""
    pool = fresh_pool("noscript")
    async with open_redis_service(redis_url) as svc:
        await svc.open_pool(pool, PoolConfig.profile("qld"))
        await svc._client.script_flush()
        assert (await svc.contribute(pool, "r1", "w1", 100)).status == "applied"
        assert (await svc.contribute(pool, "r1", "w1", 100)).status == "duplicate"
        snap = await svc.snapshot(pool)
        assert snap is not None and snap.version == 2
