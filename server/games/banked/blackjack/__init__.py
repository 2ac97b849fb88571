"""The blackjack family (seed 004, Schedules 2, 9, 15, 17): one engine, four rule sets.

:mod:`.rules` holds the variants as data, :mod:`.shoe` the multi-deck shoe with its cutting
card, :mod:`.engine` the round, with its parts :mod:`.boxes` (boxes, hands, stakes, offers),
:mod:`.play` (the hand's decisions), :mod:`.offers`, :mod:`.sides` (side wagers) and
:mod:`.settlement` (the dealer and the settlement). ``ROUNDS`` maps the game ids to their
round classes for the banked scenario adapter (``server/games/banked/scenario.py``).
"""

from server.games.banked.blackjack.engine import ROUNDS, BlackjackRound
from server.games.banked.blackjack.shoe import BlackjackShoe

__all__ = ["ROUNDS", "BlackjackRound", "BlackjackShoe"]
