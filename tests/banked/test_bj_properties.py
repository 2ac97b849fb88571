"""Property tests over random blackjack-family rounds (QLD Sch 2, 9, 15, 17): per variant,
random tables (boxes, main and side wagers, other players on a box), one shoe played round
after round, and random decisions (every legal verb and amount, offers answered or left,
timeouts). 100 examples x 100 rounds per variant: 10,000 rounds each.

For every round:

* money is conserved: every party's ledger movement equals its reported figures, and the
  house's equals minus the players' (the framework's transfers);
* no card is dealt twice: each card comes from a shoe position never dealt before, and after
  the round the undealt cards and the discards are exactly the shoe's composition;
* the cutting card is respected: the shoe is reshuffled after a round in which it came out
  and not otherwise (s19; Spanish also before a round it would open, SP s19(2));
* every hand total agrees with an independent oracle (every ace assignment enumerated, the
  aces of a double held at 1 per schedule), busts agree, and the dealer drew exactly by the
  schedule's rule;
* a busted hand loses main and double (s6(2)(f)); every stake on an unsplit hand against a
  dealer without blackjack agrees with an independent settlement (BJ s6(2), SW s6(3), CH
  s27).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import Card, SeededRandomSource, card_str
from server.games.banked.blackjack import ROUNDS, BlackjackRound, BlackjackShoe
from server.games.banked.blackjack.engine import RangeChoice
from server.games.banked.blackjack.rules import VARIANTS

ROUNDS_PER_EXAMPLE = 100
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SIDE = {
    "blackjack": ("super_sevens", "bonus_blackjack", "perfect_pairs"),
    "spanish-blackjack": ("perfect_pairs",),
    "blackjack-switch": ("super_match",),
    "blackjack-challenge": ("any_pair",),
}


# ------------------------------------------------------------------------- the oracles


def rank(c: str) -> str:
    return c[0]


def points(c: str) -> list[int]:
    """Face value; an ace may be 1 or 11."""
    r = rank(c)
    if r == "A":
        return [1, 11]
    if r in "TJQK":
        return [10]
    return [int(r)]


def oracle_total(cards: list[str], held_at_one: int = 0) -> int:
    """Best total: every assignment of the aces, the highest not over 21, else the lowest;
    aces among the first ``held_at_one`` cards count 1."""
    options = [
        [1] if i < held_at_one and rank(c) == "A" else points(c) for i, c in enumerate(cards)
    ]
    sums = {sum(p) for p in itertools.product(*options)}
    under = [s for s in sums if s <= 21]
    return max(under) if under else min(sums)


def oracle_soft(cards: list[str]) -> bool:
    hard = sum(points(c)[0] for c in cards)
    return any(rank(c) == "A" for c in cards) and hard + 10 <= 21


def dealer_should_draw(game: str, cards: list[str]) -> bool:
    t = oracle_total(cards)
    soft17 = t == 17 and oracle_soft(cards)
    return t < 17 or (soft17 and game in ("spanish-blackjack", "blackjack-switch"))


def natural(cards: list[str]) -> bool:
    return (
        len(cards) == 2
        and sorted(rank(c) in "TJQK" for c in cards) == [False, True]
        and any(rank(c) == "A" for c in cards)
    )


def expected_main(game: str, player: int, dealer: int, stake: int) -> int:
    """The main wager on a standing hand against a dealer without blackjack."""
    if game == "blackjack-switch":
        if dealer > 22:
            return stake
        if dealer == 22:
            return 0
    elif dealer > 21:
        return stake
    if player > dealer:
        return stake
    if player == dealer and game != "blackjack-challenge":
        return 0
    return -stake


# ------------------------------------------------------------------------- the audit shoe


class AuditShoe(BlackjackShoe):
    """Records every position dealt: a card never comes from one position twice."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.positions: set[tuple[int, int]] = set()
        self.generation = 0
        self.behind_cut = False

    def reshuffle(self) -> None:
        super().reshuffle()
        self.generation += 1

    def _refill_from_discards(self) -> None:
        super()._refill_from_discards()
        self.generation += 1

    def deal(self) -> Card:
        if self.pos < len(self.cards):
            key = (self.generation, self.pos)
            assert key not in self.positions, "a shoe position dealt twice"
            self.positions.add(key)
            if self.pos >= self.cut_at:
                self.behind_cut = True
        return super().deal()


