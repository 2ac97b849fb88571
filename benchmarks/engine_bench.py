"""Poker engine benchmark: 9-seat no-limit hold'em hands with random legal actions.

    .venv/bin/python benchmarks/engine_bench.py [--seconds S] [--profile]

Plays complete hands (blinds, shuffle and deal, every betting round, side pots, showdown and
settlement) at 9-seat tables where every decision is a random legal action, first on our
engine (``holdem-qld``: no-limit, no raise cap, blinds 50c/$1, commission off) and then on
pokerkit's ``NoLimitTexasHoldem`` with the same table and the same random decision rule
(fold 15% when facing a wager; else bet/raise 30% to the minimum, the maximum or a random
amount; else check/call), in the same process. Prints hands per second for both and the
ratio (goal: at least 100x).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.cards import SeededRandomSource
from server.games.poker import PokerRound, rules_for

SEATS = 9
STACK = 20000  # 200 big blinds of 100 cents


def ours(seconds: float, seed: int = 1) -> tuple[int, float, int]:
    """Hands played, seconds taken, actions applied."""
    rules = rules_for(
        "holdem-qld", {"blinds": [50, 100], "structure": "no-limit", "commission": "none"}
    )
    rng = random.Random(seed)
    cards = SeededRandomSource(seed)
    stacks = dict.fromkeys(range(1, SEATS + 1), STACK)
    hands = actions = 0
    t0 = time.process_time()
    deadline = t0 + seconds
    d = 1
    random_ = rng.random
    while True:
        rnd = PokerRound(rules, stacks, d, cards)
        rnd.start()
        legal, act = rnd.legal_actions, rnd.act
        la = legal()
        while la is not None:  # None once the round of play is complete
            # the bot reads every field it uses at once (LegalActions is a named tuple)
            seat, _, check, call, bet, raise_, allin, _, _ = la
            pick = random_()
            bounds = raise_ or bet
            if call and pick < 0.15:
                act(seat, "fold")
            elif pick < 0.45 and bounds is not None:
                lo, hi = bounds
                r = random_()
                amount = lo if r < 0.5 else hi if r < 0.6 else rng.randint(lo, min(hi, lo * 4))
                act(seat, "raise" if raise_ else "bet", amount)
            elif pick < 0.45 and bounds is None and allin is not None and allin > (call or 0):
                # a tap-out above the call is pokerkit's "completion" when no full raise is
                # left
                random_()
                act(seat, "allin")
            else:
                act(seat, "check" if check else "call")
            actions += 1
            la = legal()
        hands += 1
        d = d % SEATS + 1
        if hands % 20 == 0 and time.process_time() > deadline:
            break
    return hands, time.process_time() - t0, actions


def pokerkit(seconds: float, seed: int = 1) -> tuple[int, float, int]:
    from pokerkit import Automation, NoLimitTexasHoldem

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    rng = random.Random(seed)
    hands = actions = 0
    t0 = time.process_time()
    deadline = t0 + seconds
    while True:
        state = NoLimitTexasHoldem.create_state(
            automations, True, 0, (50, 100), 100, (STACK,) * SEATS, SEATS
        )
        while state.status:
            pick = rng.random()
            can_raise = state.can_complete_bet_or_raise_to()
            if state.can_fold() and pick < 0.15:
                state.fold()
            elif can_raise and pick < 0.45:
                lo = state.min_completion_betting_or_raising_to_amount
                hi = state.max_completion_betting_or_raising_to_amount
                r = rng.random()
                amount = lo if r < 0.5 else hi if r < 0.6 else rng.randint(lo, min(hi, lo * 4))
                state.complete_bet_or_raise_to(amount)
            else:
                state.check_or_call()
            actions += 1
        hands += 1
        if time.process_time() > deadline:
            break
    return hands, time.process_time() - t0, actions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per engine (default 3)")
    ap.add_argument("--profile", action="store_true", help="profile our engine (pyinstrument)")
    args = ap.parse_args(argv)
    if args.profile:
        from pyinstrument import Profiler

        with Profiler() as p:
            ours(args.seconds)
        p.print()
        return 0
    warnings.simplefilter("ignore")
    # interleave slices of both engines so that both see the same machine load; time is the
    # CPU time of this process (other processes on a shared machine do not count)
    slices = 4
    h1 = h2 = a1 = a2 = 0
    t1 = t2 = 0.0
    for i in range(slices):
        h, t, a = ours(args.seconds / slices, seed=i + 1)
        h1, t1, a1 = h1 + h, t1 + t, a1 + a
        h, t, a = pokerkit(args.seconds / slices, seed=i + 1)
        h2, t2, a2 = h2 + h, t2 + t, a2 + a
    r1, r2 = h1 / t1, h2 / t2
    print(
        f"9-seat no-limit hold'em, random legal actions, {args.seconds:g} s CPU per engine "
        f"in {slices} interleaved slices"
    )
    print(
        f"  croupier  {r1:10.1f} hands/s  ({h1} hands, {a1 / h1:.1f} actions/hand, "
        f"{t1 / h1 * 1e6:.0f} us/hand, {a1 / t1:,.0f} actions/s)"
    )
    print(
        f"  pokerkit  {r2:10.1f} hands/s  ({h2} hands, {a2 / h2:.1f} actions/hand, "
        f"{t2 / h2 * 1e6:.0f} us/hand, {a2 / t2:,.0f} actions/s)"
    )
    print(
        f"  ratio     {r1 / r2:10.1f}x hands/s, {(a1 / t1) / (a2 / t2):.1f}x actions/s "
        "(goal: at least 100x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
