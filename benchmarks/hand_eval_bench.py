"""Hand-evaluation benchmark: croupier's evaluator against treys and eval7, same process.

Evaluates the same N seeded random 7-card hands (default 1,000,000) with
``server.hands.best_of``, ``treys`` (pure Python) and ``eval7`` (Cython), prints hands per
second and the ratios ours/treys and eval7/ours, then checks that our ordering of the sample
is exactly eval7's (and treys'): each hand's value is replaced by its index among the sorted
distinct values of that evaluator, and the index lists must be identical - the same as every
pairwise comparison agreeing. The disagreement count must be 0 (exit status 1 otherwise).

A second, smaller section does the same for Omaha (exactly 2 of 4 hole cards + 3 of 5 board
cards, 60 combinations) against eval7 evaluating all 60 five-card hands.

    .venv/bin/python benchmarks/hand_eval_bench.py [--n 1000000] [--omaha-n 20000] [--seed 1]
        [--all-five]   # also every five-card hand against eval7 (~30 s)
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

import eval7
import treys

from server.cards import card_str
from server.hands import best_exact, best_of, evaluate5

E7_CARDS = [eval7.Card(card_str(c)) for c in range(52)]
TREYS_CARDS = [treys.Card.new(card_str(c)) for c in range(52)]


def order_index(values: Sequence[int], higher_is_better: bool = True) -> list[int]:
    """Each value's position among the sorted distinct values (0 = worst hand)."""
    distinct = sorted(set(values), reverse=not higher_is_better)
    where = {v: i for i, v in enumerate(distinct)}
    return [where[v] for v in values]


def disagreements(ours: Sequence[int], theirs: Sequence[int], higher_is_better: bool) -> int:
    """Hands whose order index differs: 0 iff both evaluators order the sample identically."""
    a = order_index(ours)
    b = order_index(theirs, higher_is_better)
    return sum(1 for x, y in zip(a, b, strict=True) if x != y)


def timed(label: str, fn: Callable[[], list[Any]], n: int) -> tuple[float, list[Any]]:
    t0 = time.perf_counter()
    out = fn()
    rate = n / (time.perf_counter() - t0)
    print(f"  {label:<32} {rate:>12,.0f} hands/s")
    return rate, out


def seven_card(n: int, seed: int) -> int:
    rng = random.Random(seed)
    deck = list(range(52))
    hands = [rng.sample(deck, 7) for _ in range(n)]
    e7_hands = [[E7_CARDS[c] for c in h] for h in hands]
    treys_hands = [
        ([TREYS_CARDS[c] for c in h[:2]], [TREYS_CARDS[c] for c in h[2:]]) for h in hands
    ]

    print(f"7-card hands: {n:,} (seed {seed})")
    ours_rate, ours = timed("croupier server.hands.best_of", lambda: [best_of(h) for h in hands], n)
    ev7 = eval7.evaluate
    e7_rate, e7 = timed("eval7.evaluate (Cython)", lambda: [ev7(h) for h in e7_hands], n)
    ev_treys = treys.Evaluator().evaluate
    treys_rate, tr = timed(
        "treys Evaluator.evaluate", lambda: [ev_treys(a, b) for a, b in treys_hands], n
    )
    print(
        f"  ours / treys = {ours_rate / treys_rate:.1f}x"
        f"    eval7 / ours = {e7_rate / ours_rate:.2f}x"
    )

    bad_e7 = disagreements(ours, e7, higher_is_better=True)
    bad_treys = disagreements(ours, tr, higher_is_better=False)
    print(f"  distinct hand values in sample: {len(set(ours)):,}")
    print(f"  ordering disagreements vs eval7: {bad_e7}    vs treys: {bad_treys}")
    return bad_e7 + bad_treys


def omaha(n: int, seed: int) -> int:
    rng = random.Random(seed + 1)
    deck = list(range(52))
    deals = [rng.sample(deck, 9) for _ in range(n)]
    holes = [(d[:4], d[4:]) for d in deals]

    def e7_omaha() -> list[int]:
        ev7 = eval7.evaluate
        out = []
        for hole, board in holes:
            out.append(
                max(
                    ev7([E7_CARDS[c] for c in h + b])
                    for h in combinations(hole, 2)
                    for b in combinations(board, 3)
                )
            )
        return out

    print(f"Omaha hands (2 of 4 hole + 3 of 5 board): {n:,}")
    ours_rate, ours = timed(
        "croupier best_exact(.., 2, 3)", lambda: [best_exact(h, b, 2, 3) for h, b in holes], n
    )
    e7_rate, e7 = timed("eval7, max of 60 evaluate()", e7_omaha, n)
    print(f"  ours / eval7-60 = {ours_rate / e7_rate:.2f}x")
    bad = disagreements(ours, e7, higher_is_better=True)
    print(f"  ordering disagreements vs eval7: {bad}")
    return bad


def all_five_card_hands() -> int:
    """Every one of the 2,598,960 five-card hands: our order must be eval7's exactly."""
    print("All 2,598,960 five-card hands (evaluate5 vs eval7.evaluate):")
    hands = list(combinations(range(52), 5))
    n = len(hands)
    e7_hands = [[E7_CARDS[c] for c in h] for h in hands]
    ev7 = eval7.evaluate
    _, ours = timed("croupier server.hands.evaluate5", lambda: [evaluate5(h) for h in hands], n)
    _, e7 = timed("eval7.evaluate (Cython)", lambda: [ev7(h) for h in e7_hands], n)
    print(f"  distinct hand values: {len(set(ours)):,} (7,462 expected)")
    bad = disagreements(ours, e7, higher_is_better=True)
    print(f"  ordering disagreements vs eval7: {bad}")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="7-card hands (1,000,000)")
    parser.add_argument("--omaha-n", type=int, default=20_000, help="Omaha hands (20,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--all-five", action="store_true", help="also check all 2,598,960 five-card hands"
    )
    args = parser.parse_args(argv)
    bad = seven_card(args.n, args.seed)
    bad += omaha(args.omaha_n, args.seed)
    if args.all_five:
        bad += all_five_card_hands()
    print("OK: orderings agree" if bad == 0 else f"FAIL: {bad} disagreements")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
