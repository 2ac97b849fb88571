"""Tournaments played over real WebSockets (issue 15): the runner, the tournament tables on
the one table layer, the ledger.

* 90 bots, ten tables of nine, a sit-and-go of no-limit hold'em (ACT r 19) with short
  levels, played to a winner: chips conserved after every hand (the runner's check and every
  table's books check), the prize pool is the fees less the commission (ACT r 19.4), the
  prizes sum to the pool (2017 r 17.21), the ledger check passes (``croupier ledger
  check``), and the tables are within one player after every round of eliminations.
* Cancelling mid-registration refunds every fee and commission exactly (r 17.23).
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
from pathlib import Path

import pytest
import trio

from clients.client import Client, ServerError
from loadtest.tournament import TournamentBot
from server.store import cli as ledger_cli
from server.store.model import CASHIER
from server.store.sqlite import LEDGER_FILE
from server.tables.poker import Seat
from tests.support import running_server, until
from tests.tournaments.helpers import holdem, server_config

START = 1_000_000  # each bot's starting balance (fast_config)


@pytest.mark.trio
async def test_ninety_bots_play_a_ten_table_tournament_to_a_winner(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    conditions = holdem(
        90, sit_and_go=90, tables=10, min_players=18, prizes=["40", "25", "15", "10", "6", "4"]
    )
    config = server_config(conditions, data=tmp_path, minute=1.0)
    async with running_server(config) as server:
        runner = server.croupier.tournaments["bots"]
        bots = [TournamentBot(server.url, f"bot{i}", "bots", seed=i) for i in range(90)]
        with trio.fail_after(150):
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                while not runner.over:
                    await trio.sleep(0.2)
                # every bot hears its place (the last ``tournament`` message)
                while not all(b.states and b.states[-1]["place"] for b in bots):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        t = runner.tournament
        assert t.phase.value == "complete"
        assert runner.problems == []  # chips conserved after every hand
        # ten tables of nine by ballot, balanced within one player after every round
        assert len(t.draws) >= 90 and {d.table for d in t.draws if d.how == "ballot"} == set(
            range(1, 11)
        )
        assert runner.sizes and all(max(s) - min(s) <= 1 for s in runner.sizes if s)
        # every player finished somewhere; one winner
        places = runner.places
        assert len(places) == 90 and sorted(p for p, _ in places.values()).count(1) == 1
        # money: pool = fees less commission; prizes sum to the pool, exactly, to wallets
        pool = 90 * (1100 - 100)
        assert t.pool == pool
        prizes = {a: prize or 0 for a, (_, prize) in places.items()}
        assert sum(prizes.values()) == pool
        ledger = server.croupier.ledger
        assert ledger.balances.get(t.pool_account, 0) == 0
        assert ledger.balances.get(t.commission_account, 0) == 90 * 100
        for account, prize in prizes.items():
            assert ledger.balance(account) == START - 1100 + prize
        # the chips have their own books, and they balance; nothing left in play
        runner.chips.flush_now()
        report = runner.chips.store.check()  # type: ignore[union-attr]
        assert report.balanced, report.problems
        assert -runner.chips.balances[CASHIER] == t.issued == 90 * 1000
        winner = next(a for a, (p, _) in places.items() if p == 1)
        assert runner.chips.balance(winner) == 90 * 1000
        # each bot saw its own place and prize; nobody was refused anything
        for bot in bots:
            assert bot.client is not None and bot.client.account is not None
            last = bot.states[-1]
            assert (last["place"], last["prize"] or 0) == (
                places[bot.client.account][0],
                prizes[bot.client.account],
            )
            assert last["phase"] == "complete" and not bot.errors
        # moves were announced to the players moved, and they played on at the new table
        moved = {d.player for d in t.draws if d.how == "moved"}
        assert moved
        travelled = [b for b in bots if b.client is not None and len(b.client.tables) >= 2]
        assert travelled  # (a player told to move may bust in the hand before it moves)
        for bot in travelled:
            assert bot.client is not None and bot.client.account in moved
            assert any(
                ev["type"] == "tournament_seated" and ev["how"] == "moved"
                for st in bot.states
                for ev in st["events"]
            )
    # the books of the whole store: croupier ledger check
    assert ledger_cli.main(["check", "--data", str(tmp_path)]) == 0
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.trio
async def test_cancelling_mid_registration_refunds_every_fee_and_commission() -> None:
    conditions = holdem(18, id="cx", entry_fee=5500, commission=500, min_players=9)
    async with running_server(server_config(conditions)) as server:
        runner = server.croupier.tournaments["cx"]
        accounts = server.croupier.accounts
        director = accounts.issue("tina", "Tina", role="tournament_director")
        async with (
            Client.connect(server.url, name="ann") as ann,
            Client.connect(server.url, name="bob") as bob,
            Client.connect(server.url, token=director) as td,
        ):
            listed = await ann.tournaments()
            assert listed[0]["id"] == "cx" and listed[0]["phase"] == "registering"
            assert listed[0]["conditions"]["entry_fee"] == 5500  # published (r 17.2(b))
            state = await ann.register("cx")
            assert state["registered"] and state["entries"] == 1
            await bob.register("cx")
            with pytest.raises(ServerError) as refused:
                await bob.register("cx")  # one entry per player (r 17.6)
            assert refused.value.code == "tournament_refused"
            ledger = server.croupier.ledger
            assert ledger.balance(ann.account or "") == START - 5500
            assert ledger.balances[runner.tournament.commission_account] == 1000
            # a player withdraws: the fee less the commission back (ACT r 19.4 keeps it)
            state = await bob.unregister("cx")
            assert not state["registered"] and ledger.balance(bob.account or "") == START - 500
            await bob.register("cx")
            assert bob.token is not None
            async with Client.connect(server.url, token=bob.token) as again:  # bob reloads
                await again.send({"type": "tournaments"})  # the list, then where bob stands
                mine = await again.request({"type": "ping", "nonce": 1}, "tournament")
                assert mine["tournament"] == "cx" and mine["registered"]
            # a player may not cancel; the Tournament Director may (a token with the role)
            with pytest.raises(ServerError) as denied:
                await ann.request(
                    {
                        "type": "operator",
                        "action": "cancel_tournament",
                        "tournament": "cx",
                        "reason": "test",
                    },
                    "operator",
                )
            assert denied.value.code == "not_authorized"
            done = await td.request(
                {
                    "type": "operator",
                    "action": "cancel_tournament",
                    "tournament": "cx",
                    "reason": "not enough players",
                },
                "operator",
            )
            assert "refunded" in done["detail"]
            for client in (ann, bob):
                assert ledger.balance(client.account or "") == START
            assert ledger.balances[runner.tournament.pool_account] == 0
            assert ledger.balances[runner.tournament.commission_account] == 0
            assert runner.tournament.phase.value == "cancelled"


CONTROLS = (
    "start_tournament",
    "pause_tournament",
    "resume_tournament",
    "move_player",
    "disqualify",
    "award_places",
)


async def director(client: Client, action: str, **fields: object) -> dict[str, object]:
    message = {"type": "operator", "action": action, "tournament": "td", "reason": "test"}
    return await client.request({**message, **fields}, "operator")


@pytest.mark.trio
async def test_the_tournament_directors_controls(tmp_path: Path) -> None:
    """Start, break and resume, move a player, disqualify, award places: each applied
    between hands, each in the audit log."""
    conditions = holdem(11, id="td", min_players=4)
    config = server_config(conditions, minute=60.0, data=tmp_path)
    async with running_server(config) as server:
        runner = server.croupier.tournaments["td"]
        t = runner.tournament
        token = server.croupier.accounts.issue("tina", "Tina", role="tournament_director")
        bots = [TournamentBot(server.url, f"p{i}", "td", seed=i, passive=True) for i in range(11)]
        async with trio.open_nursery() as nursery, Client.connect(server.url, token=token) as td:
            for bot in bots:
                nursery.start_soon(bot.run)
            await until(lambda: len(t.entries) == 11)
            done = await director(td, "start_tournament")
            assert "started with 11 players" in str(done["detail"])
            assert t.phase.value == "running" and len(runner.tables) == 2
            await until(lambda: min(tb.hand for tb in runner.tables.values()) >= 2)
            # a break: no table deals another hand, then the clock stops until resumed
            await director(td, "pause_tournament")
            await until(lambda: t.phase.value == "on_break")
            hands = {n: tb.hand for n, tb in runner.tables.items()}
            assert all(tb.round is None for tb in runner.tables.values())
            assert runner.level_ends == math.inf
            await trio.sleep(0.3)
            assert {n: tb.hand for n, tb in runner.tables.items()} == hands
            await director(td, "resume_tournament")
            assert t.phase.value == "running"
            with pytest.raises(ServerError):  # not on a break: refused, and audited so
                await director(td, "resume_tournament")
            await until(lambda: sum(tb.hand for tb in runner.tables.values()) > sum(hands.values()))
            # move a player from the table of six to a free seat of the table of five
            big, small = sorted(t.tables, key=lambda tb: -len(tb.players))
            assert (len(big.players), len(small.players)) == (6, 5)
            mover = sorted(big.players.items())[0][1]
            free = min(set(range(1, 10)) - set(small.players))
            limits = {"table": small.number, "seat": free}
            await director(td, "move_player", account=mover, limits=limits)
            mover_bot = next(b for b in bots if b.client and b.client.account == mover)
            target = runner.tables[small.number].id
            await until(lambda: target in mover_bot.client.tables)  # type: ignore[union-attr]
            assert mover_bot.client.tables[target].seat == free  # type: ignore[union-attr]
            # disqualify: out after the hand in play, chips out of play
            victim = sorted(big.players.items())[-1][1]
            await director(td, "disqualify", account=victim)
            await until(lambda: victim in runner.places)
            assert t.status[victim] == "out" and runner.chips.balance(victim) == 0
            # award places by chip count: every table between hands, then the prizes
            await director(td, "award_places")
            await until(lambda: runner.over)
            nursery.cancel_scope.cancel()
        assert t.phase.value == "complete" and runner.problems == []
        prizes = [prize or 0 for _, prize in runner.places.values()]
        assert sum(prizes) == t.pool == 11 * 1000
        assert len(runner.places) == 11
    # every control is in the audit log (the ledger's store), and so are the tournament's steps
    db = sqlite3.connect(tmp_path / LEDGER_FILE)
    notes = [json.loads(body) for (body,) in db.execute("SELECT body FROM notes ORDER BY at")]
    db.close()
    audited = [(n["action"], n["who"], n["name"], n["outcome"]) for n in notes if n.get("audit")]
    for action in CONTROLS:  # the runner, which decided each, wrote its outcome
        assert (action, "tina", "Tina", "done") in audited
    refused = [n for n in notes if n.get("audit") and n["outcome"] == "refused"]
    assert [(n["action"], n["code"]) for n in refused] == [
        ("resume_tournament", "tournament_refused")
    ]
    assert "wrong_phase" in refused[0]["detail"] and refused[0]["tournament"] == "td"
    steps = [n for n in notes if n.get("tournament") == "td" and not n.get("audit")]
    journal = [ev for n in steps for ev in n["events"]]
    kinds = {ev["type"] for ev in journal}
    assert {"tournament_seated", "tournament_disqualified", "tournament_place"} <= kinds
    assert sum(ev["type"] == "tournament_seated" and ev["how"] == "ballot" for ev in journal) == 11


@pytest.mark.trio
async def test_a_player_away_is_blinded_and_plays_again_when_back() -> None:
    """A tournament seat is kept through a disconnect (it sits out, still dealt in: ACT
    6.3); the player's ``hello`` lists the table, and joining it resumes the seat."""
    conditions = holdem(2, id="rc", sit_and_go=2, prizes=["100"])
    async with running_server(server_config(conditions, grace=0.2)) as server:
        runner = server.croupier.tournaments["rc"]
        async with Client.connect(server.url, name="bob") as bob:
            async with Client.connect(server.url, name="ann") as ann:
                await ann.register("rc")
                token, account = ann.token, ann.account or ""
                await bob.register("rc")
                await until(lambda: any(account in tb.members for tb in runner.tables.values()))
            table = next(tb for tb in runner.tables.values() if account in tb.members)
            await until(lambda: table.members[account].conn is None)
            await trio.sleep(0.4)  # past the grace: the seat is kept, sitting out
            seat = table.members[account]
            assert isinstance(seat, Seat) and seat.sitting_out and account in table.members
            async with Client.connect(server.url, token=token) as back:
                assert back.welcome["seated"] == [table.id]
                view = await back.join(table.id)
                assert view.role == "player" and view.seat == seat.number
                await until(lambda: not seat.sitting_out)
            assert runner.tournament.status[account] == "playing"