# ------------------------------------------------------------------------- random play


@st.composite
def tables(draw: Any, game: str) -> tuple[dict, dict, int, int, list[Card]]:
    switch = game == "blackjack-switch"
    decks = draw(st.sampled_from([6, 8] if game != "blackjack-switch" else [6, 7, 8]))
    boxes = draw(st.sets(st.integers(1, 5 if switch else 7), min_size=1, max_size=4))
    wagers: dict[str, Any] = {}
    for b in sorted(boxes):
        ws: dict[str, Any] = {
            "main": draw(st.integers(1, 40)) * 100 + draw(st.sampled_from([0, 50]))
        }
        for side in SIDE[game]:
            if draw(st.booleans()):
                ws[side] = 100 if side == "bonus_blackjack" else draw(st.integers(1, 20)) * 100
        n_others = draw(st.integers(0, 2))
        others = {}
        for i in range(n_others):
            if switch:
                others[f"P{b}{i}"] = {"super_match": draw(st.integers(1, 10)) * 100}
            else:
                ow: dict[str, int] = {"main": draw(st.integers(1, 40)) * 100}
                if draw(st.booleans()) and game != "blackjack":
                    ow[SIDE[game][0]] = 500
                others[f"P{b}{i}"] = ow
        if others:
            ws["others"] = others
        wagers[str(b)] = ws
    options = {"minimum": 100, "maximum": 1_000_000, "decks": decks}
    cut = draw(st.integers(10, 80))
    # a stacked start: random cards (repeats allowed up to the decks) before the shuffled rest
    deck = VARIANTS[game].deck
    prefix = draw(st.lists(st.sampled_from(deck), max_size=24))
    counts: Counter[Card] = Counter()
    stacked = []
    for c in prefix:
        if counts[c] < decks:
            counts[c] += 1
            stacked.append(c)
    return options, wagers, cut, draw(st.integers(0, 2**32)), stacked


