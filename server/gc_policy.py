"""Garbage collection for a long-running table server: keep full collections off the hot path.

CPython's cycle collector stops the whole process while it scans a generation. A server
holding thousands of connections and tables has a large old generation, and a full (gen 2)
collection of it took 63-327 ms in load tests: every table stalls that long, and one such
pause in a measurement window breaks a p99 latency target of 100 ms (docs/perf.md).

The policy (one process, the ``croupier serve`` command):

* **Start-up**: collect once, then :func:`gc.freeze` everything that exists (the lobby,
  tables, imported modules): frozen objects are never scanned again.
* **Higher thresholds** (``20_000, 20, 20``): young collections run 28x less often; their
  cost stays small because the young generations hold only recent objects.
* **Every ``freeze_every`` s** (5): freeze again, so that objects created since (connections
  of a new crowd of players, their seats) move out of the scanned generations before a full
  collection would scan them. ``gc.freeze`` only splices lists: it costs microseconds.
  Objects that die later are still freed by reference counting; only *cyclic* garbage among
  frozen objects waits for the next full collection below.
* **Every ``full_every`` s**: ``unfreeze`` + a full collection + ``freeze``. Frozen objects
  are never collected, so cyclic garbage among them (a closed connection frozen while it was
  open) would otherwise leak; this reclaims it at the price of one full pause per period.
"""

from __future__ import annotations

import gc
import logging
import time

import trio

log = logging.getLogger("croupier.gc")

THRESHOLDS = (20_000, 20, 20)


def tune_at_startup(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Collect what start-up left behind, freeze the rest and raise the thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


def watch_pauses(threshold_ms: float = 50.0) -> None:
    """Log every collection that stops the process longer than ``threshold_ms``, with the CPU
    time it used (less than the wall time when the process was preempted meanwhile)."""
    started = [0.0, 0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0], started[1] = time.perf_counter(), time.process_time()
            return
        ms = (time.perf_counter() - started[0]) * 1000
        if ms > threshold_ms:
            cpu_ms = (time.process_time() - started[1]) * 1000
            log.warning(
                "gc: generation %d collection took %.0f ms (%.0f ms CPU, %d objects collected)",
                info["generation"],
                ms,
                cpu_ms,
                info.get("collected", 0),
            )

    gc.callbacks.append(timed)


async def keep(freeze_every: float = 5.0, full_every: float = 900.0) -> None:
    """Run forever: freeze new long-lived objects, and now and then reclaim frozen garbage."""
    last_full = trio.current_time()
    while True:
        await trio.sleep(freeze_every)
        if trio.current_time() - last_full >= full_every:
            started = time.perf_counter()
            gc.unfreeze()
            freed = gc.collect()
            gc.freeze()
            last_full = trio.current_time()
            log.info(
                "full collection: %d objects freed in %.0f ms",
                freed,
                (time.perf_counter() - started) * 1000,
            )
        else:
            gc.freeze()
