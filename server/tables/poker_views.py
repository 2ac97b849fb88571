"""What the poker table shows: its lobby row and each recipient's snapshot.

A snapshot holds the table (stakes, buy-in range, what a new player posts: QLD Sch 11 s21(3),
s23A(1); ACT 6.3), every seat's row (stake, sitting out, connected, time bank, what it owes),
the engine's round as this recipient may see it (``server/tables/views.py``), the turn
with its clock, and the recipient's own queued pre-action (its own snapshot only). These are
the poker table's methods of the same names (``server/tables/poker.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from protocol.messages import TableInfo
from server.tables.phases import Phase
from server.tables.poker_seat import Seat
from server.tables.preactions import PreAction
from server.tables.seating import Member
from server.tables.views import round_view

if TYPE_CHECKING:
    from server.tables.poker import PokerTable


def info(table: PokerTable) -> TableInfo:
    stakes = {f"blind_{i + 1}": b for i, b in enumerate(table.rules.blinds)}
    return table.lobby_row(
        f"{table.rules.title}, {table.rules.structure}",
        stakes,
        table.rules.max_seats,
        len(table.seats),
        min_buy_in=table.rules.min_buy_in,
        max_buy_in=table.rules.max_buy_in,
        entry_post=table.entry_post(),
    )


def view_for(table: PokerTable, member: Member | None) -> dict[str, Any]:
    seat = member.number if isinstance(member, Seat) else None
    info = table.info()
    turn = None
    if table.turn_seat is not None:
        now = trio.current_time()
        at = table.seats.get(table.turn_seat)
        turn = {
            "seat": table.turn_seat,
            "time_ms": max(0, int((table.turn_deadline - now) * 1000)),
            "time_bank_ms": int(at.bank * 1000) if at is not None else 0,
        }
    return {
        "table": table.table_view(
            info,
            min_buy_in=info.min_buy_in,
            max_buy_in=info.max_buy_in,
            seats=info.seats,
            entry=table._entry(),
        ),
        "status": "closing"
        if table.closing
        else "playing"
        if table.phase is Phase.DECIDING
        else "waiting",
        "hand": table.hand,
        "designated": table.designated,
        "seats": [table._seat_row(s) for s in sorted(table.seats.values(), key=_number)],
        "round": round_view(table.round, seat, table.in_round_seats),
        "turn": turn,
        # the seat's own queued pre-action: in its own snapshot only, when it has one
        **(
            {"pre_action": _pre_wire(member.pre)}
            if isinstance(member, Seat) and member.pre is not None
            else {}
        ),
    }


def entry(table: PokerTable) -> dict[str, Any]:
    """Before you sit: what a new player posts (or may wait for), the buy-in range, and
    the rules behind it (QLD Sch 11 s21(3), s23A(1); ACT 6.3; Sch 5 s17(3))."""
    post = table.entry_post()
    return {
        "post": post,
        "may_wait": post > 0,
        "not_on_button": table.rules.absent_players,
        "min_buy_in": table.rules.min_buy_in,
        "max_buy_in": table.rules.max_buy_in,
        "vacate_after": table.config.abstain_rounds if table.rules.vacates_abstainers else None,
    }


def seat_row(table: PokerTable, s: Seat) -> dict[str, Any]:
    return {
        "seat": s.number,
        "name": s.name,
        "stake": table.stake(s),
        "sitting_out": s.sitting_out,
        "connected": s.connected,
        "in_round": s.number in table.in_round_seats,
        "time_bank_ms": int(s.bank * 1000),
        "owes": table._owes(s),
        "wait_for_blind": s.wait_for_blind,
    }


def owes(table: PokerTable, s: Seat) -> int:
    """What the seat posts when next dealt in (QLD Sch 11 s23A), unless it waits."""
    if not table.rules.absent_players or not s.missed or s.wait_for_blind:
        return 0
    return table.rules.minimum_wager


def _number(seat: Seat) -> int:
    return seat.number


def _pre_wire(pre: PreAction | None) -> dict[str, Any]:
    """A seat's queued pre-action as its own view and events show it (never anyone else)."""
    return {
        "verb": None if pre is None else pre.verb,
        "amount": None if pre is None else pre.amount,
    }
