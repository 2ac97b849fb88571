"""Simulated sheets: the engines played with a seeded source, in parallel processes.

Theory of operation: a :class:`Runner` plays ``n`` rounds of one game with a seeded
:class:`~server.par.engine.FastRandom` and books every settled wager in a
:class:`~server.par.model.Tally`. :func:`simulate` cuts the rounds into chunks (a fixed
number per run, each with its own seed derived from the sheet's seed), plays them in a pool
of ``procs`` processes and adds the tallies up in chunk order, so a sheet depends on its
seed and round count only, never on the number of processes. The 95% interval is computed
per wager from the per-round sums (:mod:`server.par.model`).
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from server.par.controls import ControlSums
from server.par.engine import FastRandom
from server.par.model import Tally

#: chunks a simulation is cut into (independent of the number of processes)
CHUNKS = 16


class Runner(ABC):
    """Plays rounds of one game under a stated strategy (picklable: sent to workers)."""

    game: str
    #: boxes played per round
    boxes: int = 1

    @abstractmethod
    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        """Play ``rounds`` rounds, booking every wager of every box in ``tally``."""

    def prepare(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Precompute what the strategy needs (called once, before the workers start)."""

    def control_means(self) -> list[float]:
        """The exact means of the controls :meth:`play` books with each round (none by
        default: a plain simulation), known once :meth:`prepare` has run."""
        return []

    #: what the controls are, for the sheet's notes
    controls_doc: str | None = None

    def control_fixed(self) -> dict[str, dict[int, float]]:
        """Per wager, the controls whose coefficient is fixed rather than fitted
        (:func:`server.par.controls.shifted`); none by default."""
        return {}


def _work(job: tuple[Runner, int, int]) -> Tally:
    runner, rounds, seed = job
    p = len(runner.control_means())
    tally = Tally(controls=ControlSums(p) if p else None)
    runner.play(rounds, FastRandom(seed), tally)
    return tally


@dataclass
class Simulation:
    tally: Tally
    #: wall time, and the processor time the workers used (a loaded machine stretches the
    #: first, not the second)
    seconds: float
    procs: int
    cpu: float = 0.0
    #: the controls' sums in two folds (even and odd chunks) and their exact means
    folds: list[ControlSums] = field(default_factory=list)
    means: list[float] = field(default_factory=list)
    #: per wager, the controls of fixed coefficient (:meth:`Runner.control_fixed`)
    fixed: dict[str, dict[int, float]] = field(default_factory=dict)


def chunk_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def simulate(runner: Runner, rounds: int, seed: int, procs: int | None = None) -> Simulation:
    """Play ``rounds`` rounds in ``procs`` processes (default: every core)."""
    procs = max(1, procs or os.cpu_count() or 1)
    runner.prepare()
    chunks = max(1, min(CHUNKS, rounds))
    sizes = [rounds // chunks + (i < rounds % chunks) for i in range(chunks)]
    jobs = [(runner, n, chunk_seed(seed, i)) for i, n in enumerate(sizes) if n]
    t0 = time.perf_counter()
    c0 = time.process_time()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if procs == 1 or len(jobs) == 1:
        parts = [_work(j) for j in jobs]
    else:
        ctx = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        )
        with ctx.Pool(min(procs, len(jobs))) as pool:
            parts = pool.map(_work, jobs, chunksize=1)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - c0 + (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    total = Tally()
    means = runner.control_means()
    folds = [ControlSums(len(means)), ControlSums(len(means))] if means else []
    for i, part in enumerate(parts):
        total.add(part)
        if folds and part.controls is not None:
            folds[i % 2].merge(part.controls)
    return Simulation(
        total, time.perf_counter() - t0, procs, cpu, folds, means, runner.control_fixed()
    )
