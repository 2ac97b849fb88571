r"""The seat lifecycle, written once for every kind of table: who receives a table's
messages, joining as a player or a spectator, resuming after a reconnect, detaching when
the connection ends, the disconnect grace, vacating, the shutdown cash-out and the
abandonment of a table whose lease is lost.

Theory of operation. A table's recipients are its :class:`Member`\ s (seat holders, by
account) and its spectators (:class:`Recipient`, by connection id). A ``join`` either
resumes the account's seat (a reconnect: a full snapshot, the sequence numbers go on),
watches, or asks the kind to :meth:`~server.tables.base.TableActor.admit` a new player after
the room's limits (:func:`may_sit`). A connection that ends detaches: its seat is held for
the grace period (``ServerConfig.grace``), then vacated (after the round it plays in, if
any). Vacating returns the member's money through the kind's ``release`` and tells
everyone. The functions here are the table's methods of the same names (``TableActor.on_join
= seating.on_join``...): a kind overrides the hooks they call, never these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import Left
from server.money import dollars
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.seat_events import TableClosing

if TYPE_CHECKING:
    from server.tables.base import Abandon, Detach, Expel, Shutdown, TableActor, TableCommand

__all__ = ["Member", "Recipient"]


# -- who receives a table's messages -------------------------------------------------------------
class Recipient:
    """Someone who receives this table's messages: a seat holder or a spectator."""

    __slots__ = ("conn", "seq")

    def __init__(self, conn: Connection | None) -> None:
        self.conn = conn
        self.seq = 0


class Member(Recipient):
    """A player at the table (any kind): account, name, connection state, leaving."""

    __slots__ = ("account", "connected", "grace_until", "leaving", "name")

    def __init__(self, conn: Connection) -> None:
        super().__init__(conn)
        self.account: str = conn.account or ""
        self.name = conn.name
        self.connected = True
        self.grace_until: float | None = None
        self.leaving = False


def on_join(table: TableActor, cmd: TableCommand[wire.Join]) -> None:
    conn = cmd.conn
    if cmd.message.role == "spectator":
        _join_spectator(table, conn)
        return
    held = table.members.get(conn.account or "")
    if held is not None:
        _resume(table, held, conn)
        return
    if conn.id in table.spectators:
        table.error(conn, errors.ALREADY_AT_TABLE, "already watching this table", "join")
        return
    if table.closing:
        table.error(conn, errors.SHUTTING_DOWN, "the table is closing", "join")
        return
    if not table.may_sit(conn):
        return
    member = table.admit(conn, cmd.message)
    if member is None:
        return
    table.members[member.account] = member
    table.seat_index.setdefault(member.account, set()).add(table.id)
    conn.tables.add(table.id)
    table.snapshot(member, "player", member)
    table.after_admit(member)


def may_sit(table: TableActor, conn: Connection) -> bool:
    """The room's limits on taking a seat (issue 25, seats nobody can hoard): at most
    ``max_tables`` tables an account, and, with a secret (no minted money), the table's
    minimum in the wallet; a refusal is sent to ``conn``."""
    account = conn.account or ""
    sitting = len(table.seat_index.get(account, ()))
    if sitting >= table.config.max_tables:
        text = f"you sit at {sitting} tables, the most this server allows: leave one to sit here"
        table.error(conn, errors.TOO_MANY_TABLES, text, "join")
        return False
    need = table.seat_minimum()
    if not table.config.dev and need and table.ledger.balance(account) < need:
        have = table.ledger.balance(account)
        text = (
            f"a seat here needs {dollars(need)} in your wallet (the table's minimum); "
            f"you have {dollars(have)}: see the cashier"
        )
        amounts = {"balance": have, "min": need}
        table.error(conn, errors.INSUFFICIENT_FUNDS, text, "join", amounts=amounts)
        return False
    return True


def _join_spectator(table: TableActor, conn: Connection) -> None:
    if conn.id in table.spectators or table.holds_seat(conn):
        table.error(conn, errors.ALREADY_AT_TABLE, "already at this table", "join")
        return
    if table.closing:
        table.error(conn, errors.SHUTTING_DOWN, "the table is closing", "join")
        return
    if len(table.spectators) >= table.config.max_spectators:
        table.error(conn, errors.SPECTATORS_FULL, "no more spectators at this table", "join")
        return
    to = table.spectators[conn.id] = Recipient(conn)
    conn.tables.add(table.id)
    table.snapshot(to, "spectator", None)


