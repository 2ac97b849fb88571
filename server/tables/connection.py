"""A client connection as tables see it: an identity and a bounded outbound queue.

Tables never await a client. They call :meth:`Connection.send`, which puts the message on a
bounded memory channel drained by the connection's own writer task (``server/app.py``). When
the queue is full the client is not keeping up: it is dropped with close code 4002 and the
table carries on at its own pace (its seat is then held like any disconnected seat).
"""

from __future__ import annotations

import itertools
from typing import Any

import trio

from protocol.errors import CloseCode

_ids = itertools.count(1)


class Connection:
    """One WebSocket client: who it is, where it sits, and its outbound queue."""

    def __init__(self, queue_size: int) -> None:
        self.id = next(_ids)
        self.account: str | None = None
        self.name: str = ""
        self.tables: set[str] = set()  # ids of tables joined (as player or spectator)
        self._send, self.outbox = trio.open_memory_channel[Any](queue_size)
        self.closing = trio.Event()
        self.close_code: int = CloseCode.NORMAL
        self.close_reason = ""
        self.graceful = False  # finish(): drain the queue before closing

    def send(self, message: Any) -> bool:
        """Queue ``message`` without blocking; a full queue drops the client (4002)."""
        if self.closing.is_set():
            return False
        try:
            self._send.send_nowait(message)
        except trio.WouldBlock:
            self.drop(CloseCode.TOO_SLOW, "client too slow: outbound queue overflowed")
            return False
        return True

    def drop(self, code: int, reason: str) -> None:
        """Close now, discarding whatever is still queued."""
        if not self.closing.is_set():
            self.close_code, self.close_reason = code, reason
            self.closing.set()

    def finish(self, code: int, reason: str) -> None:
        """Close after the queued messages are written (server shutdown: 1001)."""
        if not self.closing.is_set():
            self.close_code, self.close_reason = code, reason
            self.graceful = True
            self._send.close()
            self.closing.set()

    def __repr__(self) -> str:
        return f"<Connection {self.id} {self.account}>"
