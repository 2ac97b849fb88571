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
from typing import Final


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
    """A table tried a transition its phase does not allow."""


class PhaseMachine:
    """The current phase of one table, changed only through :meth:`to`."""

    __slots__ = ("phase",)

    def __init__(self) -> None:
        self.phase = Phase.IDLE

    def to(self, new: Phase) -> None:
        if new is self.phase:
            return
        if new not in TRANSITIONS[self.phase]:
            raise PhaseError(f"no transition from {self.phase.name} to {new.name}")
        self.phase = new

    @property
    def in_round(self) -> bool:
        return self.phase in IN_ROUND

    def __repr__(self) -> str:
        return f"<PhaseMachine {self.phase.name}>"
