"""Profile the server's hot path under load (pyinstrument, sampling every millisecond).

``python -m loadtest.profile_server --tables 100 --duration 20`` starts ``croupier serve``
under pyinstrument (async mode off: the plain CPU stacks of the one trio thread), plays a
max-pace load test against it from worker processes, stops the server, and prints the
profile (``--out FILE`` keeps the full text report; ``--html FILE`` pyinstrument's page).

``--gc`` times the server's garbage collections instead (no profiler): every collection
over 5 ms is listed with its generation, which shows the full-collection pauses.

Internally the same module is the server's wrapper: ``python -m loadtest.profile_server
--wrap OUT -m server.cli serve ARGS`` runs ``croupier serve ARGS`` inside the profiler and
writes the report when the server stops (SIGINT).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def wrap(out: Path, html: Path | None, serve_args: list[str]) -> int:
    from pyinstrument import Profiler

    from server import app

    profiler = Profiler(interval=0.001, async_mode="disabled")
    profiler.start()
    try:
        app.main(serve_args)
    except BaseException:  # SIGINT ends the server; the profile is what we want
        pass
    finally:
        profiler.stop()
        out.write_text(profiler.output_text(unicode=False, color=False, show_all=False))
        if html is not None:
            html.write_text(profiler.output_html())
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
        html = Path(argv[3]) if argv[2] == "--html" else None
        rest = argv[4:] if html is not None else argv[3:]
        rest = rest[rest.index("serve") + 1 :]  # "-m server.cli serve ARGS" -> ARGS
        return wrap(out, html, rest)

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
            *(["--html", str(args.html)] if args.html else ["--no-html"]),
        ]
    server = LocalServer(args.tables, 9, round_pause=args.round_pause, prefix=prefix)
    server.start()
    try:
        t0 = time.monotonic()
        report = trio.run(
            run,
            RunSpec(
                url=server.url,
                tables=args.tables,
                duration=args.duration,
                procs=args.procs,
                pace=args.pace,
                warmup=3,
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
    text = args.out.read_text() if args.out.exists() else "(no profile written)"
    print("\n".join(text.splitlines()[: args.lines]))
    print(f"full profile: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
