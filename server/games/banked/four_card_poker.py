"""Four Card Poker (NSW rules, seed 003): best four of five against the dealer's best of six.

Game id ``four-card-poker``. Digest: ``../shared/rules/four-card-poker.md``.

Theory of operation: a box holds an ``ante``, an ``aces_up`` wager, or both (r 5.2; Aces Up
may be placed with or without an ante). Every such box receives five cards face down; the
dealer receives six, the sixth face up (r 7.1-7.4). Each box then decides (r 8.1):

* ``fold``: the dealer collects the ante **and** the Aces Up wager (r 8.4);
* ``play``: with an ante, the box places a Play wager of one to three times its ante (r 8.5;
  ``play_wager_mode`` ``range`` (default, four-card-poker.md A2): any amount in that range
  that is a multiple of ``bet_unit`` or of the ante; ``integer_multiple``: 1x, 2x or 3x).
  An Aces-Up-only box plays without a Play wager (r 5.3, A4);
* ``timeout`` (r 12.13) and ``insufficient`` (cannot place a Play wager at least equal to the
  ante, r 12.11): the ante is void and returned; an Aces Up wager is still played to
  completion.

Settlement (r 9.2, r 10), hand values from :mod:`server.hands.four_card`, both sides set
to their optimal hands (r 9.6). The dealer always plays (no qualification, r 2.2.2):

* ante and play: the player wins 1:1 when the hand is **equal to or higher** than the
  dealer's (r 10.1, r 10.4, r 10.6), otherwise both lose;
* Ante Bonus (r 9.2.1.1, r 10.2-10.3): on three of a kind or better, whatever the dealer
  holds and even when the ante loses, at the approved odds times the ante; part of the
  ante's figure (SCENARIOS.md); not paid on a fold or a voided ante (A3);
* Aces Up (r 9.2.1.3, r 9.2.1.5, r 10.5): a pair of aces or better pays by the approved
  table, whatever the dealer holds; anything lower loses.

The pay tables are "approved by the Authority" (r 10.3, r 10.5) and not in the source: they
are data here, selected by the ``pay_table`` option. ``A`` is the digest's labelled proposal
(Ante Bonus 25/20/2, Aces Up 50/40/8/5/4/3/1; house edge 3.89%); ``B`` (Aces Up
50/40/8/6/5/2/1) and ``C`` (50/40/7/6/5/2/1) are the other tables the digest checked. There
is no maximum payout in the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.cards import RandomSource, card_str
from server.errors import IllegalAction
from server.games.banked.base import (
    NOBODY,
    BankedRound,
    CardsDealt,
    Choice,
    DecisionMade,
    Event,
    Forced,
    GameSpec,
    HandShown,
    JackpotState,
    OptionSpec,
    WagerSettled,
    WagerSpec,
    deal,
    pay,
)
from server.hands.four_card import (
    CATEGORY_KEYS,
    ONE_PAIR,
    best_four,
    category,
    category_name,
    is_pair_of_aces_or_better,
)
from server.money import dollars

_ANTE_BONUS = {"four_of_a_kind": (25, 1), "straight_flush": (20, 1), "three_of_a_kind": (2, 1)}


def _aces_up(
    four: int, sf: int, three: int, flush: int, straight: int, two_pair: int, aces: int
) -> dict[str, tuple[int, int]]:
    return {
        "four_of_a_kind": (four, 1),
        "straight_flush": (sf, 1),
        "three_of_a_kind": (three, 1),
        "flush": (flush, 1),
        "straight": (straight, 1),
        "two_pair": (two_pair, 1),
        "pair_of_aces": (aces, 1),
    }


#: r 10.3 / r 10.5: approved tables; ``A`` (the first) is the default proposal.
PAY_TABLES = {
    "A": {"ante_bonus": _ANTE_BONUS, "aces_up": _aces_up(50, 40, 8, 5, 4, 3, 1)},
    "B": {"ante_bonus": _ANTE_BONUS, "aces_up": _aces_up(50, 40, 8, 6, 5, 2, 1)},
    "C": {"ante_bonus": _ANTE_BONUS, "aces_up": _aces_up(50, 40, 7, 6, 5, 2, 1)},
}

SPEC = GameSpec(
    id="four-card-poker",
    title="Four Card Poker",
    rules="Four Card Poker rules (NSW; Casino Control Act 1992), seed 003",
    wagers=(
        WagerSpec("ante", doc="r 5.2: before the first card, table limits"),
        WagerSpec("aces_up", doc="r 5.2: optional, with or without an ante, table limits"),
        WagerSpec(
            "play",
            initial=False,
            limits="decision",
            doc="r 8.5: one to three times the ante; only with an ante (r 5.3)",
        ),
    ),
    verbs=("play", "fold"),
    options=(
        OptionSpec(
            "play_wager_mode",
            "range",
            str,
            choices=("range", "integer_multiple"),
            doc="r 8.5 (A2): any amount from 1x to 3x the ante, or 1x/2x/3x only",
        ),
        OptionSpec(
            "bet_unit",
            100,
            minimum=1,
            doc="r 6.1: the betting unit a range Play wager is a multiple of (cents); "
            "exact multiples of the ante are always accepted",
        ),
    ),
    pay_tables=PAY_TABLES,
    box_cards=5,
    dealer_cards=6,
)


@dataclass(frozen=True)
class PlayRange(Choice):
    """``play`` with any amount from ``low`` to ``high`` that is a multiple of ``unit`` or of
    the ante (r 8.5, A2 ``range``); the wire shows bounds instead of every amount."""

    low: int = 0
    high: int = 0
    unit: int = 1
    ante: int = 1

    def resolve(self, amount: int | None) -> int | None:
        if amount is None:
            raise IllegalAction(
                "amount_required",
                f"play needs an amount from {dollars(self.low)} to {dollars(self.high)}",
            )
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise IllegalAction("bad_amount", "play: amount must be integer cents")
        if not self.low <= amount <= self.high:
            raise IllegalAction(
                "play_out_of_range",
                f"play {dollars(amount)}: between one and three times the ante "
                f"({dollars(self.low)} to {dollars(self.high)}, r 8.5)",
            )
        if amount % self.unit and amount % self.ante:
            raise IllegalAction(
                "bad_amount",
                f"play {dollars(amount)}: a multiple of {dollars(self.unit)} or of the ante",
            )
        return amount

    def to_wire(self) -> dict[str, Any]:
        return {"verb": self.verb, "min": self.low, "max": self.high, "unit": self.unit}


class FourCardPoker(BankedRound):
    """One round of Four Card Poker (see the module docstring)."""

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
        self.table = PAY_TABLES[self.options["pay_table"]]
        self.hands: dict[int, list[int]] = {}
        self.dealer: list[int] = []
        #: box -> "play", "fold" or "void_ante" (r 12.11 / r 12.13)
        self.decisions: dict[int, str] = {}

    # ------------------------------------------------------------------ deal (r 7.4)
    def _deal(self) -> list[Event]:
        layout = [("box", b, 5) for b in self.boxes] + [("dealer", None, 6)]
        dealt = deal(self.spec.deck, layout, self.forced, self.rng)
        out: list[Event] = []
        for box in self.boxes:
            self.hands[box] = dealt[("box", box)]
            out.append(
                CardsDealt(
                    to="box", box=box, cards=tuple(map(card_str, self.hands[box])), visible_to=box
                )
            )
        self.dealer = dealt[("dealer", None)]
        for i, c in enumerate(self.dealer):  # r 7.3.4 / r 7.4.2: only the sixth face up
            out.append(
                CardsDealt(
                    to="dealer",
                    box=None,
                    cards=(card_str(c),),
                    **({} if i == 5 else {"visible_to": NOBODY}),
                )
            )
        out += self._open_street("decision", self.boxes)
        return out

    # ------------------------------------------------------------------ decisions (r 8)
    def _choices(self, box: int) -> tuple[Choice, ...]:
        ante = self.wagers[box].get("ante")
        if ante is None:  # r 5.3: an Aces-Up-only box plays without a Play wager (A4)
            return (Choice("play"), Choice("fold"))
        if self.options["play_wager_mode"] == "integer_multiple":
            return (Choice("play", (ante, 2 * ante, 3 * ante)), Choice("fold"))
        return (
            PlayRange("play", low=ante, high=3 * ante, unit=self.options["bet_unit"], ante=ante),
            Choice("fold"),
        )

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        self.decisions[box] = verb
        if verb == "play" and amount is not None:
            self._stake(box, "play", amount)
        return []

    def _decide(self, box: int, verb: str, amount: int | None, cause: str) -> list[Event]:
        """r 12.11 / r 12.13 void the ante instead of folding: not a player's verb, so the
        timeout and insufficient paths are applied here rather than through the choices."""
        if cause == "player":
            return super()._decide(box, verb, amount, cause)
        self._check_awaiting(box)
        assert self.street is not None
        out: list[Event] = [
            DecisionMade(box=box, street=self.street, verb=verb, amount=None, cause=cause)
        ]
        out += self._apply(box, verb, None)
        self._awaiting.remove(box)
        if not self._awaiting:
            out += self._street_closed()
        return self._emit(out)

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        """r 12.13: the ante is void and returned; Aces Up is played to completion."""
        return ("void_ante" if "ante" in self.wagers[box] else "play"), None

    def _insufficient_decision(self, box: int) -> tuple[str, int | None]:
        """r 12.11: cannot place a Play wager of at least the ante: as r 12.13."""
        return self._timeout_decision(box)

    def _street_closed(self) -> list[Event]:
        return self._finish()

    # ------------------------------------------------------------------ settlement (r 9-10)
    def _settle(self) -> list[Event]:
        d_value, d_four = best_four(self.dealer)
        self.dealer_status = category_name(d_value)
        out: list[Event] = [
            HandShown(box=None, cards=tuple(map(card_str, d_four)), hand=category_name(d_value))
        ]
        for box in sorted(self.boxes, reverse=True):  # settle from the dealer's right
            out += self._settle_box(box, d_value)
        return out

    def _settle_box(self, box: int, d_value: int) -> list[Event]:
        wagers = self.wagers[box]
        decision = self.decisions[box]
        if decision == "fold":  # r 8.4: the ante and the Aces Up wager are collected
            return [self._lose(box, w, "fold (r 8.4)") for w in ("ante", "aces_up") if w in wagers]
        value, four = best_four(self.hands[box])
        out: list[Event] = [
            HandShown(box=box, cards=tuple(map(card_str, four)), hand=category_name(value))
        ]
        key = CATEGORY_KEYS[category(value)]
        if "ante" in wagers:
            if decision == "void_ante":
                out.append(self._push(box, "ante", "ante void (r 12.11 / r 12.13)", "returned"))
            else:
                if value >= d_value:
                    detail = "equal hands: player wins (r 10.6)" if value == d_value else ""
                    out.append(self._win(box, "ante", wagers["ante"], detail or "r 10.1"))
                    out.append(self._win(box, "play", self.stakes[box]["play"], "r 10.4"))
                else:
                    out.append(self._lose(box, "ante", "r 9.2.1.2"))
                    out.append(self._lose(box, "play", "r 9.2.1.2"))
                bonus = self.table["ante_bonus"].get(key)
                if bonus is not None:
                    out.append(
                        self._win(
                            box,
                            "ante",
                            pay(wagers["ante"], bonus),
                            f"ante bonus {key} {bonus[0]}:{bonus[1]} (r 10.2)",
                        )
                    )
        if "aces_up" in wagers:
            out.append(self._settle_aces_up(box, value, key))
        return out

    def _settle_aces_up(self, box: int, value: int, key: str) -> WagerSettled:
        if not is_pair_of_aces_or_better(value):
            return self._lose(box, "aces_up", "below a pair of aces (r 9.2.1.3)")
        if category(value) == ONE_PAIR:
            key = "pair_of_aces"
        odds = self.table["aces_up"][key]
        return self._win(
            box,
            "aces_up",
            pay(self.wagers[box]["aces_up"], odds),
            f"{key} {odds[0]}:{odds[1]} (r 10.5)",
        )


ROUNDS: dict[str, type[BankedRound]] = {SPEC.id: FourCardPoker}
