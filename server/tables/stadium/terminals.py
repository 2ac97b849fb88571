"""The terminals of a stadium table: their places, lifecycle and credit meters.

QLD Sch 19 s2(3) (``max_terminals`` approved terminals, ETG-04), s4 (credits bought from
the wallet onto the meter at once), s7(3)(c), s7(4) (a wager left on the layout collected to
the meter) and s9(3) (the meter paid to the player's account).

A terminal holds a number, its place on the layout, while it has wagers there, so a player
who leaves with a wager standing finds it on return. The credit meter is a wallet-side
account of its own (:func:`server.tables.books.meter`) shared by every stadium table the
account plays at (s4(3)): it goes home to the wallet when the last of them is left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from protocol import errors
from protocol import messages as wire
from server.store.model import InsufficientFunds
from server.tables import books
from server.tables.base import Member, TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.stadium.events import CashedOut, CreditMeter, TerminalLeft

if TYPE_CHECKING:
    from server.tables.stadium.table import StadiumTable


class Terminal(Member):
    """One electronic player terminal at the table: its number (its place on the layout)."""

    __slots__ = ("number",)

    def __init__(self, conn: Connection, number: int) -> None:
        super().__init__(conn)
        self.number = number


class Terminals:
    """The table's terminals: places taken and freed, and the credit meters (see the
    module's docstring)."""

    def __init__(self, table: StadiumTable) -> None:
        self.table = table
        self.numbers: dict[int, str] = {}  # terminal number -> account (while it has one)
        self.device_refs: set[tuple[str, str]] = set()
        #: account -> the stadium tables it plays at (the server shares one among its
        #: tables: the credit meter is cashed out when the last is left)
        self.sessions: dict[str, set[str]] = {}

    # -- places (s2(3)) ---------------------------------------------------------------------
    def admit(self, conn: Connection) -> Member | None:
        """A terminal place for ``conn``'s account: the one it holds, else the first free."""
        t = self.table
        if len(t.members) >= t.max_terminals:
            t.error(
                conn,
                errors.GAME_FULL,
                f"{t.spec.title} has its {t.max_terminals} approved terminals (QLD Sch 19 s2(3))",
                "join",
            )
            return None
        account = conn.account or ""
        number = next(
            (n for n in range(1, t.max_terminals + 1) if self.numbers.get(n, account) == account),
            None,
        )
        if number is None:
            t.error(conn, errors.GAME_FULL, "every terminal place is held", "join")
            return None
        self.numbers[number] = account
        return Terminal(conn, number)

    def joined(self, member: Member) -> None:
        t = self.table
        self.sessions.setdefault(member.account, set()).add(t.id)
        if t.phase is Phase.IDLE:
            t.next_round_at = trio.current_time()

    def release(self, member: Member) -> int:
        """The terminal's wagers come off the layout to its meter (a carried layout: the ones
        that may, Sch 4 s6(1)); the meter goes to the wallet when this was its last stadium
        table."""
        assert isinstance(member, Terminal)
        t = self.table
        returned = 0
        self.take_down(member.account, member.number, "wager_returned")
        if not t.play.wagers(member.number):
            self.numbers.pop(member.number, None)
        t.bounds.forget(member.account)
        tables = self.sessions.get(member.account, set())
        tables.discard(t.id)
        if not tables:
            self.sessions.pop(member.account, None)
            returned = self.home(member.account)
        return returned

    @staticmethod
    def left(member: Member, reason: str) -> TerminalLeft:
        number = member.number if isinstance(member, Terminal) else None
        return TerminalLeft(terminal=number, reason=reason)

    def of(self, cmd: TableCommand[Any], ref: str) -> Terminal | None:
        """The terminal sending ``cmd`` (``not_seated`` answered if none)."""
        member = self.table.member_for(cmd.conn, ref)
        return member if isinstance(member, Terminal) else None

    # -- the credit meter (s4, s7, s9) ------------------------------------------------------
    def meter(self, account: str) -> int:
        return self.table.ledger.balance(books.meter(account)[7:])

    def home(self, account: str) -> int:
        """Pay the meter of an account without a stadium session to its wallet."""
        if account in self.sessions:
            return 0
        amount = self.meter(account)
        self.table.books.credit_out(account, amount)
        return amount

    def tell_meter(self, terminal: Terminal, why: str) -> None:
        credits = self.meter(terminal.account)
        event = CreditMeter(credits=credits, why=why, visible_to=terminal.number)
        self.table.event(terminal, event.to_wire())

    def meter_to(self, account: str, why: str) -> None:
        """The meter moved: told to the terminal, or home to the wallet if it has gone."""
        terminal = self.table.members.get(account)
        if isinstance(terminal, Terminal):
            self.tell_meter(terminal, why)
        else:
            self.home(account)

    def on_credit_in(self, cmd: TableCommand[wire.CreditIn]) -> None:
        """Credits bought from the wallet, onto the meter at once (s4(2)); a repeated
        ``device_ref`` is acknowledged without a second debit."""
        t = self.table
        terminal = self.of(cmd, "credit_in")
        if terminal is None or t.refuse_money(cmd.conn, "credit_in"):
            return
        m = cmd.message
        ref = (terminal.account, m.device_ref) if m.device_ref is not None else None
        if ref is None or ref not in self.device_refs:
            try:
                t.books.credit_in(terminal.account, m.amount)
            except InsufficientFunds as exc:
                t.error(cmd.conn, errors.INSUFFICIENT_FUNDS, str(exc), "credit_in")
                return
            if ref is not None:
                self.device_refs.add(ref)
        cmd.conn.send(wire.Balance(t.ledger.balance(terminal.account)))
        self.tell_meter(terminal, "credit_in")

    def on_collect(self, cmd: TableCommand[wire.Collect]) -> None:
        """Every wager left on the layout to the meter (s7(3)(c), s7(4))."""
        terminal = self.of(cmd, "collect")
        if terminal is None or self.table.refuse_money(cmd.conn, "collect"):
            return
        if not self.collect(cmd.conn, terminal, "collect"):
            return
        self.table.wagering.ack(terminal, None)

    def collect(self, conn: Connection, terminal: Terminal, ref: str) -> bool:
        t = self.table
        if t.phase is Phase.NO_MORE_BETS:
            t.error(conn, errors.BETTING_CLOSED, "no more bets: collect after the result", ref)
            return False
        self.take_down(terminal.account, terminal.number, "collected")
        return True

    def take_down(self, account: str, number: int, kind: str) -> None:
        """The terminal's removable wagers (and a commission returned) to its meter."""
        t = self.table
        taken, into = t.play.clear(number)
        t.wagering.book_engine_moves(number, into)
        t.books.release(account, number, taken + into, kind)

    def on_cash_out(self, cmd: TableCommand[wire.CashOut]) -> None:
        """The layout collected and the meter paid to the player's account (s9(3)); refused
        while its wagers wait for a result (those credits are not decided yet)."""
        t = self.table
        terminal = self.of(cmd, "cash_out")
        if terminal is None or t.refuse_money(cmd.conn, "cash_out"):
            return
        if t.in_round(terminal):
            t.error(
                cmd.conn,
                errors.ROUND_IN_PROGRESS,
                "your wagers wait for the result: cash out after it",
                "cash_out",
            )
            return
        if not self.collect(cmd.conn, terminal, "cash_out"):
            return
        amount = self.meter(terminal.account)
        t.books.credit_out(terminal.account, amount)
        cmd.conn.send(wire.Balance(t.ledger.balance(terminal.account)))
        event = CashedOut(amount=amount, method="account", visible_to=terminal.number)
        t.event(terminal, event.to_wire())
        t.wagering.ack(terminal, None)
