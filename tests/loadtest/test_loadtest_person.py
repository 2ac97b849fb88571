"""A person plays against the load test's bots (issue 27, point 7): the bots fill the free
seats of a poker table and the free boxes of a banked table a person plays at, with no
error, and the person's wins and losses are not taken for lost money."""

from __future__ import annotations

import trio

from clients.client import Client
from loadtest.runner import RunSpec, run
from server.config import TableConfig
from tests.clients.support import config, holdem_table
from tests.support import running_server

BANKED = TableConfig(
    id="tcp-person",
    game="three-card-poker",
    options={"minimum": 500, "maximum": 50_000},
    betting_seconds=0.5,
    decision_seconds=2.0,
    seed=3,
)


async def _person(url: str, seated: trio.Event, stop: trio.Event) -> None:
    """Box 2 at the banked table, seat 1 at the poker table; plays until told to stop."""
    async with Client.connect(url, name="pat") as me:
        await me.join("hold-person", seat=1)
        await me.buy_in("hold-person", 20_000)
        await me.join(BANKED.id)
        await me.wager(BANKED.id, 2, "ante", 500)
        seated.set()
        async for msg in me:
            if stop.is_set():
                break
            if msg["type"] == "turn" and me.tables["hold-person"].my_turn:
                legal = msg["legal"]
                await me.act("hold-person", "check" if "check" in legal else "call")
            ev = msg.get("event") or {}
            if ev.get("type") == "decision" and ev.get("box") == 2:
                verbs = [c["verb"] for c in ev.get("legal") or []]
                await me.decide(BANKED.id, 2, "bet" if "bet" in verbs else verbs[0])
            elif ev.get("type") == "betting_open" and msg.get("table") == BANKED.id:
                await me.send(
                    {"type": "wager", "table": BANKED.id, "box": 2, "wager": "ante", "amount": 500}
                )
        for table in ("hold-person", BANKED.id):
            await me.send({"type": "leave", "table": table})


async def test_bots_fill_the_tables_a_person_plays_at() -> None:
    cfg = config(holdem_table("hold-person", seats=6), BANKED, round_pause=0.1)
    async with running_server(cfg) as server, trio.open_nursery() as nursery:
        seated, stop = trio.Event(), trio.Event()
        nursery.start_soon(_person, server.url, seated, stop)
        with trio.fail_after(30):
            await seated.wait()
        spec = RunSpec(url=server.url, tables=2, seats=3, games=3, duration=30, settle_time=15)
        with trio.fail_after(90):
            report = await run(spec)
        stop.set()
        poker = server.croupier.tables["hold-person"]
        assert report["errors"] == {}, report["errors"]
        assert report["conservation"]["server_after_ok"], report["conservation"]
        assert report["ok"], report
        assert poker.hand >= 3
        banked = report["by_game"]["three-card-poker"]
        assert banked["bots"] == 3 and banked["rounds"] >= 3 and banked["conserved"]
        assert report["conserved"]  # pat's wins and losses told apart from the bots'
        nursery.cancel_scope.cancel()
