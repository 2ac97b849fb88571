"""Pace: turn timer and time bank, disconnect grace, reconnect snapshots, slow clients, sit
out and ACT 18.8, over real sockets (real clocks: the peers include the kernel's sockets).
The turn timer's check-or-fold is table logic: tests/tables/test_poker_table.py (MockClock)."""

from __future__ import annotations

import copy
import socket
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import trio
from websockets.trio.client import connect as ws_connect

from clients.client import Client
from tests.server.helpers import Bot, fast_config, is_event, my_turn, next_turn, play_hands, table
from tests.support import next_message, running_server

T = "holdem-act-t"


@asynccontextmanager
async def seated(server, n: int, table_id: str = T, buy_in: int = 10_000):
    """``n`` connections seated at seats 1..n, each with a stake."""
    async with AsyncExitStack() as stack:
        clients = []
        for seat in range(1, n + 1):
            client = await stack.enter_async_context(Client.connect(server.url, name=f"p{seat}"))
            await client.join(table_id, seat=seat)
            await client.buy_in(table_id, buy_in)
            clients.append(client)
        yield clients


async def test_disconnected_seat_is_held_for_the_grace_period_then_cashed_out():
    """A dropped player keeps the seat for the grace period while its timer runs; then the
    seat is vacated and the stake returns to the wallet."""
    config = fast_config(table("holdem-act", seats=3), turn_time=0.2, grace=1.0)
    async with running_server(config) as server:
        async with seated(server, 3) as (a, _b, c):
            token = c.token
            await next_message(a, lambda m: m["type"] == "turn")
            await c.aclose()
            msg = await next_message(a, is_event("connection", seat=3))
            assert msg["event"]["connected"] is False
            vacated = await next_message(a, is_event("seat_vacated", seat=3), timeout=10)
            assert vacated["event"]["reason"] == "grace_expired"
            returned = vacated["event"]["returned"]
            async with Client.connect(server.url, token=token) as again:
                assert again.welcome["seated"] == []
                assert again.welcome["balance"] == config.starting_balance - 10_000 + returned


