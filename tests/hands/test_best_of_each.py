"""``best_of_each`` (one shared board, the hold'em showdown) against ``best_of`` hand by hand.

The engine values a hold'em showdown with ``best_of_each``: the board's keys summed once,
each hand adding its two hole cards, non-flush hands looked up in the compact 7-card table
(``Tables.seven``, a perfect hash). It must give exactly ``best_of(hole + board)`` for every
hand, for every ranking, flush boards included, and fall back to it for other sizes; the
compact table must hold exactly ``plain``'s value for every one of the 49,205 7-card rank
multisets.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import MANILA_DECK, STANDARD_DECK
from server.hands import MANILA, MANILA_ACE_LOW, STANDARD, Ranking, best_of, best_of_each
from server.hands.fast import tables

RANKINGS = [(STANDARD, STANDARD_DECK), (MANILA, MANILA_DECK), (MANILA_ACE_LOW, MANILA_DECK)]


@pytest.mark.parametrize(("ranking", "deck"), RANKINGS, ids=["standard", "manila", "ace-low"])
def test_equals_best_of_on_seeded_showdowns(ranking: Ranking, deck: tuple[int, ...]) -> None:
    rng = random.Random(26)
    for _ in range(3000):
        players = rng.randint(1, 9) if len(deck) == 52 else rng.randint(1, 6)
        cards = rng.sample(list(deck), 2 * players + 5)
        holes = [cards[2 * i : 2 * i + 2] for i in range(players)]
        board = cards[2 * players :]
        assert best_of_each(holes, board, ranking) == [best_of(h + board, ranking) for h in holes]


def test_flush_boards() -> None:
    """Boards of three, four and five cards of one suit (the flush branch)."""
    rng = random.Random(4)
    for _ in range(3000):
        suit = rng.randrange(4)
        suited = [c for c in STANDARD_DECK if c & 3 == suit]
        k = rng.randint(3, 5)
        board = rng.sample(suited, k)
        rest = [c for c in STANDARD_DECK if c not in board]
        board += rng.sample(rest, 5 - k)
        rest = [c for c in rest if c not in board]
        cards = rng.sample(rest, 18)
        holes = [cards[2 * i : 2 * i + 2] for i in range(9)]
        assert best_of_each(holes, board) == [best_of(h + board) for h in holes]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_sizes_fall_back_to_best_of(data: st.DataObject) -> None:
    """Boards of 3 to 5 cards and hands of 0 to 4 cards making 5 to 7 cards in all."""
    n_board = data.draw(st.integers(3, 5))
    deck = data.draw(st.permutations(list(STANDARD_DECK)))
    board = list(deck[:n_board])
    pos = n_board
    holes = []
    for _ in range(data.draw(st.integers(0, 5))):
        n = data.draw(st.integers(max(0, 5 - n_board), 7 - n_board))
        holes.append(list(deck[pos : pos + n]))
        pos += n
    assert best_of_each(holes, board) == [best_of(h + board) for h in holes]


def test_too_few_cards_is_refused_like_best_of() -> None:
    with pytest.raises(ValueError):
        best_of_each([[0]], [4, 8, 12])


@pytest.mark.parametrize("ranking", [STANDARD, MANILA, MANILA_ACE_LOW], ids=["std", "ma", "al"])
def test_seven_holds_plain_for_every_7_card_rank_multiset(ranking: Ranking) -> None:
    t = tables(ranking)
    count = 0
    for ranks in combinations_with_replacement(range(13), 7):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        key = sum(5**r for r in ranks)
        assert t.seven[key] == t.plain[key]
        count += 1
    assert count == 49205
