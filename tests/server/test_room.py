"""The poker room over real sockets: pre-actions (applied at the turn, never seen by another
seat), time banks that refill, waiting lists with seat offers, and one connection playing
four tables."""

from __future__ import annotations

import random
from contextlib import AsyncExitStack
from dataclasses import replace
from typing import Any

import trio

from clients.client import Client
from tests.server.helpers import Bot, choose, fast_config, is_event, my_turn, play_hands, table
from tests.support import next_message, running_server, until

T = "holdem-act-t"


def _public(msg: dict[str, Any]) -> Any:
    """A message as another seat sees it, without the clock (the time left is real time) and
    without the deal's commitment (new for every server process: its round ids carry the
    process's instance)."""
    if msg["type"] == "turn":
        return ("turn", msg["seq"], msg["seat"], sorted(msg["legal"]))
    if msg["type"] == "event":
        if msg["event"]["type"] == "commitment":
            return ("event", msg["seq"], msg["event"]["type"])
        return ("event", msg["seq"], msg["event"])
    return (msg["type"], msg.get("seq"))


async def _play_three_hands(use_pre: bool) -> tuple[list[Any], list[Any], int]:
    """Seats 1-3 at a seeded table play 3 hands with "call if there is a call, else check".

    Seat 1 plays it by hand, or (``use_pre``) queues ``call_any`` before each of its turns.
    Returns what seats 2 and 3 received, and how many pre-actions seat 1 had applied."""
    config = fast_config(table("holdem-act", seats=3, seed=7), round_pause=0.2)
    seen: dict[int, list[Any]] = {2: [], 3: []}
    applied = 0
    async with running_server(config) as server, AsyncExitStack() as stack:
        clients = {}
        for seat in (1, 2, 3):
            c = await stack.enter_async_context(Client.connect(server.url, name=f"p{seat}"))
            await c.join(T, seat=seat)
            clients[seat] = c
        for seat in (1, 2, 3):
            await clients[seat].buy_in(T, 10_000)

        async def play(seat: int) -> None:
            nonlocal applied
            c, ended, queued = clients[seat], 0, False
            async for msg in c:
                if seat in seen:
                    seen[seat].append(_public(msg))
                ev = msg["event"] if msg["type"] == "event" else {}
                if msg["type"] == "error" and msg.get("ref") == "pre_action":
                    queued = False  # refused (its turn came first): play by hand
                    if c.tables[T].my_turn:
                        legal = c.tables[T].legal
                        await c.act(T, "call" if "call" in legal else "check")
                if ev.get("type") == "pre_action":
                    queued = ev["reason"] == "set"
                    applied += ev["reason"] == "applied"
                    if ev["reason"] == "changed" and c.tables[T].my_turn:
                        legal = c.tables[T].legal
                        await c.act(T, "call" if "call" in legal else "check")
                if ev.get("type") == "round_ended":
                    ended += 1
                    if ended == 3:
                        return
                mine = msg["type"] == "turn" and msg["seat"] == seat and msg["legal"]
                if mine and not queued:
                    await c.act(T, "call" if "call" in msg["legal"] else "check")
                rnd = c.tables[T].view.get("round") or {}
                me = (rnd.get("seats") or {}).get(str(seat))
                idle = me and not me["folded"] and not me["allin"] and not rnd.get("complete")
                if (
                    use_pre
                    and seat == 1
                    and idle
                    and not queued
                    and rnd.get("to_act") not in (seat, None)
                ):
                    queued = True
                    await c.send({"type": "pre_action", "table": T, "verb": "call_any"})

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                for seat in (1, 2, 3):
                    nursery.start_soon(play, seat)
    return seen[2], seen[3], applied


async def test_pre_actions_are_applied_at_the_turn_and_no_other_seat_can_tell():
    """The same seeded hands played by hand and with seat 1's pre-actions: seats 2 and 3
    receive exactly the same messages (same events, same numbers, no trace of a
    pre-action); seat 1's pre-actions were really applied."""
    by_hand = await _play_three_hands(use_pre=False)
    with_pre = await _play_three_hands(use_pre=True)
    assert with_pre[2] > 0 and by_hand[2] == 0
    assert with_pre[0] == by_hand[0]
    assert with_pre[1] == by_hand[1]
    assert not any("pre_action" in repr(m) for m in with_pre[0] + with_pre[1])


