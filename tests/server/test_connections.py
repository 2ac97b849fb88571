"""A connection in two tasks and one keepalive sweep per process (server/net/connections.py).

The fast path reads in websockets' own reader task and writes in the handler task; pings and
the hello deadline come from one sweep. These tests hold what the per-connection tasks held:
a live but silent client is pinged and kept, a dead one is closed (1011), a client without
``hello`` is closed (1008), fragmented and early messages are read, and a connection leaves
nothing behind in the server when it ends.
"""

from __future__ import annotations

import math
import socket

import msgpack
import trio
from websockets.exceptions import ConnectionClosed
from websockets.trio.client import connect

from clients.client import PROTOCOL_VERSION, Client
from protocol.errors import CloseCode
from protocol.messages import Error
from server.net.connections import Keepalive
from server.tables.connection import Connection
from tests.server.helpers import fast_config, table
from tests.support import running_server, until

T = "holdem-act-t"


async def test_a_silent_client_is_pinged_and_kept_a_dead_one_is_closed_1011():
    config = fast_config(table("holdem-act"), ping_interval=0.3, ping_timeout=0.3)
    async with running_server(config) as server:
        keepalive = server.croupier.keepalive
        async with Client.connect(server.url, name="quiet") as quiet:
            (ws,) = keepalive.live.values()
            # pinged twice: a second ping comes only after the pong to the first (else a drop)
            await until(lambda: ws.pinged > ws.opened)
            first = ws.pinged
            await until(lambda: ws.pinged > first)
            assert len(server.croupier.connections) == 1  # the pongs keep it alive
            quiet.ws.pause_reading()  # now it answers no ping: a dead peer
            await until(lambda: not server.croupier.connections, timeout=3.0)
            assert not keepalive.live
            quiet.ws.resume_reading()
            try:
                while True:
                    await quiet.ws.recv()
            except ConnectionClosed as exc:
                assert exc.rcvd is not None and exc.rcvd.code == 1011


class _Seen:
    """What the sweep reads of a connection's socket (server/net/connections.py Socket)."""

    def __init__(self) -> None:
        self.opened = self.seen = 0.0
        self.pinged = -math.inf
        self.sent = self.swept = 0


def test_the_sweep_pings_a_connection_it_writes_to_less_often() -> None:
    """A connection silent both ways is pinged after 20 s; one the server writes to (a seat
    at a table in play: TCP watches it) only after 60 s of silence. Both are closed 1011
    20 s after an unanswered ping."""
    config = fast_config(table("holdem-act"), ping_interval=20.0, ping_timeout=20.0)
    keepalive = Keepalive(config)
    seated, idle = Connection(64), Connection(64)
    seated.account = idle.account = "ann"
    at_table, silent = _Seen(), _Seen()
    keepalive.live = {seated: at_table, idle: silent}  # type: ignore[dict-item]
    pings = {"at_table": [], "silent": []}  # type: dict[str, list[float]]
    for now in range(1, 240):  # one pass a second; the table writes every second
        at_table.sent += 1
        keepalive.sweep(float(now))
        for name, ws in (("at_table", at_table), ("silent", silent)):
            if ws.pinged == now:
                pings[name].append(now)
            elif ws.pinged == now - 1 and now < 150:  # answered a second later, until 150 s
                ws.seen = float(now)
    assert pings["silent"][:3] == [20.0, 41.0, 62.0]  # every 20 s of silence
    assert pings["at_table"][:2] == [60.0, 121.0]  # every 60 s: three intervals
    assert idle.closing.is_set() and seated.closing.is_set()  # no answer after 150 s
    assert idle.close_code == seated.close_code == CloseCode.INTERNAL


async def test_a_server_socket_is_watched_by_tcp_for_the_keepalive_time():
    config = fast_config(table("holdem-act"), ping_interval=3.0, ping_timeout=4.0)
    async with running_server(config) as server:
        async with Client.connect(server.url, name="watched"):
            (ws,) = server.croupier.keepalive.live.values()
            option = getattr(socket, "TCP_USER_TIMEOUT", None)
            if option is not None:  # Linux
                assert ws.stream.getsockopt(socket.IPPROTO_TCP, option) == 7000


async def test_no_hello_in_time_is_closed_1008_by_the_sweep():
    config = fast_config(table("holdem-act"), hello_timeout=0.4)
    async with running_server(config) as server:
        async with connect(server.url, ping_interval=None) as ws:
            with trio.fail_after(3):
                try:
                    await ws.recv()
                    raise AssertionError("a frame before hello")
                except ConnectionClosed as exc:
                    assert exc.rcvd is not None and exc.rcvd.code == 1008
        await until(lambda: not server.croupier.connections)
        assert not server.croupier.keepalive.live


async def test_fragmented_and_early_messages_are_read_and_nothing_is_left_behind():
    config = fast_config(table("holdem-act"))
    async with running_server(config) as server:
        hello = msgpack.packb({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "frag"})
        join = msgpack.packb({"type": "join", "table": T, "role": "spectator"})
        async with connect(server.url, ping_interval=None) as ws:
            # the hello in three fragments, the join right behind it, before any answer
            await ws.send([hello[:3], hello[3:7], hello[7:]])
            await ws.send(join)
            with trio.fail_after(5):
                first = msgpack.unpackb(await ws.recv())
                second = msgpack.unpackb(await ws.recv())
            assert first["type"] == "welcome"
            assert second["type"] == "snapshot" and second["role"] == "spectator"
            assert server.croupier.tables[T].spectators
        await until(lambda: not server.croupier.connections)
        assert not server.croupier.keepalive.live
        await until(lambda: not server.croupier.tables[T].spectators)


async def test_drop_cancels_a_writer_stuck_on_a_client_that_stopped_reading():
    conn = Connection(queue_size=4)
    stuck = trio.Event()

    async def writer() -> None:
        with conn.writer:
            async for _ in conn.outbox:
                stuck.set()
                await trio.sleep_forever()  # a send that never completes

    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer)
        conn.send({"type": "x"})
        await stuck.wait()
        for _ in range(5):  # the queue overflows: 4002, and the stuck writer ends
            conn.send({"type": "y"})
        assert conn.close_code == 4002
    assert conn.writer.cancelled_caught


async def test_fast_path_partial_writes_keep_every_frame_whole_and_in_order():
    """Frames go straight to the socket while it takes them; once the client stops reading
    the kernel's buffer fills, a write is cut short, its rest and every later message queue
    for the writer (nothing is lost or reordered), and reading again gets them all."""
    config = fast_config(table("holdem-act"), outbound_queue=100_000)
    async with running_server(config) as server:
        async with Client.connect(server.url, name="reader") as client:
            (conn,) = server.croupier.connections
            client.ws.pause_reading()
            pad = "x" * 4000
            count = 3000  # 12 MB: more than the socket buffers hold
            for i in range(count):
                conn.send(Error(code="test", message=f"{i} {pad}"))
            assert conn.backlog, "the socket took 12 MB without blocking"
            client.ws.resume_reading()
            with trio.fail_after(30):
                for i in range(count):
                    frame = msgpack.unpackb(await client.ws.recv())
                    assert frame["message"] == f"{i} {pad}"
            await until(lambda: not conn.backlog)
