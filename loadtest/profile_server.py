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

#: (bucket, path part, function names or None for any): a sample goes to the bucket of the
#: innermost frame of its stack that matches; earlier rows win for the same frame.
BUCKETS: list[tuple[str, str, frozenset[str] | None]] = [
    ("gc policy", "server/gc_policy.py", None),
    ("keepalive", "websockets/", frozenset({"keepalive", "ping", "pong", "acknowledge_pings"})),
    ("encoding", "protocol/codec.py", frozenset({"encode"})),
    ("encoding", "<built-in>", frozenset({"encode"})),
    ("frames out", "websockets/", frozenset({"send", "send_context", "send_data", "send_frame"})),
    ("frames in", "websockets/", None),
    ("reader, decode, router", "protocol/codec.py", None),
    ("reader, decode, router", "server/connections.py", frozenset({"_reader", "read", "on_data"})),
    ("reader, decode, router", "server/router.py", None),
    ("writer loop", "server/connections.py", None),
    ("ledger", "server/store/", None),
    ("ledger", "server/tables/books.py", None),
    ("engine", "server/games/", None),
    ("views", "server/tables/views.py", None),
    ("views", "server/tables/", frozenset({"view_for", "snapshot", "sees", "info"})),
    ("outbound queues (batch, flush)", "server/tables/connection.py", None),
    (
        "timers",
        "server/tables/",
        frozenset({"on_time", "next_deadline", "on_round_time", "round_deadline"}),
    ),
    ("table logic", "server/tables/", None),
    ("other server code", "server/", None),
]


def bucket_of(stack: list[str]) -> str:
    """The bucket of one profiler sample (a pyinstrument call stack, root first)."""
    leaf = stack[-1].split("\x00", 1)[0]
    if leaf in ("poll", "epoll.poll") or leaf.endswith(".poll"):
        return "idle"
    for frame in reversed(stack):
        func, _, rest = frame.partition("\x00")
        path = rest.partition("\x00")[0]
        for bucket, part, funcs in BUCKETS:
            if part in path and (funcs is None or func in funcs):
                return bucket
    if any("trio/" in f for f in stack):
        return "tasks and trio scheduling"
    return "other"


def attribute(session: Any, gc_cpu: float) -> dict[str, float]:
    """CPU seconds per bucket (idle left out; the collector's time measured apart)."""
    out: dict[str, float] = {}
    for stack, seconds in session.frame_records:
        b = bucket_of(stack)
        out[b] = out.get(b, 0.0) + seconds
    out.pop("idle", None)
    out["gc (collections, timed apart)"] = gc_cpu
    return out


def wrap(out: Path, html: Path | None, serve_args: list[str], delay: float = 0.0) -> int:
    import gc
    import json
    import threading

    from pyinstrument import Profiler

    from server import app

    profiler = Profiler(interval=0.001, async_mode="disabled")
    gc_cpu = [0.0, 0.0]  # total, started
    profiling = threading.Event()

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_cpu[1] = time.process_time()
        elif profiling.is_set():
            gc_cpu[0] += time.process_time() - gc_cpu[1]

    gc.callbacks.append(timed)
    cpu0 = [0.0]

    def start() -> None:  # on the main thread (pyinstrument profiles the calling thread)
        cpu0[0] = time.process_time()
        profiler.start()
        profiling.set()

    if delay > 0:
        import signal

        signal.signal(signal.SIGUSR1, lambda *_: start())
    else:
        start()
    try:
        app.main(serve_args)
    except BaseException:  # SIGINT ends the server; the profile is what we want
        pass
    finally:
        if profiling.is_set():
            profiler.stop()
            cpu = time.process_time() - cpu0[0]
            out.write_text(profiler.output_text(unicode=False, color=False, show_all=False))
            if html is not None:
                html.write_text(profiler.output_html())
            session = profiler.last_session
            buckets = attribute(session, gc_cpu[0]) if session is not None else {}
            Path(str(out) + ".buckets.json").write_text(
                json.dumps({"cpu": cpu, "wall": session.duration if session else 0, **buckets})
            )
    return 0


def wrap_gc(serve_args: list[str]) -> int:
    """Run the server printing every garbage collection that took over 5 ms."""
    import gc

    from server import app

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

    import trio

    from loadtest.runner import RunSpec, run
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
    args = p.parse_args(argv)
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
            threading.Timer(args.warmup, os.kill, (server.pid, signal.SIGUSR1)).start()
        report = trio.run(
            run,
            RunSpec(
                url=server.url,
                tables=args.tables,
                duration=args.duration,
                procs=args.procs,
                pace=args.pace,
                warmup=args.warmup,
            ),
        )
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
    """The attribution table: CPU per action by bucket (actions over the profiled part)."""
    cpu, wall = data.pop("cpu"), data.pop("wall")
    actions = report["actions_per_s"] * wall  # the profiled part is after the warm-up
    sampled = sum(v for k, v in data.items() if not k.startswith("gc "))
    print(
        f"profiled {wall:.1f} s: server CPU {cpu:.1f} s ({cpu / wall:.0%}), {actions:.0f} "
        f"actions, {cpu / max(actions, 1) * 1e6:.0f} us CPU per action (profiler included)"
    )
    print("| bucket | CPU s | share | us per action |")
    print("|---|---:|---:|---:|")
    for k, v in sorted(data.items(), key=lambda kv: -kv[1]):
        share = v / sampled if not k.startswith("gc ") else v / cpu
        print(f"| {k} | {v:.2f} | {share:.0%} | {v / max(actions, 1) * 1e6:.0f} |")


if __name__ == "__main__":
    sys.exit(main())
