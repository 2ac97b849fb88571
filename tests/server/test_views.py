"""The view layer decides visibility alone: own hole cards to that seat only, nothing hidden
to spectators, burn cards to nobody, legal actions to the seat to act only."""

from __future__ import annotations

from server.games.poker.events import EVERYONE, NOBODY
from server.tables.views import legal_for, may_see


def test_visibility_rules():
    assert may_see(EVERYONE, 3) and may_see(EVERYONE, None)
    assert may_see(3, 3)
    assert not may_see(3, 4) and not may_see(3, None)  # another seat's hole cards; spectator
    assert not may_see(NOBODY, 3) and not may_see(NOBODY, None)  # burn cards
    assert not may_see(None, 3)  # an event whose audience is unknown must not leak
    assert not may_see("3", 3) and not may_see(True, 1)  # only an int seat matches


def test_legal_actions_go_to_the_seat_to_act_only():
    legal = [{"verb": "fold"}, {"verb": "call", "amount": 200}]
    assert legal_for(5, 5, legal) == legal
    assert legal_for(5, 4, legal) == [] and legal_for(5, None, legal) == []
