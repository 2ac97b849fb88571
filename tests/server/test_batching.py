"""Events frames: one frame per recipient per table step, numbered per event, in order.

protocol/README.md "Events frames": the events one command or timer produced for a recipient
travel in one ``events`` frame whose ``seq`` is its last event's; the engine's
``turn_to_act`` is not sent (the ``turn`` event says whose turn it is, with the clock).
"""

from __future__ import annotations

import copy
from contextlib import AsyncExitStack
from typing import Any

import msgpack
import trio
from websockets.trio.client import connect as ws_connect

from clients.client import Client, unbatch
from protocol.messages import Balance, Events, Left
from server.games.poker import rules_for
from server.tables.connection import MAX_BATCH, Connection
from tests.server.helpers import STAKES, fast_config, table
from tests.server.test_play import check_no_leaks
from tests.support import running_server

T = "holdem-act-t"


def _drain(conn: Connection) -> list[Any]:
    out = []
    while True:
        try:
            out.append(conn.outbox.receive_nowait())
        except trio.WouldBlock:
            return out


def test_connection_batches_events_and_keeps_order_with_other_messages():
    conn = Connection(queue_size=100)
    assert conn.add_event("t1", 5, {"type": "a"}) is True  # opened a batch
    assert conn.add_event("t1", 6, {"type": "b"}) is False
    conn.send(Balance(10))  # the open batch goes first
    conn.add_event("t1", 7, {"type": "c"})
    conn.add_event("t2", 1, {"type": "d"})  # another table: a new frame
    conn.send(Left("t2", 2, 0, "left"))
    conn.flush()
    assert _drain(conn) == [
        Events("t1", 6, [{"type": "a"}, {"type": "b"}]),
        Balance(10),
        Events("t1", 7, [{"type": "c"}]),
        Events("t2", 1, [{"type": "d"}]),
        Left("t2", 2, 0, "left"),
    ]
    for n in range(1, MAX_BATCH + 2):
        conn.add_event("t3", n, {"type": "x"})
    conn.flush()
    frames = _drain(conn)
    assert [len(f.events) for f in frames] == [MAX_BATCH, 1]
    assert [f.seq for f in frames] == [MAX_BATCH, MAX_BATCH + 1]


def test_unbatch_numbers_each_event_and_turns_become_turn_messages():
    frame = {
        "type": "events",
        "table": "t",
        "seq": 9,
        "events": [
            {"type": "action_taken", "seat": 2},
            {"type": "turn", "seat": 3, "legal": {}, "time_ms": 1, "time_bank_ms": 0},
        ],
    }
    assert unbatch(frame) == [
        {"type": "event", "table": "t", "seq": 8, "event": {"type": "action_taken", "seat": 2}},
        {
            "type": "turn",
            "table": "t",
            "seq": 9,
            "seat": 3,
            "legal": {},
            "time_ms": 1,
            "time_bank_ms": 0,
        },
    ]
    assert unbatch({"type": "balance", "balance": 3}) == [{"type": "balance", "balance": 3}]


async def _raw_frames(url: str, joined: trio.Event, frames: list[dict[str, Any]]) -> None:
    async with ws_connect(url, compression=None, proxy=None) as ws:
        await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "name": "raw"}))
        await ws.recv()
        await ws.send(msgpack.packb({"type": "join", "table": T, "role": "spectator"}))
        joined.set()
        async for data in ws:
            frames.append(msgpack.unpackb(data, strict_map_key=False))


