"""The PAR sheet: per wager, each result's probability and payout, RTP, house edge, hit
frequency and volatility; built from an exact distribution or from a simulation's tally.

The JSON form is a contract other tools read (README, ``docs/par/README.md``)::

    {"game": ID, "options": {...}, "method": "exact" | "simulation", "rounds": N | null,
     "strategy": "..." | null,
     "wagers": {NAME: {"rtp": F, "house_edge": F, "ci95": HALF_WIDTH, "hit_frequency": F,
                       "stdev": PER_UNIT_STAKE,
                       "outcomes": [{"result": "...", "probability": P, "pays": NET}, ...]}}}

Optional keys (added only where they mean something, never renamed): per sheet ``seed``,
``boxes``, ``per_round``, ``strategy_table``, ``jackpot``, ``notes``, ``commission`` (p2p
poker, whose ``wagers`` is empty); per wager ``method`` (when a sheet mixes exact and
simulated wagers), ``placements``, ``basis`` and ``note``.

Definitions (per unit staked on the wager alone): a result's ``pays`` is the player's net
(``+35`` for a straight-up win, ``-1`` for a loss, ``0`` for a stand-off); ``rtp`` is the
expected return with the stake returned counted in, ``1 + E[net]``; ``house_edge`` is
``-E[net]``; ``hit_frequency`` is P(net > 0); ``stdev`` the standard deviation of the net.
Exact sheets compute with :class:`fractions.Fraction` and round only in the report; money in
the engines is integer cents.

Simulated figures: a wager's RTP is the ratio estimator ``(sum stake + sum net) / sum stake``
over every placement, and ``ci95`` its 95% half-width, ``1.96 * sqrt(sum_r (net_r - m *
stake_r)^2) / sum stake`` with ``net_r``/``stake_r`` the wager's totals in round ``r`` (so
boxes of one round, which share a dealer, count as one sample: the interval stays honest).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from server.par.controls import Controls, ControlSums, Estimate

Z95 = 1.959963984540054

#: An exact distribution of one wager: (result, net per unit staked) -> probability.
Distribution = dict[tuple[str, Fraction], Fraction]


@dataclass(frozen=True)
class Outcome:
    """One result of a wager: its probability and its net per unit staked."""

    result: str
    probability: float
    pays: float

    def to_json(self) -> dict[str, Any]:
        return {"result": self.result, "probability": self.probability, "pays": self.pays}


@dataclass
class WagerSheet:
    """One wager's line of the sheet (see the module docstring)."""

    rtp: float
    house_edge: float
    ci95: float
    hit_frequency: float
    stdev: float
    outcomes: list[Outcome]
    method: str = "exact"
    #: the exact RTP, for exact wagers (tests compare it with closed forms)
    exact_rtp: Fraction | None = None
    placements: int | None = None
    #: what "per unit" means when it is not the wager's own stake (per_round figures)
    basis: str | None = None
    note: str | None = None

    def to_json(self, mixed: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rtp": self.rtp,
            "house_edge": self.house_edge,
            "ci95": self.ci95,
            "hit_frequency": self.hit_frequency,
            "stdev": self.stdev,
            "outcomes": [o.to_json() for o in self.outcomes],
        }
        if mixed:
            out["method"] = self.method
        if self.placements is not None:
            out["placements"] = self.placements
        if self.basis is not None:
            out["basis"] = self.basis
        if self.note:
            out["note"] = self.note
        return out


def from_distribution(dist: Mapping[tuple[str, Fraction], Fraction], note: str = "") -> WagerSheet:
    """An exact wager line from its distribution (probabilities must sum to 1)."""
    total = sum(dist.values(), Fraction(0))
    if total != 1:
        raise ValueError(f"probabilities sum to {total}, not 1")
    mean = sum((p * pays for (_, pays), p in dist.items()), Fraction(0))
    square = sum((p * pays * pays for (_, pays), p in dist.items()), Fraction(0))
    hit = sum((p for (_, pays), p in dist.items() if pays > 0), Fraction(0))
    rows = sorted(dist.items(), key=lambda kv: (-kv[0][1], kv[0][0]))
    return WagerSheet(
        rtp=float(1 + mean),
        house_edge=float(-mean),
        ci95=0.0,
        hit_frequency=float(hit),
        stdev=math.sqrt(max(float(square - mean * mean), 0.0)),
        outcomes=[Outcome(r, float(p), float(pays)) for (r, pays), p in rows if p],
        exact_rtp=1 + mean,
        note=note or None,
    )


