"""The table actor: one trio task owns one table; connections talk to it by commands.

Theory of operation
-------------------
Connection reader tasks turn validated client messages into :class:`Command` records and
:meth:`TableActor.submit` them (never blocking: the channel is unbounded, and each
connection is rate-limited upstream). The table task takes one command at a time, handles it
synchronously (no await while the table's state is inconsistent), and wakes up at its next
deadline (turn timer, disconnect grace, next round) to run :meth:`TableActor.on_time`.
Everything a table sends goes through :meth:`TableActor.event` / :meth:`TableActor.deliver`
into a recipient connection's bounded outbound queue (``Connection.send``), so a slow client
can never stall the table. Each recipient has its own sequence number ``seq``, one per
event. The events of one step (one command, or one pass of the timers) for one recipient
are coalesced into a single ``events`` frame: :meth:`TableActor.flush` runs after each step
(``protocol/README.md``, "Events"). Any table kind built on this base batches the same way.

Poker (``server/tables/poker.py``) is one implementation; a banked-game table (player vs
house, a betting window, boxes) subclasses this base the same way: it keeps the command
loop, the spectators, the sequence numbers and the delivery, and implements the handlers.
"""

from __future__ import annotations

import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio

from protocol import errors
from protocol.messages import Error, Left, Snapshot, TableInfo
from server.config import ServerConfig, TableConfig
from server.tables.connection import Connection
from server.wallet import Wallet

log = logging.getLogger("croupier.tables")


# -- commands (connection -> table) ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Command:
    conn: Connection


@dataclass(frozen=True, slots=True)
class Join(Command):
    role: str
    seat: int | None = None
    last_seq: int | None = None


@dataclass(frozen=True, slots=True)
class BuyIn(Command):
    amount: int


@dataclass(frozen=True, slots=True)
class Act(Command):
    verb: str
    amount: int | None


@dataclass(frozen=True, slots=True)
class SitOut(Command):
    pass


@dataclass(frozen=True, slots=True)
class SitIn(Command):
    pass


@dataclass(frozen=True, slots=True)
class Leave(Command):
    pass


@dataclass(frozen=True, slots=True)
class Message(Command):
    """Any other table message (e.g. banked games' ``wager``, ``decide``): the table kind
    decides; the base refuses it with ``wrong_game``."""

    message: Any


@dataclass(frozen=True, slots=True)
class Detach(Command):
    """The connection ended (or was replaced): hold its seat for the grace period."""


@dataclass(frozen=True, slots=True)
class Shutdown:
    """Stop starting rounds, finish or void the running one, return every stake."""

    done: trio.Event


class Recipient:
    """Someone who receives this table's messages: a seat holder or a spectator."""

    __slots__ = ("conn", "seq")

    def __init__(self, conn: Connection | None) -> None:
        self.conn = conn
        self.seq = 0


