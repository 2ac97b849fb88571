"""A Canberra Poker tournament session over real WebSockets (2017 r 17.13-17.16, 17.21):
seven bots at one banked Canberra Poker table in tournament chips, antes asked in order from
the starting marker, an ante out of order standing with a warning and then void, players
below the table minimum eliminated before the next round, places and ties per the
conditions, and 100% of the pool paid."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from loadtest.tournament import TournamentBot
from server.tournaments import canberra
from server.tournaments.tables import chips_of
from tests.server.helpers import running_server
from tests.tournaments.helpers import canberra_sng, server_config

START = 1_000_000


@pytest.mark.trio
async def test_a_canberra_poker_session_to_its_places() -> None:
    conditions = canberra_sng()
    async with running_server(server_config(conditions)) as server:
        runner = server.croupier.tournaments["cp"]
        t = runner.tournament
        bots = [TournamentBot(server.url, f"cp{i}", "cp", rogue=i == 3) for i in range(7)]
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                while not runner.over:
                    await trio.sleep(0.05)
                while not all(b.states and b.states[-1]["place"] for b in bots):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        assert t.phase.value == "complete"
        watcher = next(b for b in bots if not b.rogue)
        # r 17.15-17.16: each round's antes are asked clockwise from the starting marker,
        # which moves to the next occupied box after each round
        rounds: list[dict[str, Any]] = []
        for ev in watcher.events:
            if ev["type"] == "betting_open":
                rounds.append({"asked": [], "marker": None, "played": None})
            elif ev["type"] == "starting_marker":
                rounds[-1]["marker"] = ev["box"]
            elif ev["type"] == "ante_turn":
                rounds[-1]["asked"].append(ev["box"])
            elif ev["type"] == "no_more_bets":
                rounds[-1]["played"] = sorted(int(b) for b in ev["boxes"])
        assert len(rounds) >= 3 and rounds[0]["marker"] == 1
        for n, r in enumerate(rounds):
            marker, asked = r["marker"], r["asked"]
            assert asked == sorted(asked, key=lambda b: (b - marker) % 8)  # clockwise
            if n and rounds[n - 1]["played"]:
                before = {b: str(b) for b in rounds[n - 1]["played"]}
                assert marker == canberra.next_marker(before, rounds[n - 1]["marker"])
        rogue = next(b for b in bots if b.rogue)
        assert rogue.client is not None
        rogue_box = next(v.seat for v in rogue.client.tables.values())
        # an ante out of order stands with a warning; a further one is void (r 17.15)
        warnings = [ev for ev in watcher.events if ev["type"] == "ante_warning"]
        assert len(warnings) == 1 and warnings[0]["box"] == rogue_box
        assert any(e.get("reason") == "out_of_order" for e in rogue.errors)
        # r 17.14: the players out had less than the table minimum before a round
        for player, status in t.status.items():
            if status == "out" and runner.places[player][0] > 1:
                assert chips_of(runner.chips, player) < 50
        # places per the conditions: ties share (r 17.3(a)(xii)(C)), 100% of the pool paid
        finishes = [ev for b in bots for s in b.states for ev in s["events"]]
        places = {
            (ev["first"], tuple(ev["players"]), tuple(ev["prizes"]))
            for ev in finishes
            if ev["type"] == "tournament_place"
        }
        assert sum(sum(p) for _, _, p in places) == t.pool == 7 * 1800
        for _first, _players, prizes in places:
            assert max(prizes) - min(prizes) <= 1  # a tied group divides equally
        assert sorted(first for first, _, _ in places)[0] == 1
        ledger = server.croupier.ledger
        assert ledger.balances[t.pool_account] == 0
        assert ledger.balances[t.commission_account] == 7 * 200
        for bot in bots:
            account = bot.client.account if bot.client else None
            assert account is not None
            prize = runner.places[account][1] or 0
            assert ledger.balance(account) == START - 2000 + prize
