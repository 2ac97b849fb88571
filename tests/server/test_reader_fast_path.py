"""The reader's fast path (``server/net/websocket.py`` with ``server/net/frames.py``): raw
frames over TCP, with the fast paths on and switched off.

Once the handshake is done the server parses the open connection's frames itself (masked
data frames, pings, pongs) and hands anything else to websockets' parser from that frame
on; switched off (a websockets release it was not written for, or
``CROUPIER_WS_FAST_PATH=0``) websockets reads every frame, and everything ends the same.
These tests write the bytes by hand: many frames in one write, a frame split byte by byte,
fragments, a ping, and every way out (a close, an unmasked frame, a stray continuation, an
oversized message, whole or in fragments) must end as websockets would.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
import trio
from websockets.client import ClientProtocol
from websockets.frames import Close, CloseCode, Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from clients.client import PROTOCOL_VERSION
from server.net import websocket
from tests.server.helpers import fast_config, table
from tests.server.test_frame_reader import frame
from tests.support import running_server

MAX = 4096  # the server's max_frame in these tests


def message(obj: dict[str, Any]) -> bytes:
    return msgpack.packb(obj)


HELLO = message({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "raw"})


class Raw:
    """A client that writes raw bytes and reads frames with websockets' sans-I/O parser."""

    def __init__(self, stream: trio.SocketStream, protocol: ClientProtocol) -> None:
        self.stream, self.protocol = stream, protocol
        self.frames: list[Frame] = []

    @classmethod
    async def connect(cls, url: str) -> Raw:
        uri = parse_uri(url)
        stream = await trio.open_tcp_stream(uri.host, uri.port)
        protocol = ClientProtocol(uri, max_size=None)
        protocol.send_request(protocol.connect())
        await stream.send_all(b"".join(protocol.data_to_send()))
        while protocol.state is State.CONNECTING:
            protocol.receive_data(await stream.receive_some())
        protocol.events_received()  # the response
        return cls(stream, protocol)

    async def next_frame(self) -> Frame:
        with trio.fail_after(5):
            while not self.frames:
                data = await self.stream.receive_some()
                if not data:
                    self.protocol.receive_eof()
                else:
                    self.protocol.receive_data(data)
                self.frames += [e for e in self.protocol.events_received() if isinstance(e, Frame)]
                if not data and not self.frames:
                    raise EOFError("the server closed without a frame")
        return self.frames.pop(0)

    async def next_message(self) -> dict[str, Any]:
        while True:
            f = await self.next_frame()
            if f.opcode is Opcode.BINARY:
                obj = msgpack.unpackb(f.data, strict_map_key=False)
                assert isinstance(obj, dict)
                return obj

    async def close_code(self) -> int:
        while True:
            f = await self.next_frame()
            if f.opcode is Opcode.CLOSE:
                return Close.parse(f.data).code


@pytest.fixture(autouse=True, params=["fast path", "websockets only"])
def fast_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Every test both ways: the server's fast paths on, and switched off."""
    on = request.param == "fast path"
    monkeypatch.setattr(websocket, "FAST_PATH", on)
    return on


def _config():  # type: ignore[no-untyped-def]
    return fast_config(table("holdem-act"), max_frame=MAX)


async def test_many_frames_in_one_write_and_one_frame_in_pieces(fast_path: bool) -> None:
    async with running_server(_config()) as server:
        raw = await Raw.connect(server.url)
        pings = [message({"type": "ping", "nonce": n}) for n in range(1, 4)]
        await raw.stream.send_all(frame(2, HELLO) + b"".join(frame(2, p) for p in pings))
        assert (await raw.next_message())["type"] == "welcome"
        (ws,) = server.croupier.keepalive.live.values()
        assert ws.fast_path is fast_path  # the server reads this connection's frames itself
        for n in range(1, 4):
            assert await raw.next_message() == {"type": "pong", "nonce": n}
        long = message({"type": "ping", "nonce": 7, "pad": "x" * 300})  # a 16-bit length
        for byte in frame(2, long):  # one byte per write
            await raw.stream.send_all(bytes([byte]))
            await trio.sleep(0)
        reply = await raw.next_message()
        assert reply["type"] in ("pong", "error")  # unknown fields: the server's choice
        whole = message({"type": "ping", "nonce": 8})
        parts = [whole[:2], whole[2:5], whole[5:]]
        fragments = frame(2, parts[0], fin=False) + frame(9, b"hi")  # a ping in between
        fragments += frame(0, parts[1], fin=False) + frame(0, parts[2])
        await raw.stream.send_all(fragments)
        pong = await raw.next_frame()
        assert pong.opcode is Opcode.PONG and pong.data == b"hi"
        assert await raw.next_message() == {"type": "pong", "nonce": 8}
        await raw.stream.send_all(frame(8, Close(CloseCode.NORMAL_CLOSURE, "bye").serialize()))
        assert await raw.close_code() == CloseCode.NORMAL_CLOSURE
        await raw.stream.aclose()


async def _refused(url: str, payload: bytes) -> int:
    raw = await Raw.connect(url)
    await raw.stream.send_all(frame(2, HELLO))
    assert (await raw.next_message())["type"] == "welcome"
    await raw.stream.send_all(payload)
    code = await raw.close_code()
    await raw.stream.aclose()
    return code


async def test_every_way_out_of_the_fast_path_ends_as_websockets_would() -> None:
    ping = message({"type": "ping", "nonce": 1})
    async with running_server(_config()) as server:
        url = server.url
        assert await _refused(url, frame(2, ping, masked=False)) == CloseCode.PROTOCOL_ERROR
        assert await _refused(url, frame(0, ping)) == CloseCode.PROTOCOL_ERROR  # stray
        assert await _refused(url, frame(2, ping, fin=False) + frame(2, ping)) == (
            CloseCode.PROTOCOL_ERROR  # a new message inside a fragmented one
        )
        assert await _refused(url, frame(2, b"x" * (MAX + 1))) == CloseCode.MESSAGE_TOO_BIG
        half = b"x" * (MAX // 2 + 1)
        assert await _refused(url, frame(2, half, fin=False) + frame(0, half)) == (
            CloseCode.MESSAGE_TOO_BIG  # too big in fragments
        )
        assert await _refused(url, frame(9, b"p" * 126)) == CloseCode.PROTOCOL_ERROR
        rsv = bytearray(frame(2, ping))
        rsv[0] |= 0x40  # RSV1 without an extension
        assert await _refused(url, bytes(rsv)) == CloseCode.PROTOCOL_ERROR
        # and the server is still well
        raw = await Raw.connect(url)
        await raw.stream.send_all(frame(2, HELLO) + frame(2, ping))
        assert (await raw.next_message())["type"] == "welcome"
        assert await raw.next_message() == {"type": "pong", "nonce": 1}
        await raw.stream.aclose()
