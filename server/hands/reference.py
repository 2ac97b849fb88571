"""The plain, obviously-correct evaluator: the definition the fast tables are built from.

Every function here follows the rule text directly (combinations, counting ranks) and is
slow on purpose; :mod:`server.hands.fast` precomputes its answers into lookup tables, and the
tests check the two agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from server.cards import Card
from server.hands.ranking import (
    ACE,
    FIVE_HIGH_WHEEL,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    ROYAL_FLUSH,
    STANDARD,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TEN_HIGH_WHEEL,
    THREE_OF_A_KIND,
    TWO_PAIR,
    Ranking,
    encode,
)

_A2345 = [ACE, 3, 2, 1, 0]
_A78910 = [ACE, 8, 7, 6, 5]


def straight_code(ranks_desc: Sequence[int], ranking: Ranking) -> int | None:
    """The straight code of five ranks sorted high to low, or ``None`` if not a straight.

    Natural straights give their top rank. A-2-3-4-5 counts only when the ranking allows it
    (ACT r 3.5, QLD s8(6)); A-7-8-9-10 only under Manila "high and low" (ACT r 3.5, 14.3(b);
    QLD s9(5)), as the lowest straight.
    """
    if len(set(ranks_desc)) != 5:
        return None
    if ranks_desc[0] - ranks_desc[4] == 4:
        return ranks_desc[0]
    r = list(ranks_desc)
    if ranking.ace_low == "A2345" and r == _A2345:
        return FIVE_HIGH_WHEEL
    if ranking.ace_low == "A78910" and r == _A78910:
        return TEN_HIGH_WHEEL
    return None


def value_of_ranks(ranks: Sequence[int], flush: bool, ranking: Ranking) -> int:
    """Value of five cards given their ranks and whether they share one suit."""
    desc = sorted(ranks, reverse=True)
    code = straight_code(desc, ranking)
    if code is not None:
        if flush:
            cat = ROYAL_FLUSH if code == ACE else STRAIGHT_FLUSH
        else:
            cat = STRAIGHT
        return encode(ranking, cat, [code])
    if flush:
        return encode(ranking, FLUSH, desc)
    counts = Counter(desc)
    order = sorted(desc, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        cat = FOUR_OF_A_KIND
    elif shape[:2] == [3, 2]:
        cat = FULL_HOUSE
    elif shape[0] == 3:
        cat = THREE_OF_A_KIND
    elif shape[:2] == [2, 2]:
        cat = TWO_PAIR
    elif shape[0] == 2:
        cat = ONE_PAIR
    else:
        cat = HIGH_CARD
    return encode(ranking, cat, order)


def evaluate5(cards: Sequence[Card], ranking: Ranking = STANDARD) -> int:
    """Value of exactly five cards."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise ValueError(f"evaluate5 needs five different cards, got {list(cards)!r}")
    return value_of_ranks([c >> 2 for c in cards], len({c & 3 for c in cards}) == 1, ranking)


def best_of(cards: Sequence[Card], ranking: Ranking = STANDARD) -> int:
    """Best value of any five of 5..7 cards (Hold'em: ACT r 14.1, QLD s2 "hand")."""
    return max(evaluate5(c, ranking) for c in combinations(cards, 5))


def best_exact(
    hole: Sequence[Card],
    board: Sequence[Card],
    n_hole: int,
    n_board: int,
    ranking: Ranking = STANDARD,
) -> int:
    """Best value using exactly ``n_hole`` hole cards and ``n_board`` board cards."""
    return max(
        evaluate5(h + b, ranking)
        for h in combinations(hole, n_hole)
        for b in combinations(board, n_board)
    )
