"""Decks and shuffles (ACT r 3.1, QLD Sch 5 s 13, Sch 11 s 13)."""

from __future__ import annotations

from collections import Counter

import pytest

from server.cards import (
    MANILA_DECK,
    STANDARD_DECK,
    CardError,
    SeededRandomSource,
    SystemRandomSource,
    card,
    card_str,
    shuffle,
)


def test_round_trip_every_card() -> None:
    assert [card(card_str(c)) for c in STANDARD_DECK] == list(STANDARD_DECK)
    assert card("10h") == card("Th")


@pytest.mark.parametrize("bad", ["", "A", "1s", "Ax", "AsX", 5, None])
def test_bad_cards_rejected(bad) -> None:
    with pytest.raises(CardError):
        card(bad)


def test_manila_deck_is_a_to_seven() -> None:
    assert len(MANILA_DECK) == 32
    assert {card_str(c)[0] for c in MANILA_DECK} == set("789TJQKA")


def test_shuffle_is_a_permutation_and_replays() -> None:
    a = shuffle(STANDARD_DECK, SeededRandomSource(7))
    b = shuffle(STANDARD_DECK, SeededRandomSource(7))
    assert a == b and sorted(a) == list(STANDARD_DECK)
    assert sorted(shuffle(MANILA_DECK, SystemRandomSource())) == sorted(MANILA_DECK)


def test_shuffle_is_unbiased_on_three_cards() -> None:
    """Fisher-Yates gives each of the 6 orders of 3 cards about 1/6 of the time."""
    rng = SeededRandomSource(1)
    counts = Counter(tuple(shuffle([0, 1, 2], rng)) for _ in range(60000))
    assert len(counts) == 6
    assert all(abs(n - 10000) < 500 for n in counts.values())