async def test_call_pre_action_never_calls_more_than_chosen_and_clears_on_a_raise():
    """ "call $2" chosen, then a raise arrives: the pre-action is cleared (privately) and the
    seat acts itself; ``check_fold`` facing a bet folds."""
    config = fast_config(table("holdem-act", seats=3, seed=3), round_pause=0.2)
    async with running_server(config) as server, AsyncExitStack() as stack:
        c = {}
        for seat in (1, 2, 3):
            c[seat] = await stack.enter_async_context(Client.connect(server.url, name=f"p{seat}"))
            await c[seat].join(T, seat=seat)
        for seat in (1, 2, 3):
            await c[seat].buy_in(T, 10_000)
        # ACT: seat 1 has the buck and posts $1, seat 2 posts $2; seat 3 acts first
        await next_message(c[3], my_turn(3))
        await c[1].send({"type": "pre_action", "table": T, "verb": "call", "amount": 100})
        ack = await next_message(c[1], is_event("pre_action"))
        assert ack["event"] == {
            "type": "pre_action",
            "verb": "call",
            "amount": 100,
            "reason": "set",
        }
        await c[2].send({"type": "pre_action", "table": T, "verb": "check_fold"})
        await next_message(c[2], is_event("pre_action"))
        await c[3].act(T, "raise", 600)
        cleared = await next_message(c[1], is_event("pre_action"))
        assert cleared["event"]["reason"] == "changed" and cleared["event"]["verb"] is None
        turn = await next_message(c[1], my_turn(1))
        assert turn["legal"]["call"]["amount"] == 500  # the seat decides for itself
        await c[1].act(T, "fold")
        folded = await next_message(c[3], is_event("action_taken", seat=2))
        assert folded["event"]["verb"] == "fold"  # check/fold facing a raise


async def test_time_bank_is_shown_when_used_and_topped_up_every_n_hands_to_a_cap():
    """A room's time bank: 0.4 s per seat, +0.5 s every hand played, at most 1 s; when a
    seat's turn time runs out everyone (spectators too) sees ``time_bank``."""
    config = fast_config(
        table("holdem-act", seats=2),
        turn_time=0.3,
        time_bank=0.4,
        time_bank_add=0.5,
        time_bank_hands=1,
        time_bank_max=1.0,
        round_pause=0.2,
    )
    async with running_server(config) as server, AsyncExitStack() as stack:
        a = await stack.enter_async_context(Client.connect(server.url, name="a"))
        b = await stack.enter_async_context(Client.connect(server.url, name="b"))
        watch = await stack.enter_async_context(Client.connect(server.url, name="w"))
        await watch.join(T, role="spectator")
        for seat, cl in ((1, a), (2, b)):
            await cl.join(T, seat=seat)
            await cl.buy_in(T, 10_000)
        banks: list[int] = []
        slept = False
        with trio.fail_after(30):
            while len(banks) < 4 or banks[-1] == -1:
                msg = await watch.recv()
                if msg["type"] == "event" and msg["event"]["type"] == "round_starting":
                    banks.append(-1)
                if msg["type"] != "turn":
                    continue
                if msg["seat"] == 2 and banks and banks[-1] == -1:
                    banks[-1] = msg["time_bank_ms"]
                who = a if msg["seat"] == 1 else b
                t = await next_message(who, my_turn(msg["seat"]))
                if msg["seat"] == 2 and not slept:
                    slept = True  # let the turn time and the bank run out
                    shown = await next_message(watch, is_event("time_bank", seat=2))
                    assert shown["event"]["time_bank_ms"] == 400
                    await next_message(a, is_event("time_bank", seat=2))
                    await next_message(watch, is_event("timed_out", seat=2))
                    continue
                await who.act(T, "call" if "call" in t["legal"] else "check")
        assert banks == [400, 500, 1000, 1000]
        row = watch.tables[T].seat_info(2)
        assert row is not None


