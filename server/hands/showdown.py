"""Which five cards make a hand: shown at showdown and in hand histories."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from server.cards import Card, cards
from server.hands.fast import best_exact, best_of, evaluate5
from server.hands.ranking import (
    ROYAL_FLUSH,
    STANDARD,
    STRAIGHT,
    STRAIGHT_FLUSH,
    Ranking,
    category,
    hand_name,
)


def _display_order(five: Sequence[Card], value: int) -> list[Card]:
    """The five cards by significance: rank groups first, then kickers, high to low.

    Straights list the top card first; a wheel lists its ace last ("5 4 3 2 A").
    """
    counts = Counter(c >> 2 for c in five)
    if category(value) in (STRAIGHT, STRAIGHT_FLUSH, ROYAL_FLUSH):
        top = (value >> 16) & 0xF
        natural = top >= 4
        return sorted(
            five, key=lambda c: ((c >> 2) if natural or c >> 2 != 12 else -1, c), reverse=True
        )
    return sorted(five, key=lambda c: (counts[c >> 2], c >> 2, c), reverse=True)


def best_five(
    cards: Sequence[Card],
    board: Sequence[Card] | Ranking | None = None,
    n_hole: int | None = None,
    n_board: int | None = None,
    ranking: Ranking = STANDARD,
) -> list[Card]:
    """The five cards making the best hand, ordered for display.

    ``best_five(cards, ranking)`` picks any five of 5..7 cards (Hold'em, ACT r 14.1);
    ``best_five(hole, board, n_hole, n_board, ranking)`` uses exactly ``n_hole`` hole cards
    and ``n_board`` board cards (Omaha; Manila ACT r 14.1, QLD s4). When several selections
    tie, the first found is returned (suits never matter: ACT r 3.5).
    """
    if isinstance(board, Ranking):
        ranking, board = board, None
    if board is None:
        candidates = [list(c) for c in combinations(cards, 5)]
    else:
        if n_hole is None or n_board is None:
            raise ValueError("best_five with a board needs n_hole and n_board")
        candidates = [
            list(h) + list(b)
            for h in combinations(cards, n_hole)
            for b in combinations(board, n_board)
        ]
    if not candidates:
        raise ValueError("not enough cards for a five-card hand")
    best = max(candidates, key=lambda five: evaluate5(five, ranking))
    return _display_order(best, evaluate5(best, ranking))


def shown_hand_name(
    hole: Sequence[str],
    board: Sequence[str],
    exact_use: tuple[int, int] | None = None,
    ranking: Ranking = STANDARD,
) -> str:
    """The name of the best hand shown at a showdown, with its ranks (for people).

    ``"two pair, kings and nines"``, ``"full house, kings over sevens"``: the hand is valued
    as the engine values it (best five of all for Hold'em, ACT r 14.1; exactly ``exact_use``
    hole and board cards for Omaha and Manila, ACT r 14.1, QLD Sch 5 s4) and named by
    :func:`server.hands.ranking.hand_name`. Too few cards to make five: the empty string.
    """
    h, b = cards(hole), cards(board)
    try:
        if exact_use is None:
            value = best_of(h + b, ranking)
        else:
            value = best_exact(h, b, exact_use[0], exact_use[1], ranking)
    except ValueError:
        return ""
    return hand_name(value)
