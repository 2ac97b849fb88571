"""Linked tables in separate OS processes on one Redis (QLD s9; digest 4.4, 5.5)."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter

import trio

from server.jackpots.model import PoolConfig
from server.jackpots.service import open_jackpot_service
from tests.jackpots.conftest import fresh_pool
from tests.shared import REPO

N = 150


async def worker(*args: str) -> dict:
    proc = await trio.run_process(
        [sys.executable, "-m", "tests.jackpots.worker", *args],
        capture_stdout=True,
        capture_stderr=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


async def test_two_processes_contribute_concurrently_each_lands_once_5_5(
    redis_url: str,
) -> None:
    """Two processes coin in at once, with retries and with wager ids both send: every
    distinct (round, wager) is credited exactly once and the totals are exact."""
    pool = fresh_pool("linked")
    async with open_jackpot_service(redis_url) as service:
        await service.open_pool(pool, PoolConfig.profile("act2017"), meter=1_000_000)
        results: list[dict] = []

        async def run(table: str) -> None:
            results.append(await worker("contribute", redis_url, pool, table, str(N)))

        with trio.fail_after(40):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run, "table-a")
                nursery.start_soon(run, "table-b")
        statuses = Counter(results[0]) + Counter(results[1])
        distinct = 2 * N + N  # each table's own rounds + the shared rounds
        assert statuses["applied"] == distinct
        assert statuses["duplicate"] == 2 * len(range(0, N, 7)) + N
        assert "pending" not in statuses
        snap = await service.snapshot(pool)
        assert snap is not None and snap.contributions == distinct * 100
        assert (snap.meter, snap.reserve) == (1_000_000 + distinct * 30, distinct * 70)
        report = await service.check(pool)
        assert report.ok and report.entries == distinct + 1, report.problems


async def test_hit_in_one_process_seen_by_others_watch_within_1s_s9(redis_url: str) -> None:
    """QLD s9(2)(c)/s9(3): a hit at a table in another process moves this table's meter
    within 1 s of its commit."""
    pool = fresh_pool("linked")
    async with open_jackpot_service(redis_url) as service:
        await service.open_pool(pool, PoolConfig.profile("qld", seed=1_000_000), meter=5_000_000)
        async with service.watch(pool) as meter:
            with trio.fail_after(2):
                assert (await meter.receive()).meter == 5_000_000
            with trio.fail_after(30):
                async with trio.open_nursery() as nursery:
                    done: list[dict] = []

                    async def hit() -> None:
                        done.append(await worker("award", redis_url, pool, "table-b-r9", "4500000"))

                    nursery.start_soon(hit)
                    update = await meter.receive()
                    seen_at = time.time()
            assert (update.op, update.round_id, update.meter) == ("award", "table-b-r9", 1_000_000)
            assert seen_at - done[0]["committed_at"] < 1.0
