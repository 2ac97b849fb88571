"""Hand evaluation for every poker ranking the rulebooks define.

See :mod:`server.hands.ranking` for the rankings and the value encoding,
:mod:`server.hands.fast` for the table-driven evaluator used here, and
:mod:`server.hands.reference` for the plain definition the tables are built from.
"""

from server.hands.fast import best_exact, best_of, best_of_each, evaluate5
from server.hands.ranking import (
    CATEGORY_NAMES,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    MANILA,
    MANILA_ACE_LOW,
    ONE_PAIR,
    ROYAL_FLUSH,
    STANDARD,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    Ranking,
    category,
    category_name,
    hand_name,
    ranks_of,
)
from server.hands.showdown import best_five

__all__ = [
    "CATEGORY_NAMES",
    "FLUSH",
    "FOUR_OF_A_KIND",
    "FULL_HOUSE",
    "HIGH_CARD",
    "MANILA",
    "MANILA_ACE_LOW",
    "ONE_PAIR",
    "ROYAL_FLUSH",
    "STANDARD",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "THREE_OF_A_KIND",
    "TWO_PAIR",
    "Ranking",
    "best_exact",
    "best_five",
    "best_of",
    "best_of_each",
    "category",
    "category_name",
    "evaluate5",
    "hand_name",
    "ranks_of",
]
