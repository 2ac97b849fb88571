"""Four-card poker hands: Four Card Poker (NSW rules, seed 003) r 11.

The player holds five cards and the dealer six; each side's hand value is the best
**four-card** hand its cards can make (r 8.6, r 9.1-9.2, r 9.5-9.6). The dealer is always
set to the optimal value (r 9.6), and so is the player: the server never mis-sets a hand.

Order of hands, highest first (r 11.1)::

    four of a kind > straight flush > three of a kind > flush > straight
    > two pair > one pair > four odd cards

Note the four-card order: three of a kind beats a flush and a straight, and four of a kind
beats a straight flush. An ace counts high (A-K-Q-J) or low (4-3-2-A) in a straight or
straight flush only (r 11.1.2, r 11.1.5, r 3.3); 4-3-2-A is the lowest straight
(r 11.2.1); straights do not wrap (Q-K-A-2 is not one). Suits are equal (r 3.3). Hands of the
same category compare by card ranks (r 11.2): the four, three or pair(s) first, then the
remaining cards from highest to lowest (r 11.2.2).

A hand value is an ``int``; a higher value is a better hand, equal values are equal hands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from server.cards import Card, rank_of, suit_of

FOUR_ODD = 0
ONE_PAIR = 1
TWO_PAIR = 2
STRAIGHT = 3
FLUSH = 4
THREE_OF_A_KIND = 5
STRAIGHT_FLUSH = 6
FOUR_OF_A_KIND = 7

CATEGORY_NAMES: dict[int, str] = {
    FOUR_ODD: "four odd cards",
    ONE_PAIR: "one pair",
    TWO_PAIR: "two pair",
    STRAIGHT: "straight",
    FLUSH: "flush",
    THREE_OF_A_KIND: "three of a kind",
    STRAIGHT_FLUSH: "straight flush",
    FOUR_OF_A_KIND: "four of a kind",
}

#: Category names as the pay tables key them (``server.games.banked.four_card_poker``).
CATEGORY_KEYS: dict[int, str] = {
    FOUR_ODD: "four_odd",
    ONE_PAIR: "pair",
    TWO_PAIR: "two_pair",
    STRAIGHT: "straight",
    FLUSH: "flush",
    THREE_OF_A_KIND: "three_of_a_kind",
    STRAIGHT_FLUSH: "straight_flush",
    FOUR_OF_A_KIND: "four_of_a_kind",
}

_ACE = 12
_CAT_SHIFT = 16


def _pack(category: int, ranks: Sequence[int]) -> int:
    """Category in the high bits, then up to four tie-break ranks, four bits each."""
    value = category
    for i in range(4):
        value = (value << 4) | (ranks[i] + 1 if i < len(ranks) else 0)
    return value


def category(value: int) -> int:
    """The r 11.1 category of a hand value."""
    return value >> _CAT_SHIFT


def category_name(value: int) -> str:
    return CATEGORY_NAMES[category(value)]


def _straight_high(ranks: list[int]) -> int | None:
    """Highest rank of a four-card straight, or None; 4-3-2-A counts as 4-high (r 11.2.1)."""
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 4:
        return None
    if distinct[0] - distinct[3] == 3:
        return distinct[0]
    if distinct == [_ACE, 2, 1, 0]:  # A-4-3-2: the ace plays low
        return 2
    return None


def evaluate4(cards: Sequence[Card]) -> int:
    """Value of exactly four cards under r 11.1-11.2 (higher is better)."""
    if len(cards) != 4:
        raise ValueError("a four-card hand has exactly four cards")
    ranks = [rank_of(c) for c in cards]
    counts = Counter(ranks)
    # Group ranks by multiplicity, then rank: the four/three/pairs first, kickers after.
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [n for _, n in groups]
    ordered = [r for r, _ in groups]
    if shape == [4]:
        return _pack(FOUR_OF_A_KIND, ordered)
    flush = len({suit_of(c) for c in cards}) == 1
    high = _straight_high(ranks)
    if high is not None and flush:
        return _pack(STRAIGHT_FLUSH, [high])
    if shape == [3, 1]:
        return _pack(THREE_OF_A_KIND, ordered)
    if flush:
        return _pack(FLUSH, sorted(ranks, reverse=True))
    if high is not None:
        return _pack(STRAIGHT, [high])
    if shape == [2, 2]:
        return _pack(TWO_PAIR, ordered)
    if shape == [2, 1, 1]:
        return _pack(ONE_PAIR, ordered)
    return _pack(FOUR_ODD, ordered)


def best_four(cards: Sequence[Card]) -> tuple[int, tuple[Card, ...]]:
    """The best four-card hand from five (player) or six (dealer) cards, and its cards.

    r 9.5-9.6: every four-card subset is considered (5 for a player, 15 for the dealer).
    """
    if len(cards) < 4:
        raise ValueError("a four-card hand needs at least four cards")
    best_value = -1
    best_cards: tuple[Card, ...] = ()
    for combo in combinations(cards, 4):
        v = evaluate4(combo)
        if v > best_value:
            best_value, best_cards = v, combo
    return best_value, best_cards


def is_pair_of_aces_or_better(value: int) -> bool:
    """Aces Up pays on a pair of aces or better (r 1 "Aces Up", r 9.2.1.3, r 10.5)."""
    cat = category(value)
    if cat >= TWO_PAIR:
        return True
    return cat == ONE_PAIR and ((value >> 12) & 0xF) - 1 == _ACE
