"""Caribbean stud poker (QLD Casino Gaming Rule 2010, Schedule 3; rules/caribbean-stud.md).

Game id ``caribbean-stud``. Wagers: ``ante`` (required, s13(1)(a)), ``jackpot`` (optional,
exactly the ``jackpot_wager`` option, s13(1)(b), s14(2)), ``bet`` (exactly 2 x ante, placed by
the ``bet`` decision, s16(3)-(4)). Verbs: ``bet``, ``fold`` (s16), plus ``timeout`` (fold,
digest A9) and ``insufficient`` (cannot fund the bet: fold).

Round: five cards to each box then five to the dealer (method (b), s15(2)(b)); one dealer
card face up (``upcard_index``, default the fifth, A2). One street, ``decision``. Then:

* the dealer qualifies with any pair or better, or no pair holding an ace and a king (s4);
* settlement from the dealer's right, descending box (s19(2)): folded hands lose the ante
  and the jackpot wager (s16(5), s3); dealer not qualifying: ante 1:1, bet returned (s18);
  otherwise the higher hand wins, ante 1:1 and bet at the s22(1) pay table, the bet's
  winnings capped at ``max_payout`` (s22(2), A4), equal hands stand off (s21(5)-(6));
* then the jackpot (s23(3)): every jackpot wager not closed by a fold with a winning
  jackpot hand (s5) is paid, whether or not the dealer qualified (s23(1)-(2)), by the QLD
  regime of :mod:`server.games.banked.jackpot_regimes.qld`. The wager is consumed (A6, jackpots.md
  A-J8): its figure is prize less wager.

Options beyond the common ones (caribbean-stud.md §11): ``jackpot_kind``, ``jackpot_seed``,
``multi_winner_mode``, ``sharing_sign_displayed``, ``dead_mans_hand_enabled``,
``apply_minimums_when_shared``, ``set_prize_sf``, ``set_prize_rf``, ``prize_rate_bp``,
``reserve_rate_bp``, ``bet_cap_includes_stake``, ``upcard_index``.
"""

from __future__ import annotations

from server.cards import card_str
from server.games.banked.base import (
    BankedRound,
    Choice,
    DealerDeclared,
    Event,
    GameSpec,
    HandShown,
    JackpotPaid,
    JackpotState,
    JackpotWagerAccepted,
    OptionSpec,
    WagerSpec,
    pay,
)
from server.games.banked.jackpot_regimes import qld
from server.hands import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
    TWO_PAIR,
    category,
    category_name,
    evaluate5,
    hand_name,
)

ACE, KING, EIGHT = 12, 11, 6

#: s22(1): the bet pays on the player's hand category.
BET_ODDS = {
    "high card": (1, 1),
    "one pair": (1, 1),
    "two pair": (2, 1),
    "three of a kind": (3, 1),
    "straight": (4, 1),
    "flush": (5, 1),
    "full house": (7, 1),
    "four of a kind": (20, 1),
    "straight flush": (50, 1),
    "royal flush": (250, 1),
}

SPEC = GameSpec(
    id="caribbean-stud",
    title="Caribbean stud poker",
    rules="QLD Casino Gaming Rule 2010, Schedule 3",
    wagers=(
        WagerSpec("ante", required=True, doc="s13(1)(a)"),
        WagerSpec(
            "jackpot",
            needs="ante",
            limits="jackpot",
            doc="s13(1)(b), s14(2): one chip of the jackpot wager denomination",
        ),
        WagerSpec("bet", initial=False, limits="decision", doc="exactly 2 x ante, s16(3)-(4)"),
    ),
    verbs=("bet", "fold"),
    options=(
        OptionSpec(
            "max_payout",
            5_000_000,
            nullable=True,
            minimum=0,
            doc="maximum payment for a bet wager (s2, s22(2)); caps the winnings (A4)",
        ),
        OptionSpec(
            "jackpot_wager",
            100,
            nullable=True,
            minimum=1,
            doc="the jackpot wager denomination (s14(2)); null: no jackpot offered",
        ),
        OptionSpec("jackpot_kind", "progressive", str, choices=("progressive", "set"), doc="s24"),
        OptionSpec(
            "jackpot_seed",
            1_000_000,
            minimum=0,
            doc="the jackpot prize's reset value (jackpots.md §5.4)",
        ),
        OptionSpec(
            "multi_winner_mode",
            "s24_shared",
            str,
            choices=qld.MODES,
            doc="several SF/RF on one table (s25(2); jackpots.md §4.3, A-J5)",
        ),
        OptionSpec("sharing_sign_displayed", True, bool, doc="s25(3)"),
        OptionSpec("dead_mans_hand_enabled", False, bool, doc="s5(2)"),
        OptionSpec(
            "apply_minimums_when_shared",
            False,
            bool,
            doc="sequential_shared only: raise shares to 1,000 / 10,000",
        ),
        OptionSpec("set_prize_sf", 250_000, minimum=0, doc="set jackpot SF prize (s24)"),
        OptionSpec("set_prize_rf", 2_500_000, minimum=0, doc="set jackpot RF prize (s24)"),
        OptionSpec("prize_rate_bp", 2500, minimum=0, doc="coin-in to the jackpot prize, bp"),
        OptionSpec("reserve_rate_bp", 500, minimum=0, doc="coin-in to the reserve, bp"),
        OptionSpec("bet_cap_includes_stake", False, bool, doc="A4 alternative reading"),
        OptionSpec("upcard_index", 5, minimum=1, doc="which dealer card is face up (A2)"),
    ),
    pay_tables={"standard": {"bet": BET_ODDS}},
    box_cards=5,
    dealer_cards=5,
    pooled_jackpot=True,
    jackpot_regime="qld",  # table facts (banked): a linked progressive (QLD Sch 3)
)


