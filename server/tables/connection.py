"""A client connection as tables see it: an identity and a bounded outbound queue.

Tables never await a client. They call :meth:`Connection.send`. When nothing is queued for the
connection and its socket takes the frame without blocking, the frame is written at once
(:attr:`Connection.direct`, the fast path: no task switch per frame); otherwise the message
goes on a bounded memory channel drained by the connection's handler task
(``server/net/connections.py``), inside the :attr:`Connection.writer` cancel scope, and later
messages queue behind it so the order never changes. When the queue is full the client is not
keeping up: it is dropped with close code 4002 (which cancels the writer, even in the middle
of a send to a client that stopped reading) and the table carries on at its own pace (its
seat is then held like any disconnected seat).

Events are batched: :meth:`Connection.add_event` appends to the connection's open
``events`` message (one table, consecutive sequence numbers) instead of queueing a frame per
event; the table calls :meth:`Connection.flush` at the end of each step (command or timer),
so a recipient gets one frame per table step. Any other message sent meanwhile
(:meth:`send`) flushes the open batch first, so the order of everything a client receives
is exactly the order in which it was produced. Sending frames, not game logic, is what a
table server's CPU goes to (docs/perf.md).

Commit, then speak (``server/store/gate.py``): during a table step (:attr:`CommitGate.stepping`)
what is sent is kept by the connection and said when the step ends; a frame whose speaker
has a write that is not durable yet is **held** by the connection (:attr:`held`, in order,
each with the number of the write it waits for), and everything sent after it is held behind
it. When a commit returns, the gate releases the frames it made durable
(:meth:`release`, in the committer's task): they take the same path as any frame, written
at once when the socket takes them. A notice that the store went out or came back
(:meth:`notice`) goes ahead of what is held.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable
from typing import Any

import trio

from protocol.errors import CloseCode
from protocol.messages import Events
from server.store.gate import OPEN, CommitGate

_ids = itertools.count(1)

#: Most events in one ``events`` frame (keeps frames small; more start a new frame).
MAX_BATCH = 64


class Connection:
    """One WebSocket client: who it is, where it sits, and its outbound queue."""

    def __init__(self, queue_size: int, gate: CommitGate = OPEN) -> None:
        self.id = next(_ids)
        self.account: str | None = None
        self.name: str = ""
        self.role = "player"  # from the session token: player, cashier, supervisor, manager
        self.token_id = ""  # the session token's id (logout revokes it)
        self.tables: set[str] = set()  # ids of tables joined (as player or spectator)
        self._send, self.outbox = trio.open_memory_channel[Any](queue_size)
        self.closing = trio.Event()
        self.close_code: int = CloseCode.NORMAL
        self.close_reason = ""
        self.graceful = False  # finish(): drain the queue before closing
        #: the scope the writer drains the queue in: drop() cancels it, finish() gives it
        #: ``drain_timeout`` s (set by the connection's handler)
        self.writer = trio.CancelScope()
        self.drain_timeout = math.inf
        #: the fast path, set by the connection's handler: writes a message to the socket now
        #: if that cannot block, returning None, or returns what to queue for the writer
        #: instead (the message itself, or a marker for the unwritten rest)
        self.direct: Callable[[Any], Any] | None = None
        self.backlog = False  # the writer has messages queued: they go first
        self._batch: Events | None = None  # the open events message, not queued yet
        #: commit, then speak: the server's gate (the ledger's), and what this step sent
        self.gate = gate
        self._later: list[Any] = []
        self._touched = False  # on the gate's list of connections to flush at the step's end
        #: frames waiting for a commit, in order: (the write they wait for, the message); a
        #: frame after one that waits waits too (its number 0); None: nothing is held
        self.held: deque[tuple[int, Any]] | None = None
        self.queue_size = queue_size

    def add_event(self, table: str, seq: int, event: dict[str, Any]) -> bool:
        """Add a table event numbered ``seq`` to the open batch; True if a batch was opened
        (the caller must :meth:`flush` it at the end of its step)."""
        batch = self._batch
        if batch is not None:
            if batch.table == table and batch.seq + 1 == seq and len(batch.events) < MAX_BATCH:
                batch.events.append(event)
                batch.seq = seq
                return False
            self._batch = None
            self._later.append(batch)
        if self.closing.is_set():
            return False
        self._batch = Events(table, seq, [event])
        return True

    def flush(self) -> None:
        """Queue what this step sent, the open batch of events last, each as one frame: held
        until the commit of the speaker's last write if it is not durable yet."""
        self._touched = False
        batch = self._batch
        if batch is not None:
            self._batch = None
            self._later.append(batch)
        if not self._later:
            return
        later, self._later = self._later, []
        need = self.gate.need()
        for message in later:
            self._put(message, need)

    def send(self, message: Any) -> bool:
        """Queue ``message`` without blocking; a full queue drops the client (4002). During
        a table step it is said when the step ends (:class:`~server.store.gate.CommitGate`)."""
        gate = self.gate
        if gate.stepping:
            if self.closing.is_set():
                return False
            batch = self._batch
            if batch is not None:
                self._batch = None
                self._later.append(batch)
            self._later.append(message)
            if not self._touched:
                self._touched = True
                gate.touched.append(self)
            return True
        if self._batch is not None or self._later:
            self.flush()
        return self._put(message, gate.need())

    def _put(self, message: Any, need: int = 0) -> bool:
        if self.closing.is_set():
            return False
        held = self.held
        if held is None and not need:
            return self._write(message)
        if held is None:  # not durable yet: held, and everything after it
            held = self.held = deque()
            self.gate.hold(self)
        if len(held) >= self.queue_size:  # a store out long enough to fill it
            self.drop(CloseCode.TOO_SLOW, "client too slow: outbound queue overflowed")
            return False
        held.append((need, message))
        return True

    def _write(self, message: Any) -> bool:
        """Write ``message`` now if the socket takes it and nothing is queued, else queue it
        for the writer; a full queue drops the client (4002)."""
        if not self.backlog and self.direct is not None:
            message = self.direct(message)
            if message is None:
                return True
        try:
            self._send.send_nowait(message)
        except trio.WouldBlock:
            self.drop(CloseCode.TOO_SLOW, "client too slow: outbound queue overflowed")
            return False
        self.backlog = True
        return True

    def release(self, durable: int) -> bool:
        """The gate's commit made every write up to ``durable`` durable: send the held frames
        that waited for no more than that, in order, up to the first that waits for more;
        True when nothing is held any more (the gate forgets the connection)."""
        held = self.held
        while held and held[0][0] <= durable and not self.closing.is_set():
            self._write(held.popleft()[1])
        if held and not self.closing.is_set():
            return False
        self.held = None
        return True

    def notice(self, message: Any) -> None:
        """A frame that reports no commitment and goes ahead of frames that wait for one (the
        store went out or came back: ``server_status``)."""
        if not self.closing.is_set():
            self._write(message)

    def drained(self) -> None:
        """The writer's queue is empty again: the fast path may write (see :attr:`direct`)."""
        if not self.outbox.statistics().current_buffer_used:
            self.backlog = False

    def drop(self, code: int, reason: str) -> None:
        """Close now, discarding whatever is still queued (or held)."""
        self.held = None
        if not self.closing.is_set():
            self.close_code, self.close_reason = code, reason
            self.closing.set()
            self.writer.cancel()

    def finish(self, code: int, reason: str) -> None:
        """Close after the queued messages are written (server shutdown: 1001)."""
        if not self.closing.is_set():
            self.close_code, self.close_reason = code, reason
            self.graceful = True
            self._send.close()
            self.closing.set()
            self.writer.deadline = trio.current_time() + self.drain_timeout

    def __repr__(self) -> str:
        return f"<Connection {self.id} {self.account}>"
