"""Control variates (``server.par.controls``): the estimator is unbiased and its interval
honest on data whose mean is known; the controls' exact means are right; a controlled
simulation through the engines agrees with the exact figures where both run."""

from __future__ import annotations

import math
import random
from itertools import combinations

from server.hands import evaluate5
from server.par import cards, sim
from server.par.controls import (
    ControlSums,
    HighCardOdds,
    estimate,
    five_card_classes,
    shifted,
    value_class,
)
from server.par.engine import options_for
from server.par.model import from_distribution

Z95 = 1.959963984540054


def _synthetic(seed: int, rounds: int) -> tuple[list[ControlSums], float]:
    """Rounds of ``y = 0.3 + 2 c1 - c2 + noise`` staking 1, ``c`` of known mean (0.5 and
    0), cut into two folds as :func:`server.par.sim.simulate` cuts its chunks."""
    rng = random.Random(seed)
    folds = [ControlSums(2), ControlSums(2)]
    for i in range(rounds):
        c1 = float(rng.random() < 0.5)
        c2 = rng.gauss(0, 1)
        y = 0.3 + 2 * c1 - c2 + rng.gauss(0, 0.5)
        folds[i % 2].add([(0, c1), (1, c2)], {"w": (1, y)})
    return folds, 0.3 + 2 * 0.5


def test_estimate_is_unbiased_with_an_honest_interval() -> None:
    """Over many seeds the controlled intervals cover the true mean about 95% of the time,
    are far narrower than the plain ones, and centre on the truth."""
    covered, errors, ratio = 0, [], []
    trials = 60
    for seed in range(trials):
        folds, truth = _synthetic(seed, 400)
        est = estimate(folds, [0.5, 0.0], "w")
        assert est is not None
        errors.append(est.mean - truth)
        covered += abs(est.mean - truth) <= est.ci95
        ratio.append(est.plain_ci95 / est.ci95)
    assert covered >= 0.85 * trials
    mean_error = sum(errors) / trials
    spread = math.sqrt(sum(e * e for e in errors) / trials)
    assert abs(mean_error) < 4 * spread / math.sqrt(trials)
    assert min(ratio) > 2  # the noise left is 0.5 of a total deviation of about 1.5


def test_a_wrong_control_mean_costs_precision_not_the_truth() -> None:
    """A control whose mean is stated wrong biases the estimate by beta x the error: which
    is why every stated mean is exact (counted or zero by symmetry), and checked below."""
    folds, truth = _synthetic(1, 4000)
    right = estimate(folds, [0.5, 0.0], "w")
    wrong = estimate(folds, [0.6, 0.0], "w")
    assert right is not None and wrong is not None
    assert abs(right.mean - truth) < right.ci95
    assert abs(wrong.mean - truth) > 10 * wrong.ci95


def test_a_fixed_coefficient_keeps_the_mean() -> None:
    """A control of fixed coefficient (:func:`shifted`): whatever the coefficient, the
    estimate keeps its mean (here within its interval of the truth on every seed), and the
    shift computed from sums equals shifting each round's net."""
    for seed in range(10):
        folds, truth = _synthetic(seed, 400)
        for b in (2.0, 0.5, -3.0):
            est = estimate(shifted(folds, [0.5, 0.0], "w", {0: b}), [0.5, 0.0], "w")
            assert est is not None
            assert abs(est.mean - truth) < 4 * est.ci95 / Z95, (seed, b)
    rng = random.Random(3)
    rows = [(float(rng.random() < 0.3), rng.gauss(0, 1)) for _ in range(50)]
    direct, summed = ControlSums(2), ControlSums(2)
    for c1, c2 in rows:
        y = 5 * c1 + c2
        summed.add([(0, c1), (1, c2)], {"w": (1, y)})
        direct.add([(0, c1), (1, c2)], {"w": (1, y - 4 * (c1 - 0.3))})
    (moved,) = shifted([summed], [0.3, 0.0], "w", {0: 4.0})
    a, b = moved.targets["w"], direct.targets["w"]
    for x, y in ((a.sy, b.sy), (a.syy, b.syy), (a.sys, b.sys), *zip(a.scy, b.scy, strict=True)):
        assert math.isclose(x, y, abs_tol=1e-9)


def test_high_card_odds_against_enumeration() -> None:
    """The dealer not qualifying (short of ace-king), given a box's five cards: counted by
    :class:`HighCardOdds`, and by valuing every five of the 47 cards left."""
    odds = HighCardOdds()
    dist = five_card_classes()
    assert math.isclose(odds.probability([]), float(sum(p for k, p in dist.items() if k < 13)))
    hand = [12 * 4, 11 * 4 + 1, 3 * 4 + 2, 3 * 4 + 3, 7 * 4]  # A K 5 5 9
    rest = [c for c in range(52) if c not in hand]
    short = sum(value_class(evaluate5(list(five))) < 13 for five in combinations(rest, 5))
    assert math.isclose(odds.probability(hand), short / math.comb(47, 5))


def test_controlled_four_card_poker_against_exact_aces_up() -> None:
    """Four card poker played with its controls: the Aces Up line (exact, every five-card
    hand through the engine) inside the controlled interval, which is several times
    narrower than the plain one; the controls' observed means near their exact ones."""
    from server.par.fourcard import FourCardPoker

    options = options_for("four-card-poker", None)
    dist, _ = cards.aces_up_distribution(options, 1000)
    exact_rtp = from_distribution(dist).rtp
    res = sim.simulate(FourCardPoker(options), 1600, 5, 1)
    est = estimate(res.folds, res.means, "aces_up")
    assert est is not None
    assert abs(1 + est.mean - exact_rtp) < 4 * est.ci95 / Z95
    assert est.plain_ci95 > 2 * est.ci95


def test_mississippi_exact_sheet_against_the_engine() -> None:
    """Mississippi stud's exact sheet (every ordered deal of a box under the optimal
    strategy) equals the dynamic programme's value and agrees with the engine played by
    the same strategy, wager by wager."""
    from server.par.mississippi import MississippiStud, exact_sheet

    sheet = exact_sheet(None)
    assert sheet.method == "exact" and sheet.per_round is not None
    ms = MississippiStud(options_for("mississippi-stud", None))
    assert math.isclose(sheet.per_round.rtp, 1 + ms.plan.solve(), abs_tol=1e-12)
    res = sim.simulate(ms, 1500, 11, 1)
    lines = {**sheet.wagers, "round": sheet.per_round}
    for w, line in lines.items():
        s = res.tally.wagers[w].sheet()
        assert abs(s.rtp - line.rtp) < 4 * s.ci95 / Z95, (w, line.rtp, s.rtp, s.ci95)