async def test_waiting_list_offers_a_freed_seat_in_order_and_a_lapsed_offer_passes_on():
    """A full table, three players waiting: a seat frees; the first is offered it for
    ``seat_offer_time`` and lets it lapse, the second passes (``unwait``), the third takes
    it. Meanwhile the held seat is nobody else's, and the lobby shows the list's length."""
    config = fast_config(table("holdem-act", seats=2), seat_offer_time=0.5)
    async with running_server(config) as server, AsyncExitStack() as stack:

        async def connect(name: str) -> Client:
            return await stack.enter_async_context(Client.connect(server.url, name=name))

        p1, p2 = await connect("p1"), await connect("p2")
        await p1.join(T, seat=1)
        await p2.join(T, seat=2)
        waiters = [await connect(f"w{i}") for i in (1, 2, 3)]
        for i, w in enumerate(waiters, 1):
            got = await w.request({"type": "wait", "table": T}, "waiting")
            assert got["positions"] == {T: i}
        lobby = {t["id"]: t for t in await p1.lobby()}
        assert lobby[T]["waiting"] == 3 and lobby[T]["taken"] == 2
        await p2.send({"type": "leave", "table": T})
        loop = trio.current_time()
        offer = await next_message(waiters[0], lambda m: m["type"] == "seat_offer")
        assert offer == {"type": "seat_offer", "table": T, "seat": 2, "expires_ms": 500}
        outsider = await connect("outsider")
        await outsider.send({"type": "join", "table": T})
        refused = await next_message(outsider, lambda m: m["type"] == "error")
        assert refused["code"] == "table_full"  # the seat is held for the offer
        lapsed = await next_message(waiters[0], lambda m: m["type"] == "seat_offer")
        assert lapsed["expires_ms"] == 0 and trio.current_time() - loop >= 0.5
        second = await next_message(waiters[1], lambda m: m["type"] == "seat_offer")
        assert second["seat"] == 2
        await waiters[1].send({"type": "unwait", "table": T})
        third = await next_message(waiters[2], lambda m: m["type"] == "seat_offer")
        assert third["seat"] == 2 and third["expires_ms"] == 500
        view = await waiters[2].join(T)
        assert view.seat == 2
        lobby = {t["id"]: t for t in await p1.lobby()}
        assert lobby[T]["waiting"] == 0 and lobby[T]["taken"] == 2


async def test_first_available_takes_a_seat_at_any_table_with_the_same_game_and_stakes():
    """``wait {first_available}``: the list of every table with the same game and stakes;
    the first seat to free at any of them is offered."""
    one = table("holdem-act", seats=2)
    two = replace(one, id="holdem-act-2")
    other = replace(table("holdem-act", seats=2, blinds=[200, 400]), id="bigger")
    config = fast_config(one, two, other, seat_offer_time=5.0)
    async with running_server(config) as server, AsyncExitStack() as stack:
        seated = []
        for tid in (T, "holdem-act-2", "bigger"):
            for seat in (1, 2):
                c = await stack.enter_async_context(Client.connect(server.url, name="p"))
                await c.join(tid, seat=seat)
                seated.append(c)
        w = await stack.enter_async_context(Client.connect(server.url, name="w"))
        got = await w.request({"type": "wait", "table": T, "first_available": True}, "waiting")
        assert got["positions"] == {T: 1, "holdem-act-2": 1}  # not the bigger stakes
        await seated[3].send({"type": "leave", "table": "holdem-act-2"})
        offer = await next_message(w, lambda m: m["type"] == "seat_offer")
        assert offer["table"] == "holdem-act-2" and offer["seat"] == 2
        view = await w.join("holdem-act-2")
        assert view.seat == 2
        done = await next_message(w, lambda m: m["type"] == "waiting")
        assert done["positions"] == {}


class MultiBot:
    """One connection at several tables: acts at once wherever it is its turn."""

    def __init__(self, url: str, tables: list[str], seed: int) -> None:
        self.url, self.tables, self.rng = url, tables, random.Random(seed)
        self.errors: list[dict[str, Any]] = []
        self.acted: dict[str, int] = dict.fromkeys(tables, 0)

    async def run(self) -> None:
        async with Client.connect(self.url, name="multi") as client:
            for tid in self.tables:
                await client.join(tid, seat=1)
                await client.buy_in(tid, 10_000)
            async for msg in client:
                if msg["type"] == "error":
                    self.errors.append(msg)
                elif msg["type"] == "turn" and msg["seat"] == 1 and msg["legal"]:
                    self.acted[msg["table"]] += 1
                    verb, amount = choose(msg["legal"], self.rng)
                    await client.act(msg["table"], verb, amount)
                elif msg["type"] == "event" and msg["event"]["type"] == "round_ended":
                    stake = client.tables[msg["table"]].stake
                    if stake is not None and stake < 4000:
                        await client.buy_in(msg["table"], 10_000 - stake)


