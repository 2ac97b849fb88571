"""Terminals' wagers on a stadium table's layout, while betting is open.

QLD Sch 19 s5(1)-(3) (a terminal makes, changes or withdraws wagers on layout positions,
each checked against the game's rules and the terminal's own limits, s8), s3(3) (none after
no more bets), ETG-15 (each answered privately with ``bet_ack`` and its credit meter).

Money: ``box:N`` holds terminal N's wagers; a wager is reserved from the meter with the
wallet's one atomic debit, and the box is squared to what its layout wants after every
change (:meth:`Wagering.square`). A commission the engine charges or returns on a carried
layout (Sch 4 s11-s13) is booked between the box and the house.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from protocol import errors
from protocol import messages as wire
from server.errors import IllegalAction
from server.games.banked.base import InvalidRound
from server.money import dollars
from server.tables import books
from server.tables.base import TableCommand
from server.tables.stadium.events import BetAck
from server.tables.stadium.terminals import Terminal

if TYPE_CHECKING:
    from server.tables.stadium.table import StadiumTable


class Wagering:
    """Wagers made, changed and withdrawn in the window (see the module's docstring)."""

    def __init__(self, table: StadiumTable) -> None:
        self.table = table
        #: the window's place / marker commands, journalled with their times at no more bets
        self.places_made: list[dict[str, Any]] = []

    def on_place(self, cmd: TableCommand[wire.Place]) -> None:
        """Make, change or withdraw a wager (s5(1)-(3)); refused after no more bets (s3(3))."""
        t = self.table
        terminal = t.terminals.of(cmd, "place")
        if terminal is None or t.refuse_after_close(cmd.conn, "place"):
            return
        m = cmd.message
        n, account = terminal.number, terminal.account
        before = sum(t.play.wagers(n).values())
        need = t.play.cost_bound(n, m.position, m.amount)
        meter = t.terminals.meter(account)
        if need > meter:
            t.error(
                cmd.conn,
                errors.INSUFFICIENT_FUNDS,
                f"the credit meter holds {dollars(meter)}: buy credits first",
                "place",
            )
            return
        try:
            into = t.play.place(n, m.position, m.amount, t.bounds.of(terminal))
        except (IllegalAction, InvalidRound) as exc:
            code = exc.code if isinstance(exc, IllegalAction) else "not_a_wager"
            text = exc.message if isinstance(exc, IllegalAction) else str(exc)
            t.error(cmd.conn, errors.WAGER_REFUSED, text, "place", code)
            return
        self.book_engine_moves(n, into)
        self.square(account, n, before + into, sum(t.play.wagers(n).values()))
        t.terminals.numbers[n] = account
        self.places_made.append(
            {"terminal": n, "position": m.position, "amount": m.amount, "at": time.time()}
        )
        self.ack(terminal, m.position)

    def on_marker(self, cmd: TableCommand[wire.Marker]) -> None:
        """The on / off marker of a carried layout (Sch 4 s7), while betting is open."""
        t = self.table
        terminal = t.terminals.of(cmd, "marker")
        if terminal is None or t.refuse_after_close(cmd.conn, "marker"):
            return
        try:
            t.play.mark(terminal.number, cmd.message.position, cmd.message.on)
        except IllegalAction as exc:
            t.error(cmd.conn, errors.WAGER_REFUSED, exc.message, "marker", exc.code)
            return
        self.places_made.append(
            {
                "terminal": terminal.number,
                "marker": cmd.message.position,
                "on": cmd.message.on,
                "at": time.time(),
            }
        )
        self.ack(terminal, cmd.message.position)

    def ack(self, terminal: Terminal, position: str | None) -> None:
        """ETG §3 ``bet_ack``: the terminal's wagers as the server holds them, and its meter."""
        t = self.table
        event = BetAck(
            round=t.round_no,
            position=position,
            wagers=dict(t.play.wagers(terminal.number)),
            credits=t.terminals.meter(terminal.account),
            visible_to=terminal.number,
        )
        t.event(terminal, event.to_wire())

    def book_engine_moves(self, number: int, into: int) -> None:
        """A commission the engine charged (``into`` < 0) or returned (> 0) on the box."""
        t = self.table
        if into < 0:
            t.books.engine_transfer(books.box(number), books.HOUSE, -into)
        elif into > 0:
            t.books.engine_transfer(books.HOUSE, books.box(number), into)

    def square(self, account: str, number: int, holds: int, wants: int) -> None:
        """Bring ``box:number`` from what it ``holds`` to what its layout ``wants``: the
        difference from or to the meter."""
        t = self.table
        if wants > holds:
            t.books.reserve(account, number, wants - holds)
        elif holds > wants:
            t.books.release(account, number, holds - wants)
