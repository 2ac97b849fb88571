"""One WebSocket connection in two tasks, and one keepalive sweep for the whole process.

Theory of operation
-------------------
A connection costs the server two tasks, the fewest websockets.trio allows (docs/perf.md):

* **Reading** runs in websockets' own reader task (``recv_events``): :class:`Socket`, the
  server's connection class, hands every complete incoming message straight to its
  :class:`Reader` (decode, validate, rate-limit, route) instead of queueing it for a task of
  ours. The router never waits on a table: it submits table messages to the table's inbox
  without blocking, so reading is synchronous. That task drives websockets' sans-I/O
  protocol from the socket itself (:meth:`Socket.recv_events`: one wait for readiness and
  one read per chunk), and once the handshake is done it parses the open connection's frames
  itself: masked data frames, pings and pongs, the bulk of what a server reads (a player's
  action is one small frame). Anything else (a close, a malformed or oversized frame) and
  everything after it goes to websockets' parser, which answers as it always did (1002,
  1009, the closing handshake). Reading was 40 % of the server's Python time at human pace
  through websockets' generator parser and trio's stream (docs/perf.md).
* **Writing** runs in the connection's handler task (:func:`run_connection`): it drains the
  connection's bounded outbound queue (:class:`~server.tables.connection.Connection`).
  Tables never wait on a client: a full queue drops it (4002) and cancels the writer's scope,
  which also ends a ``send`` stuck on a client that stopped reading. A frame that reports a
  write not yet durable is held by the connection until its commit, then sent the same way
  (commit, then speak: ``server/store/gate.py``).
* **Keepalive and the hello deadline** are one sweep per process (:class:`Keepalive`), not a
  task per connection. A connection silent both ways (no frame in, a pong included, and no
  frame out) for ``ping_interval`` s gets a ping through its outbound queue; one that has not
  answered its ping ``ping_timeout`` s later is closed (1011, as websockets' own keepalive
  did); one without a ``hello`` after ``hello_timeout`` s is closed (1008). A connection the
  server writes to is watched by TCP first: its socket's ``TCP_USER_TIMEOUT`` is
  ``ping_interval + ping_timeout``, so a peer that stops acknowledging what it is sent is
  closed by the kernel in the same time, and the reader sees it end; it is pinged only after
  :data:`WATCHED_LONGER` intervals of silence (a client that died behind a proxy, whose
  TCP stack answers for it). A player at a table in play acts more often than that, so it is
  not pinged: at human pace every 20 s of silence was one ping and one pong, about as many
  frames as actions.

When the connection ends, every table it was at gets a
:class:`~server.tables.base.Detach` (the seat is held for the grace period).
"""

from __future__ import annotations

import math
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import trio
from websockets.exceptions import ConnectionClosed

from protocol import errors
from protocol.codec import ProtocolError, decode_client, encode
from protocol.errors import CloseCode
from protocol.messages import Error
from server.config import ServerConfig
from server.net.websocket import PING, REST, Socket
from server.tables.connection import Connection

#: A connection the server writes to is pinged after this many ping intervals of silence
#: (its TCP stack watches the next hop meanwhile: TCP_USER_TIMEOUT); behind a proxy that
#: hop is the proxy, so the ping still finds a client that died beyond it, later.
WATCHED_LONGER = 3


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


Route = Callable[[Connection, Any], Awaitable[None] | None]


class Reader:
    """A connection's incoming messages: rate limit, decode, route (called synchronously by
    websockets' reader task); refused messages are answered with an ``error``, and too many
    close the connection (1008).

    A route may return an awaitable (a ``hello`` in a deployment takes the player's wallet
    from the store first, server/room/directory.py): it runs in the connection's nursery
    (``spawn``) and the messages that arrive meanwhile wait, in order, until it is done."""

    def __init__(
        self,
        conn: Connection,
        config: ServerConfig,
        route: Route,
        spawn: Callable[[Callable[[], Awaitable[None]]], None],
    ) -> None:
        self.conn, self.route, self.config, self.spawn = conn, route, config, spawn
        self.limit = RateLimit(config.rate, config.burst)
        self.violations = 0
        self.waiting: list[bytes | str] | None = None  # a list while a route is awaited

    def __call__(self, frame: bytes | str) -> None:
        if self.waiting is not None:
            self.waiting.append(frame)
            return
        conn = self.conn
        if conn.closing.is_set():
            return
        gate = conn.gate
        gate.speaker = conn  # what the router writes for this message, its replies wait for
        try:
            if not self.limit.take():
                raise ProtocolError(errors.RATE_LIMITED, "too many messages")
            pending = self.route(conn, decode_client(frame))
        except ProtocolError as exc:
            self._refused(exc, frame)
            return
        finally:
            gate.speaker = None
        if pending is not None:
            self.waiting = []
            self.spawn(lambda: self._finish(pending, frame))

    async def _finish(self, pending: Awaitable[None], frame: bytes | str) -> None:
        try:
            await pending
        except ProtocolError as exc:
            self._refused(exc, frame)
        waiting, self.waiting = self.waiting or [], None
        for i, later in enumerate(waiting):
            self(later)
            if self.waiting is not None:  # awaiting again: the rest waits behind it
                self.waiting.extend(waiting[i + 1 :])
                return

    def _refused(self, exc: ProtocolError, frame: bytes | str) -> None:
        self.violations += 1
        self.conn.send(Error(code=exc.code, message=exc.message, ref=_ref(frame)))
        if self.violations >= self.config.max_violations:
            self.conn.drop(CloseCode.POLICY, "too many bad messages")


