"""Variance reduction for the simulated sheets: control variates of exactly known mean,
fitted on one half of the rounds and applied to the other (cross-fitting).

Theory of operation
-------------------
A simulated sheet estimates a wager's RTP as ``1 + E[Y] / E[S]`` from the rounds the engine
plays, ``Y`` the wager's net in a round and ``S`` its stake (every box of the round summed:
boxes that share a dealer are one sample). Beside ``Y`` and ``S`` each round reports a few
numbers ``c_1 .. c_p`` whose expectations ``mu`` are known *exactly*, either

* from an exact distribution: the indicator that a box's five cards fall in a hand class,
  whose probability is counted over the 2,598,960 hands (:func:`five_card_classes`), or
* by symmetry: ``f(a, b) - f(b, a)`` where the deal gives ``a`` and ``b`` the same joint
  distribution in either order (a box's cards and the dealer's, dealt from one shuffled
  deck), whose mean is zero, or
* as a martingale difference: ``V(after) - E[V(after) | before]`` for a card about to be
  dealt, the expectation taken over the cards the shoe still holds (blackjack), zero too.

Then ``Y - b'(c - mu)`` has the mean of ``Y`` for *any* fixed ``b``, and the ``b`` that
regresses ``Y`` on ``c`` removes the part of ``Y``'s variance that the controls explain
(the round's hand classes, the dealer's hand, who beat whom): what is left is the noise of
the outcomes the controls do not predict. The estimate is still the engine's: a control only
says how far a round's cards lay from the average, never what a wager pays, and a wrong
control (even a wrong ``b``) costs precision, never correctness.

``b`` is estimated from the simulation itself: the rounds are cut into two folds (the even
and the odd chunks, :mod:`server.par.sim`), each fold's ``b`` is fitted on the other fold
alone, so the fitted ``b`` is independent of the rounds it corrects and the estimate has
exactly the mean of the plain one. The ratio ``E[Y] / E[S]`` has its numerator and its
denominator corrected (a wager placed by a decision has a random stake); the 95% interval is
the delta method's on the per-round residuals ``(Y - b_Y'(c - mu)) - m (S - b_S'(c - mu))``,
summed per fold with the other fold's coefficients: as honest as the plain interval, only
narrower. Only sums are kept per fold (of ``c``, ``c c'``, ``c Y``, ``c S``, ``Y``, ``S``,
``Y^2``, ``S^2``, ``Y S``), so processes add their folds up like any tally.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb
from operator import mul

Z95 = 1.959963984540054

#: A round's controls, sparse: (index, value) pairs (an index may repeat: values add up).
Controls = Iterable[tuple[int, float]]


@dataclass
class TargetSums:
    """One wager's sums over a fold's rounds (``y`` its net, ``s`` its stake in a round)."""

    p: int
    sy: float = 0.0
    ss: float = 0.0
    syy: float = 0.0
    sss: float = 0.0
    sys: float = 0.0
    scy: list[float] = field(default_factory=list)
    scs: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.scy:
            self.scy = [0.0] * self.p
            self.scs = [0.0] * self.p

    def merge(self, o: TargetSums) -> None:
        self.sy += o.sy
        self.ss += o.ss
        self.syy += o.syy
        self.sss += o.sss
        self.sys += o.sys
        for i in range(self.p):
            self.scy[i] += o.scy[i]
            self.scs[i] += o.scs[i]


@dataclass
class ControlSums:
    """The sums one fold keeps: rounds, controls and their products, every wager's."""

    p: int
    n: int = 0
    sc: list[float] = field(default_factory=list)
    #: the upper triangle of sum c c' (row-major, p x p; the lower half stays zero)
    scc: list[float] = field(default_factory=list)
    targets: dict[str, TargetSums] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.sc:
            self.sc = [0.0] * self.p
            self.scc = [0.0] * (self.p * self.p)

    def add(self, controls: Controls, sums: Mapping[str, Sequence[float]]) -> None:
        """One round: its controls and, per wager placed, ``(stake, net)`` summed over the
        round's boxes (a wager not placed this round counts as 0 and 0)."""
        merged: dict[int, float] = {}
        for i, x in controls:
            merged[i] = merged.get(i, 0.0) + x
        items = sorted(merged.items())
        self.n += 1
        sc, scc, p = self.sc, self.scc, self.p
        for a, (i, x) in enumerate(items):
            sc[i] += x
            row = i * p
            for j, z in items[a:]:
                scc[row + j] += x * z
        targets = self.targets
        for name, (stake, net) in sums.items():
            t = targets.get(name)
            if t is None:
                t = targets[name] = TargetSums(p)
            t.sy += net
            t.ss += stake
            t.syy += net * net
            t.sss += stake * stake
            t.sys += net * stake
            scy, scs = t.scy, t.scs
            for i, x in items:
                scy[i] += x * net
                scs[i] += x * stake

    def merge(self, o: ControlSums) -> None:
        self.n += o.n
        for i in range(self.p):
            self.sc[i] += o.sc[i]
        for k, x in enumerate(o.scc):
            if x:
                self.scc[k] += x
        for name, t in o.targets.items():
            mine = self.targets.get(name)
            if mine is None:
                mine = self.targets[name] = TargetSums(self.p)
            mine.merge(t)