def merge(into: Distribution, result: str, pays: Fraction, probability: Fraction) -> None:
    """Add ``probability`` to the row (result, pays)."""
    key = (result, pays)
    into[key] = into.get(key, Fraction(0)) + probability


# --------------------------------------------------------------------------- simulation


def _result(net: int, stake: int) -> str:
    x = net / stake
    if net > 0:
        return f"win {x:+g}"
    return "lose" if x == -1 else f"lose {x:+g}" if net < 0 else "stand-off or returned"


@dataclass
class WagerTally:
    """A wager's sums over a simulation: how often each (stake, net) pair came up (cents),
    and the per-round sums the interval needs (rounds, sum net^2, sum stake^2, sum
    net*stake over the wager's totals per round)."""

    hist: dict[tuple[int, int], int] = field(default_factory=dict)
    rounds: int = 0
    rnn: int = 0
    rss: int = 0
    rns: int = 0

    def add(self, other: WagerTally) -> None:
        for k, n in other.hist.items():
            self.hist[k] = self.hist.get(k, 0) + n
        self.rounds += other.rounds
        self.rnn += other.rnn
        self.rss += other.rss
        self.rns += other.rns

    @property
    def placements(self) -> int:
        return sum(self.hist.values())

    def sheet(self, basis: str | None = None) -> WagerSheet:
        n = self.placements
        stake = sum(s * c for (s, _), c in self.hist.items())
        net = sum(x * c for (_, x), c in self.hist.items())
        if not stake or not n:
            raise ValueError("no placement of this wager was played")
        m = net / stake
        var = self.rnn - 2 * m * self.rns + m * m * self.rss
        rows: dict[tuple[str, float], int] = {}
        sx = sxx = 0.0
        hits = 0
        for (s, x), c in self.hist.items():
            u = x / s
            sx += u * c
            sxx += u * u * c
            if x > 0:
                hits += c
            key = (_result(x, s), round(u, 6))
            rows[key] = rows.get(key, 0) + c
        mean_x = sx / n
        ordered = sorted(rows.items(), key=lambda kv: (-kv[0][1], kv[0][0]))
        return WagerSheet(
            rtp=1 + m,
            house_edge=-m,
            ci95=Z95 * math.sqrt(max(var, 0.0)) / stake,
            hit_frequency=hits / n,
            stdev=math.sqrt(max(sxx / n - mean_x * mean_x, 0.0)),
            outcomes=[Outcome(r, c / n, pays) for (r, pays), c in ordered],
            method="simulation",
            placements=n,
            basis=basis,
        )


def controlled(line: WagerSheet, est: Estimate) -> WagerSheet:
    """``line`` (a simulation's plain figures) with the control-variate estimate of its RTP
    and interval (:mod:`server.par.controls`); the outcomes, hit frequency and volatility
    stay the plain simulation's frequencies."""
    line.rtp = 1 + est.mean
    line.house_edge = -est.mean
    line.ci95 = est.ci95
    return line


#: One settled placement in a simulated round: (wager, stake, net), cents.
Entry = tuple[str, int, int]


