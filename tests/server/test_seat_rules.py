"""The seat rules for new and absent players, over real sockets, each test naming its rule
(docs/rulings.md, "Table server"): QLD Sch 11 s21(3) and s23A, ACT 6.3 / 18.8, QLD Sch 5
s17(3), and the warning before an ACT 18.8 vacate."""

from __future__ import annotations

from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest
import trio

from clients.client import Client
from tests.server.helpers import fast_config, is_event, my_turn, table
from tests.support import next_message, running_server


@asynccontextmanager
async def seated_at(server: Any, table_id: str, seats: list[int], buy_in: int = 10_000):
    """One connection per seat in ``seats``, each with a stake; keyed by seat number."""
    async with AsyncExitStack() as stack:
        clients: dict[int, Client] = {}
        for seat in seats:
            c = await stack.enter_async_context(Client.connect(server.url, name=f"p{seat}"))
            await c.join(table_id, seat=seat)
            await c.buy_in(table_id, buy_in)
            clients[seat] = c
        yield clients


class Rounds:
    """Reads a watcher's stream, plays every turn with check-or-fold, and records each
    round: its dealt-in seats, designated seat and blind posts."""

    def __init__(self, tid: str, watcher: Client, players: dict[int, Client]) -> None:
        self.tid, self.watcher, self.players = tid, watcher, players
        self.rounds: list[dict[str, Any]] = []

    async def step(self) -> dict[str, Any]:
        msg = await self.watcher.recv()
        if msg["type"] == "turn":
            who = self.players.get(msg["seat"])
            if who is not None:
                legal = msg["legal"] if who is self.watcher else None
                if not legal:
                    legal = (await next_message(who, my_turn(msg["seat"])))["legal"]
                await who.act(self.tid, "check" if "check" in legal else "fold")
        elif msg["type"] == "event":
            ev = msg["event"]
            if ev["type"] == "round_starting":
                self.rounds.append({**ev, "posts": []})
            elif ev["type"] == "blind_posted" and self.rounds:
                self.rounds[-1]["posts"].append(ev)
        return msg

    async def until_rounds(self, n: int, timeout: float = 30.0) -> None:
        with trio.fail_after(timeout):
            while len(self.rounds) < n or not self.ended():
                await self.step()

    def ended(self) -> bool:
        return self.watcher.tables[self.tid].view.get("status") != "playing"


async def test_qld_s21_3_new_player_waits_rather_than_being_dealt_in_on_the_button_or_first_blind():
    """QLD Sch 11 s21(3): a new player (s21(1): not a player in the preceding round) cannot
    be dealt in while in the button or the first blind position; it waits (absent for the
    button, s17(4)) and is dealt in when the positions pass it, posting W (s23A(1)) unless
    it is the second blind."""
    tid = "holdem-qld-t"
    config = fast_config(table("holdem-qld", seats=4), round_pause=0.2)
    async with running_server(config) as server:
        async with seated_at(server, tid, [1, 3, 4]) as players:
            r = Rounds(tid, players[1], players)
            await r.until_rounds(1)
            first = r.rounds[0]
            assert first["designated"] == 4  # the button immediately right of the dealer
            async with Client.connect(server.url, name="newcomer") as new:
                view = await new.join(tid, seat=2)
                entry = view.view["table"]["entry"]
                assert entry["post"] == 200 and entry["may_wait"] and entry["not_on_button"]
                await new.buy_in(tid, 10_000)
                r.players[2] = new
                with trio.fail_after(40):
                    while not any(2 in x["seats"] for x in r.rounds) or not r.ended():
                        await r.step()
                joined_at = next(i for i, x in enumerate(r.rounds) if 2 in x["seats"])
                skipped = r.rounds[1:joined_at]
                assert skipped, "seat 2 would have been the first blind of the next round"
                dealt = r.rounds[joined_at]
                blinds = [p for p in dealt["posts"] if p["kind"].startswith("blind")]
                assert dealt["designated"] != 2
                assert blinds[0]["seat"] != 2, "a new player is never the first blind (s21(3))"
                mine = [p for p in dealt["posts"] if p["seat"] == 2]
                assert len(mine) == 1 and mine[0]["amount"] == 200  # second blind or W post


async def test_qld_s23A_returning_player_may_wait_for_the_second_blind():
    """QLD Sch 11 s23A(2): a returning player either posts the missed blinds now or waits
    until it is its turn to post the second blind; ``sit_in {wait_for_blind: true}`` waits:
    it is not dealt in until the round that makes it the second blind, and posts nothing
    else."""
    tid = "holdem-qld-t"
    config = fast_config(table("holdem-qld", seats=4), round_pause=0.2)
    async with running_server(config) as server:
        async with seated_at(server, tid, [1, 2, 3, 4]) as players:
            await players[4].sit_out(tid)
            r = Rounds(tid, players[1], players)
            await next_message(players[1], is_event("sat_out", seat=4))
            await r.until_rounds(2)
            assert all(4 not in x["seats"] for x in r.rounds)
            await players[4].send({"type": "sit_in", "table": tid, "wait_for_blind": True})
            sat = await next_message(players[4], is_event("sat_in", seat=4))
            assert sat["event"]["wait_for_blind"] is True
            seat4 = players[4].tables[tid].seat_info(4)
            assert seat4 is not None
            back = len(r.rounds)
            with trio.fail_after(40):
                while not any(4 in x["seats"] for x in r.rounds[back:]) or not r.ended():
                    await r.step()
            dealt = next(x for x in r.rounds[back:] if 4 in x["seats"])
            blinds = [p for p in dealt["posts"] if p["kind"].startswith("blind")]
            assert blinds[-1]["seat"] == 4, "dealt in back as the second blind"
            assert [p["kind"] for p in dealt["posts"] if p["seat"] == 4] == ["blind2"]


