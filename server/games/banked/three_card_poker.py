"""Three card poker (QLD Casino Gaming Rule 2010, Schedule 13; rules/three-card-poker.md).

Game id ``three-card-poker``. Wagers: ``ante`` (required, s14(a)), ``pair_plus`` (optional,
only with an ante, s14(b), s28), ``bet`` (exactly 1 x ante, by the ``bet`` decision,
s17(4)-(5)). Verbs: ``bet``, ``fold`` (s17); ``timeout`` folds (digest A6); ``insufficient``
(cannot fund the bet) folds.

Round: three cards to each box, then three to the dealer, all face down (method (b),
s16(2)(b), s16(3)). One street, ``decision``. Settlement from the dealer's right:

* a fold closes the hand, which collects the ante and the pair plus (s3, s17(3); A2; option
  ``pair_plus_survives_fold``), and earns no ante bonus (A3);
* the dealer qualifies with queen-high or better (s5); if not, the ante wins 1:1 and the
  bet is returned (s19(2)-(3)); otherwise the higher hand wins ante and bet 1:1, paid once
  (s22(2), A1), the lower loses both, equal hands stand off (s22(5));
* the ante bonus (s23-s24: straight 1, three of a kind 4, straight flush 5, x ante) and the
  pair plus (s25-s26) are paid whether or not the hand wins or the dealer qualifies, also on
  a stand-off (A4). The ante bonus is part of the ante's figure.

The pay tables are fixed by the schedule (s24, s26): one table set, ``standard``.
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
    OptionSpec,
    WagerSpec,
    pay,
)
from server.hands import three_card as h3

QUEEN = 10

ANTE_BONUS = {"straight": (1, 1), "three of a kind": (4, 1), "straight flush": (5, 1)}
PAIR_PLUS = {
    "pair": (1, 1),
    "flush": (4, 1),
    "straight": (6, 1),
    "three of a kind": (25, 1),
    "straight flush": (40, 1),
}

SPEC = GameSpec(
    id="three-card-poker",
    title="Three card poker",
    rules="QLD Casino Gaming Rule 2010, Schedule 13",
    wagers=(
        WagerSpec("ante", required=True, doc="s14(a)"),
        WagerSpec("pair_plus", needs="ante", doc="s14(b); only with an ante (s28)"),
        WagerSpec("bet", initial=False, limits="decision", doc="exactly 1 x ante, s17(4)-(5)"),
    ),
    verbs=("bet", "fold"),
    options=(
        OptionSpec(
            "pair_plus_survives_fold",
            False,
            bool,
            doc="A2: settle pair plus on a folded hand (not the QLD text)",
        ),
    ),
    pay_tables={"standard": {"ante_bonus": ANTE_BONUS, "pair_plus": PAIR_PLUS}},
    box_cards=3,
    dealer_cards=3,
)


def dealer_qualifies(value: int) -> bool:
    """s5: a pair or better, or a no-pair hand holding a queen, king or ace."""
    return h3.category(value) != h3.HIGH_CARD or h3.top_rank(value) >= QUEEN


class ThreeCardPoker(BankedRound):
    """One round of three card poker (see the module docstring)."""

    spec = SPEC

    def _deal(self) -> list[Event]:
        self.folded: set[int] = set()
        layout = [("box", b, 3) for b in self.boxes] + [("dealer", None, 3)]
        out = self._deal_layout(layout)
        self.values = {b: h3.evaluate3(self.cards[("box", b)]) for b in self.boxes}
        self.dealer_value = h3.evaluate3(self.cards[("dealer", None)])
        return out + self._open_street("decision", self.boxes)

    def _choices(self, box: int) -> tuple[Choice, ...]:
        return (Choice("bet", (self.wagers[box]["ante"],)), Choice("fold"))

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        if verb == "fold":
            self.folded.add(box)
        else:
            assert amount is not None
            self._stake(box, "bet", amount)
        return []

    def _street_closed(self) -> list[Event]:
        return self._finish()

    def _pair_plus(self, box: int) -> list[Event]:
        if "pair_plus" not in self.stakes[box]:
            return []
        odds = PAIR_PLUS.get(h3.category_name(self.values[box]))
        if odds is None:
            return [self._lose(box, "pair_plus", "s25(3)")]
        return [self._win(box, "pair_plus", pay(self.stakes[box]["pair_plus"], odds), "s26")]

    def _settle(self) -> list[Event]:
        qualifies = dealer_qualifies(self.dealer_value)
        self.dealer_status = "qualifies" if qualifies else "does not qualify"
        dname = h3.hand_name(self.dealer_value)
        out: list[Event] = [
            HandShown(
                box=None, cards=tuple(map(card_str, self.cards[("dealer", None)])), hand=dname
            ),
            DealerDeclared(status=self.dealer_status, hand=dname),
        ]
        for b in sorted(self.boxes, reverse=True):
            if b in self.folded:
                out.append(self._lose(b, "ante", "folded (s17(3))"))
                if self.options["pair_plus_survives_fold"]:
                    out += self._pair_plus(b)
                elif "pair_plus" in self.stakes[b]:
                    out.append(self._lose(b, "pair_plus", "folded (s3, A2)"))
                continue
            v = self.values[b]
            out.append(
                HandShown(
                    box=b, cards=tuple(map(card_str, self.cards[("box", b)])), hand=h3.hand_name(v)
                )
            )
            bonus = ANTE_BONUS.get(h3.category_name(v))
            if bonus is not None:
                out.append(
                    self._win(b, "ante", pay(self.stakes[b]["ante"], bonus), "ante bonus s23-s24")
                )
            out += self._pair_plus(b)
            if not qualifies:
                out.append(self._win(b, "ante", self.stakes[b]["ante"], "s19(2)"))
                out.append(self._push(b, "bet", "s19(3)", outcome="returned"))
            elif v > self.dealer_value:
                out.append(self._win(b, "ante", self.stakes[b]["ante"], "s22(2)"))
                out.append(self._win(b, "bet", self.stakes[b]["bet"], "s22(2)"))
            elif v < self.dealer_value:
                out.append(self._lose(b, "ante", "s22(4)"))
                out.append(self._lose(b, "bet", "s22(4)"))
            else:
                out.append(self._push(b, "ante", "stand-off s22(5)"))
                out.append(self._push(b, "bet", "stand-off s22(5)"))
        return out


ROUNDS = {"three-card-poker": ThreeCardPoker}
