"""Profile the server's hot path under load (pyinstrument, sampling every millisecond).

``python -m loadtest.profile_server --tables 100 --duration 20`` starts ``croupier serve``
under pyinstrument (async mode off: the plain CPU stacks of the one trio thread), plays a
max-pace load test against it from worker processes, stops the server, and prints the
profile (``--out FILE`` keeps the full text report; ``--html FILE`` pyinstrument's page).

``--gc`` times the server's garbage collections instead (no profiler): every collection
over 5 ms is listed with its generation, which shows the full-collection pauses.

``--attribute`` sorts the server's CPU into the issue-16 buckets (frames out, encoding,
frames in, reader and router, keepalive, tasks and trio scheduling, timers, ledger, engine,
views, outbound queues, table logic, GC): each profiler sample goes to the bucket of the
innermost frame that names one (:data:`BUCKETS`; trio's own frames only when nothing else
does), samples in the event loop's ``epoll`` wait are idle, and the collector's CPU time is
measured apart with :data:`gc.callbacks`. With ``--pace human`` and ``--warmup``, only the
steady part of the run counts (the profiler starts after the warm-up).

Internally the same module is the server's wrapper: ``python -m loadtest.profile_server
--wrap OUT -m server.cli serve ARGS`` runs ``croupier serve ARGS`` inside the profiler and
writes the report when the server stops (SIGINT).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

#: The innermost bucket of a table task's sample: (bucket, path part, function names or
#: None for any); the first row that matches a frame wins, the innermost frame first.
TABLE_BUCKETS: list[tuple[str, str, frozenset[str] | None]] = [
    ("encoding", "protocol/codec.py", frozenset({"encode"})),
    ("frames out (fast path, in the table task)", "server/net/connections.py", None),
    ("frames out (fast path, in the table task)", "websockets/", None),
    ("ledger", "server/store/", None),
    ("ledger", "server/tables/books.py", None),
    ("engine", "server/games/", None),
    ("views", "server/tables/views.py", None),
    ("views", "server/tables/", frozenset({"view_for", "snapshot", "sees", "info"})),
    ("outbound queues (batch, flush)", "server/tables/connection.py", None),
    ("timers", "", frozenset({"on_time", "next_deadline", "on_round_time", "round_deadline"})),
    ("table logic", "", None),
]


def _frame(identifier: str) -> tuple[str, str]:
    func, _, rest = identifier.partition("\x00")
    return func.rsplit(".", 1)[-1], rest.partition("\x00")[0]


def bucket_of(stack: list[str]) -> str:
    """The bucket of one profiler sample (a pyinstrument call stack, root first): by the task
    it ran in (the outermost frame outside trio), then, in a table task, by the innermost
    frame that names a bucket."""
    frames = [_frame(f) for f in stack]
    if frames[-1][0].endswith("poll"):
        return "idle"
    start = next((i for i, (_, p) in enumerate(frames) if "trio/" in p), len(frames))
    task = [(f, p) for f, p in frames[start:] if "trio/_core/" not in p and p != "<built-in>"]
    if not task:
        return "tasks and trio scheduling"
    func, path = task[0]
    funcs = {f for f, _ in task}
    if func == "_writer":
        if "encode" in funcs:
            return "encoding"
        if "send" in funcs:
            return "frames out (websockets send, syscall)"
        return "writer loop (queue receive, task switch)"
    if func == "recv_events":
        return "frames in (reader task: read, parse, decode, route)"
    if func == "_reader":
        return "reader task (recv, decode, router)"
    if func == "keepalive":
        return "keepalive pings"
    if func in ("_run_handler", "stream_handler", "handle", "run_connection"):
        return "connection open/close (handshake, handler)"
    if "gc_policy" in path:
        return "gc policy (freeze)"
    if "server/store/" in path:
        return "ledger"
    if "server/tables/" in path:
        for f, p in reversed(task):
            for bucket, part, names in TABLE_BUCKETS:
                if part in p and (names is None or f in names):
                    return bucket
    return f"other ({func} {path.rsplit('/', 1)[-1]})"


def attribute(session: Any, gc_cpu: float) -> dict[str, float]:
    """CPU seconds per bucket (idle left out; the collector's time measured apart)."""
    out: dict[str, float] = {}
    for stack, seconds in session.frame_records:
        b = bucket_of(stack)
        out[b] = out.get(b, 0.0) + seconds
    out.pop("idle", None)
    out["gc (collections, timed apart)"] = gc_cpu
    return out


def _worker_threads_cpu() -> float:
    """CPU seconds of this process's threads other than the main one (the trio loop): the
    ledger's commits run in a worker thread (``trio.to_thread``)."""
    main, total = threading.main_thread().native_id, 0.0
    for tid in os.listdir("/proc/self/task"):
        if int(tid) == main:
            continue
        try:
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def wrap(out: Path, html: Path | None, serve_args: list[str], delay: float = 0.0) -> int:
    import gc
    import json
    import threading

    from pyinstrument import Profiler

    from server.net import app

    profiler = Profiler(interval=0.001, async_mode="disabled")
    gc_cpu = [0.0, 0.0]  # total, started
    profiling = threading.Event()

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_cpu[1] = time.process_time()
        elif profiler.is_running:
            gc_cpu[0] += time.process_time() - gc_cpu[1]

    gc.callbacks.append(timed)
    cpu0 = [0.0]

    workers = [0.0]

    def start() -> None:  # on the main thread (pyinstrument profiles the calling thread)
        cpu0[0], workers[0] = time.process_time(), _worker_threads_cpu()
        profiler.start()
        profiling.set()

    def toggle() -> None:  # SIGUSR1: the first starts the profile, the second ends it
        if not profiling.is_set():
            start()
        elif profiler.is_running:
            cpu0[0] = time.process_time() - cpu0[0]
            workers[0] = _worker_threads_cpu() - workers[0]
            profiler.stop()

    if delay > 0:
        signal.signal(signal.SIGUSR1, lambda *_: toggle())
    else:
        start()
    try:
        app.main(serve_args)
    except BaseException:  # SIGINT ends the server; the profile is what we want
        pass
    finally:
        if profiling.is_set():
            if profiler.is_running:
                profiler.stop()
                cpu0[0] = time.process_time() - cpu0[0]
                workers[0] = _worker_threads_cpu() - workers[0]
            cpu = cpu0[0]
            out.write_text(profiler.output_text(unicode=False, color=False, show_all=False))
            if html is not None:
                html.write_text(profiler.output_html())
            session = profiler.last_session
            if session is not None:
                session.save(str(out) + ".pyisession")
            buckets = attribute(session, gc_cpu[0]) if session is not None else {}
            Path(str(out) + ".buckets.json").write_text(
                json.dumps(
                    {
                        "cpu": cpu,
                        "wall": session.duration if session else 0,
                        "workers": workers[0],
                        **buckets,
                    }
                )
            )
    return 0


def wrap_gc(serve_args: list[str]) -> int:
    """Run the server printing every garbage collection that took over 5 ms."""
    import gc

    from server.net import app

    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        ms = (time.perf_counter() - started[0]) * 1000
        if ms > 5:
            print(f"GC gen{info['generation']} {ms:.1f} ms", flush=True)

    gc.callbacks.append(timed)
    try:
        app.main(serve_args)
    except BaseException:
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--wrap-gc":
        return wrap_gc(argv[argv.index("serve") + 1 :])
    if argv and argv[0] == "--wrap":
        out = Path(argv[1])
        delay = float(argv[2])
        html = Path(argv[4]) if argv[3] == "--html" else None
        rest = argv[5:] if html is not None else argv[4:]
        rest = rest[rest.index("serve") + 1 :]  # "-m server.cli serve ARGS" -> ARGS
        return wrap(out, html, rest, delay)

    from loadtest.server_proc import LocalServer

    p = argparse.ArgumentParser(prog="python -m loadtest.profile_server")
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--duration", type=float, default=20.0)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--pace", choices=("human", "max"), default="max")
    p.add_argument("--round-pause", type=float, default=0.2)
    p.add_argument("--out", type=Path, default=Path("/tmp/croupier-profile.txt"))
    p.add_argument("--html", type=Path)
    p.add_argument("--lines", type=int, default=60, help="lines of the profile to print")
    p.add_argument(
        "--gc",
        action="store_true",
        help="time the server's garbage collections instead of profiling",
    )
    p.add_argument(
        "--warmup",
        type=float,
        default=3.0,
        help="seconds before the latency (and, with --attribute, the profile) counts",
    )
    p.add_argument(
        "--attribute",
        action="store_true",
        help="print the server's CPU per action by bucket (profile the steady part only)",
    )
    p.add_argument(
        "--cpu",
        action="store_true",
        help="with --attribute: CPU-time attribution by py-spy (GIL-holding samples of the "
        "trio thread, its system time and the worker threads from /proc), no pyinstrument",
    )
    args = p.parse_args(argv)
    if args.attribute and args.cpu:
        return attribute_cpu(args)
    if args.gc:
        prefix = [sys.executable, "-m", "loadtest.profile_server", "--wrap-gc"]
    else:
        prefix = [
            sys.executable,
            "-m",
            "loadtest.profile_server",
            "--wrap",
            str(args.out),
            str(args.warmup if args.attribute else 0.0),
            *(["--html", str(args.html)] if args.html else ["--no-html"]),
        ]
    server = LocalServer(args.tables, 9, round_pause=args.round_pause, prefix=prefix)
    server.start()
    buckets_file = Path(str(args.out) + ".buckets.json")
    buckets_file.unlink(missing_ok=True)
    try:
        t0 = time.monotonic()
        if args.attribute:  # the profiler starts once the bots play (after the warm-up)
            for at in (args.warmup, args.duration - 1):  # start, then stop before bots leave
                threading.Timer(at, os.kill, (server.pid, signal.SIGUSR1)).start()
        report = play(server.url, args)
        cpu = server.cpu_seconds()
        wall = time.monotonic() - t0
    finally:
        server.stop(timeout=120)
    print(
        f"load: {report['actions_per_s']} actions/s, {report['hands_per_s']} hands/s, "
        f"{report['frames_from_server_per_s']} frames/s out, p99 "
        f"{report['latency_ms_steady']['p99']} ms; server CPU {cpu:.1f} s in {wall:.1f} s"
        + ("" if args.gc else " (profiled: slower than without the profiler)")
    )
    if args.gc:
        pauses = [line.strip() for line in server.output if line.startswith("GC ")]
        print(f"{len(pauses)} collections over 5 ms; longest:")
        for line in sorted(pauses, key=lambda x: -float(x.split()[2]))[:10]:
            print("  " + line)
        return 0
    if args.attribute and buckets_file.exists():
        print_buckets(json.loads(buckets_file.read_text()), report, args)
    text = args.out.read_text() if args.out.exists() else "(no profile written)"
    print("\n".join(text.splitlines()[: args.lines]))
    print(f"full profile: {args.out}")
    return 0