# --------------------------------------------------------------------------- the estimate


def _cholesky_solver(a: list[list[float]]) -> list[list[float]]:
    """The lower Cholesky factor of a symmetric positive definite matrix (ridged)."""
    p = len(a)
    low = [[0.0] * p for _ in range(p)]
    for i in range(p):
        ai, li = a[i], low[i]
        for j in range(i + 1):
            lj = low[j]
            s = ai[j] - sum(map(mul, li[:j], lj[:j]))
            if i == j:
                li[i] = math.sqrt(s) if s > 0 else 1e-300
            else:
                li[j] = s / lj[j]
    return low


def _solve(low: list[list[float]], b: Sequence[float]) -> list[float]:
    p = len(low)
    y = [0.0] * p
    for i in range(p):
        li = low[i]
        y[i] = (b[i] - sum(map(mul, li[:i], y[:i]))) / li[i]
    upper = [list(col) for col in zip(*low, strict=True)]  # row i of L' is column i of L
    x = [0.0] * p
    for i in reversed(range(p)):
        ui = upper[i]
        x[i] = (y[i] - sum(map(mul, ui[i + 1 :], x[i + 1 :]))) / ui[i]
    return x


@dataclass
class Fit:
    """A fold's regression: its Cholesky factor and the coefficients per wager."""

    low: list[list[float]]
    beta_y: dict[str, list[float]]
    beta_s: dict[str, list[float]]


def fit(f: ControlSums) -> Fit:
    """Least squares of every wager's ``y`` and ``s`` on the controls, within fold ``f``
    (centred on the fold's own means; a tiny ridge keeps unseen or collinear controls at a
    coefficient of about zero)."""
    p, n = f.p, max(f.n, 1)
    mean = [x / n for x in f.sc]
    a = [[0.0] * p for _ in range(p)]
    for i in range(p):
        row = i * p
        for j in range(i, p):
            v = f.scc[row + j] - n * mean[i] * mean[j]
            a[i][j] = a[j][i] = v
    scale = max((a[i][i] for i in range(p)), default=0.0)
    ridge = 1e-9 * scale + 1e-12
    for i in range(p):
        a[i][i] += ridge
    low = _cholesky_solver(a)
    beta_y: dict[str, list[float]] = {}
    beta_s: dict[str, list[float]] = {}
    for name, t in f.targets.items():
        my, ms = t.sy / n, t.ss / n
        beta_y[name] = _solve(low, [t.scy[i] - n * mean[i] * my for i in range(p)])
        beta_s[name] = _solve(low, [t.scs[i] - n * mean[i] * ms for i in range(p)])
    return Fit(low, beta_y, beta_s)


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _quad(f: ControlSums, b: Sequence[float]) -> float:
    """b' (sum c c') b from the upper triangle."""
    p, scc = f.p, f.scc
    total = 0.0
    for i in range(p):
        bi = b[i]
        if not bi:
            continue
        row = i * p
        total += bi * bi * scc[row + i]
        s = 0.0
        for j in range(i + 1, p):
            s += scc[row + j] * b[j]
        total += 2 * bi * s
    return total


@dataclass(frozen=True)
class Estimate:
    """A wager's controlled ratio ``E[Y] / E[S]`` (its mean net per unit staked), its 95%
    half-width, and the plain estimate's half-width on the same rounds (for the sheet's
    note: how much the controls bought)."""

    mean: float
    ci95: float
    plain_ci95: float
    rounds: int


