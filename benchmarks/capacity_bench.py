"""Capacity at human pace: the most 9-seat tables one server process holds with p99 <= 100 ms.

For each table count tried, a fresh ``croupier serve`` subprocess gets a generated lobby of
that many nine-seat tables (server defaults: 20 s turn time, 2 s between rounds) and
``croupier loadtest --pace human`` fills every seat from ``--procs`` worker processes of
its own (bots think 1-3 s per action). The trial passes when the action latency p99 in steady
play is at most ``--p99`` ms and the run had no unexpected
error and conserved money. Table counts are probed upwards from ``--start`` (doubling) until
one fails, then bisected to ``--resolution``.

**Steady play** runs from the end of the connection storm (the last bot's first ``welcome``
plus 2 s, and never before ``--warmup`` s; at 1,000 tables the storm of 9,000 connections
lasts 15-20 s here) to the stop (the bots' leaving storm is left out). The latency p99, the
server's CPU and the actions per second are all taken over that window.

Printed per trial: tables, bots, actions/s, frames/s to clients, latency p50/p99/max, server
CPU share (whole trial, including the connection storm; and in steady play, with the steady
actions/s and the server CPU per action); then the capacity. Goal >= 1,000 tables (stretch 2,000).

**Normalized cost.** Absolute CPU figures follow the machine. So the same invocation also
runs the raw ``websockets.trio`` firehose of ``benchmarks/raw_broadcast_bench.py`` (one
broadcaster, ``--raw-tables`` x 9 connections, frames of the first trial's mean size, for
``--raw-duration`` s) right after the first trial, and every trial prints its server CPU per
action in raw firehose deliveries: steady CPU per action / raw CPU per delivery. An action
reaches about 9-10 recipients, one frame each, so about 10 is the floor. Both sides are
steady play: the server's CPU per action over the steady window, the firehose's CPU
per delivery over its measured window (its connection storm and warm-up left out).
Run: ``.venv/bin/python benchmarks/capacity_bench.py [--start 250 --max 2000]``, or
``--tables 300 --duration 30`` for one bounded trial (``--raw-duration 0``: no raw half).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.raw_broadcast_bench import run_raw
from loadtest.experiments import VARIANTS
from loadtest.runner import RunSpec, run
from loadtest.server_proc import LocalServer


def raw_firehose(args: argparse.Namespace, size: int) -> dict[str, Any] | None:
    """The raw websockets.trio firehose on this machine now (None with --raw-duration 0)."""
    if args.raw_duration <= 0:
        return None
    raw = run_raw(args.raw_tables, args.procs, args.raw_duration, 1, size, "firehose")
    print(
        f"raw websockets.trio firehose ({args.raw_tables * 9} connections, {size} B frames): "
        f"{raw['deliveries_per_s']:,.0f} deliveries/s, server CPU "
        f"{raw['server_cpu_share']:.0%}, {raw['steady_cpu_us_per_delivery']:.1f} us CPU per "
        f"delivery in steady play ({raw['server_cpu_us_per_delivery']:.1f} with the "
        "connection storm)",
        flush=True,
    )
    return raw


def in_raw(per_action_us: float, raw: dict[str, Any] | None) -> str:
    """``per_action_us`` in raw firehose deliveries (the cost normalized for the machine)."""
    if raw is None:
        return ""
    return (
        f" = {per_action_us / raw['steady_cpu_us_per_delivery']:.1f} raw deliveries"
        f" ({per_action_us / raw['server_cpu_us_per_delivery']:.1f} against the firehose's"
        " CPU with its connection storm)"
    )


@contextlib.contextmanager
def cpu_quota(pid: int, share: float | None) -> Iterator[None]:
    """Hold process ``pid`` (every thread) to ``share`` of one core with a CFS quota in a
    cgroup of its own (cgroup v2 ``cpu.max`` or v1 ``cpu.cfs_quota_us``), over 10 ms
    periods: a smaller server box, so that the server, not the load generator sharing this
    machine, is what runs out first. Needs a writable /sys/fs/cgroup (root)."""
    if share is None:
        yield
        return
    period = 10_000  # us: a throttled server stalls at most 10 ms minus its quota
    quota = max(1_000, round(share * period))
    v2 = Path("/sys/fs/cgroup/cgroup.controllers").exists()
    group = Path("/sys/fs/cgroup" if v2 else "/sys/fs/cgroup/cpu") / f"croupier-bench-{pid}"
    try:
        group.mkdir()
        if v2:
            (group / "cpu.max").write_text(f"{quota} {period}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(period))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
        (group / "cgroup.procs").write_text(str(pid))
    except OSError as exc:
        sys.exit(f"capacity_bench: --server-cpu needs a writable cgroup ({exc})")
    try:
        yield
    finally:
        parent = group.parent / "cgroup.procs"
        with contextlib.suppress(OSError):
            parent.write_text(str(pid))  # the server may have ended already
        with contextlib.suppress(OSError):
            group.rmdir()


def scrape(ws_url: str) -> tuple[int, float]:
    """One Prometheus-style read of the server's ``/metrics`` (a dev server answers this
    machine without a token): the bytes read (0: refused or missing, an older server) and
    the seconds the answer took."""
    url = ws_url.replace("ws://", "http://").removesuffix("/ws") + "/metrics"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    t0 = time.perf_counter()
    try:
        with opener.open(url, timeout=5) as r:
            return len(r.read()), time.perf_counter() - t0
    except (urllib.error.URLError, OSError):
        return 0, time.perf_counter() - t0


def trial(
    tables: int, args: argparse.Namespace, raw: dict[str, Any] | None = None
) -> dict[str, Any]:
    prefix = None
    if args.variant != "baseline":  # a proposed server change, applied by loadtest.experiments
        prefix = [sys.executable, "-m", "loadtest.experiments", "--wrap", args.variant]
    elif args.server_dir:  # another checkout's server (e.g. ``git archive`` of an old commit)
        prefix = ["env", "-C", str(args.server_dir), sys.executable]
    with (
        LocalServer(tables, 9, round_pause=2.0, prefix=prefix) as srv,
        cpu_quota(srv.pid, args.server_cpu),
    ):
        c0, t0 = srv.cpu_seconds(), time.monotonic()
        samples: list[tuple[float, float]] = []  # (time, server CPU s), every 0.5 s
        done = threading.Event()

        scrapes: list[tuple[int, float]] = []  # each /metrics answer: bytes, seconds

        def sample() -> None:
            next_scrape = time.monotonic()
            while not done.wait(0.5):
                samples.append((time.monotonic(), srv.cpu_seconds()))
                if args.scrape and time.monotonic() >= next_scrape:
                    next_scrape += args.scrape
                    scrapes.append(scrape(srv.url))

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
    # steady play: from the end of the connection storm (the latency's steady window) to the
    # stop, 1 s inside it at both ends; the server's CPU and the bots' actions over the same
    # seconds (the run's seconds count from about t0: the workers start just after)
    lo, hi = report["latency_ms_steady"]["after_s"] + 1, report["played_s"] - 1
    window = [c for c in samples if t0 + lo <= c[0] <= t0 + hi]
    acts = sum(p["count"] for p in report["timeline"] if lo <= p["t"] < hi)
    steady_share = (
        (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0])
        if len(window) > 1
        else float("nan")
    )
    steady_actions = acts / (hi - lo) if hi > lo else float("nan")
    per_action_us = steady_share / max(steady_actions, 1e-9) * 1e6
    steady = report["latency_ms_steady"]
    passed = steady["p99"] <= args.p99 and report["ok"] and steady["count"] > 0
    print(
        f"{tables:5d} tables {report['bots']:6d} bots: {report['actions_per_s']:7.1f} "
        f"actions/s, {report['frames_from_server_per_s']:8.0f} frames/s out, "
        f"latency p50 {steady['p50']:6.1f} p99 {steady['p99']:7.1f} max {steady['max']:7.1f} "
        f"ms (after {steady['after_s']:.0f} s; storm over at {report['storm_s']} s), server "
        f"CPU {cpu / wall:4.0%} (steady {steady_share:4.0%} at {steady_actions:.1f} actions/s, "
        f"{per_action_us:5.0f} us/action{in_raw(per_action_us, raw)}), "
        "clients' CPU "
        f"{report['client_cpu_share']:.0%}, RSS "
        f"{rss / 2**20:.0f} MiB, ok={report['ok']} -> {'PASS' if passed else 'fail'}",
        flush=True,
    )
    if args.scrape:
        read = sorted(scrapes, key=lambda x: x[1])
        answered = [n for n, _ in read if n]
        median = read[len(read) // 2][1] * 1000 if read else float("nan")
        print(
            f"      /metrics read {len(answered)} of {len(scrapes)} times, "
            f"{sum(answered) / max(len(answered), 1) / 1024:.0f} KiB each, "
            f"median {median:.1f} ms an answer",
            flush=True,
        )
    if args.timeline:
        print_timeline(report["timeline"], samples, t0)
    size = round(report["bytes_from_server"] / max(report["frames_from_server"], 1))
    return {"tables": tables, "passed": passed, "per_action_us": per_action_us, "size": size}


def print_timeline(
    timeline: list[dict[str, Any]], samples: list[tuple[float, float]], t0: float
) -> None:
    """Second by second: actions, latency p50/p99/max and the server's CPU share."""
    cpu: dict[int, float] = {}
    for (ta, ca), (tb, cb) in itertools.pairwise(samples):
        sec = int((ta + tb) / 2 - t0)
        cpu[sec] = cpu.get(sec, 0.0) + (cb - ca)
    print("      s  actions   p50 ms   p99 ms   max ms  server CPU")
    for p in timeline:
        share = cpu.get(p["t"])
        print(
            f"  {p['t']:5d} {p['count']:8d} {p['p50']:8.1f} {p['p99']:8.1f} {p['max']:8.1f}"
            + ("" if share is None else f"  {share:10.0%}")
        )