def dealer_qualifies(value: int) -> bool:
    """s4: any pair or better, or a no-pair hand holding both an ace and a king."""
    if category(value) != HIGH_CARD:
        return True
    return (value >> 16) & 0xF == ACE and (value >> 12) & 0xF == KING


def jackpot_hand(value: int) -> str | None:
    """s5: the jackpot category of a five-card hand (dead man's hand: A-A-8-8-x, s2)."""
    cat = category(value)
    if cat == ROYAL_FLUSH:
        return qld.ROYAL_FLUSH
    if cat == STRAIGHT_FLUSH:
        return qld.STRAIGHT_FLUSH
    if cat == FOUR_OF_A_KIND:
        return qld.FOUR_OF_A_KIND
    if cat == FULL_HOUSE:
        return qld.FULL_HOUSE
    if cat == FLUSH:
        return qld.FLUSH
    if cat == TWO_PAIR and (value >> 16) & 0xF == ACE and (value >> 8) & 0xF == EIGHT:
        return qld.DMH
    return None


class CaribbeanStud(BankedRound):
    """One round of Caribbean stud (see the module docstring)."""

    spec = SPEC

    def _jackpot_config(self) -> qld.QldJackpotConfig:
        o = self.options
        return qld.QldJackpotConfig(
            kind=o["jackpot_kind"],
            wager=o["jackpot_wager"] or 0,
            prize_rate_bp=o["prize_rate_bp"],
            reserve_rate_bp=o["reserve_rate_bp"],
            seed=o["jackpot_seed"],
            multi_winner_mode=o["multi_winner_mode"],
            sharing_sign_displayed=o["sharing_sign_displayed"],
            apply_minimums_when_shared=o["apply_minimums_when_shared"],
            dead_mans_hand_enabled=o["dead_mans_hand_enabled"],
            set_prize_sf=o["set_prize_sf"],
            set_prize_rf=o["set_prize_rf"],
        )

    def _deal(self) -> list[Event]:
        self.folded: set[int] = set()
        self.jp = self._jackpot_config()
        out: list[Event] = self._coin_in()
        layout = [("box", b, 5) for b in self.boxes] + [("dealer", None, 5)]
        up = min(self.options["upcard_index"], 5) - 1
        out += self._deal_layout(layout, dealer_up=(up,))
        self.values = {b: evaluate5(self.cards[("box", b)]) for b in self.boxes}
        self.dealer_value = evaluate5(self.cards[("dealer", None)])
        return out + self._open_street("decision", self.boxes)

    def _coin_in(self) -> list[Event]:
        """Jackpot wagers accepted before the deal (s14(2)-(3)); contributions (§4.1 step 1)."""
        boxes = [b for b in self.boxes if "jackpot" in self.wagers[b]]
        out: list[Event] = [
            JackpotWagerAccepted(box=b, amount=self.wagers[b]["jackpot"], visible_to=b)
            for b in boxes
        ]
        if not boxes:
            return out
        before = self.jackpot_before
        if before is None and self.jp.kind == "progressive":
            before = self.jackpot_before = JackpotState(self.jp.seed, 0)
        c = qld.coin_in(1, self.jp)
        for b in boxes:
            self._record(b, "jackpot", -self.wagers[b]["jackpot"])
            self._transfer(f"box:{b}", "pool", c.prize)
            self._transfer(f"box:{b}", "reserve", c.reserve)
            self._transfer(f"box:{b}", "house", c.operator)
        if before is not None and self.jp.kind == "progressive":
            self.jackpot_after = JackpotState(
                before.pool + c.prize * len(boxes), before.reserve + c.reserve * len(boxes)
            )
        return out

    def _choices(self, box: int) -> tuple[Choice, ...]:
        return (Choice("bet", (2 * self.wagers[box]["ante"],)), Choice("fold"))

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        if verb == "fold":
            self.folded.add(box)  # s16(5): the dealer closes the hand
        else:
            assert amount is not None
            self._stake(box, "bet", amount)
        return []

    def _street_closed(self) -> list[Event]:
        return self._finish()

    def _bet_winnings(self, box: int) -> int:
        stake = self.stakes[box]["bet"]
        win = pay(stake, BET_ODDS[category_name(self.values[box])])
        cap = self.options["max_payout"]
        if cap is not None:
            win = min(win, cap - stake if self.options["bet_cap_includes_stake"] else cap)
        return max(win, 0)

    def _settle(self) -> list[Event]:
        dealer = self.cards[("dealer", None)]
        qualifies = dealer_qualifies(self.dealer_value)
        self.dealer_status = "qualifies" if qualifies else "does not qualify"
        out: list[Event] = [
            HandShown(
                box=None, cards=tuple(map(card_str, dealer)), hand=hand_name(self.dealer_value)
            ),
            DealerDeclared(status=self.dealer_status, hand=hand_name(self.dealer_value)),
        ]
        for b in sorted(self.boxes, reverse=True):  # s19(2): from the dealer's right
            if b in self.folded:
                out.append(self._lose(b, "ante", "folded (s16(5))"))
                continue
            out.append(
                HandShown(
                    box=b,
                    cards=tuple(map(card_str, self.cards[("box", b)])),
                    hand=hand_name(self.values[b]),
                )
            )
            if not qualifies:
                out.append(self._win(b, "ante", self.stakes[b]["ante"], "s18(2)(a)"))
                out.append(self._push(b, "bet", "s18(3)", outcome="returned"))
            elif self.values[b] > self.dealer_value:
                out.append(self._win(b, "ante", self.stakes[b]["ante"], "s21(2)"))
                out.append(self._win(b, "bet", self._bet_winnings(b), "s22"))
            elif self.values[b] < self.dealer_value:
                out.append(self._lose(b, "ante", "s21(4)"))
                out.append(self._lose(b, "bet", "s21(4)"))
            else:
                out.append(self._push(b, "ante", "stand-off s21(5)"))
                out.append(self._push(b, "bet", "stand-off s21(5)"))
        return out + self._settle_jackpot()

    def _settle_jackpot(self) -> list[Event]:
        """s23(3): after every ante and bet; s23(1)-(2): whether or not the dealer qualifies."""
        hands = {
            b: jackpot_hand(self.values[b])
            for b in self.boxes
            if "jackpot" in self.wagers[b] and b not in self.folded
        }
        if not any(qld.is_jackpot_hand(h, self.jp) for h in hands.values()):
            if self.jackpot_after is not None and self.jp.kind == "progressive":
                a = qld.award({}, self.jackpot_after.pool, self.jackpot_after.reserve, self.jp)
                self._book_topup(a)
                self.jackpot_after = JackpotState(a.pool, a.reserve)
            return []
        live = self.jackpot_after or JackpotState(0, 0)
        a = qld.award({b: h for b, h in hands.items() if h}, live.pool, live.reserve, self.jp)
        out: list[Event] = []
        for b in sorted(a.prizes, reverse=True):
            self._record(b, "jackpot", a.prizes[b])
            self._transfer("house", f"box:{b}", a.prizes[b])
            out.append(JackpotPaid(box=b, amount=a.prizes[b], hand=a.hands[b]))
        self._transfer("pool", "house", a.from_pool)
        self._book_topup(a)
        if self.jp.kind == "progressive":
            self.jackpot_after = JackpotState(a.pool, a.reserve)
        self.detail["jackpot_house_funded"] = a.house_funded
        return out

    def _book_topup(self, a: qld.Award) -> None:
        self._transfer("reserve", "pool", a.topup_reserve)
        self._transfer("house", "pool", a.house_topup)


ROUNDS = {"caribbean-stud": CaribbeanStud}