def estimate(
    folds: Sequence[ControlSums],
    mu: Sequence[float],
    name: str,
    fits: Sequence[Fit] | None = None,
) -> Estimate | None:
    """The cross-fitted estimate of wager ``name`` (None when it was never placed). With two
    folds each is corrected by the other's coefficients; with one (a run of a single chunk)
    by its own. ``fits``: the folds' :func:`fit` (of the folds that saw rounds), computed
    once for every wager of a sheet."""
    used = [f for f in folds if f.n]
    if not used:
        return None
    if fits is None:
        fits = [fit(f) for f in used]
    parts = []
    for k, f in enumerate(used):
        other = fits[(k + 1) % len(fits)] if len(fits) > 1 else fits[k]
        t = f.targets.get(name)
        if t is None:
            t = TargetSums(f.p)
        by = other.beta_y.get(name, [0.0] * f.p)
        bs = other.beta_s.get(name, [0.0] * f.p)
        dev = [f.sc[i] - f.n * mu[i] for i in range(f.p)]
        parts.append((f, t, by, bs, t.sy - _dot(by, dev), t.ss - _dot(bs, dev)))
    num = sum(x[4] for x in parts)
    den = sum(x[5] for x in parts)
    if den <= 0:
        return None
    m = num / den
    var = 0.0
    plain = 0.0
    raw = sum(x[1].sy for x in parts) / sum(x[1].ss for x in parts)
    for f, t, by, bs, _, _ in parts:
        b = [y - m * s for y, s in zip(by, bs, strict=True)]
        sz = t.sy - m * t.ss
        szz = t.syy - 2 * m * t.sys + m * m * t.sss
        szc = [t.scy[i] - m * t.scs[i] - mu[i] * sz for i in range(f.p)]
        bmu, bsc = _dot(b, mu), _dot(b, f.sc)
        quad = _quad(f, b) - 2 * bmu * bsc + f.n * bmu * bmu
        se = sz - (bsc - f.n * bmu)
        see = szz - 2 * _dot(b, szc) + quad
        var += max(see - se * se / f.n, 0.0)
        rz = t.sy - raw * t.ss
        plain += max(t.syy - 2 * raw * t.sys + raw * raw * t.sss - rz * rz / f.n, 0.0)
    total_s = sum(x[1].ss for x in parts)
    return Estimate(
        mean=m,
        ci95=Z95 * math.sqrt(var) / den,
        plain_ci95=Z95 * math.sqrt(plain) / total_s,
        rounds=sum(f.n for f in used),
    )


def shifted(
    folds: Sequence[ControlSums], mu: Sequence[float], name: str, coefs: Mapping[int, float]
) -> list[ControlSums]:
    """``folds`` with wager ``name``'s net replaced by ``y - sum_f b_f (c_f - mu_f)``, the
    coefficients ``b`` *fixed* (not fitted) for the controls in ``coefs``: the mean is
    unchanged whatever ``b`` is, and a rare, large payout (a royal flush a few times a run)
    is taken at about its exact expectation even in a fold that never saw one, where no
    coefficient can be fitted. The other controls are then fitted on the shifted net as
    usual (:func:`estimate`). Only sums are needed, so the shift is exact."""
    out = []
    for f in folds:
        g = ControlSums(f.p, f.n, f.sc, f.scc, dict(f.targets))
        t = f.targets.get(name)
        if t is None or not coefs:
            out.append(g)
            continue
        p, scc, sc, n = f.p, f.scc, f.sc, f.n

        def cc(i: int, j: int, scc: list[float] = scc, p: int = p) -> float:
            return scc[min(i, j) * p + max(i, j)]

        sd = sum(b * (sc[i] - n * mu[i]) for i, b in coefs.items())
        sdd = sum(
            b * c * (cc(i, j) - mu[j] * sc[i] - mu[i] * sc[j] + n * mu[i] * mu[j])
            for i, b in coefs.items()
            for j, c in coefs.items()
        )
        sdy = sum(b * (t.scy[i] - mu[i] * t.sy) for i, b in coefs.items())
        sds = sum(b * (t.scs[i] - mu[i] * t.ss) for i, b in coefs.items())
        u = TargetSums(p, t.sy - sd, t.ss, t.syy - 2 * sdy + sdd, t.sss, t.sys - sds)
        u.scy = [
            t.scy[j] - sum(b * (cc(j, i) - mu[i] * sc[j]) for i, b in coefs.items())
            for j in range(p)
        ]
        u.scs = list(t.scs)
        g.targets[name] = u
        out.append(g)
    return out


# --------------------------------------------------------------------------- hand classes


