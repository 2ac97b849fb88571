"""Three-card poker hands (QLD Casino Gaming Rule 2010, Schedule 13 s8-s9).

Ranking, high to low (s9(1)): straight flush, three of a kind, straight, flush, pair, odd card
hand. A straight beats a flush in three cards. In A-2-3 the ace must rank as 1 (s9(5)): it is
the lowest straight (straight flush); Q-K-A is the highest; K-A-2 is no straight (A5). Within a
category hands compare by face values (s9(3)): straight and straight flush by the top card,
three of a kind by rank, pair by the pair then the odd card, flush and odd card hand card by
card. Equal values are a stand-off (s9(6)); suits never break ties (s9(2)).

A hand value is an ``int``, higher is better: ``category << 12 | three rank nibbles``.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.cards import RANK_NAMES, RANK_PLURALS, Card

HIGH_CARD = 0
PAIR = 1
FLUSH = 2
STRAIGHT = 3
THREE_OF_A_KIND = 4
STRAIGHT_FLUSH = 5

CATEGORY_NAMES = ("odd card hand", "pair", "flush", "straight", "three of a kind", "straight flush")

#: Top-card code of A-2-3: the rank index of the three, below 2-3-4 (top rank 2 = the four).
A23_TOP = 1


def _pack(cat: int, ranks: Sequence[int]) -> int:
    v = cat
    for r in ranks:
        v = v << 4 | r
    return v


def evaluate3(cards: Sequence[Card]) -> int:
    """The value of exactly three cards under Schedule 13 s9."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError("a three card poker hand is three different cards")
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    flush = len({c & 3 for c in cards}) == 1
    if ranks[0] == ranks[1] == ranks[2]:
        return _pack(THREE_OF_A_KIND, ranks)
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        pair = ranks[1]
        odd = ranks[2] if ranks[0] == ranks[1] else ranks[0]
        return _pack(PAIR, (pair, pair, odd))
    top = None
    if ranks[0] - ranks[2] == 2:
        top = ranks[0]
    elif ranks == [12, 1, 0]:  # A-2-3: the ace ranks as 1 (s9(5))
        top = A23_TOP
    if top is not None:
        return _pack(STRAIGHT_FLUSH if flush else STRAIGHT, (top, 0, 0))
    return _pack(FLUSH if flush else HIGH_CARD, ranks)


def category(value: int) -> int:
    return value >> 12


def category_name(value: int) -> str:
    return CATEGORY_NAMES[category(value)]


def top_rank(value: int) -> int:
    """The first rank nibble: the highest card (the pair's rank for a pair)."""
    return (value >> 8) & 0xF


def hand_name(value: int) -> str:
    cat = category(value)
    top = top_rank(value)
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        return f"{CATEGORY_NAMES[cat]}, {RANK_NAMES[top]} high"  # A-2-3: "three high"
    if cat in (PAIR, THREE_OF_A_KIND):
        return f"{CATEGORY_NAMES[cat]}, {RANK_PLURALS[top]}"
    return f"{CATEGORY_NAMES[cat]}, {RANK_NAMES[top]} high"
