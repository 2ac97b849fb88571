"""A disqualification "after the hand in play" survives a stop (issue 25; docs/rulings.md,
"Interrupted tournament play").

The director disqualifies a player while a hand waits on another player's turn (a client
that never acts, with a decision clock longer than the test); the server stops gracefully
before that hand ends. The snapshot carries the disqualification; the next server voids the
interrupted hand and takes the player off before dealing again: out, placed, chips out of
play, the others' chips as at the last completed hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from clients.client import Client
from server.tournaments.lifecycle import Phase
from tests.support import running_server
from tests.tournaments.helpers import ReturningBot, holdem, server_config


async def until(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    with trio.fail_after(timeout):
        while not predicate():
            await trio.sleep(0.01)


async def stall(url: str, account: list[str], turn: trio.Event) -> None:
    """A player who registers, sits, and never acts: the hand waits on its turn."""
    async with Client.connect(url, name="staller") as client:
        await client.register("dq")
        assert client.account is not None
        account.append(client.account)
        async for msg in client:
            if msg["type"] == "turn":
                turn.set()


@pytest.mark.trio
async def test_a_disqualification_after_the_hand_survives_a_graceful_stop(
    tmp_path: Path,
) -> None:
    conditions = holdem(4, sit_and_go=4, id="dq", min_players=2, prizes=["70", "30"])
    config = server_config(conditions, data=tmp_path, minute=60.0, turn_time=600.0)
    bots = [ReturningBot(f"dq{i}", "dq", seed=i) for i in range(3)]
    staller: list[str] = []
    async with running_server(config) as server:
        runner = server.croupier.tournaments["dq"]
        t = runner.tournament
        token = server.croupier.accounts.issue("tina", "Tina", role="tournament_director")
        turn = trio.Event()
        async with trio.open_nursery() as nursery, Client.connect(server.url, token=token) as td:
            nursery.start_soon(stall, server.url, staller, turn)
            for bot in bots:
                nursery.start_soon(bot.play, server.url)
            with trio.fail_after(60):
                await turn.wait()  # a hand in play, waiting on the staller
            victim = next(b.account for b in bots if b.account in t.playing)
            assert victim is not None
            await td.request(
                {
                    "type": "operator",
                    "action": "disqualify",
                    "tournament": "dq",
                    "reason": "test",
                    "account": victim,
                },
                "operator",
            )
            await until(lambda: victim in runner.disqualifying)
            # written in the step's commit: what a kill -9 now would leave for the next start
            assert json.loads(runner.ledger.meta[runner.key])["disqualifying"] == [victim]
            table = runner.tables[runner.at[victim]]
            assert not table.between_rounds  # the hand waits: the victim is still seated
            assert t.status[victim] == "playing"
            nursery.cancel_scope.cancel()
    playing = set(t.playing)  # a bot may have gone out before: at least two stay
    # the graceful stop wrote the disqualification that waits for the hand's end
    before = json.loads(runner.ledger.meta[runner.key])
    assert before["disqualifying"] == [victim]
    chips = before["stacks"][victim]
    assert chips > 0
    async with running_server(config) as server:
        again = server.croupier.tournaments["dq"]
        u = again.tournament
        assert again.resumed
        await until(lambda: victim in again.places)
        assert u.status[victim] == "out" and again.chips.balance(victim) == 0
        assert again.disqualifying == set() and victim not in again.at
        assert u.phase is Phase.RUNNING and set(u.playing) == playing - {victim}
        assert all(again.stacks[p] == before["stacks"][p] for p in u.playing)  # hand void
        assert sum(again.stacks[p] for p in u.playing) == u.issued == 4 * 1000 - chips
        saved = json.loads(again.ledger.meta[again.key])
        assert saved["disqualifying"] == []
