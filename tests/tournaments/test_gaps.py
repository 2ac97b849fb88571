"""The smaller tournament gaps (issue 25, point 7), each with its test."""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest
import trio

from loadtest.tournament import TournamentBot
from server.cards import SeededRandomSource
from server.errors import IllegalAction
from server.games.poker import rules_for
from server.games.poker.engine import PokerRound
from server.tournaments.conditions import Conditions, Session, decode, problems, table_options
from tests.support import running_server
from tests.tournaments.helpers import poker_sng, server_config


@pytest.mark.parametrize("structure", ["limit", "no-limit"])
def test_refusals_at_a_tournament_table_quote_chips_not_dollars(structure: str) -> None:
    """ACT r 19: tournament chips are not money; the engine's refusals say so."""
    conditions = poker_sng("holdem-act", structure, 2)
    rules = rules_for("holdem-act", table_options(conditions, [10, 20]))
    rnd = PokerRound(rules, {1: 1000, 2: 1000}, 1, SeededRandomSource(1))
    rnd.start()
    seat = rnd.to_act
    assert seat is not None
    texts = []
    for verb, amount in (("raise", 25), ("raise", 5000), ("check", None), ("bet", 100)):
        with pytest.raises(IllegalAction) as refused:
            rnd.act(seat, verb, amount)
        texts.append(str(refused.value))
    assert all("$" not in t for t in texts), texts
    assert any(" chips" in t for t in texts), texts
    # a cash table's refusals keep dollars
    cash = PokerRound(rules_for("holdem-act", {}), {1: 10_000, 2: 10_000}, 1, SeededRandomSource(1))
    cash.start()
    assert cash.to_act is not None
    with pytest.raises(IllegalAction) as refused:
        cash.act(cash.to_act, "check")
    assert "$" in str(refused.value)


async def play(bots: list[TournamentBot], minute: float, *conditions: Conditions) -> list[Any]:
    """The bots play every tournament of ``conditions`` to its end; the runners, for the
    checks."""
    async with running_server(server_config(*conditions, minute=minute)) as server:
        runners = [server.croupier.tournaments[c.id] for c in conditions]
        for bot in bots:
            bot.url = server.url
        with trio.fail_after(90):  # a safety net: the clock ends each of these
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                while not all(r.over for r in runners):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        return runners


TWO_SESSIONS = """
[[sessions]]
name = "Heat"
tables = 1
players_per_table = 4
minutes = 2
advance = 2

[[sessions]]
name = "Final"
tables = 1
players_per_table = 2
"""


@pytest.mark.trio
async def test_a_poker_session_ends_when_its_minutes_are_up() -> None:
    """2017 r 17.3(a)(ii)(A): a session lasts its ``minutes``; when they are up the hands in
    play finish, no other is dealt, and the session ends on the chip counts: the best
    ``advance`` go to the next session's ballot. Callers only: nobody busts in the heat."""
    base = poker_sng("holdem-act", "no-limit", 4, id="heat")
    conditions = msgspec.structs.replace(
        base,
        sessions=msgspec.toml.decode(TWO_SESSIONS, type=dict[str, list[Session]])["sessions"],
        prizes=["70", "30"],
    )
    assert problems(conditions) == []
    bots = [TournamentBot("", f"h{i}", "heat", seed=i, passive=True) for i in range(4)]
    (runner,) = await play(bots, 0.25, conditions)
    t = runner.tournament
    assert t.phase.value == "complete" and t.session == 2
    journal = [ev for b in bots for s in b.states for ev in s["events"]]
    ended = [ev for ev in journal if ev["type"] == "tournament_session_ended"]
    assert ended and len(ended[0]["advancing"]) == 2  # by time, not by eliminations
    ballots = [d for d in t.draws if d.how == "ballot"]
    assert [d.session for d in ballots].count(2) == 2
    assert len(runner.places) == 4
    assert sum(prize or 0 for _, prize in runner.places.values()) == t.pool


CANBERRA_SNG = """
id = "cpm"
name = "Canberra two tables"
game = "canberra-poker-2017"
entry = "bots"
sit_and_go = 7
entry_fee = 2000
commission = 200
chips = 300
min_players = 7
max_players = 7
ties = "share"
same_round = "share"
balance_tables = true
prizes = ["60", "30", "10"]

[limits]
minimum = 50
maximum = 100

[[sessions]]
name = "Session"
tables = 2
players_per_table = 4
rounds = 80
"""


@pytest.mark.trio
async def test_a_canberra_2017_sit_and_go_balances_and_breaks_its_tables() -> None:
    """2017 r 17.3(a)(ii)(B): a sit-and-go's conditions may move players between tables as
    they are eliminated (r 17.14): after every round of eliminations the tables are as few as
    seat the players and within one player of each other, and the session plays to its
    places. Seven players at two tables of four, three such tournaments at once: whether a
    move is needed depends on who is out when (every box at a table plays against one
    dealer's hand, so a whole table often goes out in one round, and then nobody moves)."""
    tournaments = [msgspec.structs.replace(decode(CANBERRA_SNG), id=f"cpm{n}") for n in range(3)]
    assert problems(tournaments[0]) == []
    bots = [TournamentBot("", f"c{n}{i}", f"cpm{n}", seed=i) for n in range(3) for i in range(7)]
    runners = await play(bots, 1.0, *tournaments)
    for runner in runners:
        t = runner.tournament
        assert t.phase.value == "complete" and len(runner.places) == 7
        assert runner.sizes
        for sizes in runner.sizes:  # the lifecycle's seat plan after each round's moves
            assert len(sizes) == math.ceil(sum(sizes) / 4) and max(sizes) - min(sizes) <= 1
        assert sum(prize or 0 for _, prize in runner.places.values()) == t.pool
    movers = {d.player for r in runners for d in r.tournament.draws if d.how == "moved"}
    moved = [b for b in bots if b.client is not None and b.client.account in movers]
    assert len(moved) == len(movers)  # a mover sat at its new table and played on there
    assert all(len(b.client.tables) >= 2 for b in moved if b.client is not None)
