"""The adapter to websockets: the one module that touches its connection's private state.

The server reads and writes its connections' frames itself on the hot path (docs/perf.md,
"Cost per action against the raw floor"): reading an open connection's frames with the
pure :class:`~server.net.frames.FrameReader` from the socket in websockets' own reader
task, and writing a message's frame straight to the socket when nothing is queued. Both
need websockets' sans-I/O protocol object and a few of its connection's internals
(``protocol.state``, ``protocol.writes``, ``protocol.reader.buffer``, ``send_lock``,
``recv_flow_control``, ``close_deadline``, ``set_connection_exc``, ``close_stream``,
``send_context``): every such touch is in this module, written against the websockets
releases in :data:`SUPPORTED` (``websockets.trio`` first shipped in 17.0).

Any other release, or ``CROUPIER_WS_FAST_PATH=0`` in the environment, switches the fast
paths off (:data:`FAST_PATH`): websockets then reads every frame and writes every message
itself, through its public API only, and the server works the same, a little slower.
``tests/server/test_reader_fast_path.py`` runs both ways.
"""

from __future__ import annotations

import logging
import math
import os
import struct
from collections.abc import Callable
from typing import Any

import trio
import websockets
from websockets.frames import CloseCode, Frame, Opcode, apply_mask
from websockets.protocol import State
from websockets.trio.server import ServerConnection

from protocol.codec import encode
from server.net.frames import Fail, FrameReader, Handoff, Message, Ping, Pong

log = logging.getLogger("croupier.net")

#: the websockets major versions this module was written against
SUPPORTED = ("17",)
#: whether the fast paths run (see the module docstring)
FAST_PATH = (
    websockets.version.version.split(".")[0] in SUPPORTED
    and os.environ.get("CROUPIER_WS_FAST_PATH", "1") != "0"
)
if not FAST_PATH and os.environ.get("CROUPIER_WS_FAST_PATH", "1") != "0":
    log.warning(
        "websockets %s is not one this server reads frames of itself (%s): "
        "websockets reads and writes every frame",
        websockets.version.version,
        ", ".join(f"{v}.x" for v in SUPPORTED),
    )

#: Put on a connection's outbound queue by the keepalive sweep: the writer sends a ping.
PING = object()
#: Queued by the fast path after a partial write: the writer sends the rest.
REST = object()

_DATA = (Opcode.TEXT, Opcode.BINARY, Opcode.CONT)
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


