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
from server.tournaments.conditions import decode
from server.tournaments.tables import chips_of
from tests.support import running_server, until
from tests.tournaments.helpers import canberra_sng, server_config

START = 1_000_000


@pytest.mark.trio
async def test_a_canberra_poker_session_to_its_places() -> None:
    conditions = canberra_sng(chips=600, rounds=400)
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
        assert len(rounds) >= 2 and rounds[0]["marker"] == 1
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
        # r 17.14: the players eliminated had less than the table minimum before a round
        # (at the session's end, if it comes first, the rest are placed by chips)
        finishes = [ev for b in bots for s in b.states for ev in s["events"]]
        eliminated = {
            p for ev in finishes if ev["type"] == "tournament_eliminated" for p in ev["players"]
        }
        assert eliminated
        for player in eliminated:
            assert chips_of(runner.chips, player) < 50
        # places per the conditions: ties share (r 17.3(a)(xii)(C)), 100% of the pool paid
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


HEATS = """
id = "heats"
name = "Canberra heats"
game = "canberra-poker-2004"
entry = "bots"
sit_and_go = 14
entry_fee = 5000
commission = 500
chips = 1000
min_players = 14
max_players = 14
jackpot_wagers = "none"
ties = "extra_rounds"
same_round = "share"
progression = "the seven with the most chips after the heat play the final"
prizes = ["50", "30", "20"]

[limits]
minimum = 50
maximum = 100

[[sessions]]
name = "Heat"
tables = 2
players_per_table = 7
rounds = 4
advance = 7

[[sessions]]
name = "Final"
tables = 1
players_per_table = 7
rounds = 60
limits = { minimum = 100, maximum = 200 }

[[breaks]]
after_session = 1
minutes = 1
"""


@pytest.mark.trio
async def test_canberra_poker_2004_heats_then_a_final() -> None:
    """Two tables play the heat's rounds in step; the seven with most chips go to a new
    ballot for the final (2004 r 17.4; chips again, r 17.4(d)), after a break (r 17.19);
    the final plays to its places, 100% of the pool paid (r 17.22)."""
    conditions = decode(HEATS)
    async with running_server(server_config(conditions, minute=0.2)) as server:
        runner = server.croupier.tournaments["heats"]
        t = runner.tournament
        bots = [TournamentBot(server.url, f"h{i}", "heats") for i in range(14)]
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                await until(lambda: t.session == 2, 60)
                assert len(t.playing) == 7 or t.phase.value == "on_break"
                while not runner.over:
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        assert t.phase.value == "complete" and t.session == 2
        ballots = [d for d in t.draws if d.how == "ballot"]
        assert [d.session for d in ballots].count(1) == 14
        assert [d.session for d in ballots].count(2) == 7
        assert {d.table for d in ballots if d.session == 1} == {1, 2}
        journal = [ev for b in bots for s in b.states for ev in s["events"]]
        assert any(ev["type"] == "tournament_break" for ev in journal)
        ended = next(ev for ev in journal if ev["type"] == "tournament_session_ended")
        assert len(ended["advancing"]) == 7
        prizes = [prize or 0 for _, prize in runner.places.values()]
        assert sum(prizes) == t.pool == 14 * 4500
        assert len(runner.places) == 14
