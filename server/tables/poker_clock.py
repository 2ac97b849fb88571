"""The poker table's clock: each turn's time and the seat's time bank, the pause before a
round, and the release of a seat held without a stake.

A turn runs ``turn_time`` seconds, then the seat's time bank (everyone is told when a bank
starts to run); time used beyond the turn time comes off the bank, which is topped up by
``time_bank_add`` every ``time_bank_hands`` hands, up to a cap. A seat with no stake is
released after ``unstaked_seat_time`` (issue 25). These are the poker table's methods of
the same names (``server/tables/poker.py``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import trio

from server.games.poker.events import TurnToAct
from server.tables.poker_events import (
    TurnStarted,
)
from server.tables.poker_seat import Seat
from server.tables.views import legal_for

if TYPE_CHECKING:
    from server.tables.poker import PokerTable


def start_turn(table: PokerTable, turn: TurnToAct) -> None:
    """The engine's turn with the clock: turn time, then the seat's time bank."""
    now = trio.current_time()
    seat = table.seats.get(turn.seat)
    bank = seat.bank if seat is not None else 0.0
    table.turn_seat = turn.seat
    table.turn_started = now
    table.turn_deadline = now + table.config.turn_time + bank
    table.bank_at = now + table.config.turn_time if bank > 0 else math.inf
    public = TurnStarted(
        seat=turn.seat,
        legal=[],
        time_ms=int((table.config.turn_time + bank) * 1000),
        time_bank_ms=int(bank * 1000),
    ).to_wire()
    legal = turn.legal.to_wire()
    for to in table.recipients():
        shown = legal_for(turn.seat, to.number, legal) if isinstance(to, Seat) else None
        table.event(to, {**public, "legal": shown} if shown else public)


def spend_time(table: PokerTable, seat: Seat, now: float) -> None:
    used = now - table.turn_started
    if used > table.config.turn_time:
        seat.bank = max(0.0, seat.bank - (used - table.config.turn_time))


def top_up_bank(table: PokerTable, seat: Seat) -> None:
    """Every ``time_bank_hands`` hands a seat plays, ``time_bank_add`` seconds more, up to
    ``time_bank_max`` (the room's time bank; seen in the seat's row)."""
    seat.hands += 1
    every = table.config.time_bank_hands
    if every > 0 and seat.hands % every == 0 and seat.bank < table.bank_max:
        seat.bank = min(table.bank_max, seat.bank + table.config.time_bank_add)


def release_unstaked(table: PokerTable, now: float) -> None:
    """A seat held without a stake (never bought in, or busted and not topped up) is
    released after ``unstaked_seat_time`` s (issue 25: nine connections held every seat
    of a table without a cent, and rounds never started to vacate them)."""
    unstaked = table.unstaked
    limit = table.config.unstaked_seat_time
    for number, seat in list(table.seats.items()):
        if table.stake(seat) or number in table.in_round_seats:
            unstaked.pop(number, None)
            continue
        since = unstaked.setdefault(number, now)
        if now - since >= limit:
            del unstaked[number]
            table.vacate(seat, "no_stake")
    for number in [n for n in unstaked if n not in table.seats]:
        del unstaked[number]


def gather(table: PokerTable) -> None:
    """A player became ready while no round runs: wait ``round_pause`` for others."""
    now = trio.current_time()
    if table.round is None and table.next_round_at <= now:
        table.next_round_at = now + table.config.round_pause
