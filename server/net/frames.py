"""The open connection's frames, read without I/O: bytes in, messages and control frames out.

Theory of operation
-------------------
Once the WebSocket handshake is done, almost everything a client sends is a masked data
frame (a player's action is one small frame), a ping or a pong (RFC 6455 5.2, 5.5). A
:class:`FrameReader` is fed the bytes as they arrive (:meth:`FrameReader.feed`) and
returns what the whole frames among them mean, in order: a complete message
(:class:`Message`: a fragmented one when its last fragment is in), a :class:`Ping` to
answer, a :class:`Pong`, or a :class:`Fail` (the connection must be failed with a close
code). Bytes of a frame not whole yet are kept for the next feed.

It takes only what an open connection expects and nothing it would have to judge with
websockets' whole state machine: at the first frame it does not take (a close, a frame with
an RSV bit or unmasked, a control frame fragmented or over 125 bytes, an unknown opcode, or
a single frame bigger than the message limit) it stops for good and returns
:class:`Handoff` with the bytes from that frame on; websockets' own parser takes the
connection from there and answers as it always did (1002, 1009, the closing handshake).
So the reader never needs to be right about anything websockets would refuse: it only has
to see the ordinary case, and it has no I/O, no clock and no websockets import, so every
byte sequence can be tested (``tests/server/test_frame_reader.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: the opcodes taken: continuation, text, binary, ping, pong
_TAKEN = frozenset({0, 1, 2, 9, 10})
PROTOCOL_ERROR = 1002
MESSAGE_TOO_BIG = 1009


@dataclass(frozen=True, slots=True)
class Message:
    """A complete data message (``text``: a text message's UTF-8 bytes)."""

    text: bool
    data: bytes


@dataclass(frozen=True, slots=True)
class Ping:
    payload: bytes


@dataclass(frozen=True, slots=True)
class Pong:
    payload: bytes


@dataclass(frozen=True, slots=True)
class Fail:
    """Fail the connection with ``code`` (what follows is discarded)."""

    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class Handoff:
    """The reader stops: ``rest`` (from the first frame it did not take) goes to websockets."""

    rest: bytes


Event = Message | Ping | Pong | Fail | Handoff


def unmask(data: bytes | bytearray, mask: bytes) -> bytes:
    """RFC 6455 5.3: XOR with the 4-byte key, a whole machine word at a time."""
    n = len(data)
    if not n:
        return b""
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "little")
    return (int.from_bytes(data, "little") ^ key).to_bytes(n, "little")


class FrameReader:
    """See the module docstring. ``limit``: the largest message, in bytes (None: any);
    ``unmasker``: RFC 6455 5.3's XOR (the adapter passes websockets' C speedup; the pure
    :func:`unmask` by default)."""

    __slots__ = ("_held", "_parts", "_taken", "_text", "done", "limit", "unmask")

    def __init__(
        self,
        limit: int | None,
        unmasker: Callable[[bytes | bytearray, bytes], bytes] | None = None,
    ) -> None:
        self.limit = limit
        self.unmask = unmasker or unmask
        self._held = bytearray()  # the start of a frame not whole yet
        self._parts: list[bytes] = []  # a fragmented message's fragments so far
        self._taken = 0  # their bytes
        self.done = False  # a Handoff or a Fail was returned: nothing more is read here
        self._text = False

    def feed(self, data: bytes) -> list[Event]:
        """What the whole frames of the bytes so far mean, in order."""
        if self.done:
            raise RuntimeError("the frame reader has handed the connection off")
        if self._held:
            self._held += data
            buf: bytes | bytearray = self._held
        else:
            buf = data
        out: list[Event] = []
        at, end, limit = 0, len(buf), self.limit
        while end - at >= 2:
            head, size = buf[at], buf[at + 1]
            opcode, fin = head & 0x0F, head & 0x80
            if head & 0x70 or not size & 0x80 or opcode not in _TAKEN:  # RSV, unmasked, close
                return self._handoff(out, buf, at)
            size &= 0x7F
            start = at + 2
            if size == 126:
                if end - start < 2:
                    break
                size, start = int.from_bytes(buf[start : start + 2], "big"), start + 2
            elif size == 127:
                if end - start < 8:
                    break
                size, start = int.from_bytes(buf[start : start + 8], "big"), start + 8
            if opcode >= 8:
                if not fin or size > 125:  # a control frame is whole and short
                    return self._handoff(out, buf, at)
            elif limit is not None and size > limit - self._taken:
                if not self._taken:  # websockets refuses it alone (1009)
                    return self._handoff(out, buf, at)
                return self._fail(out, MESSAGE_TOO_BIG, "the message is too big")
            if end - start < 4 + size:
                break
            mask, start = bytes(buf[start : start + 4]), start + 4
            payload = self.unmask(buf[start : start + size], mask)
            at = start + size
            if opcode == 9:
                out.append(Ping(payload))
            elif opcode == 10:
                out.append(Pong(payload))
            elif (opcode == 0) != bool(self._parts):  # a fragment out of place
                return self._fail(out, PROTOCOL_ERROR, "unexpected frame in a message")
            elif fin and not self._parts:
                out.append(Message(opcode == 1, payload))
            else:
                if not self._parts:
                    self._text = opcode == 1
                self._parts.append(payload)
                self._taken += size
                if fin:
                    whole = b"".join(self._parts)
                    self._parts, self._taken = [], 0
                    out.append(Message(self._text, whole))
        self._held = bytearray(buf[at:]) if at < end else bytearray()
        return out

    def _handoff(self, out: list[Event], buf: bytes | bytearray, at: int) -> list[Event]:
        self.done = True
        out.append(Handoff(bytes(buf[at:])))
        self._held = bytearray()
        return out

    def _fail(self, out: list[Event], code: int, reason: str) -> list[Event]:
        self.done = True
        self._parts, self._taken, self._held = [], 0, bytearray()
        out.append(Fail(code, reason))
        return out

    @property
    def held(self) -> bytes:
        """The bytes of a frame not whole yet (a connection that ends here ends mid-frame)."""
        return bytes(self._held)

    @property
    def in_message(self) -> bool:
        """A fragmented message is under way (its fragments are the reader's)."""
        return bool(self._parts)
