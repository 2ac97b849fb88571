"""Jackpot contributions per second: in-memory backend vs Redis (coredis + one Lua script).

    .venv/bin/python benchmarks/jackpot_bench.py [--n 3000] [--tasks 32] [--redis URL]

Without ``--redis`` it starts its own ``redis-server`` (127.0.0.1, free port, no
persistence) and stops it at the end. Figures are printed with ratios to the in-memory
baseline measured in the same run (the machine is shared and noisy: compare ratios).
Each contribution is one idempotent EVALSHA (check, split, totals, XADD audit); concurrent
tasks share coredis' multiplexed connection, so their requests are pipelined on the wire.
The batched line coins in a whole 7-box round per call (``contribute_round``: one EVALSHA,
still one idempotency record and one audit entry per wager).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable

import trio

from server.jackpots.model import PoolConfig
from server.jackpots.service import JackpotService, open_jackpot_service

BOXES = 7


async def run_contributions(service: JackpotService, pool: str, n: int, tasks: int) -> float:
    per_task = n // tasks

    async def table(t: int) -> None:
        for k in range(per_task):
            await service.contribute(pool, f"t{t}-r{k}", "box1", 500)

    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for t in range(tasks):
            nursery.start_soon(table, t)
    elapsed = time.perf_counter() - start
    snap = await service.snapshot(pool)
    assert snap is not None and snap.version == 1 + per_task * tasks  # each landed once
    return per_task * tasks / elapsed


async def run_rounds(service: JackpotService, pool: str, n: int, tasks: int) -> float:
    """Tables coin in a whole round at once: BOXES wagers per ``contribute_round`` call."""
    per_task = n // tasks // BOXES

    async def table(t: int) -> None:
        for k in range(per_task):
            wagers = {f"box{b}": 500 for b in range(1, BOXES + 1)}
            await service.contribute_round(pool, f"t{t}-r{k}", wagers)

    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for t in range(tasks):
            nursery.start_soon(table, t)
    elapsed = time.perf_counter() - start
    snap = await service.snapshot(pool)
    assert snap is not None and snap.version == 1 + per_task * tasks * BOXES
    return per_task * tasks * BOXES / elapsed


async def measure(url: str | None, label: str, n: int, tasks: int) -> dict[str, float]:
    rates: dict[str, float] = {}
    async with open_jackpot_service(url) as service:
        runs = (
            ("1 task", 1, run_contributions),
            (f"{tasks} tasks", tasks, run_contributions),
            (f"{tasks} tasks, {BOXES}-box rounds", tasks, run_rounds),
        )
        for name, count, job in runs:
            pool = f"bench-{label}-{count}-{time.time_ns()}"
            await service.open_pool(pool, PoolConfig.profile("qld"))
            rates[name] = await job(service, pool, n, count)
            report = await service.check(pool)
            assert report.ok, report.problems
    return rates


async def main_async(args: argparse.Namespace, url: str) -> None:
    results: list[tuple[str, dict[str, float]]] = []
    jobs: list[tuple[str, Callable[[], Awaitable[dict[str, float]]]]] = [
        ("memory", lambda: measure(None, "memory", args.n, args.tasks)),
        ("redis", lambda: measure(url, "redis", args.n, args.tasks)),
    ]
    for label, job in jobs:
        results.append((label, await job()))
    baseline = results[0][1]
    print(f"jackpot contributions/s ({args.n} per run; ratio to in-memory with the same tasks)")
    for label, rates in results:
        for name, rate in rates.items():
            print(f"  {label:<7} {name:<24} {rate:>10,.0f}/s   x{rate / baseline[name]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000, help="contributions per run")
    parser.add_argument("--tasks", type=int, default=32, help="concurrent tables")
    parser.add_argument("--redis", help="redis://HOST:PORT (default: start a redis-server)")
    args = parser.parse_args()
    if args.redis:
        trio.run(main_async, args, args.redis)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
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
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.3)
        trio.run(main_async, args, f"redis://127.0.0.1:{port}")
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