async def test_one_connection_plays_four_tables_for_50_hands_each_with_money_conserved():
    """Multi-tabling: the protocol routes by table id, so one connection sits at four tables
    (against a bot at each) and plays 50 hands at every one; the money is conserved."""
    base = table("holdem-act", seats=2)
    tables = [replace(base, id=f"multi-{i}", seed=i) for i in range(4)]
    config = fast_config(*tables, rate=2000.0, burst=4000.0)  # four tables' worth of actions
    async with running_server(config) as server:
        multi = MultiBot(server.url, [t.id for t in tables], seed=1)
        bots = [Bot(server.url, t.id, 2, seed=10 + i) for i, t in enumerate(tables)]
        actors = [server.croupier.tables[t.id] for t in tables]
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(multi.run)
                await until(lambda: all(t.members for t in actors))  # seated first, everywhere
                for bot in bots:
                    nursery.start_soon(bot.run)
                while not all(t.hand >= 50 for t in actors):
                    await trio.sleep(0.05)
                    money = server.croupier.money()
                    assert (
                        money["wallets"] + money["stakes"] + money["commission"] == money["issued"]
                    )
                nursery.cancel_scope.cancel()
        assert all(n > 0 for n in multi.acted.values())
        assert not [e for e in multi.errors if e["code"] != "not_your_turn"]
    money = server.croupier.money()
    assert money["wallets"] + money["commission"] == money["issued"]


class PreBot(Bot):
    """A bot that, whenever it waits for others, may queue a random pre-action (a ``call``
    for the amount it sees to call); it checks each applied pre-action against its choice."""

    PRE = ("check_fold", "check", "call", "call_any", "fold_any")

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.queued: dict[str, Any] | None = None  # as the server confirmed it
        self.sent = False
        self.applied: dict[str, Any] | None = None  # applied: its action comes next
        self.checked = 0
        self.violations: list[str] = []

    async def on_message(self, client: Client, msg: dict[str, Any]) -> None:
        view = client.tables[self.table]
        ev = msg["event"] if msg["type"] == "event" else {}
        if msg["type"] == "error" and msg.get("ref") == "pre_action":
            self.sent = False  # refused (e.g. its turn came first): it acts itself
            if view.my_turn:
                verb, amount = choose(view.legal, self.rng)
                await client.act(self.table, verb, amount)
            return
        if ev.get("type") == "pre_action":
            self.sent = False
            if ev["reason"] == "applied":
                self.applied = self.queued
            self.queued = ev if ev["reason"] == "set" else None
            if ev["reason"] == "changed" and view.my_turn:
                verb, amount = choose(view.legal, self.rng)
                await client.act(self.table, verb, amount)
            return
        if ev.get("type") == "action_taken" and ev["seat"] == self.seat and self.applied:
            chosen, self.applied = self.applied, None
            self.checked += 1
            if chosen["verb"] == "call" and not 0 < ev["amount"] <= chosen["amount"]:
                self.violations.append(f"call {chosen['amount']} moved {ev['amount']}")
            if chosen["verb"] in ("check", "check_fold", "fold_any") and ev["amount"] != 0:
                self.violations.append(f"{chosen['verb']} moved {ev['amount']}")
        mine = msg["type"] == "turn" and msg["seat"] == self.seat and msg["legal"]
        if mine and (self.queued or self.sent):
            return  # the server plays it, or says it no longer fits
        await super().on_message(client, msg)
        rnd = view.view.get("round") or {}
        me = (rnd.get("seats") or {}).get(str(self.seat))
        waiting = rnd.get("to_act") not in (self.seat, None) and not rnd.get("complete")
        if me and waiting and not me["folded"] and not me["allin"] and not self.queued:
            if not self.sent and self.rng.random() < 0.5:
                verb = self.rng.choice(self.PRE)
                top = max(s["bet"] for s in rnd["seats"].values())
                pre: dict[str, Any] = {"type": "pre_action", "table": self.table, "verb": verb}
                if verb == "call":
                    pre["amount"] = max(1, top - me["bet"])
                self.sent = True
                await client.send(pre)


async def test_pre_actions_over_random_hands_never_put_in_more_than_chosen():
    """Four bots queue random pre-actions at random moments for 30 hands over real sockets:
    every applied pre-action moves at most what was chosen (``call``: its amount; the
    others: nothing), and the money is conserved."""
    config = fast_config(table("holdem-act", seats=4, seed=11), rate=500.0, burst=1000.0)
    async with running_server(config) as server:
        bots = [PreBot(server.url, T, s, seed=100 + s) for s in range(1, 5)]
        await play_hands(server, bots, 30, timeout=90)
        money = server.croupier.money()
    assert money["wallets"] + money["stakes"] + money["commission"] == money["issued"]
    assert sum(b.checked for b in bots) >= 10
    assert [v for b in bots for v in b.violations] == []