async def run_connection(
    ws: Socket,
    conn: Connection,
    config: ServerConfig,
    route: Route,
    keepalive: Keepalive | None = None,
) -> None:
    """Serve ``conn`` until it closes: read through ``ws`` and write its outbound queue in
    this task (gracefully, :meth:`Connection.finish`: the queue drained first, within
    ``close_timeout``)."""
    conn.drain_timeout = config.close_timeout
    conn.direct = ws.write_now  # before the first answer (to a message that came early)
    watch_by_tcp(ws, config.ping_interval + config.ping_timeout)
    if keepalive is not None:
        keepalive.live[conn] = ws
    try:
        async with trio.open_nursery() as awaited:  # a route's awaitable (Reader)
            reader = Reader(conn, config, route, awaited.start_soon)
            ws.attach(reader, lambda: conn.drop(CloseCode.NORMAL, ""))
            try:
                with conn.writer:  # cancelled by conn.drop(); a deadline after conn.finish()
                    async for message in conn.outbox:
                        if message is PING:
                            await ws.ping()
                        elif message is REST:
                            await ws.write_rest()
                        else:
                            await ws.send(encode(message))
                            ws.sent += 1
                        conn.drained()
            except ConnectionClosed:
                conn.drop(CloseCode.NORMAL, "")
            awaited.cancel_scope.cancel()
    finally:
        conn.direct = None
        if keepalive is not None:
            keepalive.live.pop(conn, None)


class Keepalive:
    """The process's one keepalive sweep (see the module docstring), every ``period`` s."""

    def __init__(self, config: ServerConfig) -> None:
        self.interval, self.timeout = config.ping_interval, config.ping_timeout
        self.hello_timeout = config.hello_timeout
        # a hello deadline or a ping is up to a quarter late; at most one pass per 2.5 s
        self.period = min(2.5, self.interval / 4, self.hello_timeout / 4)
        self.live: dict[Connection, Socket] = {}

    async def run(self) -> None:
        while True:
            await trio.sleep(self.period)
            self.sweep(trio.current_time())

    def sweep(self, now: float) -> None:
        silent, unanswered = now - self.interval, now - self.timeout
        quiet = now - self.interval * WATCHED_LONGER
        unnamed = now - self.hello_timeout
        drop, ping = [], []  # acted on after the pass: a drop or a ping may change live
        for conn, ws in self.live.items():
            seen = ws.seen
            if conn.account is None and ws.opened < unnamed:
                drop.append((conn, CloseCode.POLICY, "no hello in time"))
            elif seen > silent:  # heard from recently
                continue
            elif ws.pinged > seen:  # pinged, and not heard from since
                if ws.pinged < unanswered:
                    drop.append((conn, CloseCode.INTERNAL, "keepalive ping timeout"))
            elif ws.sent != ws.swept and seen > quiet:  # written to: TCP watches the hop
                ws.swept = ws.sent
            else:
                ws.pinged = now
                ping.append(conn)
        for conn, code, reason in drop:
            conn.drop(code, reason)
        for conn in ping:
            conn.send(PING)


def watch_by_tcp(ws: Socket, seconds: float) -> None:
    """Let the kernel close ``ws`` when what it is sent stays unacknowledged for ``seconds``
    (``TCP_USER_TIMEOUT``, Linux): the keepalive of a connection the server writes to."""
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    stream = ws.stream
    if option is None or not isinstance(stream, trio.SocketStream) or not math.isfinite(seconds):
        return
    try:
        stream.setsockopt(socket.IPPROTO_TCP, option, max(1, int(seconds * 1000)))
    except OSError:  # not TCP (a test's socket pair): the sweep's pings alone
        pass


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