class TableActor(ABC):
    """Base of every table: command loop, timers, spectators, delivery with sequence numbers."""

    kind = "table"
    #: whether this kind keeps :attr:`seat_index` up to date (else the server asks
    #: :meth:`seat_of_account`, which scans the table's seats)
    indexes_seats = False

    def __init__(self, table: TableConfig, config: ServerConfig, wallet: Wallet) -> None:
        self.table = table
        self.id = table.id
        self.config = config
        self.wallet = wallet
        self.spectators: dict[int, Recipient] = {}
        self.closing = False
        self.closed = trio.Event()
        self._inbox_send, self._inbox = trio.open_memory_channel[Any](math.inf)
        self._unflushed: list[Connection] = []  # connections with an open events batch
        #: account -> ids of the tables where it holds a seat; the server shares one dict
        #: among its tables so that ``hello`` finds an account's seats without a scan
        self.seat_index: dict[str, set[str]] = {}

    # -- called by connection tasks (sync, never blocks) ------------------------------------
    def submit(self, command: Command | Shutdown) -> None:
        try:
            self._inbox_send.send_nowait(command)
        except trio.ClosedResourceError:
            if isinstance(command, Command) and not isinstance(command, Detach):
                self.error(command.conn, errors.SHUTTING_DOWN, "the table is closed", "join")
            elif isinstance(command, Shutdown):
                command.done.set()

    # -- the task ---------------------------------------------------------------------------
    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        while not self.closed.is_set():
            with trio.move_on_at(self.next_deadline()):
                command = await self._inbox.receive()
                self._dispatch(command)
                self.flush()
            try:
                self.on_time(trio.current_time())
            except Exception:  # a bug must not take the server down
                log.exception("table %s: timer handling failed", self.id)
            self.flush()
        self._inbox_send.close()

    def _dispatch(self, command: Command | Shutdown) -> None:
        try:
            if isinstance(command, Shutdown):
                self.shutdown()
                command.done.set()
            elif isinstance(command, Join) and command.role == "spectator":
                self.join_spectator(command)
            else:
                handler = getattr(self, "on_" + type(command).__name__.lower())
                handler(command)
        except Exception:  # a bug must not take the table (or the server) down
            log.exception("table %s: command %r failed", self.id, command)
            if isinstance(command, Command):
                self.error(command.conn, errors.INTERNAL, "server error", None)

    def on_message(self, cmd: Message) -> None:
        kind = type(cmd.message).__struct_config__.tag
        self.error(cmd.conn, errors.WRONG_GAME, f"a {self.kind} table does not take {kind!r}", kind)

    # -- delivery ---------------------------------------------------------------------------
    def deliver(self, to: Recipient, build: Callable[[int], Any]) -> None:
        """Number the next message for ``to`` and queue it (nothing if disconnected).

        For messages other than events (snapshot, left): the recipient's open batch of
        events goes first, so the order is kept."""
        to.seq += 1
        if to.conn is not None:
            to.conn.send(build(to.seq))

    def event(self, to: Recipient, event: dict[str, Any]) -> None:
        """Number an event for ``to`` and add it to this step's batch for its connection."""
        to.seq += 1
        conn = to.conn
        if conn is not None and conn.add_event(self.id, to.seq, event):
            self._unflushed.append(conn)

    def flush(self) -> None:
        """End of a step: each recipient's events of the step go out as one frame."""
        if self._unflushed:
            conns, self._unflushed = self._unflushed, []
            for conn in conns:
                conn.flush()

    def snapshot(self, to: Recipient, role: str, seat: int | None) -> None:
        view = self.view_for(seat)
        self.deliver(to, lambda seq: Snapshot(self.id, seq, role, seat, view))

    def error(
        self,
        conn: Connection,
        code: str,
        message: str,
        ref: str | None,
        reason: str | None = None,
    ) -> None:
        conn.send(Error(code=code, message=message, ref=ref, reason=reason, table=self.id))

    # -- spectators -------------------------------------------------------------------------
    def join_spectator(self, cmd: Join) -> None:
        if cmd.conn.id in self.spectators or self.holds_seat(cmd.conn):
            self.error(cmd.conn, errors.ALREADY_AT_TABLE, "already at this table", "join")
            return
        if self.closing:
            self.error(cmd.conn, errors.SHUTTING_DOWN, "the table is closing", "join")
            return
        to = self.spectators[cmd.conn.id] = Recipient(cmd.conn)
        cmd.conn.tables.add(self.id)
        self.snapshot(to, "spectator", None)

    def leave_spectator(self, conn: Connection, reason: str = "left") -> bool:
        to = self.spectators.pop(conn.id, None)
        if to is None:
            return False
        conn.tables.discard(self.id)
        self.deliver(to, lambda seq: Left(self.id, seq, 0, reason))
        return True

    def recipients(self) -> list[tuple[Recipient, int | None]]:
        """Every recipient with the seat it views from (None: spectator)."""
        return [(r, None) for r in self.spectators.values()]

    # -- what each table implements ---------------------------------------------------------
    @abstractmethod
    def info(self) -> TableInfo: ...

    @abstractmethod
    def view_for(self, seat: int | None) -> dict[str, Any]: ...

    @abstractmethod
    def holds_seat(self, conn: Connection) -> bool: ...

    @abstractmethod
    def seat_of_account(self, account: str) -> int | None: ...

    @abstractmethod
    def next_deadline(self) -> float: ...

    @abstractmethod
    def on_time(self, now: float) -> None: ...

    @abstractmethod
    def shutdown(self) -> None: ...

    @abstractmethod
    def money(self) -> dict[str, int]:
        """Cents held by this table: ``stakes`` (incl. in play) and ``commission`` taken."""