def _resume(table: TableActor, member: Member, conn: Connection) -> None:
    """Reconnect: the account's seat now talks to ``conn``; full snapshot, seq continues."""
    old = member.conn
    if old is not None and old is not conn:
        old.tables.discard(table.id)
    member.conn = conn
    conn.tables.add(table.id)
    was_connected = member.connected
    member.connected = True
    member.grace_until = None
    table.snapshot(member, "player", member)
    if not was_connected:
        table.broadcast(table.connection_event(member, True), skip=member)


def on_leave(table: TableActor, cmd: TableCommand[wire.Leave]) -> None:
    spectator = table.spectators.pop(cmd.conn.id, None)
    if spectator is not None:
        cmd.conn.tables.discard(table.id)
        table.deliver(spectator, lambda seq: Left(table.id, seq, 0, "left"))
        return
    member = table.member_for(cmd.conn, "leave")
    if member is None:
        return
    if table.in_round(member):
        member.leaving = True  # vacated when the round ends; its turns are timed out
        table.on_leaving(member)
    else:
        table.vacate(member, "left")


def on_detach(table: TableActor, item: Detach) -> None:
    if table.spectators.pop(item.conn.id, None) is not None:
        return
    for member in table.members.values():
        if member.conn is item.conn:
            member.conn = None
            member.connected = False
            member.grace_until = trio.current_time() + table.config.grace
            table.broadcast(table.connection_event(member, False))


def on_shutdown(table: TableActor, item: Shutdown) -> None:
    """Stop starting rounds, void the running one (every wager back), cash everyone out."""
    table.closing = True
    table.broadcast(TableClosing())
    table.void_round("shutdown")
    table.phases.to(Phase.CLOSED)
    for member in list(table.members.values()):
        table.vacate(member, "shutdown")
    for conn_id in list(table.spectators):
        to = table.spectators.pop(conn_id)
        table.deliver(to, lambda seq: Left(table.id, seq, 0, "shutdown"))
    table.closed.set()
    item.done.set()


def on_abandon(table: TableActor, item: Abandon) -> None:
    """Leave the table to its new owner: everyone is told ``left`` (nothing returned
    here: the money is where the store has it), no more rounds, the task ends."""
    table.closing = True
    for member in list(table.members.values()):
        _forget(table, member)
        table.deliver(member, lambda seq: Left(table.id, seq, 0, item.reason))
        if member.conn is not None:
            member.conn.tables.discard(table.id)
    for conn_id in list(table.spectators):
        to = table.spectators.pop(conn_id)
        if to.conn is not None:
            to.conn.tables.discard(table.id)
        table.deliver(to, lambda seq: Left(table.id, seq, 0, item.reason))
    table.closed.set()


def on_expel(table: TableActor, item: Expel) -> None:
    member = table.members.get(item.account)
    if member is None:
        return
    if table.in_round(member):
        member.leaving = True
        table.on_leaving(member)
    else:
        table.vacate(member, item.reason)


def expire_grace(table: TableActor, now: float) -> None:
    """A disconnected member's grace ran out: it leaves (after its round, if in one)."""
    for member in list(table.members.values()):
        if member.grace_until is not None and now >= member.grace_until:
            member.grace_until = None
            if table.in_round(member):
                member.leaving = True
            else:
                table.vacate(member, "grace_expired")


def _forget(table: TableActor, member: Member) -> None:
    """The member is no longer at the table, nor in the server's index of seats held."""
    del table.members[member.account]
    held = table.seat_index.get(member.account)
    if held is not None:
        held.discard(table.id)
        if not held:
            del table.seat_index[member.account]


def vacate(table: TableActor, member: Member, reason: str) -> None:
    """Free the member's seat or boxes and return its money to the wallet."""
    returned = table.release(member)
    _forget(table, member)
    table.deliver(member, lambda seq: Left(table.id, seq, returned, reason))
    if member.conn is not None:
        member.conn.tables.discard(table.id)
        member.conn.send(wire.Balance(table.ledger.balance(member.account)))
    table.broadcast(table.vacated_event(member, reason, returned))
