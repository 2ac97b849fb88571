"""Mississippi stud poker (QLD Casino Gaming Rule 2010, Schedule 18; rules/mississippi-stud.md).

Game id ``mississippi-stud``. No dealer hand: every wager is paid from one pay table (s17).
Wagers: ``ante`` (required, s8) and, by decision, ``third_street``, ``fourth_street`` and
``fifth_street``, each exactly 1, 2 or 3 x ante (s12(3), s13(2), s14(2)). Streets ``third``,
``fourth`` and ``fifth``; verbs ``bet`` (amount: 1, 2 or 3 x ante) or ``fold``. ``timeout``:
the absent player's hand is folded and its wagers forfeited (s26(2)); ``insufficient`` folds.

Deal (shuffling device, s11(2)(b), the canonical server order): the three community cards
first (3rd street c1, 4th c2, 5th c3), then two cards per box in ascending box order. A
community card is exposed after each street's decisions.

Settlement (s17-s18) on the two hole cards and three community cards, from the dealer's
right: a fold loses the ante and every street wager already placed (A2). Otherwise the final
hand's odds apply to the ante and every street wager (A4): royal flush 500, straight flush
100, four of a kind 40, full house 10, flush 6, straight 4, three of a kind 3, two pair 2,
jacks or better 1; a pair of 6s to 10s is a stand-off; anything lower loses (A3).
"""

from __future__ import annotations

from server.cards import card_str
from server.games.banked.base import (
    BankedRound,
    Choice,
    Event,
    GameSpec,
    HandShown,
    WagerSpec,
    pay,
)
from server.hands import ONE_PAIR, category, category_name, evaluate5, hand_name

SIX, TEN, JACK = 4, 8, 9

#: s17. ``(0, 1)`` marks the stand-off line (all wagers returned, s18(3)).
PAY_TABLE = {
    "royal flush": (500, 1),
    "straight flush": (100, 1),
    "four of a kind": (40, 1),
    "full house": (10, 1),
    "flush": (6, 1),
    "straight": (4, 1),
    "three of a kind": (3, 1),
    "two pair": (2, 1),
    "jacks or better": (1, 1),
    "pair of sixes to tens": (0, 1),
}

STREETS = ("third", "fourth", "fifth")

SPEC = GameSpec(
    id="mississippi-stud",
    title="Mississippi stud poker",
    rules="QLD Casino Gaming Rule 2010, Schedule 18",
    wagers=(
        WagerSpec("ante", required=True, doc="s8"),
        WagerSpec("third_street", initial=False, limits="decision", doc="1-3 x ante, s12"),
        WagerSpec("fourth_street", initial=False, limits="decision", doc="1-3 x ante, s13"),
        WagerSpec("fifth_street", initial=False, limits="decision", doc="1-3 x ante, s14"),
    ),
    verbs=("bet", "fold"),
    pay_tables={"standard": {"all": PAY_TABLE}},
    box_cards=2,
    board_cards=3,
)


def pay_line(value: int) -> str | None:
    """The s17 line a five-card hand falls on, or None for a losing hand (A3)."""
    cat = category(value)
    if cat > ONE_PAIR:
        return category_name(value)
    if cat == ONE_PAIR:
        pair = (value >> 16) & 0xF
        if pair >= JACK:
            return "jacks or better"
        if SIX <= pair <= TEN:
            return "pair of sixes to tens"
    return None


class MississippiStud(BankedRound):
    """One round of Mississippi stud (see the module docstring)."""

    spec = SPEC

    def _deal(self) -> list[Event]:
        self.folded: set[int] = set()
        layout = [("board", None, 3)] + [("box", b, 2) for b in self.boxes]
        return self._deal_layout(layout) + self._open_street("third", self.boxes)

    def _live(self) -> list[int]:
        return [b for b in self.boxes if b not in self.folded]

    def _choices(self, box: int) -> tuple[Choice, ...]:
        ante = self.wagers[box]["ante"]
        return (Choice("bet", (ante, 2 * ante, 3 * ante)), Choice("fold"))

    def _insufficient_decision(self, box: int) -> tuple[str, int | None]:
        return "fold", None

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        if verb == "fold":
            self.folded.add(box)
        else:
            assert amount is not None and self.street is not None
            self._stake(box, f"{self.street}_street", amount)
        return []

    def _street_closed(self) -> list[Event]:
        i = STREETS.index(self.street or "")
        exposed = self._expose_board(i, i + 1, f"{STREETS[i]} street")
        if i + 1 < len(STREETS) and self._live():
            return exposed + self._open_street(STREETS[i + 1], self._live())
        if not self._live():
            return self._finish()
        return exposed + self._finish()

    def _settle(self) -> list[Event]:
        board = self.cards[("board", None)]
        out: list[Event] = []
        for b in sorted(self.boxes, reverse=True):
            wagers = list(self.stakes[b])
            if b in self.folded:
                out += [self._lose(b, w, "folded (A2, s26(2))") for w in wagers]
                continue
            hole = self.cards[("box", b)]
            v = evaluate5(hole + board)
            out.append(HandShown(box=b, cards=tuple(map(card_str, hole)), hand=hand_name(v)))
            line = pay_line(v)
            if line is None:
                out += [self._lose(b, w, "s18(2)") for w in wagers]
            elif PAY_TABLE[line] == (0, 1):
                out += [self._push(b, w, "stand-off s18(3)") for w in wagers]
            else:
                out += [
                    self._win(b, w, pay(self.stakes[b][w], PAY_TABLE[line]), line) for w in wagers
                ]
        return out


ROUNDS = {"mississippi-stud": MississippiStud}
