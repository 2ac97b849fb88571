"""Every betting structure's tournament ends with bots (issue 25, point 3): one sit-and-go
of each structure the tournament rules allow (ACT r 19: limit, half-pot, full-pot and
no-limit hold'em and Omaha; Manila, limit only, ACT Manila r 1) and one of Canberra Poker
(2017 r 17), each played over real WebSockets by the load test's tournament bots
(:func:`loadtest.tournament.tournament_action`: legal sizes in every structure) to a single
winner, heads-up at the end, and a tournament that is heads-up from its first hand.

The levels are short (a level-minute is a second here) and the last level's blinds are more
than every chip in play, so each tournament is bounded by the clock whatever the cards: the
tests wait on the runner's state, never on a count of hands."""

from __future__ import annotations

import logging

import pytest
import trio

from loadtest.tournament import TournamentBot
from protocol.errors import CloseCode
from server.tournaments.conditions import Conditions
from tests.support import running_server
from tests.tournaments.helpers import canberra_sng, poker_sng, server_config

POKER = [
    ("holdem-act", "limit", 6),
    ("holdem-act", "half-pot", 6),
    ("holdem-act", "full-pot", 6),
    ("holdem-act", "no-limit", 6),
    ("omaha-act", "limit", 6),
    ("omaha-act", "half-pot", 6),
    ("omaha-act", "full-pot", 6),
    ("omaha-act", "no-limit", 6),
    ("manila-act", "limit", 6),
    ("holdem-act", "no-limit", 2),  # heads-up from the first hand
    ("omaha-act", "full-pot", 2),
]


async def play_to_a_winner(conditions: Conditions, players: int, ties: bool = False) -> None:
    """``players`` bots enter and play ``conditions`` until the runner completes it; every
    bot hears its place, exactly one is first (``ties``: Canberra Poker's equal chip counts
    at the session's end share a place, r 17.3(a)(xii)(C)), the pool is paid out in full,
    the chips are conserved after every hand and no bot was refused anything."""
    async with running_server(server_config(conditions, minute=1.0)) as server:
        runner = server.croupier.tournaments[conditions.id]
        bots = [TournamentBot(server.url, f"b{i}", conditions.id, seed=i) for i in range(players)]
        with trio.fail_after(60):  # a safety net: the last level ends it in seconds
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                while not runner.over:
                    await trio.sleep(0.05)
                while not all(b.states and b.states[-1]["place"] for b in bots):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        t = runner.tournament
        assert t.phase.value == "complete" and runner.problems == []
        places = sorted(p for p, _ in runner.places.values())
        assert len(places) == players and (places.count(1) == 1 or (ties and places[0] == 1))
        assert sum(prize or 0 for _, prize in runner.places.values()) == t.pool
        assert all(b.states[-1]["phase"] == "complete" for b in bots)
        assert [b.errors for b in bots] == [[] for _ in bots]


@pytest.mark.trio
@pytest.mark.parametrize(("game", "structure", "players"), POKER)
async def test_a_poker_tournament_of_each_structure_ends_with_one_winner(
    game: str, structure: str, players: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    await play_to_a_winner(poker_sng(game, structure, players), players)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.trio
async def test_a_canberra_poker_tournament_ends_with_its_places() -> None:
    await play_to_a_winner(canberra_sng(chips=300, rounds=60), 7, ties=True)


@pytest.mark.trio
async def test_a_bot_the_server_drops_comes_back_and_plays_on() -> None:
    """A bot closed with 4002 (a slow reader) reconnects with its token and resumes its seat:
    away, it would be dealt in and fold every hand (ACT 6.3), and a heads-up against it
    would last as long as its chips (the pot-limit tournament that did not end)."""
    conditions = poker_sng("omaha-act", "full-pot", 2, id="drop")
    config = server_config(conditions, minute=60.0)  # one level: play decides, not the clock
    async with running_server(config) as server:
        runner = server.croupier.tournaments["drop"]
        # callers first (no hand busts anyone yet), then raisers once the bot is back
        bots = [TournamentBot(server.url, f"d{i}", "drop", i, passive=True) for i in range(2)]
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                while not runner.tables or not all(
                    b.client and b.client.account in tb.members
                    for b in bots
                    for tb in runner.tables.values()
                ):
                    await trio.sleep(0.02)
                victim = bots[0]
                assert victim.client is not None and victim.client.account is not None
                account = victim.client.account
                conn = server.croupier.connection(account)
                assert conn is not None
                conn.drop(CloseCode.TOO_SLOW, "client too slow: outbound queue overflowed")
                while not victim.reconnects:
                    await trio.sleep(0.02)
                for bot in bots:
                    bot.passive = False
                while not all(b.states and b.states[-1]["place"] for b in bots):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        assert runner.tournament.phase.value == "complete" and victim.reconnects >= 1
        assert victim.states and victim.states[-1]["place"] in (1, 2) and not victim.errors
