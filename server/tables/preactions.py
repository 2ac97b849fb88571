"""Pre-actions: a poker seat's choice made before its turn, applied at the turn if still valid.

Theory of operation
-------------------
A seat in the round, not yet to act, may queue one :class:`PreAction` (protocol message
``pre_action``). The table keeps it privately with the situation it was chosen in (the
betting round and the amount the seat had to call). Two pure functions decide its fate:

* :func:`still_valid` runs after every step of the round: a pre-action is cleared when the
  betting round changes, and ``check`` / ``call`` also when the amount to call changes (a
  bet or a raise arrived: the player chose for another situation).
* :func:`decide` runs when the seat's turn comes: the action it takes, or ``None`` when it
  no longer fits the legal actions (the seat then acts itself, on the normal clock).

The amounts are bounded by what the player chose: ``call`` calls only an amount up to the
one chosen ("call $4" never becomes "call $40"); ``check`` and ``check_fold`` never put a
chip in; ``fold_any`` checks when checking is free and folds to any bet; ``call_any`` calls
whatever is to call (or checks). A pre-action is never shown to anyone but its seat: when
it is applied it is the engine's ordinary action, in the same step as the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from protocol.messages import PreVerb
from server.games.poker.legal import LegalActions

PRE_VERBS: tuple[str, ...] = get_args(PreVerb)
#: pre-actions that stay queued after they checked for the seat (until the round ends)
PERSISTENT = frozenset({"fold_any"})


@dataclass(frozen=True, slots=True)
class PreAction:
    """A queued choice: ``verb``; ``amount`` (``call`` only) the most it may call, in
    cents; ``street`` and ``to_call`` the situation it was chosen in."""

    verb: str
    amount: int | None
    street: int
    to_call: int


def still_valid(pre: PreAction, street: int, to_call: int) -> bool:
    """Whether a queued pre-action survives the situation now (see the module docstring)."""
    if street != pre.street and pre.verb not in PERSISTENT:
        return False
    if pre.verb in ("check", "call"):
        return to_call == pre.to_call
    return True


def decide(pre: PreAction, legal: LegalActions) -> str | None:
    """The verb the pre-action plays at the turn (``fold``, ``check`` or ``call``), or
    ``None``: it does not fit (the player acts). A ``call`` never moves more than
    ``pre.amount``."""
    verb = pre.verb
    if verb in ("check_fold", "fold_any"):
        return "check" if legal.check else "fold"
    if verb == "check":
        return "check" if legal.check else None
    if verb == "call":
        if legal.call is not None and pre.amount is not None and 0 < legal.call <= pre.amount:
            return "call"
        return None
    if verb == "call_any":
        if legal.call is not None:
            return "call"
        return "check" if legal.check else None
    return None
