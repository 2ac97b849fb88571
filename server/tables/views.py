"""Views: the only place that decides who may see what.

Every engine event says who may see it in ``visible_to``: :data:`EVERYONE`, one seat
number, or :data:`NOBODY` (burn cards, undealt cards). :func:`may_see` applies that to one
recipient: a seat sees ``EVERYONE`` events and its own; a spectator (``seat=None``) sees only
``EVERYONE`` events. Anything else, including an unset visibility, is seen by nobody: an
event whose audience is unknown must not leak. Snapshots come from the engine's
``view(viewer)``, asked for the recipient's own seat only when that seat is in the round.
"""

from __future__ import annotations

import math
from typing import Any

from server.games.poker import PokerRound
from server.games.visibility import EVERYONE, NOBODY, may_see

__all__ = ["EVERYONE", "NOBODY", "legal_for", "may_see", "ms_left", "round_view"]


def ms_left(deadline: float, now: float) -> int:
    """A countdown as shown to clients: whole milliseconds to ``deadline`` (0: none)."""
    return 0 if deadline == math.inf else max(0, int((deadline - now) * 1000))


def legal_for(to_act: int, viewer: int | None, legal: list[Any]) -> list[Any]:
    """The legal actions in a ``turn`` event: the seat to act gets them, others none.

    One wire form everywhere (the ``turn`` event, the snapshot's ``round.legal``, a banked
    ``decision``): a list of ``{"verb": ..., bounds}``."""
    return legal if viewer is not None and viewer == to_act else []


def round_view(
    rnd: PokerRound | None, seat: int | None, in_round: set[int]
) -> dict[str, Any] | None:
    """The engine's snapshot for this recipient: its own seat's view only if dealt in."""
    if rnd is None:
        return None
    return rnd.view(seat if seat is not None and seat in in_round else None)
