"""Commit, then speak: no frame leaves the server before the writes it reports are durable.

Theory of operation
-------------------
Every write the ledger queues for its store that a frame may report (a movement of money, a
round opened or closed, a fact or an audit entry: :meth:`Ledger.move`, ``open_round``,
``close_round``, ``note``) takes the next number, :attr:`CommitGate.written`. The *speaker*
that made it remembers that number: the table whose step is running, the tournament whose
step is running, the connection whose message the router is handling (:attr:`speaker`), and
the table and the accounts whose money moved. A speaker that reads an account's balance
(:meth:`read`) takes on that account's number: a balance another table changed is not told
before that table's write is durable. When a commit of the store returns (SQLite:
fsynced; Redis: acknowledged, and by ``WAIT`` replicas where ``--redis-wait`` asks),
everything numbered up to what the commit took is durable (:meth:`committed`).

A frame put on a connection while its speaker has a write that is not durable yet is
*held* by the connection with that number (:meth:`Connection.release`), and everything sent
to it afterwards is held behind it, so the order per recipient holds. When a commit returns
the gate releases, in the committer's task, every frame it made durable: it is written at
once where the socket takes it (the connection's fast path), as if it had just been sent.
A speaker with nothing pending speaks at once. Nothing else waits: a table goes on playing,
and the committer keeps grouping every table's steps into one commit (the group commit), while
the frames of a settlement wait for their fsync.

A table step speaks at its end (:meth:`begin`, :meth:`end`): what a step sends is kept by
each connection until the step is over, so a frame can never leave ahead of a movement the
same step made after it. ``docs/rulings.md`` ("Commit, then speak") says which frames wait.
One kind of frame goes ahead of those that wait: a notice that the store went out or came
back (``server_status``), which reports no commitment, only why the others wait.

The gate is driven from the trio thread only (table steps, the router and the ledger's
committer all run there, synchronously between checkpoints), so it needs no lock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

if TYPE_CHECKING:
    from server.tables.connection import Connection


class CommitGate:
    """The process's durability marks (see the module docstring)."""

    def __init__(self) -> None:
        self.written = 0  # the number of the last write queued for the store
        self.durable = 0  # every write up to this number is durable
        #: who is speaking now: a table id, a tournament's key, a connection, or None
        self.speaker: Any = None
        self._marks: dict[Any, int] = {}  # speaker -> its last write not yet durable
        self._committed = trio.Event()
        #: a step is running: connections keep what is sent until :meth:`end`
        self.stepping = False
        #: connections that kept frames during this step (flushed by :meth:`end`)
        self.touched: list[Connection] = []
        #: connections holding frames until a commit (released by :meth:`committed`)
        self._holding: dict[Connection, None] = {}

    # -- the ledger's side ---------------------------------------------------------------------
    def wrote(self, *about: str | None) -> None:
        """A write was queued for the store by the current speaker, about the keys in
        ``about`` (a table whose accounts it moved money on, an account whose wallet it
        moved: whoever speaks of those next waits for it too; None: nothing)."""
        self.written = n = self.written + 1
        marks = self._marks
        marks[self.speaker] = n
        for key in about:
            if key is not None:
                marks[key] = n

    def read(self, key: str) -> None:
        """The current speaker reads what ``key``'s writes changed (an account's balance):
        what it says next waits for them too (a balance moved by another table's step, not
        durable yet, is not told before it is)."""
        mark = self._marks.get(key, 0)
        if mark > self.durable and mark > self._marks.get(self.speaker, 0):
            self._marks[self.speaker] = mark

    def committed(self, upto: int) -> None:
        """Every write numbered up to ``upto`` is durable: release the frames that waited
        (written at once where the socket takes them: the fast path, in this task)."""
        if upto <= self.durable:
            return
        self.durable = upto
        if self._marks:
            self._marks = {k: v for k, v in self._marks.items() if v > upto}
        if self._holding:
            for conn in list(self._holding):
                if conn.release(upto):
                    del self._holding[conn]
        self._committed.set()
        self._committed = trio.Event()

    def hold(self, conn: Connection) -> None:
        """``conn`` holds frames until a commit (:meth:`Connection.release`)."""
        self._holding[conn] = None

    # -- the speakers' side -----------------------------------------------------------------------
    def need(self) -> int:
        """The write the current speaker's next frame must wait for (0: none, speak now)."""
        mark = self._marks.get(self.speaker, 0)
        return mark if mark > self.durable else 0

    def pending(self, speaker: Any) -> bool:
        """Whether ``speaker`` has a write that is not durable yet."""
        return self._marks.get(speaker, 0) > self.durable

    def begin(self, speaker: Any) -> None:
        """A step of ``speaker`` starts: what it sends is said at :meth:`end`."""
        self.speaker = speaker
        self.stepping = True

    def end(self) -> None:
        """The step is over: every connection it sent to speaks (held if it must wait)."""
        if self.touched:
            touched, self.touched = self.touched, []
            for conn in touched:
                conn.flush()
        self.stepping = False
        self.speaker = None

    async def changed(self) -> None:
        """Return at the next commit (or :meth:`poke`)."""
        await self._committed.wait()


#: The gate of a connection that no ledger speaks through (a unit test's connection): nothing
#: is ever pending on it, so every frame is said at once.
OPEN = CommitGate()