def print_buckets(data: dict[str, float], report: dict[str, Any], args: Any) -> None:
    """The attribution table: each bucket's share of the busy samples times the server's CPU
    per action over the profiled part. Samples are wall time (pyinstrument's CPU-time timer
    slowed the server too much to keep the load): a server preempted inside a call (a
    loopback write that wakes its client, on a busy machine) swells that call's share."""
    cpu, wall, workers = data.pop("cpu"), data.pop("wall"), data.pop("workers", 0.0)
    gc_cpu = data.pop("gc (collections, timed apart)")
    actions = report["actions_per_s"] * wall  # the profiled part is after the warm-up
    per_action = cpu / max(actions, 1) * 1e6
    main_per_action = (cpu - workers) / max(actions, 1) * 1e6  # what the samples cover
    busy = sum(data.values()) or 1.0
    print(
        f"profiled {wall:.1f} s: server CPU {cpu:.1f} s ({cpu / wall:.0%}), {actions:.0f} "
        f"actions, {per_action:.0f} us CPU per action (profiler included); the collector "
        f"ran {gc_cpu:.2f} s of it ({gc_cpu / max(cpu, 1e-9):.0%}, spread over the buckets)"
    )
    print("| bucket | share of the CPU | us per action |")
    print("|---|---:|---:|")
    rows = {k: v / busy * main_per_action for k, v in data.items()}
    rows["ledger commits (worker thread, measured apart)"] = workers / max(actions, 1) * 1e6
    for k, v in sorted(rows.items(), key=lambda kv: -kv[1]):
        if v / per_action >= 0.005:
            print(f"| {k} | {v / per_action:.1%} | {v:.0f} |")


