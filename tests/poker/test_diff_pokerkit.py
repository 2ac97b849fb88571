"""Differential test: our ACT no-limit hold'em against pokerkit's ``NoLimitTexasHoldem``.

Settings where the two rule sets coincide (``docs/rulings.md``, "Differential test"):

* ACT Hold-em, structure ``no-limit``, blinds ``[m, 2m]``, ``commission: none``, chip unit
  one cent; 3..9 players. The buck seat is pokerkit's player 0 (small blind) and the seats
  clockwise from it are players 1, 2, ... Heads-up is left out: ACT has the buck post the
  first blind and act first in every round (digest, "Who acts first"), pokerkit uses the
  usual heads-up button order.
* Every stake covers the big blind (ACT's short-blind recommendation A-14 keeps the call at
  the full blind; pokerkit lowers it).
* Our bot's actions are driven into both engines; folds when a check is free are left out
  (legal under ACT, refused by pokerkit). ACT's three-raise cap (A-7) and its no-reopening
  rule for a short tap-out (12.5, A-8) only remove options, so every action we allow is
  legal in pokerkit too, and must move the same chips.

Checked: whose turn it is after every action, then the final stacks, hand by hand.
"""

from __future__ import annotations

import random
import warnings

from pokerkit import Automation, NoLimitTexasHoldem

from server.cards import STANDARD_DECK, SeededRandomSource, card_str
from server.games.poker import PokerRound, rules_for
from server.games.poker.bots import random_action

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

HANDS = 300


def _play_one(rng: random.Random) -> None:
    m = rng.choice([1, 5, 25, 100])
    rules = rules_for(
        "holdem-act",
        {"blinds": [m, 2 * m], "structure": "no-limit", "commission": "none", "chip_unit": 1},
    )
    n = rng.randint(3, 9)
    seats = sorted(rng.sample(range(1, 11), n))
    stacks = {
        s: rng.choice([rng.randint(2 * m + 1, 10 * m), rng.randint(10 * m, 300 * m)]) for s in seats
    }
    d = rng.choice(seats)
    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    hole = {s: [deck.pop(), deck.pop()] for s in seats}
    board = [deck.pop() for _ in range(5)]
    rnd = PokerRound(rules, stacks, d, SeededRandomSource(0), hole=hole, board=board)
    order = rnd.from_(d)  # pokerkit player i = order[i]
    player = {s: i for i, s in enumerate(order)}
    state = NoLimitTexasHoldem.create_state(
        AUTOMATIONS, True, 0, (m, 2 * m), 2 * m, tuple(stacks[s] for s in order), n
    )
    for s in order:
        state.deal_hole("".join(card_str(c) for c in hole[s]))
    rnd.start()
    dealt = 0
    while not rnd.complete:
        la = rnd.legal_actions()
        assert la is not None
        assert state.actor_index == player[la.seat], "turn order differs from pokerkit"
        verb, amount = random_action(la, rng)
        if verb == "fold" and la.check:
            verb, amount = "check", None
        if verb == "allin":
            amount = rnd.bet[la.seat] + rnd.stacks[la.seat]
            verb = "raise" if amount > rnd.cb else "call"
            rnd.act(la.seat, "allin")
        else:
            rnd.act(la.seat, verb, amount)
        if verb == "fold":
            state.fold()
        elif verb in ("check", "call"):
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to(amount)
        while state.can_deal_board():
            k = 3 if dealt == 0 else 1
            state.deal_board("".join(card_str(c) for c in board[dealt : dealt + k]))
            dealt += k
    assert rnd.result is not None
    assert not state.status, "pokerkit still running when our round ended"
    ours = [rnd.result.stacks[s] for s in order]
    assert ours == list(state.stacks), (stacks, d, ours, list(state.stacks))


def test_same_final_stacks_as_pokerkit() -> None:
    """ACT r 7-12 no-limit betting, side pots and showdown agree with pokerkit."""
    rng = random.Random(2026)
    with warnings.catch_warnings():
        # pokerkit warns when a fixed card is dealt that its own (burn) deck did not expect
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(HANDS):
            _play_one(rng)
