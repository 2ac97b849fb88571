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
  write not yet durable is queued as a :class:`~server.store.gate.Held`: the writer waits
  for its commit before sending it (commit, then speak: ``server/store/gate.py``).
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
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import trio
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode as WsCloseCode
from websockets.frames import Frame, Opcode, apply_mask
from websockets.protocol import State
from websockets.trio.server import ServerConnection

from protocol import errors
from protocol.codec import ProtocolError, decode_client, encode
from protocol.errors import CloseCode
from protocol.messages import Error
from server.config import ServerConfig
from server.store.gate import Held
from server.tables.connection import Connection

#: Put on a connection's outbound queue by the keepalive sweep: the writer sends a ping.
PING = object()
#: Queued by the fast path after a partial write: the writer sends the rest.
REST = object()

_DATA = (Opcode.TEXT, Opcode.BINARY, Opcode.CONT)
#: the opcodes the reader's fast path takes itself: continuation, text, binary, ping, pong
_FAST = frozenset({0, 1, 2, 9, 10})
#: A connection the server writes to is pinged after this many ping intervals of silence
#: (its TCP stack watches the next hop meanwhile: TCP_USER_TIMEOUT); behind a proxy that
#: hop is the proxy, so the ping still finds a client that died beyond it, later.
WATCHED_LONGER = 3
#: bytes asked of a socket per read (trio's default)
RECEIVE_SIZE = 65536
_HEAD16 = struct.Struct("!BBH").pack
_HEAD64 = struct.Struct("!BBQ").pack


def _header(length: int) -> bytes:
    """The header of a server's final, unmasked binary frame of ``length`` bytes (what
    websockets' ``Frame.serialize`` writes, without building a frame per message)."""
    if length < 126:
        return bytes((0x82, length))
    if length < 65536:
        return _HEAD16(0x82, 126, length)
    return _HEAD64(0x82, 127, length)


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
    from the store first, server/directory.py): it runs in the connection's nursery
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