def play(url: str, args: Any) -> dict[str, Any]:
    """The load test the profile watches: ``args.tables`` nine-seat tables at ``url``."""
    import trio

    from loadtest.runner import RunSpec, run

    spec = RunSpec(
        url=url,
        tables=args.tables,
        duration=args.duration,
        procs=args.procs,
        pace=args.pace,
        warmup=args.warmup,
    )
    return trio.run(run, spec)


def _thread_cpu(pid: int) -> tuple[float, float, float]:
    """CPU seconds of process ``pid`` from /proc: its main thread's user and system time,
    and its other threads' (the ledger's SQLite commits run in a worker thread)."""
    tick = os.sysconf("SC_CLK_TCK")
    user = system = workers = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended
        u, k = int(fields[11]) / tick, int(fields[12]) / tick
        if int(tid) == pid:
            user, system = u, k
        else:
            workers += u + k
    return user, system, workers


def spy_buckets(raw: str) -> dict[str, int]:
    """py-spy's folded stacks (``frame;frame;... count``, root first, each frame
    ``func (path:line)``) of the trio thread, counted by :func:`bucket_of`."""
    out: dict[str, int] = {}
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        if "threading.py" in stack.split(";", 1)[0]:
            continue  # a worker thread (the ledger's commits): measured apart from /proc
        frames = []
        for frame in stack.split(";"):
            func, _, where = frame.partition(" (")
            path = where.rsplit(":", 1)[0]
            frames.append(f"{func}\x00{path}\x00")
        bucket = bucket_of(frames)
        out[bucket] = out.get(bucket, 0) + int(count)
    out.pop("idle", None)
    return out


