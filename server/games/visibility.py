"""Who may see an event: everyone at the table, one seat or box, or nobody yet.

Every engine event carries ``visible_to``: :data:`EVERYONE`, :data:`NOBODY` (the deck, the
dealer's hole cards before the rules expose them), or an ``int`` naming one seat (player vs
player poker) or one box (banked games). The view layer filters on this field and nothing
else, so hole cards of others and undealt cards never leave the server early.
"""

from __future__ import annotations

from typing import Final

#: Visible to every player and spectator at the table.
EVERYONE: Final = "everyone"
#: Visible to no player yet (kept for the audit log and released by a later event).
NOBODY: Final = "nobody"

#: ``EVERYONE``, ``NOBODY`` or a seat/box number.
Visibility = str | int


def may_see(visible_to: Visibility | None, viewer: int | None) -> bool:
    """Whether ``viewer`` (a seat/box number, or ``None`` for a spectator) may see the event.

    A viewer sees :data:`EVERYONE` events and its own; a spectator only :data:`EVERYONE`
    events. Anything else, an unset or unknown visibility included, is seen by nobody: an
    event whose audience is unknown must not leak.
    """
    if visible_to == EVERYONE:
        return True
    if viewer is None or type(visible_to) is not int:
        return False
    return visible_to == viewer
