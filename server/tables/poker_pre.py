"""Pre-actions at the poker table: queued, told to their seat alone, cleared when stale.

The rules of a pre-action are pure (``server/tables/preactions.py``); here the table keeps
each seat's (``Seat.pre``), tells only that seat (``pre_action`` events), and clears the
ones the round's last events made stale. These are the poker table's methods of the same
names (``server/tables/poker.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import errors
from protocol import messages as wire
from server.games.poker import PokerRound
from server.tables.base import TableCommand
from server.tables.poker_events import (
    PreActionState,
)
from server.tables.poker_seat import Seat
from server.tables.preactions import PreAction, still_valid

if TYPE_CHECKING:
    from server.tables.poker import PokerTable


def on_pre_action(table: PokerTable, cmd: TableCommand[wire.PreAction]) -> None:
    """Queue or clear the seat's pre-action (private: only its seat is told)."""
    seat = table._seat(cmd, "pre_action")
    if seat is None:
        return
    rnd, verb = table.round, cmd.message.verb
    if verb is None:
        if seat.pre is not None:
            table._clear_pre(seat, "cleared")
        return
    if rnd is None or rnd.complete or seat.number not in table.in_round_seats:
        table.error(cmd.conn, errors.NO_ROUND, "you are not in a round", "pre_action")
        return
    if seat.number in rnd.folded or seat.number in rnd.allin or rnd.to_act == seat.number:
        why = "your_turn" if rnd.to_act == seat.number else "not_to_act"
        text = "act now: it is your turn" if why == "your_turn" else "you have no more turns"
        table.error(cmd.conn, errors.ILLEGAL_ACTION, text, "pre_action", why)
        return
    amount = cmd.message.amount
    if verb == "call" and amount is None:
        table.error(cmd.conn, errors.ILLEGAL_ACTION, "say how much to call", "pre_action", "amount")
        return
    seat.pre = PreAction(verb, amount if verb == "call" else None, rnd.street, table._to_call(seat))
    table._tell_pre(seat, "set")


def to_call(table: PokerTable, seat: Seat) -> int:
    rnd = table.round
    return 0 if rnd is None else max(0, rnd.cb - rnd.bet.get(seat.number, 0))


def check_pres(table: PokerTable, rnd: PokerRound) -> None:
    """Clear the pre-actions the last events made stale (private to each seat)."""
    for seat in table.seats.values():
        if seat.pre is not None:
            if not still_valid(seat.pre, rnd.street, table._to_call(seat)):
                table._clear_pre(seat, "changed")


def clear_pre(table: PokerTable, seat: Seat, reason: str) -> None:
    seat.pre = None
    table._tell_pre(seat, reason)


def tell_pre(table: PokerTable, seat: Seat, reason: str) -> None:
    """The seat's pre-action as it stands now, told to that seat alone."""
    pre = seat.pre
    verb, amount = (None, None) if pre is None else (pre.verb, pre.amount)
    state = PreActionState(verb=verb, amount=amount, reason=reason, visible_to=seat.number)
    table.event(seat, state.to_wire())
