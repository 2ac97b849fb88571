"""Pre-actions over random hands of all six games (server/tables/preactions.py).

Each example plays a batch of random rounds; before every action each other seat still in
may queue a random pre-action with the amount to call it sees; stale ones are cleared after
every action (``still_valid``, as the table does) and the seat to act plays its pre-action
(``decide``) when it fits. Properties: a pre-action never puts in more than the player
chose (``call``: at most its amount; ``check``, ``check_fold``, ``fold_any``: nothing), it
is always a legal action, and a ``check`` or ``call`` chosen facing one amount never plays
once the amount to call changed.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.games.poker import GAME_IDS, PokerRound
from server.games.poker.bots import random_action
from server.games.poker.events import ActionTaken
from server.tables.preactions import PRE_VERBS, PreAction, decide, still_valid
from tests.poker.helpers import random_rules, random_table

EXAMPLES = 100
ROUNDS = 25


def to_call(rnd: PokerRound, seat: int) -> int:
    return max(0, rnd.cb - rnd.bet.get(seat, 0))


def play_with_pre_actions(rnd: PokerRound, rng: random.Random) -> int:
    """Play ``rnd`` to its end; returns how many pre-actions were applied."""
    pres: dict[int, PreAction] = {}
    applied = 0
    steps = 0
    while not rnd.complete:
        steps += 1
        assert steps < 500
        for s in rnd.seats:
            if s in rnd.folded or s in rnd.allin or s == rnd.to_act:
                continue
            if rng.random() < 0.3:
                verb = rng.choice(PRE_VERBS)
                owed = to_call(rnd, s)
                amount = (
                    (owed + rng.choice([0, 0, rnd.rules.blinds[-1]])) if verb == "call" else None
                )
                pres[s] = PreAction(verb, amount, rnd.street, owed)
        la = rnd.legal_actions()
        assert la is not None
        seat = la.seat
        pre = pres.pop(seat, None)
        verb = decide(pre, la) if pre is not None else None
        if pre is not None and verb is not None:
            assert pre.street == rnd.street or pre.verb == "fold_any"
            if pre.verb in ("check", "call"):
                assert to_call(rnd, seat) == pre.to_call, "chosen for another amount"
            before = rnd.stacks[seat]
            events = rnd.act(seat, verb)  # never IllegalAction: a pre-action is legal
            taken = [e for e in events if type(e) is ActionTaken and e.seat == seat]
            assert len(taken) == 1 and taken[0].verb == verb
            moved = taken[0].amount  # what the action moved from the stack
            assert taken[0].stack == before - moved
            if pre.verb == "call":
                assert pre.amount is not None and 0 < moved <= pre.amount
            elif pre.verb in ("check", "check_fold", "fold_any"):
                assert moved == 0
            applied += 1
            if pre.verb == "fold_any" and verb == "check":
                pres[seat] = pre
        else:
            v, amount = random_action(la, rng)
            rnd.act(seat, v, amount)
        for s, p in list(pres.items()):
            if not still_valid(p, rnd.street, to_call(rnd, s)):
                del pres[s]
    return applied


@pytest.mark.parametrize("game", GAME_IDS)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_a_pre_action_never_puts_in_more_than_the_player_chose(game: str, seed: int) -> None:
    rng = random.Random(seed)
    applied = 0
    for _ in range(ROUNDS):
        rules = random_rules(game, rng)
        stacks, designated = random_table(rules, rng)
        rnd = PokerRound(rules, stacks, designated, SeededRandomSource(rng.getrandbits(32)))
        rnd.start()
        applied += play_with_pre_actions(rnd, rng)
    assert applied > 0