class Socket(ServerConnection):
    """websockets' server connection, reading without a task of ours: each complete message
    goes to :attr:`reader` from the connection's reader task (messages that arrive before
    the handler attaches a reader wait in a list); when the stream ends, :attr:`on_close`
    runs. Every incoming frame (on the fast path, every read) stamps :attr:`seen` for the
    keepalive sweep. The reader task runs :meth:`_read` (websockets' protocol, and the fast
    path :meth:`_frames` once open); writes take the fast path :meth:`write_now` when they
    can."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reader: Callable[[bytes | str], None] | None = None
        self.on_close: Callable[[], None] | None = None
        self.early: list[bytes | str] = []
        self.fragments: list[tuple[bool, bytes]] = []  # a fragmented message: (text, data)
        self.fast_path = False  # the reader takes the open connection's frames itself
        self.opened = self.seen = trio.current_time()
        self.pinged = -math.inf  # when the sweep last queued a ping
        self.sent = 0  # data frames written (the sweep compares it between passes)
        stream = self.stream  # a TCP stream has a descriptor for the fast path
        self.fileno = stream.socket.fileno if isinstance(stream, trio.SocketStream) else None
        self.swept = 0  # ``sent`` at the sweep's last look

    def process_event(self, event: Any) -> None:
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake request
            return
        self.seen = trio.current_time()
        if event.opcode not in _DATA:
            super().process_event(event)  # a pong acknowledges its ping
            return
        self._data(event.opcode is Opcode.TEXT, event.fin, bytes(event.data))

    def _data(self, text: bool, fin: bool, data: bytes) -> None:
        """A data frame: a whole message goes to the reader (fragments wait for the last;
        browsers do not fragment, and the message's size is bounded as it comes)."""
        if not fin or self.fragments:
            self.fragments.append((text, data))
            if not fin:
                return
            text, whole = self.fragments[0][0], b"".join(d for _, d in self.fragments)
            self.fragments.clear()
        else:
            whole = data
        message: bytes | str = whole.decode("utf-8", "replace") if text else whole
        if self.reader is None:
            self.early.append(message)
        else:
            self.reader(message)

    def attach(self, reader: Callable[[bytes | str], None], on_close: Callable[[], None]) -> None:
        """Start handing messages to ``reader`` (first those that came early)."""
        self.reader, self.on_close = reader, on_close
        early, self.early = self.early, []
        for message in early:
            reader(message)
        if self.stream_closed.is_set():
            on_close()

    def write_now(self, message: Any) -> Any:
        """The fast path (:attr:`Connection.direct`): encode ``message`` and write its frame
        to the socket without blocking; None when done. Anything else is queued by the caller
        for the writer: the message itself when the connection is not open or websockets is
        writing (a pong, a close), :data:`REST` after a partial write (the unwritten bytes
        are back at the head of websockets' buffer, written first by whoever sends next)."""
        protocol = self.protocol
        if (
            message is PING
            or self.fileno is None
            or protocol.state is not State.OPEN
            or self.send_lock.locked()
        ):
            return message
        # the descriptor, looked up each time: a closed socket's number may be reused
        fd = self.fileno()
        if fd < 0:
            return message
        payload = encode(message)
        if protocol.writes or protocol.expect_continuation_frame:  # not ours to frame alone
            protocol.send_binary(payload)
            data = b"".join(protocol.data_to_send())
        else:  # one unmasked binary frame (RFC 6455 5.2; no extension is negotiated)
            n = len(payload)
            data = (bytes((0x82, n)) if n < 126 else _header(n)) + payload
        try:
            sent = os.write(fd, data)
        except BlockingIOError:
            sent = 0
        except OSError:  # a broken connection: its reader task sees it end and drops it
            return None
        self.sent += 1
        if sent < len(data):
            protocol.writes.insert(0, data[sent:])
            return REST
        return None

    async def send_data(self) -> None:
        """websockets calls this after every frame it reads (to write an automatic answer);
        with nothing to write, skip taking the send lock (two trips through the scheduler
        per incoming frame)."""
        if self.protocol.writes:
            await super().send_data()

    async def recv_events(self) -> None:
        try:
            if self.fileno is None:  # not TCP (a test's stream): websockets' own reader
                await super().recv_events()
            else:
                await self._read()
        finally:
            if self.on_close is not None:
                self.on_close()

    async def _read(self) -> None:
        """Drive websockets' sans-I/O protocol from the socket, as websockets' own reader
        does, with a fast path for the open connection (see the class docstring)."""
        protocol = self.protocol
        tried = False
        held = bytearray()  # fast path: the start of a frame not whole yet
        try:
            while True:
                if not self.fast_path and self.recv_flow_control is not None:
                    await self.recv_flow_control.wait()
                try:
                    data = await self._receive()
                except trio.ClosedResourceError:
                    break
                except Exception as exc:  # a reset connection, say
                    self.set_connection_exc(exc)
                    break
                if not data:
                    if held:  # the end in the middle of a frame: websockets says so
                        protocol.receive_data(bytes(held))
                    break
                if not tried and protocol.state is State.OPEN:
                    # the handshake is done (a client sends no frame before the answer to
                    # its request): websockets' parser waits for a frame, nothing held
                    tried = True
                    self.fast_path = not protocol.reader.buffer
                if self.fast_path:
                    chunk: bytes | bytearray = data
                    if held:
                        held += data
                        chunk = held
                    done, pong, self.fast_path = self._frames(chunk)
                    if pong:  # a pong, or the close of a connection the fast path failed
                        try:
                            await self.send_data()
                        except Exception as exc:  # as below: the connection is broken
                            self.set_connection_exc(exc)
                            break
                    if self.fast_path:
                        held = bytearray(chunk[done:])
                        continue
                    self._expect_close()
                    data, held = bytes(chunk[done:]), bytearray()  # websockets' from here on
                    if not data:
                        continue
                protocol.receive_data(data)
                events = protocol.events_received()
                try:
                    await self.send_data()
                except Exception as exc:
                    self.set_connection_exc(exc)
                    break
                self._expect_close()
                for event in events:
                    self.process_event(event)
            protocol.receive_eof()
            events = protocol.events_received()
            await self.send_data()
            for event in events:
                self.process_event(event)
        except Exception as exc:  # a bug: the connection ends, the server goes on
            self.logger.error("unexpected internal error", exc_info=True)
            self.set_connection_exc(exc)
        finally:
            await self.close_stream()

    def _expect_close(self) -> None:
        """Once the protocol expects the TCP connection to close, it gets ``close_timeout``."""
        if self.close_deadline is None and self.protocol.close_expected():
            if self.close_timeout is not None:
                self.close_deadline = trio.current_time() + self.close_timeout

    async def _receive(self) -> bytes:
        """The next bytes from the socket (b"" at its end): one wait for readiness and one
        read, instead of trio's read-first-then-wait (a failed read per message)."""
        assert self.fileno is not None  # a TCP stream
        while True:
            fd = self.fileno()
            if fd < 0:
                raise trio.ClosedResourceError("the socket is closed")
            await trio.lowlevel.wait_readable(fd)
            fd = self.fileno()  # closed meanwhile? (its number may be reused)
            if fd < 0:
                raise trio.ClosedResourceError("the socket is closed")
            try:
                return os.read(fd, RECEIVE_SIZE)
            except BlockingIOError:
                continue

    def _frames(self, data: bytes | bytearray) -> tuple[int, bool, bool]:
        """The fast path: the whole, well-formed frames at the start of ``data`` that an open
        connection expects (masked data frames, pings, pongs: RFC 6455 5.2) are taken here.
        Returns how many bytes were taken, whether a pong is to be sent, and whether the
        fast path goes on; it stops for good at anything else (a close, a bad or oversized
        frame, the connection no longer open), which websockets' parser takes from there:
        it sees exactly the bytes it would have seen from that frame on."""
        protocol = self.protocol
        if protocol.state is not State.OPEN:
            return 0, False, False
        limit = protocol.max_message_size
        at, end, pong = 0, len(data), False
        self.seen = trio.current_time()  # bytes from the peer: heard from (once per read)
        while end - at >= 2:
            head, size = data[at], data[at + 1]
            opcode, fin = head & 0x0F, head & 0x80
            if head & 0x70 or not size & 0x80 or opcode not in _FAST:  # RSV, unmasked, close
                return at, pong, False
            size &= 0x7F
            start = at + 2
            if size == 126:
                if end - start < 2:
                    break
                size, start = int.from_bytes(data[start : start + 2], "big"), start + 2
            elif size == 127:
                if end - start < 8:
                    break
                size, start = int.from_bytes(data[start : start + 8], "big"), start + 8
            if opcode >= 8:
                if not fin or size > 125:  # a control frame is whole and short
                    return at, pong, False
            elif limit is not None:
                taken = sum(len(d) for _, d in self.fragments)
                if size > limit - taken:
                    if not taken:  # websockets refuses it alone (1009)
                        return at, pong, False
                    protocol.fail(WsCloseCode.MESSAGE_TOO_BIG, "the message is too big")
                    return end, True, False  # what follows is discarded
            if end - start < 4 + size:
                break
            mask, start = data[start : start + 4], start + 4
            payload = bytes(apply_mask(data[start : start + size], mask))
            at = start + size
            if opcode == 9:  # a ping: answer it
                protocol.send_pong(payload)
                pong = True
            elif opcode == 10:  # a pong: acknowledges the keepalive's ping
                super().process_event(Frame(Opcode.PONG, payload))
            elif (opcode == 0) != bool(self.fragments):  # a fragment out of place
                self.fragments.clear()
                protocol.fail(WsCloseCode.PROTOCOL_ERROR, "unexpected frame in a message")
                return end, True, False
            else:
                self._data(opcode == 1, bool(fin), payload)
                if protocol.state is not State.OPEN:  # the reader closed the connection
                    return at, pong, False
        return at, pong, True


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
                    gate = conn.gate
                    notices = conn.notices  # they go ahead of frames that wait for a commit

                    async for message in conn.outbox:
                        if type(message) is Held:  # commit, then speak (server/store/gate.py)
                            while gate.durable < message.mark:
                                while notices:
                                    await ws.send(encode(notices.pop(0)))
                                await gate.changed()
                            message = message.message
                        while notices:
                            await ws.send(encode(notices.pop(0)))
                        if message is PING:
                            await ws.ping()
                        elif message is REST:
                            async with ws.send_context():
                                pass  # websockets writes its buffer: the rest of a write
                        else:
                            await ws.send(encode(message))
                            ws.sent += 1
                        while notices:  # one that came during the send (nothing else queued)
                            await ws.send(encode(notices.pop(0)))
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
