"""Lucky draw baccarat (Queensland Casino Gaming Rule 2010, Schedule 16; seed 004).

Game id ``lucky-draw-baccarat``. Digest: ``../shared/rules/lucky-draw-baccarat.md``.

Theory of operation: each box plays its own hand against the dealer's, counted as in
baccarat (s5). Cards come face up (s16(2)) from a six- to eight-deck shoe (s4, option
``decks``); a scenario fixes the shoe in dealing order (``cards.shoe``), the rest is shuffled
by the injected random source (:func:`~server.games.banked.baccarat.shoe_for`).

1. Every box holds an ``enter`` wager before the deal (s6(1), s7(4)), within the table
   limits (s10(1)).
2. Deal (s17(1)): one card to each box from the dealer's left (box 1 first), one to the
   dealer, a second card to each box.
3. Decisions (s17(2)): each box ``draw`` (places a draw wager equal to the enter wager,
   s6(3), s17(3)(a)) or ``stand`` (s17(3)(b)). Any two-card total may draw (digest A2).
   Terminals decide concurrently (the framework's streets), but the cards keep the rules'
   order: draw cards go out in seat order from the dealer's left, each as soon as every box
   before it has decided, so a box acting in turn gets its card at once (s17(4)) and one
   acting early gets it when the boxes before it have acted. A player who does not act is
   held to the first two cards (s34: ``timeout`` stands); so is one who cannot fund the draw
   wager (``insufficient``).
4. The dealer takes a second card (s17(5)), and a third on a two-card count of 4 or lower
   (s17(6), s3(3)); one extra card at most (s17(7)).
5. Settlement by point count (s6(2), s6(4)): enter 1:1 (s11(1)); draw 1:1 on a three-card
   total of 6 or less, 3:2 on 7, 2:1 on 8, 3:1 on 9, 9:1 on 3-3-3 off suit and 30:1 on 3-3-3
   suited (s11(2), s2; digest A3); a tie returns both wagers (s6(2)(c), s6(4)(c); A5).

Result figures: ``enter`` and ``draw`` per box, integer cents rounded down (general.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.cards import Card, RandomSource, card_str, rank_of, suit_of
from server.games.banked.baccarat import points, shoe_for
from server.games.banked.base import (
    BankedRound,
    CardsDealt,
    Choice,
    Event,
    Forced,
    GameSpec,
    HandShown,
    JackpotState,
    Odds,
    OptionSpec,
    WagerSettled,
    WagerSpec,
    pay,
)

ENTER_ODDS: Odds = (1, 1)  # s11(1)
#: s11(2): the draw wager by the three-card hand.
DRAW_ODDS: dict[str, Odds] = {
    "6 or less": (1, 1),  # s11(2)(a)
    "lucky 7": (3, 2),  # s11(2)(b)
    "lucky 8": (2, 1),  # s11(2)(c)
    "lucky 9": (3, 1),  # s11(2)(d)
    "3-3-3 off suit": (9, 1),  # s11(2)(e)
    "3-3-3 suited": (30, 1),  # s11(2)(f)
}
#: s17(6), s3(3): the dealer draws to 4 and stands on 5.
DEALER_DRAWS_TO = 4

SPEC = GameSpec(
    id="lucky-draw-baccarat",
    title="Lucky draw baccarat",
    rules="Queensland Casino Gaming Rule 2010, Schedule 16",
    wagers=(
        WagerSpec("enter", required=True, doc="s6(1)-(2), s7(4), s10(1): against the dealer"),
        WagerSpec(
            "draw",
            initial=False,
            limits="decision",
            doc="s6(3)-(4), s17(3)(a): equal to the enter wager; buys one card",
        ),
    ),
    verbs=("draw", "stand"),
    options=(
        OptionSpec("decks", 8, choices=(6, 7, 8), doc="s4: six to eight decks"),
        OptionSpec("num_boxes", 7, minimum=1, doc="s3(1): up to 7 boxes"),
    ),
    pay_tables={"schedule_16": {"enter": {"win": ENTER_ODDS}, "draw": DRAW_ODDS}},
)


def draw_hand(cards: Sequence[Card]) -> str:
    """The s11(2) line for a three-card hand (s2 definitions; digest A1, A3)."""
    p = points(cards)
    if all(rank_of(c) == 1 for c in cards):  # rank 1 = the 3s: 3+3+3 = 9
        return "3-3-3 suited" if len({suit_of(c) for c in cards}) == 1 else "3-3-3 off suit"
    if p <= 6:
        return "6 or less"
    return f"lucky {p}"


class LuckyDrawBaccarat(BankedRound):
    """One round of lucky draw baccarat (see the module docstring)."""

    spec = SPEC

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
    ) -> None:
        super().__init__(options, wagers, rng, forced, jackpot)
        self.shoe = shoe_for(self.options["decks"], forced, rng, SPEC.id)
        self.hands: dict[int, list[Card]] = {b: [] for b in self.boxes}
        self.dealer: list[Card] = []
        #: boxes in seat order whose decision is still to be dealt on (s17(2), s17(4))
        self._to_deal: list[int] = []
        self._drew: set[int] = set()

    # ------------------------------------------------------------------ the deal (s17(1))
    def _deal(self) -> list[Event]:
        for box in self.boxes:
            self.hands[box].append(self.shoe.deal())
        self.dealer.append(self.shoe.deal())
        for box in self.boxes:
            self.hands[box].append(self.shoe.deal())
        out: list[Event] = [
            CardsDealt(to="box", box=box, cards=tuple(map(card_str, self.hands[box])))
            for box in self.boxes
        ]
        out.append(CardsDealt(to="dealer", box=None, cards=(card_str(self.dealer[0]),)))
        self._to_deal = list(self.boxes)  # s17(2): from the dealer's left
        return out + self._open_street("draw", self.boxes)

    # ------------------------------------------------------------------ decisions (s17(2)-(4))
    def _choices(self, box: int) -> tuple[Choice, ...]:
        return (Choice("draw", (self.wagers[box]["enter"],)), Choice("stand"))

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        if verb == "draw":
            assert amount is not None
            self._stake(box, "draw", amount)  # s6(3): equal to the enter wager
            self._drew.add(box)
        return self._deal_draw_cards(decided=box)

    def _deal_draw_cards(self, decided: int) -> list[Event]:
        """s17(2), s17(4): in seat order, one card to each drawing box whose decision is in,
        stopping at the first box still to decide (``decided`` has just decided)."""
        out: list[Event] = []
        while self._to_deal and (
            self._to_deal[0] == decided or self._to_deal[0] not in self._awaiting
        ):
            box = self._to_deal.pop(0)
            if box in self._drew:
                self.hands[box].append(self.shoe.deal())
                out.append(
                    CardsDealt(
                        to="box", box=box, cards=(card_str(self.hands[box][2]),), street="draw"
                    )
                )
        return out

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        """s34: the first two cards are the player's hand; no card is drawn."""
        return "stand", None

    def _insufficient_decision(self, box: int) -> tuple[str, int | None]:
        """A player who cannot fund the draw wager (s6(3)) keeps two cards."""
        return "stand", None

    def _street_closed(self) -> list[Event]:
        assert not self._to_deal
        return self._dealer_plays()

    # ------------------------------------------------------------------ the dealer (s17(5)-(7))
    def _dealer_plays(self) -> list[Event]:
        self.dealer.append(self.shoe.deal())  # s17(5)
        if points(self.dealer) <= DEALER_DRAWS_TO:  # s17(6)
            self.dealer.append(self.shoe.deal())
        out: list[Event] = [
            CardsDealt(
                to="dealer", box=None, cards=tuple(map(card_str, self.dealer[1:])), street="dealer"
            )
        ]
        return out + self._finish()

    # ------------------------------------------------------------------ settlement (s6, s11)
    def _settle(self) -> list[Event]:
        d = points(self.dealer)
        self.dealer_status = f"dealer {d}"
        out: list[Event] = [
            HandShown(box=None, cards=tuple(map(card_str, self.dealer)), hand=f"dealer {d}")
        ]
        for box in self.boxes:
            hand = self.hands[box]
            p = points(hand)
            out.append(HandShown(box=box, cards=tuple(map(card_str, hand)), hand=str(p)))
            out += self._settle_wager(box, "enter", p, d, ENTER_ODDS, "1:1 (s11(1))")
            if "draw" in self.stakes[box]:
                line = draw_hand(hand)
                out += self._settle_wager(
                    box,
                    "draw",
                    p,
                    d,
                    DRAW_ODDS[line],
                    f"{line} {DRAW_ODDS[line][0]}:{DRAW_ODDS[line][1]} (s11(2))",
                )
        self.detail["scenario_extra"] = {
            "hands": {
                str(b): {"cards": [card_str(c) for c in h], "points": points(h)}
                for b, h in self.hands.items()
            },
            "dealer_hand": {"cards": [card_str(c) for c in self.dealer], "points": d},
        }
        return out

    def _settle_wager(
        self, box: int, wager: str, p: int, d: int, odds: Odds, why: str
    ) -> list[WagerSettled]:
        """s6(2), s6(4): higher wins, lower loses, equal is a tie (stake returned, A5)."""
        if p > d:
            return [self._win(box, wager, pay(self.stakes[box][wager], odds), why)]
        if p < d:
            return [self._lose(box, wager, f"{p} v dealer {d}")]
        return [self._push(box, wager, "tie (s6(2)(c), s6(4)(c))", "returned")]


ROUNDS: dict[str, type[BankedRound]] = {SPEC.id: LuckyDrawBaccarat}
