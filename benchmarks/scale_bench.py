"""Scale out on one Redis: 1, 2 and 3 ``croupier serve --redis`` processes, the same load each.

The processes form a deployment (``--directory``: table leases, fenced ledger batches, wallet
tokens) unless ``--plain``. One run, one throwaway ``redis-server`` (a temporary directory, AOF
with ``appendfsync always`` as in production). For N = 1, 2, 3 in turn: N fresh server
processes keep every store in that Redis (``--redis``), each with ``--tables`` nine-seat
hold'em tables of its own (ids ``pN-...``), and each gets its own human-pace load test
(``loadtest/runner.py``, bots thinking 1-3 s per action) pointed at its URL directly; the N
load tests run at once.

Printed per N: actions/s (all processes, and per process), the action latency p99 in steady
play (the worst process; after ``--warmup`` s), the servers' CPU (sum of the processes'
shares in steady play, read from /proc) and per action, Redis's CPU per action, and whether
every load test conserved money. Then the scaling ratio throughput(N) / (N x
throughput(1)) and the per-process efficiency (actions per second of server CPU) at N
against N = 1: issue 14 asks that it fall by no more than 15% from 1 to 3 processes. Last,
``croupier ledger check --redis`` on the store every run shared.

Bounded in time: every phase plays ``--duration`` s (default 30; the whole run about 2.5
minutes) and stops by itself. The bots run on the same machine as the servers and Redis.
Run: ``.venv/bin/python benchmarks/scale_bench.py [--tables 60 --duration 30]``.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadtest.runner import RunSpec, run
from loadtest.server_proc import LocalServer, cpu_seconds
from loadtest.stats import Stats
from tests.integration.helpers import RedisServer

PROCESS_COUNTS = (1, 2, 3)


class CpuSampler:
    """The CPU seconds of some processes, every 0.5 s, in a thread."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.samples: list[tuple[float, list[float]]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _take(self) -> None:
        self.samples.append((time.monotonic(), [cpu_seconds(p) for p in self.pids]))

    def _run(self) -> None:
        self._take()
        while not self._done.wait(0.5):
            self._take()

    def __enter__(self) -> CpuSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        self._take()

    def shares(self, start: float, end: float) -> list[float]:
        """Each process's CPU share (cores) over [start, end], from the samples inside."""
        window = [s for s in self.samples if start <= s[0] <= end]
        if len(window) < 2:
            return [float("nan")] * len(self.pids)
        (t0, c0), (t1, c1) = window[0], window[-1]
        return [(b - a) / (t1 - t0) for a, b in zip(c0, c1, strict=True)]


@dataclass
class Load:
    """One server's load test: its report and its progress (time, actions so far)."""

    report: dict[str, Any] = field(default_factory=dict)
    progress: list[tuple[float, int]] = field(default_factory=list)

    def steady(self, args: argparse.Namespace) -> tuple[float, float, float]:
        """Steady play: (start, end, actions/s) between the warm-up's end and the bots'
        last second, from the progress the worker reports every second."""
        begun = self.progress[0][0] - 1.0  # the worker's first report comes after 1 s
        inside = [
            p for p in self.progress if begun + args.warmup <= p[0] <= begun + args.duration - 1
        ]
        if len(inside) < 2:
            return math.nan, math.nan, math.nan
        (t0, a0), (t1, a1) = inside[0], inside[-1]
        return t0, t1, (a1 - a0) / (t1 - t0)


async def load_all(servers: list[LocalServer], args: argparse.Namespace) -> list[Load]:
    """One human-pace load test per server, all at once."""
    loads = [Load() for _ in servers]

    async def one(i: int) -> None:
        spec = RunSpec(
            url=servers[i].url,
            tables=args.tables,
            duration=args.duration,
            pace="human",
            procs=1,
            warmup=args.warmup,
            settle_time=20.0,
            table_prefix=f"p{i + 1}-",  # its own tables (a deployment's lobby lists them all)
        )

        def progress(stats: Stats, _elapsed: float) -> None:
            loads[i].progress.append((time.monotonic(), stats.counters.get("actions", 0)))

        loads[i].report = await run(spec, progress)

    async with trio.open_nursery() as nursery:
        for i in range(len(servers)):
            nursery.start_soon(one, i)
    return loads


def clean(report: dict[str, Any]) -> bool:
    """No unexpected error, and the bots' wallets changed by exactly minus what the house
    took. (The per-process /status identity does not hold for processes that share one
    ledger: each counts every account issued in the store but only its own house; the whole
    store's books are checked at the end by ``croupier ledger check``.)"""
    cons = report["conservation"]
    if "deployment" in cons:  # a deployment's money is its store's: ledger check, at the end
        return cons.get("conserved") is not False and report["unexpected"] == 0
    return bool(cons["client_ok"]) and report["unexpected"] == 0


