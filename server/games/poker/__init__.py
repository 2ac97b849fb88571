"""Player-vs-player poker: one engine, a rule set per game.

    from server.games.poker import rules_for, PokerRound, next_designated, GAME_IDS

* :mod:`.rules` - the six games' rule sets and options (``rules_for``);
* :mod:`.engine` - :class:`PokerRound`, the sans-I/O round state machine;
* :mod:`.deal`, :mod:`.limits`, :mod:`.showdown`, :mod:`.view` - its parts: the start and the
  deal, the betting limits, the end of the round, what a seat may see;
* :mod:`.legal` - :class:`LegalActions`, what the seat to act may do;
* :mod:`.settle` - uncalled wagers, side pots, commission, split pots;
* :mod:`.buck` - how the buck / dealer button moves (``next_designated``);
* :mod:`.events` - the events, each with its ``visible_to``;
* :mod:`.scenario` - the ``croupier scenario`` adapter (``shared/SCENARIOS.md``).
"""

from server.games.poker.buck import blind_posters, next_designated
from server.games.poker.engine import PokerRound, RoundResult
from server.games.poker.legal import LegalActions
from server.games.poker.rules import GAME_IDS, RuleSet, rules_for

__all__ = [
    "GAME_IDS",
    "LegalActions",
    "PokerRound",
    "RoundResult",
    "RuleSet",
    "blind_posters",
    "next_designated",
    "rules_for",
]
