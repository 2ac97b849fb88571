"""Hand rankings and the hand-value encoding shared by every evaluator.

Three orders are defined by the rulebooks:

* :data:`STANDARD` - Hold'em and Omaha, ACT (r 14.3, ace low in A-2-3-4-5 by r 3.5) and
  QLD (Sch 11 s8(1), ace low by s8(6)): full house beats flush.
* :data:`MANILA` - ACT 3 Card Manila (r 14.3(d)-(e)) and QLD Manila (Sch 5 s9(1)) with the
  ace high only (ACT r 3.5, QLD s18): a **flush beats a full house**, no ace-low straight.
* :data:`MANILA_ACE_LOW` - the same with the ace declared "high and low" before the round
  (ACT r 3.5, 14.3(b),(f); QLD s18, s9(5)): A-7-8-9-10 is the *lowest* straight (and the
  lowest straight flush), ten high.

A hand value is an ``int``; within one ranking a higher value is a better hand and equal
values tie (suits never break ties: ACT r 3.5, QLD s8(2), s9(2)). Layout::

    slot << 24 | category << 20 | five 4-bit rank nibbles

``slot`` is the category's place in the ranking's order (flush and full house swap under the
Manila orders), ``category`` is the :data:`HIGH_CARD`..:data:`ROYAL_FLUSH` constant, and the
nibbles hold the five card ranks by significance (rank groups by size then rank, then
kickers: "all cards count", ACT r 14.2, QLD s8(3), s9(3)). For a straight or straight flush
only the first nibble is used: the top rank (4..12), :data:`FIVE_HIGH_WHEEL` for A-2-3-4-5 or
:data:`TEN_HIGH_WHEEL` for A-7-8-9-10, both below every natural straight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from server.cards import RANK_NAMES, RANK_PLURALS

HIGH_CARD = 0
ONE_PAIR = 1
TWO_PAIR = 2
THREE_OF_A_KIND = 3
STRAIGHT = 4
FLUSH = 5
FULL_HOUSE = 6
FOUR_OF_A_KIND = 7
STRAIGHT_FLUSH = 8
ROYAL_FLUSH = 9

CATEGORY_NAMES: tuple[str, ...] = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
)

#: Straight code (first nibble) for A-2-3-4-5: below 2-3-4-5-6 (top rank 4).
FIVE_HIGH_WHEEL = 3
#: Straight code for the Manila A-7-8-9-10: below every other straight.
TEN_HIGH_WHEEL = 0

ACE = 12

AceLow = Literal["A2345", "A78910"] | None


@dataclass(frozen=True, slots=True)
class Ranking:
    """How hands are ordered: whether a flush beats a full house, and the ace-low straight."""

    flush_beats_full_house: bool
    ace_low: AceLow

    def __post_init__(self) -> None:
        if self.ace_low not in ("A2345", "A78910", None):
            raise ValueError(f"unknown ace-low straight {self.ace_low!r}")

    def slot(self, cat: int) -> int:
        """Place of category ``cat`` in this ranking's order (0 lowest)."""
        if self.flush_beats_full_house:
            if cat == FLUSH:
                return FULL_HOUSE
            if cat == FULL_HOUSE:
                return FLUSH
        return cat


#: Hold'em / Omaha, ACT r 14.3 and 3.5, QLD s8(1), s8(6).
STANDARD = Ranking(False, "A2345")
#: Both Manilas, ace high only: ACT r 14.3, 3.5; QLD s9(1), s18.
MANILA = Ranking(True, None)
#: Manila with the ace high and low: ACT r 3.5, 14.3(b),(f); QLD s18, s9(5).
MANILA_ACE_LOW = Ranking(True, "A78910")


def encode(ranking: Ranking, cat: int, nibbles: tuple[int, ...] | list[int]) -> int:
    """Pack a category and up to five rank nibbles (most significant first) into a value."""
    tb = 0
    for i, r in enumerate(nibbles):
        tb |= r << (16 - 4 * i)
    return ranking.slot(cat) << 24 | cat << 20 | tb


def category(value: int) -> int:
    """The category constant (``HIGH_CARD`` .. ``ROYAL_FLUSH``) of a hand value."""
    return (value >> 20) & 0xF


def category_name(value: int) -> str:
    """``"high card"`` .. ``"royal flush"`` for a hand value."""
    return CATEGORY_NAMES[(value >> 20) & 0xF]  # category(value), inline: once per hand shown


def ranks_of(value: int) -> tuple[int, int, int, int, int]:
    """The five rank nibbles of a value, most significant first (rank 0..12 = 2..A).

    Rank groups by size then rank, then kickers: ``K K K 7 7`` for kings over sevens,
    ``Q Q 9 9 K`` for queens and nines with a king. For a straight or straight flush only the
    first entry is set: the top rank, :data:`FIVE_HIGH_WHEEL` or :data:`TEN_HIGH_WHEEL`.
    """
    return (
        (value >> 16) & 0xF,
        (value >> 12) & 0xF,
        (value >> 8) & 0xF,
        (value >> 4) & 0xF,
        value & 0xF,
    )


def _straight_top(code: int) -> str:
    if code == FIVE_HIGH_WHEEL:
        return RANK_NAMES[3]  # five
    if code == TEN_HIGH_WHEEL:
        return RANK_NAMES[8]  # ten
    return RANK_NAMES[code]


def hand_name(value: int) -> str:
    """A readable name: ``"full house, kings over sevens"``, ``"straight, five high"``."""
    cat = category(value)
    n = ranks_of(value)
    if cat == ROYAL_FLUSH:
        return "royal flush"
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        return f"{CATEGORY_NAMES[cat]}, {_straight_top(n[0])} high"
    if cat in (FLUSH, HIGH_CARD):
        return f"{CATEGORY_NAMES[cat]}, {RANK_NAMES[n[0]]}" + (" high" if cat == FLUSH else "")
    if cat == TWO_PAIR:
        return f"two pair, {RANK_PLURALS[n[0]]} and {RANK_PLURALS[n[2]]}"
    if cat == FULL_HOUSE:
        return f"full house, {RANK_PLURALS[n[0]]} over {RANK_PLURALS[n[3]]}"
    return f"{CATEGORY_NAMES[cat]}, {RANK_PLURALS[n[0]]}"
