"""One WebSocket connection's tasks: a reader (decode, validate, rate-limit, route) and a
writer (drains the connection's bounded outbound queue), owned by the connection's handler.

The reader never waits on a table: it hands each decoded message to the router, which
submits table messages to the table's inbox without blocking. Tables never wait on a client:
they put messages on :class:`~server.tables.connection.Connection`'s bounded queue, which the
writer drains; a full queue drops the client (4002). When the connection ends, every table
it was at gets a :class:`~server.tables.base.Detach` (the seat is held for the grace period).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import trio
from websockets.exceptions import ConnectionClosed
from websockets.trio.server import ServerConnection

from protocol import errors
from protocol.codec import ProtocolError, decode_client, encode
from protocol.errors import CloseCode
from protocol.messages import Error
from server.config import ServerConfig
from server.tables.connection import Connection


class RateLimit:
    """A token bucket: ``rate`` messages per second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.at = trio.current_time()

    def take(self) -> bool:
        now = trio.current_time()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


async def run_connection(
    ws: ServerConnection,
    conn: Connection,
    config: ServerConfig,
    route: Callable[[Connection, Any], Awaitable[None] | None],
) -> None:
    """Run ``conn``'s reader and writer until it closes (gracefully: drain the queue first)."""
    writer_done = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_writer, ws, conn, writer_done)
        nursery.start_soon(_reader, ws, conn, config, route)
        nursery.start_soon(_hello_deadline, conn, config.hello_timeout)
        await conn.closing.wait()
        if conn.graceful:
            with trio.move_on_after(config.close_timeout):
                await writer_done.wait()
        nursery.cancel_scope.cancel()


async def _writer(ws: ServerConnection, conn: Connection, done: trio.Event) -> None:
    try:
        async for message in conn.outbox:
            await ws.send(encode(message))
    except ConnectionClosed:
        conn.drop(CloseCode.NORMAL, "")
    finally:
        done.set()


async def _hello_deadline(conn: Connection, timeout: float) -> None:
    await trio.sleep(timeout)
    if conn.account is None:
        conn.drop(CloseCode.POLICY, "no hello in time")


async def _reader(
    ws: ServerConnection,
    conn: Connection,
    config: ServerConfig,
    route: Callable[[Connection, Any], Awaitable[None] | None],
) -> None:
    limit = RateLimit(config.rate, config.burst)
    violations = 0
    try:
        async for frame in ws:
            if conn.closing.is_set():
                return
            try:
                if not limit.take():
                    raise ProtocolError(errors.RATE_LIMITED, "too many messages")
                pending = route(conn, decode_client(frame))
                if pending is not None:  # a hello in a deployment: its wallet first
                    await pending
            except ProtocolError as exc:
                violations += 1
                conn.send(Error(code=exc.code, message=exc.message, ref=_ref(frame)))
                if violations >= config.max_violations:
                    conn.drop(CloseCode.POLICY, "too many bad messages")
                    return
    except ConnectionClosed:
        pass
    conn.drop(CloseCode.NORMAL, "")


def _ref(frame: Any) -> str | None:
    """The ``type`` of a refused frame when it can be read (for ``error.ref``)."""
    if not isinstance(frame, bytes):
        return None
    try:
        obj = msgpack.unpackb(frame, strict_map_key=False)
    except Exception:
        return None
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind[:32] if isinstance(kind, str) else None
