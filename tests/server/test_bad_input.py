"""Bad input changes nothing: every refused frame gets its documented error code, the
connection stays, the table and every balance are as before. Repeated violations, floods and
oversize frames close the connection with a clear close code; the table carries on."""

from __future__ import annotations

import copy
from contextlib import AsyncExitStack
from typing import Any

import msgpack
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from clients.client import Client
from protocol.messages import CLIENT_TYPES, MAX_AMOUNT
from tests.server.helpers import fast_config, is_event, table
from tests.support import next_message, running_server

T = "holdem-act-t"
SHAPE = {"bad_frame", "unknown_type", "bad_message"}

bad_amounts = st.one_of(
    st.floats(allow_nan=True),
    st.integers(min_value=-(2**63), max_value=-1),
    st.integers(min_value=MAX_AMOUNT + 1, max_value=2**64 - 1),
    st.text(max_size=5),
    st.booleans(),
    st.lists(st.integers(-(2**63), 2**64 - 1), max_size=2),  # what MessagePack can carry
)


def packed(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


frames = st.one_of(
    st.binary(max_size=64).map(lambda b: (b, SHAPE)),
    st.text(max_size=20).map(lambda t: (t, {"bad_frame"})),
    st.text(max_size=12)
    .filter(lambda t: t not in CLIENT_TYPES)
    .map(lambda t: (packed({"type": t, "table": T}), {"unknown_type"})),
    st.tuples(st.sampled_from(["act", "buy_in"]), bad_amounts).map(
        lambda v: (
            packed({"type": v[0], "table": T, "verb": "raise", "amount": v[1]}),
            {"bad_message"},
        )
    ),
    st.one_of(
        st.integers(-(2**63), 2**64 - 1), st.binary(max_size=4), st.text(min_size=33, max_size=40)
    ).map(lambda v: (packed({"type": "act", "table": v, "verb": "call"}), {"bad_message"})),
    st.tuples(
        st.sampled_from(["fold", "check", "call", "bet", "raise", "allin", "dance"]),
        st.one_of(st.none(), st.integers(0, 10**6)),
    ).map(
        lambda v: (
            packed({"type": "act", "table": T, "verb": v[0], "amount": v[1]}),
            {"not_your_turn"},
        )
    ),
    st.integers(0, MAX_AMOUNT).map(
        lambda a: (packed({"type": "buy_in", "table": T, "amount": a}), {"round_in_progress"})
    ),
    st.just((packed({"type": "act", "table": "nope", "verb": "call"}), {"unknown_table"})),
    st.just((packed({"type": "hello", "protocol": 1}), {"already_hello"})),
    st.just((packed({"type": "sit_in", "table": T, "x": 1}), {"bad_message"})),
)


def table_state(server) -> dict[str, Any]:
    """What must not change: money, every seat and the round as each seat sees it."""
    tbl = server.croupier.tables[T]
    views = {}
    for seat in (None, 1, 2, 3):
        view = copy.deepcopy(tbl.view_for(tbl.seats.get(seat) if seat else None))
        if view["turn"]:
            view["turn"].pop("time_ms")
        views[seat] = view
    return {
        "money": server.croupier.money(),
        "views": views,
        "balances": dict(server.croupier.ledger.balances),
        "hand": tbl.hand,
    }


async def _attack(batch: list[tuple[bytes | str, set[str]]]) -> None:
    config = fast_config(table("holdem-act", seats=3), turn_time=60.0, round_pause=0.0)
    async with running_server(config) as server, AsyncExitStack() as stack:
        clients = []
        for seat in (1, 2, 3):
            c = await stack.enter_async_context(Client.connect(server.url))
            await c.join(T, seat=seat)
            await c.buy_in(T, 10_000)
            clients.append(c)
        # the round is running and waits for someone; the attacker is a seat in the round
        # (dealt in: its buy-in is refused) not to act (the round starts with the second stake)
        dealt = (await next_message(clients[0], is_event("round_starting")))["event"]["seats"]
        turn = await next_message(clients[0], lambda m: m["type"] == "turn")
        attacker = clients[next(s for s in dealt if s != turn["seat"]) - 1]
        await trio.sleep(0.05)
        before = table_state(server)
        for data, codes in batch:
            await attacker.send_raw(data)
            reply = await next_message(attacker, lambda m: m["type"] in ("error", "welcome"), 5)
            assert reply["type"] == "error" and reply["code"] in codes, (data, reply)
        assert (await attacker.ping(7))["nonce"] == 7  # the connection stays
        assert table_state(server) == before


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(frames, min_size=1, max_size=15))
def test_bad_frames_get_their_error_and_change_nothing(batch):
    trio.run(_attack, batch)


async def _closed_code(client: Client) -> int | None:
    with trio.fail_after(10):
        try:
            while True:
                await client.recv()
        except ConnectionClosed:
            pass
    return client.ws.close_code


@pytest.mark.parametrize("case", ["oversize", "violations", "flood"])
async def test_abuse_closes_only_that_connection(case):
    """Oversize frame -> 1009; 20 refused messages -> 1008; a flood (over 50/s sustained,
    burst 100) -> 1008. The table and the other clients carry on."""
    config = fast_config(table("holdem-act", seats=3), turn_time=60.0, round_pause=0.0)
    async with (
        running_server(config) as server,
        Client.connect(server.url) as good,
        Client.connect(server.url) as bad,
    ):
        await good.join(T, seat=1)
        await good.buy_in(T, 10_000)
        await bad.join(T, seat=2)
        await bad.buy_in(T, 10_000)
        await next_message(good, lambda m: m["type"] == "turn")
        before = server.croupier.money()
        try:
            if case == "oversize":
                await bad.send({"type": "ping", "nonce": 1, "pad": "x" * 5000})
            elif case == "violations":
                for _ in range(20):
                    await bad.send_raw(b"\xc1")
            else:
                for i in range(400):  # raw: the library would pace them (clients.client.Pace)
                    await bad.send_raw(msgpack.packb({"type": "ping", "nonce": i}))
        except ConnectionClosed:
            pass
        code = await _closed_code(bad)
        assert code == {"oversize": 1009, "violations": 1008, "flood": 1008}[case]
        assert (await good.ping(1))["nonce"] == 1
        conn = await next_message(
            good, lambda m: m["type"] == "event" and m["event"]["type"] == "connection"
        )
        assert conn["event"] == {
            "type": "connection",
            "seat": 2,
            "connected": False,
        }
        assert server.croupier.money() == before


async def test_a_newer_connection_replaces_the_older_one():
    """The same token on a new connection takes the seat over; the old one is closed 4001."""
    config = fast_config(table("holdem-act", seats=3))
    async with running_server(config) as server:
        async with Client.connect(server.url) as old:
            await old.join(T, seat=2)
            async with Client.connect(server.url, token=old.token) as new:
                assert await _closed_code(old) == 4001
                view = await new.join(T)
                assert view.seat == 2 and view.view["seats"][0]["connected"] is True