def value_class(value: int) -> int:
    """A five-card hand value's class: its category and its first rank (the pair's, the
    trips', a straight's top card, a high card's top card), a high card with an ace and a
    king apart (the stud games' qualifying hand). Values as :mod:`server.hands.ranking`
    packs them (``category << 20 | rank nibbles``)."""
    cat = (value >> 20) & 0xF
    first = (value >> 16) & 0xF
    if cat == 0 and first == 12 and (value >> 12) & 0xF == 11:
        return 13  # ace-king high
    return cat * 16 + first


def five_card_classes() -> dict[int, Fraction]:
    """The exact distribution of :func:`value_class` over the 2,598,960 five-card hands:
    every multiset of ranks (suits chosen in prod C(4, k) ways; five different ranks in one
    suit, a flush, in 4 of the 1,024), valued by the evaluator on one hand of each kind."""
    from server.hands import evaluate5

    counts: dict[int, int] = {}
    for ranks in combinations_with_replacement(range(13), 5):
        mult = {r: ranks.count(r) for r in set(ranks)}
        if max(mult.values()) > 4:
            continue
        ways = 1
        for k in mult.values():
            ways *= comb(4, k)
        hand = [r * 4 + s for r, k in sorted(mult.items()) for s in range(k)]
        if len(mult) == 5:
            off = [r * 4 + (i == 0) for i, r in enumerate(ranks)]
            suited = [r * 4 for r in ranks]
            k1, k2 = value_class(evaluate5(off)), value_class(evaluate5(suited))
            counts[k1] = counts.get(k1, 0) + ways - 4
            counts[k2] = counts.get(k2, 0) + 4
        else:
            k1 = value_class(evaluate5(hand))
            counts[k1] = counts.get(k1, 0) + ways
    total = comb(52, 5)
    assert sum(counts.values()) == total
    return {k: Fraction(n, total) for k, n in sorted(counts.items())}


def _straight_masks() -> set[int]:
    out = {sum(1 << r for r in range(top - 4, top + 1)) for top in range(4, 13)}
    out.add((1 << 12) | 0b1111)  # A-2-3-4-5
    return out


class HighCardOdds:
    """``P(five more cards from the deck are a high card without both an ace and a king |
    the cards already seen)``: the stud games' dealer not qualifying (Caribbean stud s4,
    Canberra Poker r 9.2), counted exactly for the 47 cards a box's five leave.

    Such a hand has five different ranks ``R`` (not a straight, not holding both ace and
    king), one available card of each (``prod n_r``), less the flushes (``R`` inside one
    suit's available ranks). The rank sets are listed once; the sums over the ranks left are
    cached by the seen cards' rank counts, and the flushes come from a table over the 8,192
    masks of one suit's available ranks (a sum over subsets)."""

    def __init__(self) -> None:
        straights = _straight_masks()
        ak = (1 << 12) | (1 << 11)
        self.sets: list[tuple[int, ...]] = []
        valid = [0] * (1 << 13)
        for ranks in combinations_with_replacement(range(13), 5):
            if len(set(ranks)) < 5:
                continue
            mask = sum(1 << r for r in ranks)
            if mask in straights or mask & ak == ak:
                continue
            self.sets.append(ranks)
            valid[mask] = 1
        for bit in range(13):  # sum over subsets: within[m] = #valid sets inside m
            b = 1 << bit
            for m in range(1 << 13):
                if m & b:
                    valid[m] += valid[m ^ b]
        self.within = valid
        self._by_counts: dict[tuple[int, ...], int] = {}

    def probability(self, seen: Sequence[int]) -> float:
        """The probability for five cards drawn from the 52 less ``seen`` (cards 0..51)."""
        counts = [4] * 13
        avail = [(1 << 13) - 1] * 4
        for c in seen:
            counts[c >> 2] -= 1
            avail[c & 3] &= ~(1 << (c >> 2))
        key = tuple(counts)
        plain = self._by_counts.get(key)
        if plain is None:
            plain = 0
            for a, b, c, d, e in self.sets:
                plain += counts[a] * counts[b] * counts[c] * counts[d] * counts[e]
            self._by_counts[key] = plain
        within = self.within
        flushes = within[avail[0]] + within[avail[1]] + within[avail[2]] + within[avail[3]]
        return (plain - flushes) / comb(52 - len(seen), 5)


class Index:
    """Control names to indexes, and their exact means."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.means: list[float] = []
        self._at: dict[str, int] = {}

    def add(self, name: str, mean: float | Fraction) -> int:
        i = self._at.get(name)
        if i is None:
            i = self._at[name] = len(self.names)
            self.names.append(name)
            self.means.append(float(mean))
        return i

    def __len__(self) -> int:
        return len(self.names)
