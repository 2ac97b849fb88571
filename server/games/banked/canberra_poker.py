"""Canberra Poker (ACT): banked five-card stud, 2004 and 2017 rule profiles.

Game ids ``canberra-poker-2004`` (Casino Control (Canberra Poker) Approval 2004, seed 000)
and ``canberra-poker-2017`` (Casino Control (Poker - Canberra Poker) Approval 2017, seed 002).
Digest: ``../shared/rules/canberra-poker.md``; jackpot arithmetic in
:mod:`server.games.banked.jackpot_regimes.act` (jackpots.md s2, s3).

Theory of operation: every box with an ``ante`` (r 4.1), and optionally the jackpot wager
(``jackpot``: 2004 Boomerang Jackpot r 10.1-10.2, 2017 progressive r 10.1, exactly the
``jackpot_wager`` option and only with an ante), receives five cards and the dealer five, one
of them face up (r 6.2; r 12.4 in automated-shuffling-shoe mode: the "top card"). Each box
then either **bets** exactly twice its ante (r 7.2) or **folds**, losing the ante and the
jackpot wager (r 7.3). Then:

* the dealer plays with "an Ace and King or higher" (r 9.2): any pair or better, or no pair
  holding both an ace and a king (canberra-poker.md A3);
* dealer does not qualify: every ante wins 1:1 (r 9.3) and the bet is returned (A1);
* dealer qualifies: a higher hand wins the ante 1:1 and the bet at the r 8.1 odds, the bet's
  winnings capped at the displayed maximum payout (r 8.2; A2: ``max_payout`` caps the
  winnings, the ante is uncapped); a lower hand loses both (r 9.5); equal hands void both
  (r 9.6);
* then the jackpot, dealer qualification irrelevant (2004 r 10.4; 2017 r 10.5), in addition
  to the ante and bet (2017 r 10.7): a winning jackpot wager is consumed and its figure is the
  prize less the wager (jackpots.md A-J8).

Hands are five cards, all counting, ranked as hold'em's (r 2.6-2.9): :mod:`server.hands`.
Dead Man's Hand (2004 only) is A-A-8-8 with a fifth card neither an ace nor an eight
(dictionary); for the ante and bet it is an ordinary two pair.

An absent or slow player folds (A8, ``timeout``); a player who cannot fund the bet folds too
(``insufficient``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from server.cards import RandomSource, card_str, rank_of
from server.games.banked.base import (
    NOBODY,
    BankedRound,
    CardsDealt,
    Choice,
    DealerDeclared,
    Event,
    Forced,
    GameSpec,
    HandShown,
    InvalidRound,
    JackpotPaid,
    JackpotState,
    JackpotWagerAccepted,
    OptionSpec,
    WagerSettled,
    WagerSpec,
    deal,
    pay,
)
from server.games.banked.jackpot_regimes import act
from server.hands import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
    TWO_PAIR,
    category,
    evaluate5,
    hand_name,
)

_ACE, _KING, _EIGHT = 12, 11, 6

#: r 8.1: the bet pays by the player's hand category (every row "up to maximum payout").
BET_ODDS = {
    "high_card": (1, 1),
    "one_pair": (1, 1),
    "two_pair": (2, 1),
    "three_of_a_kind": (3, 1),
    "straight": (4, 1),
    "flush": (5, 1),
    "full_house": (7, 1),
    "four_of_a_kind": (20, 1),
    "straight_flush": (50, 1),
    "royal_flush": (250, 1),
}
_CATEGORY_KEYS = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
_JACKPOT_CATEGORY = {
    ROYAL_FLUSH: act.ROYAL_FLUSH,
    STRAIGHT_FLUSH: act.STRAIGHT_FLUSH,
    FOUR_OF_A_KIND: act.FOUR_OF_A_KIND,
    FULL_HOUSE: act.FULL_HOUSE,
    FLUSH: act.FLUSH,
}

_WAGERS = (
    WagerSpec("ante", required=True, doc="r 4.1: before the first card, table limits"),
    WagerSpec(
        "jackpot",
        needs="ante",
        limits="jackpot",
        doc="the Boomerang (2004) or progressive (2017) jackpot wager: exactly the amount "
        "shown, only with an ante (r 10.1-10.2, r 3.6)",
    ),
    WagerSpec("bet", initial=False, limits="decision", doc="r 7.2: exactly twice the ante"),
)


def _options(version: int) -> tuple[OptionSpec, ...]:
    opts = [
        OptionSpec(
            "max_payout",
            5_000_000,
            nullable=True,
            minimum=0,
            doc="r 8.1-8.2: the most the bet may win (A2: caps the bet's winnings; "
            "the ante is uncapped); 50,000 is a labelled proposal",
        ),
        OptionSpec(
            "jackpot_wager",
            100,
            nullable=True,
            minimum=1,
            doc="2004 r 10.2 approved Boomerang wager / 2017 r 3.6 Displayed Jackpot "
            "Wager, cents (null: jackpot not offered, 2017 r 4.2)",
        ),
        OptionSpec(
            "prize_pool_rate_bp",
            3000,
            minimum=0,
            doc="share of each jackpot wager credited to the prize pool, basis points; "
            "the rest to the reserve (2004 r 10.5 / 2017 r 10.6; 30% proposal)",
        ),
        OptionSpec(
            "jackpot_seed",
            act.MINIMUM_SEED,
            minimum=act.MINIMUM_SEED,
            doc="the prize pool's reset floor, cents, at least the $10,000 RF minimum "
            "(canberra-poker.md A4; jackpots.md s5.4)",
        ),
        OptionSpec(
            "fixed_prize_source",
            "reserve",
            str,
            choices=("reserve", "house"),
            doc="who pays the fixed jackpot prizes (jackpots.md s5.3)",
        ),
        OptionSpec(
            "deal_mode",
            "automated_shuffling_shoe",
            str,
            choices=("automated_shuffling_shoe", "shoe"),
            doc="r 12 (the dealer's top card is face up, r 12.4) or r 6 (the fifth, "
            "r 6.2); a fresh 52-card deck every round either way",
        ),
    ]
    if version == 2004:
        opts.append(
            OptionSpec(
                "act2004_winning_wager",
                "keep",
                str,
                choices=("keep", "return"),
                doc="2004 r 10.5 / jackpots.md A-J4: a winning Boomerang wager is kept by the "
                "operator (default) or returned",
            )
        )
    return tuple(opts)


def _spec(version: int) -> GameSpec:
    return GameSpec(
        id=f"canberra-poker-{version}",
        title=f"Canberra Poker ({version})",
        rules=(
            "Casino Control (Canberra Poker) Approval 2004 (No 1), NI2004-492"
            if version == 2004
            else "Casino Control (Poker - Canberra Poker) Approval 2017 (No 1), NI2017-193"
        ),
        wagers=_WAGERS,
        verbs=("bet", "fold"),
        options=_options(version),
        pay_tables={"r8.1": {"bet": BET_ODDS}},
        box_cards=5,
        dealer_cards=5,
        pooled_jackpot=True,
        # table facts (banked): only the 2017 jackpot is linked (jackpots.md 5.5); after an
        # outage its wagers reopen when a manager approves (2017 r 14.5)
        jackpot_regime="act2017" if version == 2017 else None,
        jackpot_reopen="approval" if version == 2017 else "auto",
    )


def dealer_qualifies(value: int, five: list[int]) -> bool:
    """r 9.2 (A3): a pair or better, or a no-pair hand holding both an ace and a king."""
    if category(value) > HIGH_CARD:
        return True
    ranks = {rank_of(c) for c in five}
    return _ACE in ranks and _KING in ranks


def is_dead_mans_hand(five: list[int]) -> bool:
    """2004 dictionary: A-A-8-8 and a fifth card that is neither an ace nor an eight."""
    counts = Counter(rank_of(c) for c in five)
    return counts.get(_ACE) == 2 and counts.get(_EIGHT) == 2


def jackpot_category(value: int, five: list[int], version: int) -> str | None:
    """The jackpot hand: 2004 r 11.1 (with Dead Man's Hand), 2017 r 10.7 (without)."""
    cat = category(value)
    if cat in _JACKPOT_CATEGORY:
        return _JACKPOT_CATEGORY[cat]
    if version == 2004 and cat == TWO_PAIR and is_dead_mans_hand(five):
        return act.DEAD_MANS_HAND
    return None


class CanberraPoker(BankedRound):
    """One round of Canberra Poker (see the module docstring); ``version`` picks the profile."""

    version: ClassVar[int]

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
    ) -> None:
        super().__init__(options, wagers, rng, forced, jackpot)
        o = self.options
        if self.jackpot_before is None:
            self.jackpot_before = JackpotState(o["jackpot_seed"], 0)
        self.jackpot_after = self.jackpot_before
        self.config = act.ActJackpotConfig(
            wager=o["jackpot_wager"] or 0,
            prize_rate_bp=o["prize_pool_rate_bp"],
            seed=o["jackpot_seed"],
            fixed_prize_source=o["fixed_prize_source"],
            winning_wager=o.get("act2004_winning_wager", "keep"),
        )
        if o["prize_pool_rate_bp"] > 10_000:
            raise InvalidRound("option prize_pool_rate_bp must be at most 10000")
        self.hands: dict[int, list[int]] = {}
        self.dealer: list[int] = []
        self.folded: set[int] = set()
        #: (pool, reserve) after this round's coin-in (2017) or at commencement (2004: J0)
        self._pool_at_start = (self.jackpot_before.pool, self.jackpot_before.reserve)

    @property
    def jackpot_boxes(self) -> list[int]:
        return [b for b, ws in self.wagers.items() if "jackpot" in ws]

    # ------------------------------------------------------------------ deal
    def _deal(self) -> list[Event]:
        out: list[Event] = []
        jp = self.jackpot_boxes
        for box in jp:  # 2017 r 10.2: the explicit acceptance before the first card
            out.append(JackpotWagerAccepted(box=box, amount=self.wagers[box]["jackpot"]))
        if self.version == 2017 and jp:
            pool, reserve = act.coin_in_2017(self.config, *self._pool_at_start, len(jp))
            self._pool_at_start = (pool, reserve)
            self.jackpot_after = JackpotState(pool, reserve)
        layout = [("box", b, 5) for b in self.boxes] + [("dealer", None, 5)]
        dealt = deal(self.spec.deck, layout, self.forced, self.rng)
        for box in self.boxes:
            self.hands[box] = dealt[("box", box)]
            out.append(
                CardsDealt(
                    to="box", box=box, cards=tuple(map(card_str, self.hands[box])), visible_to=box
                )
            )
        self.dealer = dealt[("dealer", None)]
        up = self._upcard_index()
        for i, c in enumerate(self.dealer):
            out.append(
                CardsDealt(
                    to="dealer",
                    box=None,
                    cards=(card_str(c),),
                    **({} if i == up else {"visible_to": NOBODY}),
                )
            )
        out += self._open_street("decision", self.boxes)
        return out

    def _upcard_index(self) -> int:
        """r 6.2: the fifth card; r 12.4 (automated shuffling shoe): the top card."""
        return 0 if self.options["deal_mode"] == "automated_shuffling_shoe" else 4

    # ------------------------------------------------------------------ decisions
    def _choices(self, box: int) -> tuple[Choice, ...]:
        return (Choice("bet", (2 * self.wagers[box]["ante"],)), Choice("fold"))

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        if verb == "bet":
            assert amount is not None
            self._stake(box, "bet", amount)
        else:
            self.folded.add(box)
        return []

    def _street_closed(self) -> list[Event]:
        return self._finish()

    # ------------------------------------------------------------------ settlement
    def _settle(self) -> list[Event]:
        out: list[Event] = []
        d_value = evaluate5(self.dealer)
        qualifies = dealer_qualifies(d_value, self.dealer)
        self.dealer_status = "qualifies" if qualifies else "does not qualify"
        out.append(
            HandShown(box=None, cards=tuple(map(card_str, self.dealer)), hand=hand_name(d_value))
        )
        out.append(DealerDeclared(status=self.dealer_status, hand=hand_name(d_value)))
        values = {b: evaluate5(h) for b, h in self.hands.items()}
        # Ante and bet first (r 9), right to left; the jackpot after (2017 r 10.7).
        for box in sorted(self.boxes, reverse=True):
            if box in self.folded:
                out.append(self._lose(box, "ante", "fold (r 7.3)"))
                continue
            out.append(
                HandShown(
                    box=box,
                    cards=tuple(map(card_str, self.hands[box])),
                    hand=hand_name(values[box]),
                )
            )
            out += self._settle_ante_bet(box, values[box], d_value, qualifies)
        out += self._settle_jackpot(values)
        return out

    def _settle_ante_bet(
        self, box: int, value: int, d_value: int, qualifies: bool
    ) -> list[WagerSettled]:
        if not qualifies:
            return [
                self._win(box, "ante", self.stakes[box]["ante"], "dealer does not qualify"),
                self._push(box, "bet", "dealer does not qualify (A1)", "returned"),
            ]
        if value > d_value:
            odds = BET_ODDS[_CATEGORY_KEYS[category(value)]]
            won = pay(self.stakes[box]["bet"], odds)
            cap = self.options["max_payout"]
            detail = f"{odds[0]}:{odds[1]}"
            if cap is not None and won > cap:
                won, detail = cap, f"{detail} capped at {cap} (r 8.1-8.2)"
            return [
                self._win(box, "ante", self.stakes[box]["ante"], "r 9.4"),
                self._win(box, "bet", won, detail),
            ]
        if value < d_value:
            return [self._lose(box, "ante", "r 9.5"), self._lose(box, "bet", "r 9.5")]
        return [
            self._push(box, "ante", "equal hands void (r 9.6)"),
            self._push(box, "bet", "equal hands void (r 9.6)"),
        ]

    def _settle_jackpot(self, values: dict[int, int]) -> list[Event]:
        boxes = self.jackpot_boxes
        if not boxes:
            return []
        hands: dict[int, str | None] = {}
        for box in boxes:
            hands[box] = (
                None
                if box in self.folded
                else jackpot_category(values[box], self.hands[box], self.version)
            )
        pool, reserve = self._pool_at_start
        if self.version == 2004:
            s = act.settle_2004(self.config, pool, reserve, hands)
        else:
            s = act.settle_2017(self.config, pool, reserve, hands)
        out: list[Event] = []
        for box in act.payout_order(boxes):
            wager = self.stakes[box]["jackpot"]
            prize = s.prizes.get(box, 0)
            returned = s.returned.get(box, 0)
            net = prize - wager + returned
            self._record(box, "jackpot", net)
            self._transfer(f"box:{box}", "house", wager - returned)
            self._transfer("house", f"box:{box}", prize)
            if box in s.prizes:
                out.append(JackpotPaid(box=box, amount=prize, hand=str(hands[box])))
            outcome = "win" if box in s.prizes else "lose"
            detail = "fold (r 7.3)" if box in self.folded else str(hands[box] or "no prize")
            out.append(
                WagerSettled(box=box, wager="jackpot", net=net, outcome=outcome, detail=detail)
            )
        # Pool movements are booked against the house (it holds the jackpot wagers), so the
        # ledger balances: pool/reserve nets are their changes over the round.
        before = self.jackpot_before
        assert before is not None
        self._transfer("house", "pool", s.pool - before.pool)
        self._transfer("house", "reserve", s.reserve - before.reserve)
        self.jackpot_after = JackpotState(s.pool, s.reserve)
        self.detail["jackpot"] = {
            "j0": pool if self.version == 2004 else None,
            "pool_at_commit": pool,
            "prizes": {str(b): p for b, p in sorted(s.prizes.items())},
            "house_funded": s.house_funded,
            "kept": s.kept,
        }
        return out


class CanberraPoker2004(CanberraPoker):
    """Canberra Poker under the 2004 Approval (Boomerang Jackpot)."""

    spec = _spec(2004)
    version = 2004


class CanberraPoker2017(CanberraPoker):
    """Canberra Poker under the 2017 Approval (progressive jackpot)."""

    spec = _spec(2017)
    version = 2017


ROUNDS: dict[str, type[BankedRound]] = {
    CanberraPoker2004.spec.id: CanberraPoker2004,
    CanberraPoker2017.spec.id: CanberraPoker2017,
}