class Trials:
    """Runs trials; the raw firehose runs once, right after the first trial (same run)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.raw: dict[str, Any] | None = None
        self.done: list[dict[str, Any]] = []

    def __call__(self, tables: int) -> bool:
        result = trial(tables, self.args, self.raw)
        self.done.append(result)
        if len(self.done) == 1:
            self.raw = raw_firehose(self.args, result["size"])
            if self.raw is not None:
                print(f"  (first trial{in_raw(result['per_action_us'], self.raw)} per action)")
        return bool(result["passed"])

    def summary(self, held: int | None) -> None:
        raw = self.raw
        for r in self.done:
            print(
                f"summary: {r['tables']} tables: {r['per_action_us']:.0f} us server CPU per "
                f"action{in_raw(r['per_action_us'], raw)}, "
                f"{'PASS' if r['passed'] else 'fail'}"
            )
        if raw is not None:
            print(
                f"summary: raw firehose {raw['deliveries_per_s']:,.0f} deliveries/s, "
                f"{raw['steady_cpu_us_per_delivery']:.1f} us per delivery (steady)"
                + (
                    ""
                    if held is None
                    else f"; tables held at p99 <= {self.args.p99:.0f} ms: {held}"
                )
            )


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
    p.add_argument(
        "--raw-tables",
        type=int,
        default=300,
        help="the raw firehose serves this many tables' worth of connections (x 9)",
    )
    p.add_argument(
        "--raw-duration",
        type=float,
        default=15.0,
        help="seconds of raw firehose after the first trial (0: none)",
    )
    p.add_argument(
        "--server-cpu",
        type=float,
        default=None,
        help="hold the server to this share of one core (a CFS quota in a cgroup; root): "
        "the server, not the load generator on the same machine, runs out first",
    )
    p.add_argument(
        "--scrape",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="read /metrics this often during each trial, as Prometheus would (0: never)",
    )
    p.add_argument(
        "--timeline",
        action="store_true",
        help="print each trial second by second (actions, latency, server CPU)",
    )
    args = p.parse_args()
    print(
        f"human pace, 9 seats, {args.duration:.0f} s per trial, p99 <= {args.p99:.0f} ms "
        f"after {args.warmup:.0f} s of warm-up, {args.procs} client processes, server "
        f"{args.variant}"
        + ("" if args.server_cpu is None else f", held to {args.server_cpu:.0%} of a core")
    )
    trials = Trials(args)
    if args.tables:
        for n in args.tables:
            trials(n)
        passed = [r["tables"] for r in trials.done if r["passed"]]
        trials.summary(max(passed) if passed else None)
        return 0
    good, bad = 0, None
    n = args.start
    while n <= args.max:
        if trials(n):
            good = n
            n *= 2
        else:
            bad = n
            break
    trials.summary(good)
    if bad is None:
        print(f"capacity: at least {good} tables (the largest tried)")
        return 0
    while bad - good > max(1, good * args.resolution):
        mid = (good + bad) // 2
        if trials(mid):
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