async def test_one_frame_per_step_seq_per_event_and_no_turn_to_act():
    """Three seats play; a spectator reading raw frames gets one ``events`` frame per step,
    numbered without gaps, the turn with legal actions only for the seat to act."""
    config = fast_config(table("holdem-act", seats=3, seed=11))
    frames: list[dict[str, Any]] = []
    async with running_server(config) as server, trio.open_nursery() as nursery:
        joined = trio.Event()
        nursery.start_soon(_raw_frames, server.url, joined, frames)
        await joined.wait()
        async with AsyncExitStack() as stack:
            players = {}
            for seat in (1, 2, 3):
                c = await stack.enter_async_context(Client.connect(server.url, name=f"p{seat}"))
                await c.join(T, seat=seat)
                await c.buy_in(T, 10_000)
                players[seat] = c
            acted = 0
            with trio.fail_after(20):
                while acted < 12:
                    msg = await players[1].recv()
                    if msg["type"] != "turn":
                        continue
                    seat = msg["seat"]
                    while True:  # the seat to act's own copy of the turn has the legal actions
                        mine = await players[seat].recv() if seat != 1 else msg
                        if mine["type"] == "turn" and mine["legal"]:
                            break
                    verb = "check" if "check" in mine["legal"] else "call"
                    await players[seat].act(T, verb)
                    acted += 1
                    await trio.sleep(0.05)
            await trio.sleep(0.2)
        nursery.cancel_scope.cancel()
    kinds = {f["type"] for f in frames}
    assert "event" not in kinds and "turn" not in kinds
    assert frames[0]["type"] == "snapshot"
    last = frames[0]["seq"]
    for f in frames[1:]:
        if f["type"] == "events":
            assert f["events"], "an events frame is never empty"
            assert f["seq"] - len(f["events"]) + 1 == last + 1, "gap or overlap in seq"
            last = f["seq"]
            assert all(e["type"] != "turn_to_act" for e in f["events"])
            assert all(e["legal"] == [] for e in f["events"] if e["type"] == "turn")
    # an action that hands the turn on is one frame with the action and the next turn
    steps = [[e["type"] for e in f["events"]] for f in frames if f["type"] == "events"]
    assert any(s[0] == "action_taken" and s[-1] == "turn" for s in steps)
    assert all(s.count("turn") <= 1 for s in steps)


async def _checker(url: str, seat: int, hold: trio.Event) -> None:
    """A seat that always checks or calls, at once; after the first flop it waits for
    ``hold`` (the spectator is in) before it acts."""
    async with Client.connect(url, name=f"p{seat}") as c:
        await c.join(T, seat=seat)
        await c.buy_in(T, 10_000)
        async for msg in c:
            if msg["type"] == "turn" and msg["legal"]:
                rnd = c.tables[T].view.get("round") or {}
                if len(rnd.get("board") or ()) >= 3:
                    await hold.wait()
                await c.act(T, "check" if "check" in msg["legal"] else "call")


async def test_spectator_joining_mid_round_replays_from_its_snapshot():
    """The "board out of order" flake: a spectator that joins after the flop must start its
    replay from the snapshot's board; the events after it continue that board exactly."""
    config = fast_config(table("holdem-act", seats=2, seed=5))
    frames: list[dict[str, Any]] = []
    async with running_server(config) as server, trio.open_nursery() as nursery:
        actor = server.croupier.tables[T]
        hold = trio.Event()  # the players wait after the flop until the spectator is in
        for seat in (1, 2):
            nursery.start_soon(_checker, server.url, seat, hold)
        with trio.fail_after(20):
            while actor.round is None or len(actor.round.board) < 3:
                await trio.sleep(0.001)
        async with Client.connect(server.url) as watcher:
            view = await watcher.join(T, role="spectator")
            hold.set()
            assert len(view.view["round"]["board"]) >= 3  # joined mid-round, after the flop
            frames.append({"type": "snapshot", "view": copy.deepcopy(view.view), "seat": None})
            with trio.fail_after(20):
                async for msg in watcher:
                    frames.append(msg)
                    if actor.hand >= 3:
                        break
        nursery.cancel_scope.cancel()
    schedule = rules_for("holdem-act", STAKES["holdem-act"]).board_schedule
    assert check_no_leaks(frames, None, schedule) >= 1