def pick_amount(choice: Any, rng: random.Random) -> int | None:
    if isinstance(choice, RangeChoice):
        if choice.check:  # insurance: half the wager, or a whole-dollar win
            return max(1, int(choice.check) // 2)
        return rng.randint(choice.lo, choice.hi)
    return rng.choice(choice.amounts) if choice.amounts else None


def play_randomly(r: BlackjackRound, rng: random.Random) -> None:
    steps = 0
    while not r.complete:
        steps += 1
        assert steps < 500, "the round does not end"
        pending = r.pending()
        acting = [d for d in pending if d.street.startswith("hand ")]
        assert len(acting) <= 1, "one hand to act at a time"
        offers = [d for d in pending if not d.street.startswith("hand ")]
        if not pending:
            raise AssertionError("a waiting round with nothing pending")
        roll = rng.random()
        if offers and roll < 0.5:
            d = rng.choice(offers)
            choice = rng.choice(d.choices)
            parts = d.street.split(" ")
            quals = {"player": parts[1]} if len(parts) > 1 else None
            r.decide(d.box, choice.verb, pick_amount(choice, rng), quals)
        elif acting and roll < 0.93:
            d = acting[0]
            choice = rng.choice(d.choices)
            r.decide(d.box, choice.verb, pick_amount(choice, rng))
        elif acting:
            r.decide(acting[0].box, rng.choice(["timeout", "insufficient"]))
        else:
            r.close_offers()


# ------------------------------------------------------------------------- the checks


def check_round(game: str, r: BlackjackRound, shoe: AuditShoe) -> None:
    res = r.detail["scenario_extra"]["boxes"]
    players = 0
    for bp in r.box_play.values():
        for p, _ws in bp.wagers.items():
            fig = res[str(bp.box)] if p is None else res[str(bp.box)]["others"][p]
            party = f"box:{bp.box}" if p is None else f"box:{bp.box}:{p}"
            figures = {k: v for k, v in fig.items() if k not in ("hands", "net", "others")}
            assert r.party_net(party) == sum(figures.values()) == fig["net"]
            if "hands" in fig:
                assert sum(fig["hands"]) == fig.get("main", 0)
            players += fig["net"]
    assert r.party_net("house") == -players
    dealer = [card_str(c) for c in r.dealer]
    held = [card_str(c) for h in r._hands() for c in h.cards] + dealer
    dealt = [c for e in r.events if e.TYPE == "cards_dealt" for c in e.cards]
    assert Counter(held) == Counter(dealt)
    # the dealer: second card always; draws exactly by the rule while a hand is live
    assert len(dealer) >= 2
    for i in range(2, len(dealer)):
        assert dealer_should_draw(game, dealer[:i])
    d = oracle_total(dealer)
    if len(dealer) > 2:
        assert not dealer_should_draw(game, dealer)
    elif dealer_should_draw(game, dealer) and not natural(dealer):
        # s27(2): no card beyond the second only when no hand needed the dealer's total
        for h in r._hands():
            open_stakes = [s for s in h.stakes.values() if not (s.surrendered or s.rescued)]
            assert h.status in ("bust", "paid", "blackjack") or not open_stakes
    # every hand's total against the oracle
    for h in r._hands():
        cards = [card_str(c) for c in h.cards]
        held_at_one = 0
        if h.doubled and game in ("blackjack", "blackjack-switch"):
            held_at_one = 2
        elif h.doubled and game == "spanish-blackjack":
            held_at_one = len(cards) - 1
        t = oracle_total(cards, held_at_one)
        assert r._total(h)[0] == t, (cards, held_at_one)
        assert (h.status == "bust") == (t > 21)
        for stake in h.stakes.values():
            money = stake.main + stake.double
            if h.status == "bust":
                assert stake.net == -money, (cards, stake)  # s6(2)(f): main and double
            elif (
                not h.split
                and h.status == "play"
                and not natural(dealer)
                and not (stake.surrendered or stake.rescued)
                and t < 21
            ):
                assert stake.net == expected_main(game, t, d, money), (cards, dealer, stake)


def run_game(game: str, case: tuple[dict, dict, int, int, list[Card]]) -> None:
    options, wagers, cut, seed, stacked = case
    cls = ROUNDS[game]
    variant = VARIANTS[game]
    rng = random.Random(seed)
    shoe = AuditShoe(
        variant.deck, options["decks"], SeededRandomSource(seed), cut_from_back=cut, forced=stacked
    )
    composition = Counter(shoe.composition)
    for _ in range(ROUNDS_PER_EXAMPLE):
        generation = shoe.generation
        spanish_first = variant.reshuffle_before_round and shoe.pos == shoe.cut_at
        shoe.behind_cut = False
        r = cls(options, wagers, SeededRandomSource(rng.randrange(2**32)), shoe=shoe)
        r.start()
        play_randomly(r, rng)
        check_round(game, r, shoe)
        assert not shoe.on_table
        left = Counter(shoe.cards[shoe.pos :]) + Counter(shoe.discards)
        assert left == composition, "a card lost or duplicated"
        refilled = shoe.generation - generation - (1 if spanish_first else 0)
        if shoe.behind_cut:
            assert r.detail["reshuffled"] and shoe.pos == 0
        elif refilled == 0:
            assert not r.detail["reshuffled"]


@SETTINGS
@given(tables("blackjack"))
def test_blackjack_random_rounds(case: Any) -> None:
    run_game("blackjack", case)


@SETTINGS
@given(tables("spanish-blackjack"))
def test_spanish_blackjack_random_rounds(case: Any) -> None:
    run_game("spanish-blackjack", case)


@SETTINGS
@given(tables("blackjack-switch"))
def test_blackjack_switch_random_rounds(case: Any) -> None:
    run_game("blackjack-switch", case)


@SETTINGS
@given(tables("blackjack-challenge"))
def test_blackjack_challenge_random_rounds(case: Any) -> None:
    run_game("blackjack-challenge", case)
