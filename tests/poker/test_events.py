"""The engine's events and legal actions as records: immutable, typed equality, stable wire.

Events are frozen msgspec structs built positionally on the engine's hot path; these tests
pin what the table server and clients rely on (field names, ``visible_to``, ``to_wire()``
shape) and that the records cannot be changed after they are made.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from server.cards import SeededRandomSource, card
from server.games.poker import GAME_IDS, LegalActions, PokerRound, rules_for
from server.games.poker.bots import random_action
from server.games.poker.events import (
    EVERYONE,
    NOBODY,
    ActionTaken,
    BoardDealt,
    CardBurned,
    Event,
    FeeCharged,
    HoleCardsDealt,
    PotAwarded,
    TurnToAct,
    UncalledReturned,
)


def _hand_events(game: str, seed: int) -> list[Event]:
    rules = rules_for(game, {})
    rnd = PokerRound(rules, dict.fromkeys(range(1, 7), 5000), 1, SeededRandomSource(seed))
    ev = rnd.start()
    rng = random.Random(seed)
    while not rnd.complete:
        la = rnd.legal_actions()
        verb, amount = random_action(la, rng, unit=rules.chip_unit)
        ev += rnd.act(la.seat, verb, amount)
    return ev


def test_events_are_immutable() -> None:
    """No field of an event (or of the legal actions it carries) can be reassigned."""
    for e in _hand_events("holdem-act", 3):
        assert isinstance(e, Event)
        with pytest.raises(AttributeError):
            e.visible_to = EVERYONE  # type: ignore[misc]
        with pytest.raises(AttributeError):
            e.extra = 1  # type: ignore[attr-defined]
        if isinstance(e, TurnToAct):
            with pytest.raises(AttributeError):
                e.legal.call = 0


def test_events_built_by_the_engine_equal_events_built_by_name() -> None:
    """The engine's fast construction gives the same records as the keyword constructor."""
    for game in GAME_IDS:
        for e in _hand_events(game, 11):
            again = type(e)(**msgspec.structs.asdict(e))
            assert again == e
            assert again.to_wire() == e.to_wire()


def test_equality_compares_the_event_type() -> None:
    """Two events of different types with equal fields are different events."""
    assert FeeCharged(1, 100) == FeeCharged(1, 100)
    assert FeeCharged(1, 100) != UncalledReturned(1, 100)
    assert FeeCharged(1, 100) != (1, 100, EVERYONE)
    assert len({FeeCharged(1, 100), UncalledReturned(1, 100), FeeCharged(1, 100)}) == 2


def test_wire_shape() -> None:
    """``to_wire()``: a ``type`` key, every field by name, cards as strings, legal actions as
    their verb list, dict keys as strings."""
    la = LegalActions(3, True, False, 100, None, (400, 900), 900)
    assert TurnToAct(3, la).to_wire() == {
        "type": "turn_to_act",
        "seat": 3,
        "visible_to": EVERYONE,
        "legal": [
            {"verb": "fold"},
            {"verb": "call", "amount": 100},
            {"verb": "raise", "min": 400, "max": 900},
            {"verb": "allin", "amount": 900},
        ],
    }
    assert HoleCardsDealt(seat=2, cards=(card("As"), card("Kd")), visible_to=2).to_wire() == {
        "type": "hole_cards_dealt",
        "seat": 2,
        "cards": ["As", "Kd"],
        "visible_to": 2,
    }
    assert CardBurned(cards=(card("2c"),)).to_wire() == {
        "type": "card_burned",
        "cards": ["2c"],
        "visible_to": NOBODY,
    }
    board = (card("2c"), card("7d"), card("Jh"))
    assert BoardDealt(2, board, board).to_wire() == {
        "type": "board_dealt",
        "round": 2,
        "cards": ["2c", "7d", "Jh"],
        "board": ["2c", "7d", "Jh"],
        "visible_to": EVERYONE,
    }
    assert ActionTaken(4, "raise", 300, 400, 4600).to_wire() == {
        "type": "action_taken",
        "seat": 4,
        "verb": "raise",
        "amount": 300,
        "total": 400,
        "stack": 4600,
        "visible_to": EVERYONE,
    }
    assert PotAwarded(0, 1000, (1, 2), {1: 500, 2: 500}, 0).to_wire() == {
        "type": "pot_awarded",
        "pot": 0,
        "amount": 1000,
        "winners": [1, 2],
        "shares": {"1": 500, "2": 500},
        "commission": 0,
        "visible_to": EVERYONE,
    }


def test_legal_actions_read_as_before() -> None:
    """Fields by name, ``verbs()``, and the wire list with limit sizes."""
    la = LegalActions(1, True, True, None, (200, 400), None, None, (200, 400), None)
    assert (la.seat, la.check, la.call, la.bet, la.raise_, la.allin) == (
        1,
        True,
        None,
        (200, 400),
        None,
        None,
    )
    assert la.verbs() == ["fold", "check", "bet"]
    assert la.to_wire() == [
        {"verb": "fold"},
        {"verb": "check"},
        {"verb": "bet", "min": 200, "max": 400, "sizes": [200, 400]},
    ]
