"""Table actors driven without sockets, on trio's MockClock.

A table is built and run as the server builds and runs it (its class, ``submit``, ``run``),
with a ledger on an in-memory store; a :class:`Player` is a fake connection (the
:class:`~server.tables.connection.Connection` the table sends to) that collects every frame.
Only the tables' public surface is used: construct, ``submit``, the run loop, the connection.

The tests run with the ``autojump_clock`` fixture (pytest-trio): when every task waits, the
clock jumps to the next deadline, so a betting window, a turn timer or a disconnect grace
passes at once and in virtual time. The timeouts of :meth:`Player.next` are a safety net
that fires only when the table never sends what a test waits for (a deadlock, in virtual time).
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import trio

from protocol import messages as wire
from server.config import ServerConfig, TableConfig
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.tables.base import Shutdown, TableActor, TableCommand
from server.tables.connection import Connection

#: what a fake connection's queue holds (generous: a test reads what it needs, not all)
QUEUE = 100_000


class Player:
    """A connection to one table: sends commands, reads what the table sent it, in order.

    Every message is read as a dict with its ``type``: an ``events`` frame is read as its
    events one by one, each with its ``seq`` (a ``turn`` is one of them).
    """

    def __init__(self, table: TableActor, ledger: Ledger, name: str, balance: int) -> None:
        self.table = table
        self.conn = Connection(QUEUE)
        self.conn.account, self.conn.name = f"acct-{name}", name
        ledger.open(self.conn.account, balance)
        self.received: list[dict[str, Any]] = []  # everything read so far, in order
        self._unread: deque[dict[str, Any]] = deque()

    @property
    def account(self) -> str:
        assert self.conn.account is not None
        return self.conn.account

    def send(self, message: wire.ClientMessage) -> None:
        self.table.submit(TableCommand(self.conn, message))

    async def recv(self) -> dict[str, Any]:
        while not self._unread:
            message = await self.conn.outbox.receive()
            if isinstance(message, wire.Events):
                n = len(message.events)
                for i, event in enumerate(message.events):
                    self._unread.append({**event, "seq": message.seq - n + 1 + i})
            else:
                self._unread.append(msgspec.to_builtins(message))
        got = self._unread.popleft()
        self.received.append(got)
        return got

    async def next(
        self, kind: str, where: Callable[[dict[str, Any]], object] = lambda m: True
    ) -> dict[str, Any]:
        """The next message or event of type ``kind`` matching ``where`` (later ones stay
        unread); fails after a minute of virtual time without it."""
        with trio.fail_after(60):
            while True:
                got = await self.recv()
                if got["type"] == kind and where(got):
                    return got

    def saw(self, kind: str) -> list[dict[str, Any]]:
        """Every message or event of type ``kind`` read so far."""
        return [m for m in self.received if m["type"] == kind]


def ledger() -> Ledger:
    return Ledger(MemoryStore())


@asynccontextmanager
async def running(actor: TableActor) -> AsyncIterator[TableActor]:
    """Run ``actor``'s loop for the body; on exit, shut the table down if the body did not."""
    async with trio.open_nursery() as nursery:
        await nursery.start(actor.run)
        try:
            yield actor
        finally:
            if not actor.closed.is_set():
                await shutdown(actor)
            nursery.cancel_scope.cancel()


async def shutdown(actor: TableActor) -> None:
    """Shut the table down as the server does (``Shutdown``) and wait until it is closed."""
    done = trio.Event()
    actor.submit(Shutdown(done))
    await done.wait()


def table_config(game: str, kind: str | None = None, **kw: Any) -> TableConfig:
    return TableConfig(id="t", game=game, name=game, kind=kind, seed=7, **kw)


def server_config(**kw: Any) -> ServerConfig:
    return ServerConfig(**{"grace": 30.0, "round_pause": 0.5, "time_bank": 0.0, **kw})
