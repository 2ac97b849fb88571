"""A table's phases as data: one enum and one transition table (in the style of h11's
``_state.py``).

Every table kind walks the same phases; a kind uses the ones its game has::

    IDLE ──> BETTING ──> NO_MORE_BETS ──> DECIDING ──> PAUSE ──> BETTING ...   (banked)
    IDLE ──────────────────────────────> DECIDING ──> PAUSE ──> DECIDING ...   (poker)
    any ──> CLOSED                                                             (shutdown)

* ``IDLE``: nobody to play; the table waits for players.
* ``BETTING``: a betting window is open (QLD Sch 19 s5(4)); wagers may be made and changed.
* ``NO_MORE_BETS``: the window closed (Sch 19 s3(2)(d)); jackpot coin-in is under way.
* ``DECIDING``: a round is in play: turns, decisions and timers. Settlement happens inside
  the table's step that completes the round, so "settling" is never observable as a phase.
* ``PAUSE``: the round is settled; the next starts after ``round_pause``.
* ``CLOSED``: shut down; nothing starts again.

:meth:`PhaseMachine.to` refuses a transition that is not in :data:`TRANSITIONS` with
:class:`PhaseError` (a bug in the table, never a player's fault).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final, Generic, TypeVar


class Phase(enum.Enum):
    """The phases; the values are the banked view's ``status`` on the wire."""

    IDLE = "idle"
    BETTING = "betting"
    NO_MORE_BETS = "coin_in"
    DECIDING = "deciding"
    PAUSE = "pause"
    CLOSED = "closed"


TRANSITIONS: Final[dict[Phase, frozenset[Phase]]] = {
    Phase.IDLE: frozenset({Phase.BETTING, Phase.DECIDING, Phase.CLOSED}),
    Phase.BETTING: frozenset({Phase.NO_MORE_BETS, Phase.DECIDING, Phase.PAUSE, Phase.CLOSED}),
    Phase.NO_MORE_BETS: frozenset({Phase.DECIDING, Phase.PAUSE, Phase.CLOSED}),
    Phase.DECIDING: frozenset({Phase.PAUSE, Phase.CLOSED}),
    Phase.PAUSE: frozenset({Phase.IDLE, Phase.BETTING, Phase.DECIDING, Phase.CLOSED}),
    Phase.CLOSED: frozenset(),
}

#: Phases in which a round holds the players' money on the layout or in a pot.
IN_ROUND: Final = frozenset({Phase.NO_MORE_BETS, Phase.DECIDING})


class PhaseError(RuntimeError):
    """A machine tried a transition its phase does not allow (a bug, never a player's)."""


E = TypeVar("E", bound=enum.Enum)


class StateMachine(Generic[E]):
    """A current phase of enum ``E``, changed only through :meth:`to`, along a transition
    table (this module's for a table; a part's own, as the banked jackpot desk's)."""

    __slots__ = ("phase", "transitions")

    def __init__(self, transitions: Mapping[E, frozenset[E]], start: E) -> None:
        self.transitions = transitions
        self.phase = start

    def to(self, new: E) -> None:
        if new is self.phase:
            return
        if new not in self.transitions[self.phase]:
            raise PhaseError(f"no transition from {self.phase.name} to {new.name}")
        self.phase = new

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.phase.name}>"


class PhaseMachine(StateMachine[Phase]):
    """The current phase of one table."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(TRANSITIONS, Phase.IDLE)

    @property
    def in_round(self) -> bool:
        return self.phase in IN_ROUND