async def test_qld_s23A_returning_player_posts_now_unless_it_chose_to_wait():
    """QLD Sch 11 s23A(2): the other choice, posting now (``sit_in`` without
    ``wait_for_blind``): dealt in the next round, posting W (live) if not in a blind."""
    tid = "holdem-qld-t"
    config = fast_config(table("holdem-qld", seats=4), round_pause=0.2)
    async with running_server(config) as server:
        async with seated_at(server, tid, [1, 2, 3, 4]) as players:
            await players[4].sit_out(tid)
            r = Rounds(tid, players[1], players)
            await next_message(players[1], is_event("sat_out", seat=4))
            await r.until_rounds(1)
            await players[4].sit_in(tid)
            back = len(r.rounds)
            await r.until_rounds(back + 1)
            dealt = r.rounds[back]
            assert 4 in dealt["seats"]
            assert [p["amount"] for p in dealt["posts"] if p["seat"] == 4] in ([100], [200])


@pytest.mark.parametrize("game", ["holdem-act", "manila-act", "manila-qld"])
async def test_act_6_3_and_qld_sch5_s17_3_new_player_is_dealt_in_at_once_even_on_the_buck(game):
    """ACT 6.3 (and 3 Card Manila ACT 6.3), QLD Sch 5 s17(3): the buck cannot be declined
    and these rules have no new-player or missed-blind provision (digest: "no dead-blind,
    missed-blind or absent-player rules"): a new player is dealt in the next round even
    when the buck comes to it, and posts only what its position asks."""
    tid = f"{game}-t"
    config = fast_config(table(game, seats=4), round_pause=0.2)
    async with running_server(config) as server:
        async with seated_at(server, tid, [1, 3, 4]) as players:
            r = Rounds(tid, players[1], players)
            await r.until_rounds(1)
            assert r.rounds[0]["designated"] == 1
            async with Client.connect(server.url, name="newcomer") as new:
                view = await new.join(tid, seat=2)
                assert view.view["table"]["entry"]["post"] == 0
                await new.buy_in(tid, 10_000)
                r.players[2] = new
                await r.until_rounds(2)
                second = r.rounds[1]
                assert 2 in second["seats"] and second["designated"] == 2
                assert [p["kind"] for p in second["posts"] if p["seat"] == 2] == ["blind1"]


async def test_act_18_8_warns_the_round_before_an_abstaining_seat_is_vacated():
    """ACT 18.8: a seat that abstains for 3 rounds while every seat is taken is vacated;
    the player is warned (``vacate_warning``, to its seat only) the round before."""
    tid = "holdem-act-t"
    config = fast_config(table("holdem-act", seats=3), round_pause=0.2)
    async with running_server(config) as server:
        async with seated_at(server, tid, [1, 2, 3]) as players:
            await players[3].sit_out(tid)
            r = Rounds(tid, players[1], players)
            seen_by_others: list[str] = []
            with trio.fail_after(30):
                while True:
                    msg = await r.step()
                    if msg["type"] == "event":
                        seen_by_others.append(msg["event"]["type"])
                        if msg["event"]["type"] == "seat_vacated":
                            break
            assert "vacate_warning" not in seen_by_others
            mine: list[str] = []
            with trio.fail_after(10):
                while not mine or mine[-1] != "left":
                    m = await players[3].recv()
                    mine.append(m["event"]["type"] if m["type"] == "event" else m["type"])
            assert "vacate_warning" in mine
            warned = mine.index("vacate_warning")
            assert mine[warned:].count("round_starting") == 1, "warned one round before"


async def test_qld_s21_when_nobody_played_the_preceding_round_no_one_is_new():
    """QLD Sch 11 s21(1) counts from the preceding round: when every seat to be dealt in is
    new (the players of the last round all left), the table starts afresh rather than
    waiting forever for an old player."""
    tid = "holdem-qld-t"
    config = fast_config(table("holdem-qld", seats=4), round_pause=0.2)
    async with running_server(config) as server:
        async with seated_at(server, tid, [1, 2]) as first:
            r = Rounds(tid, first[1], first)
            await r.until_rounds(1)
            for c in first.values():
                await c.send({"type": "leave", "table": tid})
                await next_message(c, lambda m: m["type"] == "left")
        async with seated_at(server, tid, [3, 4]) as second:
            r = Rounds(tid, second[3], second)
            await r.until_rounds(1, timeout=10)
            assert r.rounds[0]["seats"] == [3, 4] and r.rounds[0]["hand"] == 2
