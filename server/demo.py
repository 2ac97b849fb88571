"""``croupier demo``: bots play a few hands of each poker game in-process, printed readably.

    croupier demo [--game GAME] [--hands N] [--seed S]

Each hand runs the real engine (:class:`server.games.poker.PokerRound`): blinds, the deal,
every action, the board, the showdown, the pots and the commission. Bots pick random legal
actions (:mod:`server.games.poker.bots`). Without ``--seed`` the cards come from the
operating system's CSPRNG, as in production; with it, the run is reproducible. The buck /
button moves between hands as the rules say (``next_designated``); busted players rebuy.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import TextIO

from server.cards import SeededRandomSource, SystemRandomSource, card_str
from server.games.poker import GAME_IDS, PokerRound, next_designated, rules_for
from server.games.poker.bots import random_action
from server.games.poker.events import (
    ActionTaken,
    BlindPosted,
    BoardDealt,
    CommissionTaken,
    Event,
    FeeCharged,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    UncalledReturned,
)
from server.money import dollars

STREETS = {
    "holdem": ("pre-flop", "flop", "turn", "river"),
    "omaha": ("pre-flop", "flop", "turn", "river"),
    "manila": ("round 1", "round 2", "round 3", "round 4", "final round"),
}


def _cards(cs: Sequence[int]) -> str:
    return " ".join(card_str(c) for c in cs)


def describe_event(e: Event, rnd: PokerRound) -> str | None:
    """One readable line for an event (None for events a reader need not see)."""
    if isinstance(e, FeeCharged):
        return f"  seat {e.seat} pays the participation fee {dollars(e.amount)}"
    if isinstance(e, BlindPosted):
        what = {"live": "a returning player's blind", "dead": "dead money"}.get(
            e.kind, f"blind {e.kind[-1]}"
        )
        return f"  seat {e.seat} posts {what} {dollars(e.amount)}"
    if isinstance(e, HoleCardsDealt):
        return f"  seat {e.seat} is dealt [{_cards(e.cards)}] (only seat {e.seat} sees this)"
    if isinstance(e, BoardDealt):
        name = STREETS[rnd.rules.variant][e.round - 1]
        return f"  -- {name}: board [{_cards(e.board)}]"
    if isinstance(e, ActionTaken):
        if e.verb in ("fold", "check"):
            return f"  seat {e.seat} {e.verb}s"
        if e.verb == "call":
            return f"  seat {e.seat} calls {dollars(e.amount)}"
        if e.verb == "allin":
            return f"  seat {e.seat} taps out: {dollars(e.amount)} (total {dollars(e.total)})"
        if e.verb == "bet":
            return f"  seat {e.seat} bets {dollars(e.total)}"
        return f"  seat {e.seat} raises to {dollars(e.total)}"
    if isinstance(e, UncalledReturned):
        return f"  uncalled {dollars(e.amount)} returned to seat {e.seat}"
    if isinstance(e, HandShown):
        return f"  seat {e.seat} shows [{_cards(e.cards)}]: {e.category}"
    if isinstance(e, HandMucked):
        return f"  seat {e.seat} mucks"
    if isinstance(e, CommissionTaken):
        return f"  commission {dollars(e.amount)} on {dollars(e.base)}"
    if isinstance(e, PotAwarded):
        label = "main pot" if e.pot == 0 else f"side pot {e.pot}"
        shares = ", ".join(f"seat {s} {dollars(v)}" for s, v in sorted(e.shares.items()))
        return f"  {label} {dollars(e.amount)} -> {shares}"
    return None


def play(game: str, hands: int, seed: int | None, out: TextIO | None = None) -> None:
    """Play ``hands`` hands of ``game`` with bots and print them to ``out`` (stdout)."""
    out = out or sys.stdout
    rules = rules_for(game, {})
    bot_rng = random.Random(seed)
    cards = SeededRandomSource(seed) if seed is not None else SystemRandomSource()
    n = min(rules.max_seats, 6)
    buy_in = max(rules.min_table_stake, 40 * rules.blinds[-1])
    stacks = dict.fromkeys(range(1, n + 1), buy_in)
    designated = 1
    print(
        f"=== {game}: {n} players, blinds {'/'.join(dollars(b) for b in rules.blinds)}, "
        f"structure {rules.structure} ===",
        file=out,
    )
    for h in range(1, hands + 1):
        stacks = {s: v if v > rules.participation_fee else buy_in for s, v in stacks.items()}
        rnd = PokerRound(rules, stacks, designated, cards)
        print(
            f"\nHand {h} (buck/button: seat {designated}; stacks "
            + ", ".join(f"{s}: {dollars(v)}" for s, v in stacks.items())
            + ")",
            file=out,
        )
        events = rnd.start()
        while True:
            for e in events:
                line = describe_event(e, rnd)
                if line:
                    print(line, file=out)
            if rnd.complete:
                break
            la = rnd.legal_actions()
            assert la is not None
            verb, amount = random_action(la, bot_rng, unit=rules.chip_unit)
            events = rnd.act(la.seat, verb, amount)
        res = rnd.result
        assert res is not None
        print(
            f"  commission {dollars(res.commission)}"
            + (f", fees {dollars(res.fees)}" if res.fees else ""),
            file=out,
        )
        stacks = dict(res.stacks)
        designated = next_designated(rules, designated, sorted(stacks))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="croupier demo", description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=GAME_IDS, help="one game (default: all six)")
    ap.add_argument("--hands", type=int, default=2, help="hands per game (default 2)")
    ap.add_argument("--seed", type=int, help="seed for a reproducible run")
    args = ap.parse_args(argv)
    for game in [args.game] if args.game else GAME_IDS:
        play(game, args.hands, args.seed)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
