"""A/B experiments: run ``croupier serve`` with a proposed change applied from outside.

These measure what a server change would buy before anyone makes it in ``server/``. The
variant is applied by this wrapper at start-up: a monkeypatch or a runtime setting, never an
edit of the server's files. Each A/B alternates baseline and variant runs of the same load
(``--reps`` times each) and prints throughput, frames per action, server CPU per action,
latency and the server's garbage-collection pauses over 50 ms::

    python -m loadtest.experiments --variant gc-default --tables 200 --pace human

Variants:

* ``gc-default``: the server without its GC policy (``server/gc_policy.py``: freeze after
  start-up and every 30 s, thresholds 20000/20/20), i.e. CPython's default collector, to
  measure what the policy buys.
* ``memory-ledger``: the ledger on the in-memory test double instead of SQLite in the data
  directory, to measure what durability costs per action.
* ``no-books-check``: tables skip the books check after every step, to measure it.
* ``ledger-window-20ms``: the ledger's group-commit window at 20 ms instead of 5 ms (fewer
  commits, each movement durable up to 15 ms later).
* ``witness-every-1s``: the witness file written at most once a second instead of every
  0.2 s while commits go on.

Earlier variants were adopted by the server and removed from here: ``gc-tuned`` (now the
server's GC policy) and ``no-turn-to-act`` (the table no longer sends ``turn_to_act``).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from typing import Any

VARIANTS = (
    "baseline",
    "gc-default",
    "memory-ledger",
    "no-books-check",
    "ledger-window-20ms",
    "witness-every-1s",
)


def _time_collections() -> None:
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        ms = (time.perf_counter() - started[0]) * 1000
        if ms > 50:
            print(f"GC gen{info['generation']} {ms:.0f} ms", flush=True)

    gc.callbacks.append(timed)


def serve_variant(variant: str, serve_args: list[str]) -> int:
    """Run ``croupier serve`` with ``variant`` applied (the wrapper side)."""
    from server.net import app

    _time_collections()
    if variant == "gc-default":
        from server import gc_policy

        async def idle(freeze_every: float = 5.0, full_every: float = 900.0) -> None:
            return None

        gc_policy.tune_at_startup = lambda *a, **k: None
        gc_policy.keep = idle
    if variant == "memory-ledger":
        from server.store.memory import MemoryStore

        app.SqliteStore = lambda directory: MemoryStore()  # type: ignore[assignment,misc]  # A/B
    if variant == "ledger-window-20ms":
        from server.store import ledger

        ledger.GROUP_WINDOW = 0.02
    if variant == "witness-every-1s":
        from server.store import ledger

        ledger.WITNESS_EVERY = 1.0
    if variant == "no-books-check":
        from server.tables.books import Books

        Books.check = lambda self, expected=None: None  # type: ignore[method-assign]  # A/B
    try:
        app.main(serve_args)
    except BaseException:  # SIGINT ends the server
        pass
    return 0


def one_run(variant: str, args: argparse.Namespace) -> dict[str, Any]:
    import trio

    from loadtest.runner import RunSpec, run
    from loadtest.server_proc import LocalServer

    prefix = [sys.executable, "-m", "loadtest.experiments", "--wrap", variant]
    server = LocalServer(args.tables, 9, round_pause=args.round_pause, prefix=prefix)
    server.start()
    try:
        c0 = server.cpu_seconds()
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
        cpu = server.cpu_seconds() - c0
    finally:
        server.stop()
    pauses = [line.split()[2] for line in server.output if line.startswith("GC ")]
    steady = report["latency_ms_steady"]
    actions = max(report["actions"], 1)
    print(
        f"{variant:15s} {report['actions_per_s']:7.1f} actions/s, "
        f"{report['frames_from_server'] / actions:5.1f} frames/action, server CPU "
        f"{cpu / actions * 1e6:6.0f} us/action, latency p50/p99/max {steady['p50']}/"
        f"{steady['p99']}/{steady['max']} ms, GC pauses > 50 ms: "
        f"{', '.join(pauses) or 'none'}, ok={report['ok']}",
        flush=True,
    )
    return report


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--wrap":
        return serve_variant(argv[1], argv[argv.index("serve") + 1 :])
    p = argparse.ArgumentParser(prog="python -m loadtest.experiments")
    p.add_argument("--variant", choices=VARIANTS[1:], required=True)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--pace", choices=("human", "max"), default="max")
    p.add_argument("--duration", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument(
        "--round-pause",
        type=float,
        default=None,
        help="default: 0.2 s at max pace, 2 s at human pace",
    )
    p.add_argument("--reps", type=int, default=2)
    args = p.parse_args(argv)
    if args.round_pause is None:
        args.round_pause = 0.2 if args.pace == "max" else 2.0
    for _ in range(args.reps):
        for variant in ("baseline", args.variant):
            one_run(variant, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
