"""Texas hold'em bonus poker (QLD Casino Gaming Rule 2010, Schedule 12; rules/holdem-bonus.md).

Game id ``holdem-bonus``. Wagers: ``ante`` (required, s13(a)), ``bonus`` (optional, s13(b)),
and by decision ``flop`` (exactly 2 x ante, s17(4)-(5)), ``turn`` and ``river`` (exactly 1 x
ante, s18-s19). Streets and verbs:

* ``flop`` (pre-flop, after the hole cards): ``bet`` (the flop wager) or ``fold`` (s17);
* ``turn`` (after the flop): ``bet`` (the turn wager) or ``check`` (s18); no fold;
* ``river`` (after the turn card): ``bet`` or ``check`` (s19).

``timeout``: fold pre-flop, check after (digest A5). ``insufficient``: the same.

Deal (shuffling device, s16(4), the canonical server order): the five community cards first
(flop c1-c3, turn c4, river c5), then two cards per box in ascending box order, then the
dealer's two. The flop is exposed after every flop decision (s17(6)), the turn and river
after the turn and river decisions (s18(3), s19(3)).

Settlement (s23-s26), from the dealer's right: no dealer qualification. A fold closes the
hand, collecting ante and bonus (s4, s17(3); A2). The bonus is judged on the two hole cards
alone and settled first (s25(3)), win or lose (s25(2)), also on a stand-off (s23(6)). Each
side's hand is the best five of its two cards and the board (s2). Player higher: flop, turn
and river 1:1; the ante 1:1 only with a flush or better (s23(2)), otherwise a stand-off (A1;
option ``ante_when_win_below_flush``). Player lower: every wager loses. Equal: stand-off.
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
from server.hands import FLUSH, best_of, category, hand_name

ACE, KING, QUEEN, JACK = 12, 11, 10, 9

#: s26, on the two hole cards.
BONUS_ODDS = {
    "two aces": (30, 1),
    "ace-king suited": (25, 1),
    "ace-queen or ace-jack suited": (20, 1),
    "ace-king offsuit": (15, 1),
    "two kings, queens or jacks": (10, 1),
    "ace-queen or ace-jack offsuit": (5, 1),
    "any other pair": (3, 1),
}

STREETS = ("flop", "turn", "river")

SPEC = GameSpec(
    id="holdem-bonus",
    title="Texas hold'em bonus poker",
    rules="QLD Casino Gaming Rule 2010, Schedule 12",
    wagers=(
        WagerSpec("ante", required=True, doc="s13(a)"),
        WagerSpec("bonus", needs="ante", doc="s13(b); judged on the hole cards (s25-s26)"),
        WagerSpec("flop", initial=False, limits="decision", doc="exactly 2 x ante, s17(4)"),
        WagerSpec("turn", initial=False, limits="decision", doc="exactly 1 x ante, s18(2)"),
        WagerSpec("river", initial=False, limits="decision", doc="exactly 1 x ante, s19(2)"),
    ),
    verbs=("bet", "check", "fold"),
    options=(
        OptionSpec(
            "ante_when_win_below_flush",
            "push",
            str,
            choices=("push", "lose"),
            doc="A1: the ante when the player wins without a flush",
        ),
    ),
    pay_tables={"standard": {"bonus": BONUS_ODDS}},
    box_cards=2,
    dealer_cards=2,
    board_cards=5,
)


def bonus_hand(hole: list[int]) -> str | None:
    """The winning bonus hand of two hole cards (s6, s26), or None."""
    hi, lo = sorted((c >> 2 for c in hole), reverse=True)
    suited = (hole[0] & 3) == (hole[1] & 3)
    if hi == lo:
        if hi == ACE:
            return "two aces"
        if hi in (KING, QUEEN, JACK):
            return "two kings, queens or jacks"
        return "any other pair"
    if hi == ACE and lo == KING:
        return "ace-king suited" if suited else "ace-king offsuit"
    if hi == ACE and lo in (QUEEN, JACK):
        return "ace-queen or ace-jack suited" if suited else "ace-queen or ace-jack offsuit"
    return None


class HoldemBonus(BankedRound):
    """One round of Texas hold'em bonus poker (see the module docstring)."""

    spec = SPEC

    def _deal(self) -> list[Event]:
        self.folded: set[int] = set()
        layout = [("board", None, 5)] + [("box", b, 2) for b in self.boxes] + [("dealer", None, 2)]
        out = self._deal_layout(layout)
        return out + self._open_street("flop", self.boxes)

    def _live(self) -> list[int]:
        return [b for b in self.boxes if b not in self.folded]

    def _choices(self, box: int) -> tuple[Choice, ...]:
        ante = self.wagers[box]["ante"]
        if self.street == "flop":
            return (Choice("bet", (2 * ante,)), Choice("fold"))
        return (Choice("bet", (ante,)), Choice("check"))

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        return ("fold" if self.street == "flop" else "check"), None

    def _insufficient_decision(self, box: int) -> tuple[str, int | None]:
        return self._timeout_decision(box)

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        if verb == "fold":
            self.folded.add(box)
        elif verb == "bet":
            assert amount is not None and self.street is not None
            self._stake(box, self.street, amount)
        return []

    def _street_closed(self) -> list[Event]:
        street = self.street
        if not self._live():
            return self._finish()
        if street == "flop":
            return self._expose_board(0, 3, "flop") + self._open_street("turn", self._live())
        if street == "turn":
            return self._expose_board(3, 4, "turn") + self._open_street("river", self._live())
        return self._expose_board(4, 5, "river") + self._finish()

    def _settle(self) -> list[Event]:
        board = self.cards[("board", None)]
        dealer = self.cards[("dealer", None)]
        out: list[Event] = []
        dv = None
        if self._live():
            dv = best_of(dealer + board)
            self.dealer_status = hand_name(dv)
            out += [
                HandShown(box=None, cards=tuple(map(card_str, dealer)), hand=hand_name(dv)),
                DealerDeclared(status=hand_name(dv), hand=hand_name(dv)),
            ]
        for b in sorted(self.boxes, reverse=True):
            if b in self.folded:
                out.append(self._lose(b, "ante", "folded (s17(3))"))
                if "bonus" in self.stakes[b]:
                    out.append(self._lose(b, "bonus", "folded (s4, A2)"))
                continue
            assert dv is not None
            hole = self.cards[("box", b)]
            v = best_of(hole + board)
            out.append(HandShown(box=b, cards=tuple(map(card_str, hole)), hand=hand_name(v)))
            if "bonus" in self.stakes[b]:  # s25(3): bonus first
                bh = bonus_hand(hole)
                if bh is None:
                    out.append(self._lose(b, "bonus", "no bonus hand"))
                else:
                    out.append(
                        self._win(b, "bonus", pay(self.stakes[b]["bonus"], BONUS_ODDS[bh]), bh)
                    )
            streets = [w for w in STREETS if w in self.stakes[b]]
            if v > dv:
                if category(v) >= FLUSH:
                    out.append(self._win(b, "ante", self.stakes[b]["ante"], "s23(2)"))
                elif self.options["ante_when_win_below_flush"] == "lose":
                    out.append(self._lose(b, "ante", "below a flush (A1 option)"))
                else:
                    out.append(self._push(b, "ante", "below a flush: stand-off (A1)"))
                out += [self._win(b, w, self.stakes[b][w], "s23(2)") for w in streets]
            elif v < dv:
                out += [self._lose(b, w, "s23(4)") for w in ("ante", *streets)]
            else:
                out += [self._push(b, w, "stand-off s23(5)") for w in ("ante", *streets)]
        return out


ROUNDS = {"holdem-bonus": HoldemBonus}