class Socket(ServerConnection):
    """websockets' server connection, reading without a task of ours: each complete message
    goes to :attr:`reader` from the connection's reader task (messages that arrive before
    the handler attaches a reader wait in a list); when the stream ends, :attr:`on_close`
    runs. Every incoming frame (on the fast path, every read) stamps :attr:`seen` for the
    keepalive sweep. The reader task runs :meth:`_read` (websockets' protocol, and the pure
    frame reader once open); writes take the fast path :meth:`write_now` when they can."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reader: Callable[[bytes | str], None] | None = None
        self.on_close: Callable[[], None] | None = None
        self.early: list[bytes | str] = []
        self.fragments: list[tuple[bool, bytes]] = []  # websockets' frames of a message
        self.fast_path = False  # the frame reader takes the open connection's frames
        self.opened = self.seen = trio.current_time()
        self.pinged = -math.inf  # when the sweep last queued a ping
        self.sent = 0  # data frames written (the sweep compares it between passes)
        stream = self.stream  # a TCP stream has a descriptor for the fast path
        tcp = FAST_PATH and isinstance(stream, trio.SocketStream)
        self.fileno = stream.socket.fileno if tcp else None  # type: ignore[attr-defined]
        self.swept = 0  # ``sent`` at the sweep's last look
        #: set when the connection is counted against its address's cap (server/net/http.py
        #: ``Gate.admit``, before the handshake): called once, when the connection ends
        self.released: Callable[[], None] | None = None

    # -- messages to the server ------------------------------------------------------------
    def process_event(self, event: Any) -> None:
        """A frame websockets parsed (the handshake's request goes to websockets)."""
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake request
            return
        self.seen = trio.current_time()
        if event.opcode not in _DATA:
            super().process_event(event)  # a pong acknowledges its ping
            return
        text, fin, data = event.opcode is Opcode.TEXT, event.fin, bytes(event.data)
        if not fin or self.fragments:  # browsers do not fragment; the size is bounded
            self.fragments.append((text, data))
            if not fin:
                return
            text, data = self.fragments[0][0], b"".join(d for _, d in self.fragments)
            self.fragments.clear()
        self._deliver(text, data)

    def _deliver(self, text: bool, data: bytes) -> None:
        message: bytes | str = data.decode("utf-8", "replace") if text else data
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

    # -- messages to the client --------------------------------------------------------------
    def write_now(self, message: Any) -> Any:
        """The fast path (:attr:`Connection.direct`): encode ``message`` and write its frame
        to the socket without blocking; None when done. Anything else is queued by the caller
        for the writer: the message itself when the fast path is off, the connection is not
        open or websockets is writing (a pong, a close), :data:`REST` after a partial write
        (the unwritten bytes are back at the head of websockets' buffer, written first by
        whoever sends next)."""
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

    async def write_rest(self) -> None:
        """Write what a partial :meth:`write_now` left in websockets' buffer (:data:`REST`)."""
        async with self.send_context():
            pass  # websockets writes its buffer

    async def send_data(self) -> None:
        """websockets calls this after every frame it reads (to write an automatic answer);
        with nothing to write, skip taking the send lock (two trips through the scheduler
        per incoming frame)."""
        if self.protocol.writes:
            await super().send_data()

    # -- the reader task -------------------------------------------------------------------------
    async def recv_events(self) -> None:
        try:
            if self.fileno is None:  # the fast path off, or not TCP: websockets' own reader
                await super().recv_events()
            else:
                await self._read()
        finally:
            released, self.released = self.released, None
            if released is not None:  # the address's cap counts one fewer
                released()
            if self.on_close is not None:
                self.on_close()

    async def _read(self) -> None:
        """Drive websockets' sans-I/O protocol from the socket, as websockets' own reader
        does; once the connection is open its frames go to the pure frame reader until it
        hands them back (``server/net/frames.py``)."""
        protocol = self.protocol
        frames: FrameReader | None = None
        tried = False
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
                    if frames is not None and frames.held:  # the end in mid-frame
                        protocol.receive_data(frames.held)  # websockets says so
                    break
                if not tried and protocol.state is State.OPEN:
                    # the handshake is done (a client sends no frame before the answer to
                    # its request): websockets' parser waits for a frame, nothing held
                    tried = True
                    self.fast_path = not protocol.reader.buffer
                    if self.fast_path:
                        frames = FrameReader(protocol.max_message_size, apply_mask)
                if self.fast_path:
                    assert frames is not None
                    rest, pong = self._fast(frames, data)
                    if pong:  # a pong, or the close of a connection the reader failed
                        try:
                            await self.send_data()
                        except Exception as exc:  # as below: the connection is broken
                            self.set_connection_exc(exc)
                            break
                    if self.fast_path:
                        continue
                    self._expect_close()
                    data = rest  # websockets' from here on
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

    def _fast(self, frames: FrameReader, data: bytes) -> tuple[bytes, bool]:
        """What the frame reader makes of ``data``, carried out: messages to the reader,
        pings answered, pongs to websockets' keepalive, a failure to websockets. Returns the
        bytes websockets takes from here on (the fast path ends) and whether a pong or a
        close is to be written."""
        protocol = self.protocol
        self.seen = trio.current_time()  # bytes from the peer: heard from (once per read)
        rest, pong = b"", False
        for event in frames.feed(data):
            kind = type(event)
            if kind is Message:
                assert isinstance(event, Message)
                self._deliver(event.text, event.data)
                if protocol.state is not State.OPEN:  # the reader closed the connection
                    self.fast_path = False
                    break
            elif kind is Ping:
                assert isinstance(event, Ping)
                protocol.send_pong(event.payload)
                pong = True
            elif kind is Pong:
                assert isinstance(event, Pong)
                super().process_event(Frame(Opcode.PONG, event.payload))
            elif kind is Fail:
                assert isinstance(event, Fail)
                protocol.fail(CloseCode(event.code), event.reason)  # the rest is discarded
                self.fast_path = False
                return b"", True
            else:
                assert isinstance(event, Handoff)
                self.fast_path = False
                rest = event.rest
        return rest, pong

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
