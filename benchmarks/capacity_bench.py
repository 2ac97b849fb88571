"""Capacity at human pace: the most 9-seat tables one server process holds with p99 <= 100 ms.

For each table count tried, a fresh ``croupier serve`` subprocess gets a generated lobby of
that many nine-seat tables (server defaults: 20 s turn time, 2 s between rounds) and
``croupier loadtest --pace human`` fills every seat from ``--procs`` worker processes of
its own (bots think 1-3 s per action). The trial passes when the action latency p99 after
the warm-up (the connection storm) is at most ``--p99`` ms and the run had no unexpected
error and conserved money. Table counts are probed upwards from ``--start`` (doubling) until
one fails, then bisected to ``--resolution``.

Printed per trial: tables, bots, actions/s, frames/s to clients, latency p50/p99/max, server
CPU share (whole trial, including the connection storm; and in steady play, with the server
CPU per action); then the capacity. Goal >= 1,000 tables (stretch 2,000).
Run: ``.venv/bin/python benchmarks/capacity_bench.py [--start 250 --max 2000]``.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadtest.experiments import VARIANTS
from loadtest.runner import RunSpec, run
from loadtest.server_proc import LocalServer


def trial(tables: int, args: argparse.Namespace) -> dict[str, Any]:
    prefix = None
    if args.variant != "baseline":  # a proposed server change, applied by loadtest.experiments
        prefix = [sys.executable, "-m", "loadtest.experiments", "--wrap", args.variant]
    elif args.server_dir:  # another checkout's server (e.g. ``git archive`` of an old commit)
        prefix = ["env", "-C", str(args.server_dir), sys.executable]
    with LocalServer(tables, 9, round_pause=2.0, prefix=prefix) as srv:
        c0, t0 = srv.cpu_seconds(), time.monotonic()
        samples: list[tuple[float, float]] = []  # (time, server CPU s), every 0.5 s
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.5):
                samples.append((time.monotonic(), srv.cpu_seconds()))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        report = trio.run(
            run,
            RunSpec(
                url=srv.url,
                tables=tables,
                duration=args.duration,
                pace="human",
                procs=args.procs,
                warmup=args.warmup,
                settle_time=60.0,
            ),
        )
        done.set()
        sampler.join()
        end = time.monotonic()
        cpu, wall = srv.cpu_seconds() - c0, end - t0
        rss = srv.rss_bytes()
    # steady play: the server's CPU over [end - 0.6 duration, end - 0.1 duration], i.e.
    # after the connection storm and the warm-up and before the bots leave
    window = [c for c in samples if end - 0.6 * args.duration <= c[0] <= end - 0.1 * args.duration]
    steady_share = (
        (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0])
        if len(window) > 1
        else float("nan")
    )
    per_action_us = steady_share / max(report["actions_per_s"], 1e-9) * 1e6
    steady = report["latency_ms_steady"]
    passed = steady["p99"] <= args.p99 and report["ok"] and steady["count"] > 0
    print(
        f"{tables:5d} tables {report['bots']:6d} bots: {report['actions_per_s']:7.1f} "
        f"actions/s, {report['frames_from_server_per_s']:8.0f} frames/s out, "
        f"latency p50 {steady['p50']:6.1f} p99 {steady['p99']:7.1f} max {steady['max']:7.1f} "
        f"ms (after {args.warmup:.0f} s), server CPU {cpu / wall:4.0%} (steady "
        f"{steady_share:4.0%}, {per_action_us:5.0f} us/action), clients' CPU "
        f"{report['client_cpu_share']:.0%}, RSS "
        f"{rss / 2**20:.0f} MiB, ok={report['ok']} -> {'PASS' if passed else 'fail'}",
        flush=True,
    )
    return {"tables": tables, "passed": passed, "report": report}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--start", type=int, default=250)
    p.add_argument("--max", type=int, default=2000)
    p.add_argument(
        "--resolution",
        type=float,
        default=0.1,
        help="stop bisecting when the bracket is narrower than this fraction",
    )
    p.add_argument("--duration", type=float, default=40.0)
    p.add_argument("--warmup", type=float, default=15.0)
    p.add_argument("--procs", type=int, default=2, help="client worker processes")
    p.add_argument("--p99", type=float, default=100.0)
    p.add_argument(
        "--variant",
        choices=VARIANTS,
        default="baseline",
        help="measure with a proposed server change (loadtest/experiments.py)",
    )
    p.add_argument(
        "--server-dir",
        type=Path,
        default=None,
        help="run the server from this checkout (before/after comparisons)",
    )
    p.add_argument(
        "--tables",
        type=int,
        nargs="*",
        default=None,
        help="just try these table counts (no search)",
    )
    args = p.parse_args()
    print(
        f"human pace, 9 seats, {args.duration:.0f} s per trial, p99 <= {args.p99:.0f} ms "
        f"after {args.warmup:.0f} s of warm-up, {args.procs} client processes, server "
        f"{args.variant}"
    )
    if args.tables:
        for n in args.tables:
            trial(n, args)
        return 0
    good, bad = 0, None
    n = args.start
    while n <= args.max:
        if trial(n, args)["passed"]:
            good = n
            n *= 2
        else:
            bad = n
            break
    if bad is None:
        print(f"capacity: at least {good} tables (the largest tried)")
        return 0
    while bad - good > max(1, good * args.resolution):
        mid = (good + bad) // 2
        if trial(mid, args)["passed"]:
            good = mid
        else:
            bad = mid
    print(
        f"capacity: {good} tables pass, {bad} fail (p99 <= {args.p99:.0f} ms); "
        f"goal 1,000: {'met' if good >= 1000 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