def phase(n: int, redis: RedisServer, args: argparse.Namespace) -> dict[str, Any]:
    """N servers on ``redis``, each under its own load; the phase's figures."""
    assert redis.proc is not None
    # a deployment (--directory): table leases, fenced batches, wallet tokens; or (--plain)
    # processes that only share the store
    deployment = [] if args.plain else ["--directory"]
    with ExitStack() as stack:
        servers = [
            stack.enter_context(
                LocalServer(
                    args.tables,
                    9,
                    round_pause=2.0,
                    id_prefix=f"p{i + 1}",
                    extra=["--redis", redis.url, "--dev-redis", *deployment],
                )
            )
            for i in range(n)
        ]
        with CpuSampler([*(s.pid for s in servers), redis.proc.pid]) as cpu:
            loads = trio.run(load_all, servers, args)
        load_average = os.getloadavg()[0]  # the machine's, other users' work included
    windows = [load.steady(args) for load in loads]
    rates = [w[2] for w in windows]
    shares = [cpu.shares(w[0], w[1])[i] for i, w in enumerate(windows)]
    common = (max(w[0] for w in windows), min(w[1] for w in windows))
    redis_share = cpu.shares(*common)[-1]
    actions = sum(rates)
    reports = [load.report for load in loads]
    return {
        "n": n,
        "bots": sum(r["bots"] for r in reports),
        "actions": actions,
        "per_process": rates,
        "p99": max(r["latency_ms_steady"]["p99"] for r in reports),
        "server_share": sum(shares),
        "server_us": sum(shares) / max(actions, 1e-9) * 1e6,
        "per_process_us": [s / max(r, 1e-9) * 1e6 for s, r in zip(shares, rates, strict=True)],
        "redis_us": redis_share / max(actions, 1e-9) * 1e6,
        "ok": all(clean(r) for r in reports),
        "load_average": load_average,
        "problems": [
            {
                "process": i + 1,
                "conservation": r["conservation"],
                "unexpected_errors": r["unexpected_errors"],
                "problems": r["problems"][:5],
            }
            for i, r in enumerate(reports)
            if not clean(r)
        ],
    }


def ledger_check(url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "ledger", "check", "--redis", url],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    return f"exit {done.returncode}: {(done.stdout + done.stderr).strip()}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=60, help="tables per process (9 bots each)")
    p.add_argument("--duration", type=float, default=30.0, help="seconds of play per phase")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds left out of p99")
    p.add_argument(
        "--plain",
        action="store_true",
        help="processes that only share the store, not a deployment (no --directory)",
    )
    args = p.parse_args()
    print(
        f"{args.tables} nine-seat hold'em tables per process at human pace, "
        f"{args.duration:.0f} s per phase ({args.warmup:.0f} s warm-up), one redis-server "
        "(appendfsync always), every store in it",
        flush=True,
    )
    began = time.monotonic()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="croupier-scale-") as tmp:
        redis = RedisServer(Path(tmp))
        redis.start()
        try:
            for n in PROCESS_COUNTS:
                row = phase(n, redis, args)
                rows.append(row)
                per = " / ".join(f"{a:.1f}" for a in row["per_process"])
                per_us = " / ".join(f"{u:.0f}" for u in row["per_process_us"])
                print(
                    f"N={n}: {row['bots']:5d} bots, {row['actions']:6.1f} actions/s ({per}), "
                    f"p99 {row['p99']:6.1f} ms (worst process), servers' CPU "
                    f"{row['server_share']:4.0%} = {row['server_us']:5.0f} us/action "
                    f"({per_us}), Redis {row['redis_us']:4.0f} us/action, clean={row['ok']}, load "
                    f"average {row['load_average']:.1f} on {os.cpu_count()} cores",
                    flush=True,
                )
                for problem in row["problems"]:
                    print(f"  not conserved or not clean: {problem}", flush=True)
            check = ledger_check(redis.url)
        finally:
            redis.kill()
    one = rows[0]
    print("scaling ratio throughput(N) / (N x throughput(1)); per-process efficiency vs N=1:")
    for row in rows:
        ratio = row["actions"] / (row["n"] * one["actions"])
        efficiency = one["server_us"] / row["server_us"] - 1  # actions per server CPU-second
        print(f"  N={row['n']}: ratio {ratio:.3f}, efficiency {efficiency:+.1%}")
    last = rows[-1]
    change = one["server_us"] / last["server_us"] - 1
    verdict = "within" if change >= -0.15 else "NOT within"
    print(
        f"per-process efficiency 1 -> {last['n']} processes: {change:+.1%} ({verdict} the "
        f"15% bound); ledger check: {check}; {time.monotonic() - began:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