def attribute_cpu(args: Any) -> int:
    """The server's CPU per action by bucket, in CPU time: py-spy samples the trio thread
    while it holds the GIL (Python running: no sample lands in a wait or a system call),
    and its samples share out the thread's user time; the thread's system time (socket
    writes and reads, epoll: the kernel's part, loopback TCP included) and the worker
    threads' CPU (the ledger's commits) come from /proc. The server runs unprofiled (py-spy
    reads it from outside), over the steady part of the run only."""
    import subprocess

    from loadtest.server_proc import LocalServer

    spy = Path(sys.executable).with_name("py-spy")
    if not spy.exists():
        print("py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return 2
    length = max(1.0, args.duration - 1 - args.warmup)
    raw = Path(str(args.out) + ".spy")
    window: dict[str, Any] = {}
    with LocalServer(args.tables, 9, round_pause=args.round_pause) as server:

        def sample() -> None:
            time.sleep(args.warmup)
            before, t0 = _thread_cpu(server.pid), time.monotonic()
            window["t0"] = t0
            record = ["record", "-p", str(server.pid), "--gil", "-r", "250"]
            subprocess.run(
                [str(spy), *record, "-f", "raw", "-d", str(round(length)), "-o", str(raw)],
                capture_output=True,
                check=False,
            )
            after = _thread_cpu(server.pid)
            window["wall"] = time.monotonic() - t0
            window["cpu"] = [b - a for a, b in zip(before, after, strict=True)]

        sampler = threading.Thread(target=sample)
        start = time.monotonic()
        sampler.start()
        report = play(server.url, args)
        sampler.join()
    if "cpu" not in window or not raw.exists():
        print("the profile did not run", file=sys.stderr)
        return 1
    lo = window["t0"] - start
    hi = lo + window["wall"]
    actions = sum(p["count"] for p in report["timeline"] if lo <= p["t"] < hi) or 1
    user, system, workers = window["cpu"]
    samples = spy_buckets(raw.read_text())
    busy = sum(samples.values()) or 1
    total = user + system + workers
    print(
        f"profiled {window['wall']:.1f} s of steady play at {args.tables} tables: "
        f"{actions / window['wall']:.1f} actions/s, server CPU {total / window['wall']:.0%} "
        f"of a core, {total / actions * 1e6:.0f} us per action (trio thread: user "
        f"{user / actions * 1e6:.0f}, system {system / actions * 1e6:.0f}; worker threads "
        f"{workers / actions * 1e6:.0f}); {busy} samples; p99 "
        f"{report['latency_ms_steady']['p99']} ms"
    )
    rows = {k: v / busy * user for k, v in samples.items()}
    rows["kernel: socket writes and reads, epoll (trio thread's system time)"] = system
    rows["ledger commits (worker thread: SQLite, fsync)"] = workers
    print("| bucket | share of the CPU | us per action |")
    print("|---|---:|---:|")
    for k, v in sorted(rows.items(), key=lambda kv: -kv[1]):
        if v / total >= 0.005:
            print(f"| {k} | {v / total:.1%} | {v / actions * 1e6:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