@pytest.mark.trio
async def test_buy_backs_as_the_conditions_allow() -> None:
    """2017 r 17.3(a)(ii)(F) / the conditions: an eliminated player buys back once (the fee
    again, the entry's chips, a seat at the shortest table); the pool grows by it and is paid
    out in full; the chips issued grow by it and are conserved."""
    extra = "[buy_backs]\nper_player = 1\nlast_session = 1\nlast_level = 12"
    conditions = holdem(9, id="bb", sit_and_go=9, min_players=3, extra=extra)
    async with running_server(server_config(conditions)) as server:
        runner = server.croupier.tournaments["bb"]
        t = runner.tournament
        bots = [TournamentBot(server.url, f"bb{i}", "bb", i, buy_back=True) for i in range(9)]
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                await until(lambda: runner.over)
                nursery.cancel_scope.cancel()
        bought = [e for e in t.entries if e.number > 9]
        assert bought and len(t.entries) == 9 + len(bought) == 9 + sum(b.bought for b in bots)
        assert t.pool == len(t.entries) * 1000 == sum(p or 0 for _, p in runner.places.values())
        assert t.issued == len(t.entries) * 1000 == -runner.chips.balances[CASHIER]
        assert runner.problems == [] and len(runner.places) == 9
        assert any(d.how == "buy_back" for d in t.draws)
        ledger = server.croupier.ledger
        for bot in bots:
            account = bot.client.account if bot.client else None
            assert account is not None
            paid = 1100 * sum(1 for e in t.entries if e.player == account)
            assert ledger.balance(account) == START - paid + (runner.places[account][1] or 0)


