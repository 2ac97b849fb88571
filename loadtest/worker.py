"""One load-test worker process: a trio loop running the bots of some tables.

The parent (``loadtest/runner.py``) starts ``python -m loadtest.worker`` with a JSON spec on
stdin and reads JSON lines from its stdout: ``{"progress": ...}`` about once a second while
the bots play, then one ``{"final": ...}`` with the worker's :class:`~loadtest.stats.Stats`.
Bots of one table always live in the same worker, so per-table figures (hands, voided
rounds) need no cross-process de-duplication.
"""

from __future__ import annotations

import gc
import json
import random
import signal
import sys
import time
from typing import Any

import trio

from loadtest.banked_bot import BankedBot
from loadtest.bot import Bot, RunContext, TablePlan
from loadtest.stats import Stats


def build_bots(ctx: RunContext, spec: dict[str, Any]) -> list[Bot]:
    bots = []
    index = spec.get("bot_offset", 0)
    for t in spec["tables"]:
        plan = TablePlan(
            t["id"],
            t["seats"],
            t["min_buy_in"],
            t.get("max_buy_in"),
            t.get("game", ""),
            bool(t.get("banked")),
            t.get("url"),
            bool(t.get("any_seat")),
            t.get("bank_box"),
        )
        kind = BankedBot if plan.banked else Bot
        for seat in plan.boxes():
            bots.append(kind(ctx, index, plan, seat))
            index += 1
    return bots


async def run_worker(spec: dict[str, Any], emit: Any) -> tuple[Stats, float]:
    """Run the spec's bots until the duration ends (or every table played its games)."""
    stats = Stats()
    ctx = RunContext(
        url=spec["url"],
        pace=spec["pace"],
        chaos=spec["chaos"],
        stats=stats,
        rng=random.Random(spec.get("seed")),
        t0=trio.current_time(),
        games=spec.get("games"),
    )
    bots = build_bots(ctx, spec)
    duration = float(spec["duration"])
    settle_time = float(spec.get("settle_time", 30.0))
    played: list[float] = []

    async def all_tables_done() -> None:
        for t in spec["tables"]:
            await ctx.done_event(t["id"]).wait()
        ctx.stop.set()

    async def freeze_after_connecting() -> None:
        while stats.counters["connected"] < len(bots) and not ctx.stop.is_set():
            await trio.sleep(0.5)
        gc.collect()
        gc.freeze()

    async def storm_over() -> None:
        while stats.counters["welcomed"] < len(bots) and not ctx.stop.is_set():
            await trio.sleep(0.25)
        if not ctx.stop.is_set():
            stats.storm_s = ctx.second() + 1

    async def progress() -> None:
        while True:
            await trio.sleep(1.0)
            emit({"progress": stats.to_dict()})

    async def interrupted() -> None:
        """Ctrl-C (SIGINT, from the terminal or the runner) or SIGTERM stops the run as its
        end does: the bots leave their seats (they were held for the grace period when the
        worker died at once; issue 27, point 7). Later signals are ignored: the runner kills
        a worker that does not end."""
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                ctx.stop.set()

    async with trio.open_nursery() as outer:
        outer.start_soon(interrupted)
        outer.start_soon(progress)
        outer.start_soon(freeze_after_connecting)
        outer.start_soon(storm_over)
        with trio.move_on_after(duration + settle_time):
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                if ctx.games is not None:
                    nursery.start_soon(all_tables_done)

                async def deadline() -> None:
                    with trio.move_on_after(duration):
                        await ctx.stop.wait()
                    ctx.stop.set()
                    played.append(trio.current_time() - ctx.t0)

                nursery.start_soon(deadline)

                # the nursery ends when every bot settled; the helpers are cancelled then
                async def reaper() -> None:
                    while not all(b.settled or b.retired for b in bots):
                        await trio.sleep(0.2)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(reaper)
        unsettled = [b for b in bots if not (b.settled or b.retired)]
        if unsettled:
            stats.problem(
                f"{len(unsettled)} bots did not settle within {settle_time:.0f} s after the stop"
            )
        stats.counters["unsettled"] = len(unsettled)
        outer.cancel_scope.cancel()
    return stats, played[0] if played else trio.current_time() - ctx.t0


class GcWatch:
    """Time this process's garbage collections: a long one stalls every bot of the worker
    and would show up as server latency."""

    def __init__(self) -> None:
        self.started = 0.0
        self.worst_ms = 0.0
        self.over_50ms = 0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        ms = (time.perf_counter() - self.started) * 1000
        self.worst_ms = max(self.worst_ms, ms)
        if ms > 50:
            self.over_50ms += 1


def main() -> int:
    spec = json.loads(sys.stdin.read())
    watch = GcWatch()
    gc.callbacks.append(watch)
    # The bots' long-lived objects (connections, tasks) are made at the start: a higher
    # first threshold and freezing them after the connection storm keeps full collections
    # of this measuring process short (see GcWatch figures in the report).
    gc.set_threshold(20_000, 20, 20)

    def emit(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    stats, played = trio.run(run_worker, spec, emit)
    stats.counters["client_gc_worst_ms"] = round(watch.worst_ms)
    stats.counters["client_gc_over_50ms"] = watch.over_50ms
    emit({"final": stats.to_dict(), "played_s": played})
    return 0


if __name__ == "__main__":
    sys.exit(main())
