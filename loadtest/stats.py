"""Load-test figures one worker collects, in a form that merges across processes.

Latencies go into a log-bucket histogram (buckets 2 % wide), so a worker ships a few hundred
counters instead of every sample and the parent merges workers by adding counts; percentiles
are read back within 2 %. The maximum is kept exactly. A per-second timeline (count, p50,
p99, max per second of the run) feeds the HTML report's latency-over-time plot.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: Buckets per natural-log unit: bucket ``b`` holds latencies around ``exp(b / SCALE)`` ms.
SCALE = 50.0


def bucket(ms: float) -> int:
    """The histogram bucket of a latency in milliseconds (sub-10-microsecond values clamp)."""
    return round(math.log(max(ms, 0.01)) * SCALE)


def bucket_ms(b: int) -> float:
    return math.exp(b / SCALE)


class Histogram:
    """Counts per log bucket, plus the exact maximum; mergeable by addition."""

    __slots__ = ("counts", "max", "n")

    def __init__(self) -> None:
        self.counts: Counter[int] = Counter()
        self.n = 0
        self.max = 0.0

    def add(self, ms: float) -> None:
        self.counts[bucket(ms)] += 1
        self.n += 1
        if ms > self.max:
            self.max = ms

    def merge(self, other: Histogram) -> None:
        self.counts.update(other.counts)
        self.n += other.n
        self.max = max(self.max, other.max)

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile (0-100) in ms; 0.0 when empty."""
        if not self.n:
            return 0.0
        rank = max(1, math.ceil(self.n * p / 100.0))
        seen = 0
        for b in sorted(self.counts):
            seen += self.counts[b]
            if seen >= rank:
                return min(bucket_ms(b), self.max)
        return self.max

    def summary(self) -> dict[str, float]:
        return {
            "p50": round(self.percentile(50), 2),
            "p95": round(self.percentile(95), 2),
            "p99": round(self.percentile(99), 2),
            "max": round(self.max, 2),
            "count": self.n,
        }

    def to_dict(self) -> dict[str, Any]:
        return {"counts": {str(k): v for k, v in self.counts.items()}, "n": self.n, "max": self.max}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Histogram:
        h = cls()
        h.counts = Counter({int(k): int(v) for k, v in data["counts"].items()})
        h.n, h.max = int(data["n"]), float(data["max"])
        return h


#: Counters every worker reports (all integers).
COUNTERS = (
    "bots",
    "connected",
    "hands",
    "voided",
    "actions",
    "timed_out",
    "frames_in",
    "messages_in",
    "frames_out",
    "bytes_in",
    "bytes_out",
    "buy_ins",
    "chaos_disconnects",
    "chaos_slow_reads",
    "reconnects",
    "resumed",
    "server_closes",
    "unexpected_closes",
    "vacated",
    "gap_frames",
)


@dataclass
class Stats:
    """Everything one worker (or the merged run) measured."""

    counters: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)  # error.code -> count
    closes: Counter[str] = field(default_factory=Counter)  # close code seen by bots
    vacated_reasons: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)  # frames from the server by type
    latency: Histogram = field(default_factory=Histogram)
    timeline: dict[int, Histogram] = field(default_factory=dict)  # second -> latencies
    by_game: dict[str, Histogram] = field(default_factory=dict)  # game id -> latencies
    balances_start: int = 0  # sum of the bots' wallets when they said hello (cents)
    balances_end: int = 0  # sum of the bots' wallets after leaving (cents)
    bots_settled: int = 0  # bots whose final balance is known
    #: the second by which every bot had its first ``welcome`` (the connection storm's end;
    #: 0: not reached); the merged run takes the latest worker's
    storm_s: int = 0
    problems: list[str] = field(default_factory=list)  # first few unexpected happenings

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def latency_sample(self, second: int, ms: float, game: str = "") -> None:
        self.latency.add(ms)
        if game:
            per = self.by_game.get(game)
            if per is None:
                per = self.by_game[game] = Histogram()
            per.add(ms)
        hist = self.timeline.get(second)
        if hist is None:
            hist = self.timeline[second] = Histogram()
        hist.add(ms)

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)

    def merge(self, other: Stats) -> None:
        self.counters.update(other.counters)
        self.errors.update(other.errors)
        self.closes.update(other.closes)
        self.vacated_reasons.update(other.vacated_reasons)
        self.kinds.update(other.kinds)
        self.latency.merge(other.latency)
        for sec, hist in other.timeline.items():
            mine = self.timeline.get(sec)
            if mine is None:
                mine = self.timeline[sec] = Histogram()
            mine.merge(hist)
        for game, hist in other.by_game.items():
            per = self.by_game.get(game)
            if per is None:
                per = self.by_game[game] = Histogram()
            per.merge(hist)
        self.balances_start += other.balances_start
        self.balances_end += other.balances_end
        self.bots_settled += other.bots_settled
        self.storm_s = max(self.storm_s, other.storm_s)
        for p in other.problems:
            self.problem(p)

    def to_dict(self) -> dict[str, Any]:
        return {
            "counters": dict(self.counters),
            "errors": dict(self.errors),
            "closes": dict(self.closes),
            "vacated_reasons": dict(self.vacated_reasons),
            "kinds": dict(self.kinds),
            "latency": self.latency.to_dict(),
            "timeline": {str(k): v.to_dict() for k, v in self.timeline.items()},
            "by_game": {k: v.to_dict() for k, v in self.by_game.items()},
            "balances_start": self.balances_start,
            "balances_end": self.balances_end,
            "bots_settled": self.bots_settled,
            "storm_s": self.storm_s,
            "problems": self.problems,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Stats:
        s = cls()
        s.counters = Counter(data["counters"])
        s.errors = Counter(data["errors"])
        s.closes = Counter(data["closes"])
        s.vacated_reasons = Counter(data["vacated_reasons"])
        s.kinds = Counter(data.get("kinds", {}))
        s.latency = Histogram.from_dict(data["latency"])
        s.timeline = {int(k): Histogram.from_dict(v) for k, v in data["timeline"].items()}
        s.by_game = {k: Histogram.from_dict(v) for k, v in data.get("by_game", {}).items()}
        s.balances_start = int(data["balances_start"])
        s.balances_end = int(data["balances_end"])
        s.bots_settled = int(data["bots_settled"])
        s.storm_s = int(data.get("storm_s", 0))
        s.problems = list(data["problems"])
        return s