@dataclass
class Tally:
    """Every wager's :class:`WagerTally` over the rounds a worker played."""

    rounds: int = 0
    wagers: dict[str, WagerTally] = field(default_factory=dict)
    #: the control variates' sums (:mod:`server.par.controls`), when the runner has any
    controls: ControlSums | None = None

    def add_round(self, entries: Iterable[Entry], controls: Controls | None = None) -> None:
        """Book one round's placements (several boxes, several wagers each) and, for a
        runner with control variates, the round's controls."""
        self.rounds += 1
        sums: dict[str, list[int]] = {}
        tallies: dict[str, WagerTally] = {}
        wagers = self.wagers
        for name, stake, net in entries:
            acc = sums.get(name)
            if acc is None:
                t = wagers.get(name)
                if t is None:
                    t = wagers[name] = WagerTally()
                tallies[name] = t
                sums[name] = [stake, net]
            else:
                acc[0] += stake
                acc[1] += net
                t = tallies[name]
            h = t.hist
            k = (stake, net)
            h[k] = h.get(k, 0) + 1
        for name, (s, n) in sums.items():
            t = tallies[name]
            t.rounds += 1
            t.rnn += n * n
            t.rss += s * s
            t.rns += n * s
        if controls is not None and self.controls is not None:
            self.controls.add(controls, sums)

    def add(self, other: Tally) -> None:
        self.rounds += other.rounds
        for name, t in other.wagers.items():
            mine = self.wagers.get(name)
            if mine is None:
                mine = self.wagers[name] = WagerTally()
            mine.add(t)


# --------------------------------------------------------------------------- the sheet


@dataclass
class Sheet:
    """A game's PAR sheet (see the module docstring for the JSON form)."""

    game: str
    options: dict[str, Any]
    method: str
    rounds: int | None
    strategy: str | None
    wagers: dict[str, WagerSheet]
    seed: int | None = None
    boxes: int | None = None
    #: the whole round per unit of its basis wager (the figure usually published)
    per_round: WagerSheet | None = None
    strategy_table: dict[str, Any] | None = None
    jackpot: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    #: seconds the sheet took (Markdown only: the JSON stays reproducible)
    elapsed: float | None = None
    procs: int | None = None
    #: processor seconds the simulation used (every process), Markdown only
    cpu: float | None = None
    #: further top-level keys (p2p poker: ``commission``)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        methods = {w.method for w in self.wagers.values()}
        mixed = len(methods) > 1
        out: dict[str, Any] = {
            "game": self.game,
            "options": self.options,
            "method": self.method,
            "rounds": self.rounds,
            "strategy": self.strategy,
            "wagers": {name: w.to_json(mixed) for name, w in self.wagers.items()},
        }
        if self.seed is not None:
            out["seed"] = self.seed
        if self.boxes is not None:
            out["boxes"] = self.boxes
        if self.per_round is not None:
            out["per_round"] = self.per_round.to_json(True)
        if self.strategy_table is not None:
            out["strategy_table"] = self.strategy_table
        if self.jackpot is not None:
            out["jackpot"] = self.jackpot
        if self.notes:
            out["notes"] = self.notes
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Sheet:
        """A sheet back from :meth:`to_json` (``docs/par/GAME.json``, which adds ``run``:
        the seconds and processes the sheet took, for its Markdown)."""
        method = data["method"]

        def line(w: Mapping[str, Any]) -> WagerSheet:
            return WagerSheet(
                rtp=w["rtp"],
                house_edge=w["house_edge"],
                ci95=w["ci95"],
                hit_frequency=w["hit_frequency"],
                stdev=w["stdev"],
                outcomes=[Outcome(o["result"], o["probability"], o["pays"]) for o in w["outcomes"]],
                method=w.get("method", method),
                placements=w.get("placements"),
                basis=w.get("basis"),
                note=w.get("note"),
            )

        known = {
            "game",
            "options",
            "method",
            "rounds",
            "strategy",
            "wagers",
            "seed",
            "boxes",
            "per_round",
            "strategy_table",
            "jackpot",
            "notes",
            "run",
        }
        run = data.get("run", {})
        return cls(
            game=data["game"],
            options=dict(data["options"]),
            method=method,
            rounds=data["rounds"],
            strategy=data["strategy"],
            wagers={n: line(w) for n, w in data["wagers"].items()},
            seed=data.get("seed"),
            boxes=data.get("boxes"),
            per_round=line(data["per_round"]) if "per_round" in data else None,
            strategy_table=data.get("strategy_table"),
            jackpot=data.get("jackpot"),
            notes=list(data.get("notes", [])),
            elapsed=run.get("seconds"),
            procs=run.get("procs"),
            cpu=run.get("cpu_seconds"),
            extra={k: v for k, v in data.items() if k not in known},
        )