def _public(view: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A table view without what only ``seat`` may see and without the running clock."""
    view = copy.deepcopy(view)
    if view.get("turn"):
        view["turn"].pop("time_ms")
    rnd = view.get("round")
    if rnd:
        rnd.pop("legal", None)
        if seat is not None:
            rnd["seats"][str(seat)].pop("cards", None)
    return view


async def test_reconnect_mid_hand_restores_the_exact_view():
    """Reconnecting with the token resumes the seat with a full snapshot: own hole cards, the
    board, stacks and the seat to act equal what a client that never left has seen; the
    public part equals a spectator's; the sequence number continues."""
    config = fast_config(table("holdem-act", seats=3), turn_time=30.0, round_pause=0.5)
    async with running_server(config) as server:
        async with seated(server, 3) as (a, b, c):
            players = {1: a, 2: b}
            stacks: dict[int, int] = {}
            board: list[str] = []

            def watch(msg: dict[str, Any]) -> None:
                nonlocal board
                if msg["type"] == "event":
                    ev = msg["event"]
                    if "stack" in ev and "seat" in ev:
                        stacks[ev["seat"]] = ev["stack"]
                    if ev["type"] == "board_dealt":
                        board = ev["board"]

            hole = (await next_message(c, is_event("hole_cards_dealt", seat=3)))["event"]["cards"]
            away = False
            with trio.fail_after(20):
                while True:
                    t = await next_turn(a, players, watch)
                    if t["seat"] == 3 and away:
                        break
                    if t["seat"] == 3:  # seat 3 acts once, then drops mid-hand
                        await next_message(c, my_turn(3))
                        await c.act(T, "call")
                        await next_message(c, is_event("action_taken", seat=3))
                        last_seq = c.tables[T].seq
                        token = c.token
                        await c.aclose()
                        away = True
                        continue
                    await players[t["seat"]].act(T, "check" if "check" in t["legal"] else "call")
            assert board, "the flop was dealt while seat 3 was away"
            async with Client.connect(server.url, token=token) as again:
                assert again.welcome["seated"] == [T]
                view = await again.join(T, last_seq=last_seq)
                assert view.seat == 3 and view.seq > last_seq
                rnd = view.view["round"]
                assert rnd is not None and rnd["seats"]["3"]["cards"] == hole
                assert all("cards" not in s for k, s in rnd["seats"].items() if k != "3")
                assert rnd["board"] == board
                for seat, stack in stacks.items():
                    assert rnd["seats"][str(seat)]["stack"] == stack
                assert view.view["turn"]["seat"] == 3 == rnd["to_act"]
                kept = a.tables[T].view["round"]  # what seat 1, who never left, has built
                for k in ("board", "pot", "to_act"):
                    assert kept[k] == rnd[k], k
                for s, info in rnd["seats"].items():
                    mine = {k: v for k, v in info.items() if k != "cards"}
                    assert {k: v for k, v in kept["seats"][s].items() if k != "cards"} == mine
                assert {x["verb"] for x in rnd["legal"]} >= {"fold", "check"}
                async with Client.connect(server.url) as spectator:
                    watch_view = await spectator.join(T, role="spectator")
                    assert _public(watch_view.view, None) == _public(view.view, 3)


async def _slow_reader(url: str, table_id: str, joined: trio.Event, stop: trio.Event) -> None:
    """A spectator that stops reading: tiny receive buffer, never calls recv after joining."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    await sock.connect((host, int(port)))
    stream = trio.SocketStream(sock)
    async with ws_connect(url, stream=stream, max_queue=1, compression=None, proxy=None) as ws:
        client = Client(ws)
        await client.hello(name="slow")
        await client.join(table_id, role="spectator")
        joined.set()
        await stop.wait()


async def test_a_client_that_stops_reading_is_dropped_and_the_table_keeps_its_pace():
    """A bounded outbound queue per connection: overflow drops that client (4002), the
    table and the other players never wait for it."""
    config = fast_config(table("holdem-act", seed=5), outbound_queue=128)
    async with running_server(config) as server:
        tbl = server.croupier.tables[T]
        joined, stop = trio.Event(), trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_slow_reader, server.url, T, joined, stop)
            await joined.wait()
            assert len(tbl.spectators) == 1
            bots = [Bot(server.url, T, s, seed=s) for s in range(1, 10)]
            with trio.fail_after(60):
                await play_hands(server, bots, 60)
            assert len(tbl.spectators) == 0, "the slow spectator was not dropped"
            nursery.cancel_scope.cancel()  # its reader is paused: cancel rather than close


async def test_sitting_out_act_folds_at_its_turn_and_18_8_vacates_after_3_rounds():
    """ACT: a sitting-out player cannot skip the buck or blind (6.3, digest A-16): it is
    dealt in and folds at its turn. ACT 18.8: 3 rounds without wagering while every seat is
    taken vacate the seat, its stake returned."""
    config = fast_config(table("holdem-act", seats=3), turn_time=5.0, round_pause=0.3)
    async with running_server(config) as server:
        async with seated(server, 3) as (a, b, c):
            await c.sit_out(T)
            await next_message(a, is_event("sat_out", seat=3))
            folds = 0
            with trio.fail_after(20):
                while True:
                    msg = await a.recv()
                    if msg["type"] == "turn" and msg["legal"]:
                        await a.act(T, "check" if "check" in msg["legal"] else "call")
                    if msg["type"] == "turn" and msg["seat"] == 2:
                        legal = (await next_message(b, my_turn(2)))["legal"]
                        await b.act(T, "check" if "check" in legal else "call")
                    if msg["type"] == "turn":
                        assert msg["seat"] != 3, "a sitting-out seat is never waited for"
                    if msg["type"] == "event":
                        ev = msg["event"]
                        if ev["type"] == "action_taken" and ev["seat"] == 3:
                            assert ev["verb"] == "fold"
                            folds += 1
                        if ev["type"] == "seat_vacated":
                            assert ev["seat"] == 3 and ev["reason"] == "abstained"
                            break
            assert folds >= 2
            left = await next_message(c, lambda m: m["type"] == "left")
            assert left["reason"] == "abstained" and left["returned"] > 0


async def test_qld_absent_player_is_skipped_and_posts_on_return():
    """QLD Sch 11: a sitting-out player is absent (s21(2)): not dealt in, skipped for the
    button and blinds (s17(4), s23(3)); on return it posts the second blind (s23A)."""
    config = fast_config(table("holdem-qld", seats=4), turn_time=5.0, round_pause=0.3)
    async with running_server(config) as server:
        async with seated(server, 4, table_id="holdem-qld-t") as players:
            tid = "holdem-qld-t"
            a, d = players[0], players[3]
            await d.sit_out(tid)
            await next_message(a, is_event("sat_out", seat=4))
            rounds = 0
            posted = None
            with trio.fail_after(30):
                while posted is None:
                    msg = await a.recv()
                    if msg["type"] == "turn":
                        who = players[msg["seat"] - 1]
                        legal = (
                            msg["legal"] or (await next_message(who, my_turn(msg["seat"])))["legal"]
                        )
                        await who.act(tid, "check" if "check" in legal else "fold")
                    elif msg["type"] == "event":
                        ev = msg["event"]
                        if ev["type"] == "round_starting":
                            rounds += 1
                            if rounds <= 2:
                                assert 4 not in ev["seats"]
                            if rounds == 2:
                                await d.sit_in(tid)
                        if ev["type"] == "blind_posted" and ev["seat"] == 4:
                            posted = ev
            assert rounds >= 3
            assert posted["kind"] in ("live", "blind1", "blind2")