@pytest.mark.trio
async def test_a_reserve_takes_the_seat_of_an_absent_entrant() -> None:
    """r 17.9-17.11: an entrant not there at the start forfeits (the fee stays in the
    pool); a reserve who is there takes the seat and pays the fee then."""
    conditions = holdem(3, id="rs", sit_and_go=3, prizes=["100"])
    async with running_server(server_config(conditions)) as server:
        runner = server.croupier.tournaments["rs"]
        t = runner.tournament
        ledger = server.croupier.ledger
        async with Client.connect(server.url, name="ann") as ann:
            await ann.register("rs")
            absent = ann.account or ""
        await until(lambda: runner.host.connection(absent) is None)
        async with (
            Client.connect(server.url, name="carl") as carl,
            Client.connect(server.url, name="bob") as bob,
            Client.connect(server.url, name="dan") as dan,
        ):
            state = await carl.reserve("rs")
            assert not state["registered"] and ledger.balance(carl.account or "") == START
            await bob.register("rs")
            await dan.register("rs")  # the third entry: the sit-and-go seats and starts
            await until(lambda: t.phase.value == "running")
            assert t.status[absent] == "forfeited" and t.status[carl.account or ""] == "playing"
            assert ledger.balance(carl.account or "") == START - 1100
            assert ledger.balance(absent) == START - 1100  # the fee stays (r 17.9)
            assert t.pool == 4 * 1000
            assert any(d.how == "reserve" and d.player == carl.account for d in t.draws)
            tables = runner.tables.values()
            await until(lambda: any(carl.account in tb.members for tb in tables))
            snapshot = await carl.recv()
            while snapshot["type"] != "snapshot":
                snapshot = await carl.recv()
            assert snapshot["role"] == "player"
