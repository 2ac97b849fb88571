"""The pure frame reader (``server/net/frames.py``), fed bytes: no socket, no websockets.

Every case the fast path meets: many frames in one feed, a frame in pieces, fragments, pings
and pongs between fragments, and every way out: a close, an unmasked frame, an RSV bit, an
unknown opcode, a bad control frame, an oversized message alone (handed to websockets,
which answers 1009) or in fragments (failed 1009 here), a fragment out of place (1002).
Property tests split random frame sequences at random points and compare with what was
framed, and the pure unmasking with websockets' C one.
"""

from __future__ import annotations

import os
import struct

from hypothesis import given
from hypothesis import strategies as st
from websockets.frames import apply_mask

from server.net.frames import Fail, FrameReader, Handoff, Message, Ping, Pong, unmask

LIMIT = 4096


def frame(
    opcode: int, payload: bytes, *, fin: bool = True, masked: bool = True, rsv: int = 0
) -> bytes:
    """One client frame as RFC 6455 5.2 lays it out."""
    head = bytes([(0x80 if fin else 0) | rsv | opcode])
    n = len(payload)
    flag = 0x80 if masked else 0
    if n < 126:
        head += bytes([flag | n])
    elif n < 65536:
        head += bytes([flag | 126]) + struct.pack("!H", n)
    else:
        head += bytes([flag | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def feed_all(reader: FrameReader, data: bytes, step: int | None = None) -> list[object]:
    out: list[object] = []
    step = step or len(data) or 1
    for i in range(0, len(data), step):
        out += reader.feed(data[i : i + step])
    return out


def test_many_frames_in_one_feed_and_one_frame_in_pieces() -> None:
    data = b"".join(frame(2, bytes([i]) * i) for i in range(1, 40))
    whole = feed_all(FrameReader(LIMIT), data)
    assert whole == [Message(False, bytes([i]) * i) for i in range(1, 40)]
    assert feed_all(FrameReader(LIMIT), data, step=1) == whole
    big = frame(2, b"x" * 3000)  # a 16-bit length
    assert feed_all(FrameReader(LIMIT), big, step=7) == [Message(False, b"x" * 3000)]


def test_fragments_with_control_frames_between() -> None:
    data = (
        frame(1, "ré".encode()[:2], fin=False)
        + frame(9, b"are you there")
        + frame(0, "ré".encode()[2:] + b"sum", fin=False)
        + frame(10, b"yes")
        + frame(0, b"e", fin=True)
    )
    reader = FrameReader(LIMIT)
    events = feed_all(reader, data, step=3)
    assert events == [Ping(b"are you there"), Pong(b"yes"), Message(True, "résume".encode())]
    assert not reader.in_message and not reader.done


def test_a_close_and_everything_websockets_judges_is_handed_off() -> None:
    first = frame(2, b"ok")
    for odd in (
        frame(8, struct.pack("!H", 1000)),  # a close
        frame(2, b"x", masked=False),  # a client's frame must be masked
        frame(2, b"x", rsv=0x40),  # no extension was negotiated
        frame(3, b"x"),  # an unknown opcode
        frame(9, b"x" * 126),  # a control frame over 125 bytes
        frame(9, b"x", fin=False),  # a fragmented control frame
        frame(2, b"x" * (LIMIT + 1)),  # one frame over the limit: websockets says 1009
    ):
        reader = FrameReader(LIMIT)
        after = frame(2, b"after")
        events = feed_all(reader, first + odd + after)
        assert events == [Message(False, b"ok"), Handoff(odd + after)]  # from that frame on
        assert reader.done


def test_a_message_over_the_limit_in_fragments_fails_1009() -> None:
    reader = FrameReader(LIMIT)
    data = frame(2, b"x" * 3000, fin=False) + frame(0, b"x" * 2000, fin=True)
    assert feed_all(reader, data) == [Fail(1009, "the message is too big")]


def test_a_fragment_out_of_place_fails_1002() -> None:
    for data in (
        frame(0, b"x"),  # a continuation with no message begun
        frame(2, b"x", fin=False) + frame(2, b"y"),  # a new message in the middle of one
    ):
        assert feed_all(FrameReader(LIMIT), data) == [Fail(1002, "unexpected frame in a message")]


def test_bytes_of_a_frame_not_whole_are_held() -> None:
    reader = FrameReader(LIMIT)
    data = frame(2, b"hello")
    assert reader.feed(data[:4]) == []
    assert reader.held == data[:4]
    assert reader.feed(data[4:]) == [Message(False, b"hello")]
    assert reader.held == b""


payloads = st.lists(st.binary(max_size=300), min_size=1, max_size=6)


@given(
    st.lists(st.tuples(st.sampled_from([1, 2]), payloads), min_size=1, max_size=8),
    st.integers(min_value=1, max_value=64),
)
def test_random_messages_split_anywhere_come_out_whole(
    messages: list[tuple[int, list[bytes]]], step: int
) -> None:
    data = b""
    for opcode, parts in messages:
        for i, part in enumerate(parts):
            data += frame(opcode if i == 0 else 0, part, fin=i == len(parts) - 1)
        data += frame(9, b"p")
    expected: list[object] = []
    for opcode, parts in messages:
        expected += [Message(opcode == 1, b"".join(parts)), Ping(b"p")]
    assert feed_all(FrameReader(None), data, step) == expected


@given(st.binary(max_size=2000), st.binary(min_size=4, max_size=4))
def test_the_pure_unmasking_is_websockets_unmasking(data: bytes, mask: bytes) -> None:
    assert unmask(data, mask) == apply_mask(data, mask)
