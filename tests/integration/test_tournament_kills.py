"""A tournament survives kill -9 after kill -9 (issue 25, point 2): ``croupier serve
--tournament FILE`` in its own process, killed (SIGKILL) at random points while eighteen bots
register and play, and started again on the same store each time (SQLite, then Redis).

One kill falls between the registrations (the entries survive: the rest register on the next
server and the sit-and-go starts), then at least five while the tournament runs, each after a
random number of turns (so at any point of a hand: the interrupted hands are void). After
each kill the durable snapshot conserves the chips (every chip issued is in a player's stack
as at their table's last completed hand); each restart resumes the tournament (its log says
so), and the bots take their seats again. It finishes with one winner, the prizes sum to the
pool, every wallet holds its start less the fee plus its prize, and ``croupier ledger check``
is clean (docs/rulings.md, "Interrupted tournament play").

Nothing here waits on time: kills follow turns played, the run follows the bots' states.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from server.store.redis import connect, key
from server.store.sqlite import LEDGER_FILE
from tests.integration.helpers import RedisServer, ServerProcess, csp_table, write_tables
from tests.tournaments.helpers import ReturningBot, holdem_text, ledger_check, wallets

PLAYERS = 18
FEE = 1100
START = 1_000_000  # the ServerProcess' --starting-balance 10000 (dollars)
KILLS = 5  # while the tournament runs (one more during the registrations)
FACT = "tournament_snapshot:kills"  # the ledger fact of its snapshot (server/tournaments/runner.py)


async def snapshot(data: Path, redis_url: str | None) -> dict[str, Any]:
    """The tournament as the killed server left it in its store."""
    if redis_url is None:
        db = sqlite3.connect(data / LEDGER_FILE)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (FACT,)).fetchone()
        finally:
            db.close()
        value = row[0] if row else ""
    else:
        async with connect(redis_url) as r:
            value = await r.hget(key("facts"), FACT) or ""
    return json.loads(value) if value else {}


class Kills:
    """One server after another on one store, each killed with SIGKILL."""

    def __init__(self, tmp_path: Path, redis: RedisServer | None) -> None:
        self.tables = write_tables(tmp_path / "tables.toml", [csp_table("csp-t", "t-link")])
        self.data = tmp_path / "data"
        self.redis_url = None if redis is None else redis.url
        self.conditions = tmp_path / "kills.toml"
        prizes = ["50", "30", "20"]
        self.conditions.write_text(
            holdem_text(
                PLAYERS, sit_and_go=PLAYERS, tables=2, id="kills", prizes=prizes, min_players=3
            )
        )
        self.server: ServerProcess | None = None
        self.logs: list[str] = []  # each killed server's log

    async def start(self) -> str:
        args = ["--data", str(self.data), "--tournament", str(self.conditions)]
        args += ["--tournament-minute", "60"]
        if self.redis_url is not None:
            args += ["--new-store"]  # new here; never a flushed one
        redis = self.redis_url
        self.server = ServerProcess(self.tables, redis, *args, ledger_on_redis=bool(redis))
        await self.server.started()
        return self.server.url

    async def snapshot(self) -> dict[str, Any]:
        return await snapshot(self.data, self.redis_url)

    def check(self) -> str:
        return ledger_check(self.data, *(["--redis", self.redis_url] if self.redis_url else []))

    def kill(self) -> None:
        assert self.server is not None
        self.server.proc.kill()
        self.server.proc.wait(10)
        assert self.server.proc.stderr is not None
        self.logs.append(self.server.proc.stderr.read())
        self.server.stop()
        self.server = None


async def play(bots: list[ReturningBot], url: str, until: Callable[[], bool]) -> None:
    """The bots play on ``url`` until ``until()`` (or their server is gone)."""
    with trio.fail_after(60):  # a safety net only
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(bot.play, url)
            while not until():
                await trio.sleep(0.005)
            nursery.cancel_scope.cancel()


@pytest.mark.slow
@pytest.mark.parametrize("store", ["sqlite", "redis"])
async def test_a_tournament_killed_at_random_points_resumes_and_finishes(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    rng = random.Random(25)
    redis = request.getfixturevalue("redis") if store == "redis" else None
    kills = Kills(tmp_path, redis)
    bots = [ReturningBot(f"k{i}", "kills", seed=i) for i in range(PLAYERS)]
    half = PLAYERS // 2
    try:
        # the first half enters; the server dies with their fees in the pool
        url = await kills.start()
        with trio.fail_after(30):
            for bot in bots[:half]:
                await bot.enter(url)
        kills.kill()
        saved = await kills.snapshot()
        assert saved["tournament"]["phase"] == "registering"
        assert sorted(saved["tournament"]["status"]) == sorted(b.account for b in bots[:half])
        # the next server has them; they are here when the others enter, and it starts;
        # then it is killed after a random number of turns, again and again, each server
        # resuming it, until the last plays it to the end
        url = await kills.start()
        resumed = 0
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for bot in bots[:half]:
                    nursery.start_soon(bot.play, url)
                while not all(b.connections for b in bots[:half]):
                    await trio.sleep(0.005)
                for bot in bots[half:]:
                    nursery.start_soon(bot.play, url)
                turns = rng.randint(6, 16)
                while sum(b.turns for b in bots) < turns:
                    await trio.sleep(0.005)
                nursery.cancel_scope.cancel()
        while not all(b.done for b in bots):
            if any((b.last or {}).get("phase") == "complete" for b in bots):
                await play(bots, url, lambda: all(b.done for b in bots))  # over: told
                continue
            kills.kill()
            state = await kills.snapshot()
            t = state["tournament"]
            assert t["phase"] == "running", t["phase"]
            # every chip issued is in a stack as at its table's last completed hand
            assert sum(state["stacks"].values()) == t["issued"] == PLAYERS * 1000
            playing = {p for p, s in t["status"].items() if s == "playing"}
            assert playing <= set(state["stacks"])
            url = await kills.start()
            resumed += 1
            # a short run between kills: five kills fit in the shortest tournament the cards
            # may deal (with 10-40 turns, a fast one finished after four: 1 run in 6)
            turns = sum(b.turns for b in bots) + rng.randint(6, 16)

            def until(turns: int = turns, last: bool = resumed > KILLS) -> bool:
                if all(b.done for b in bots):
                    return True
                return not last and sum(b.turns for b in bots) >= turns

            await play(bots, url, until)
        assert resumed >= KILLS, f"the tournament finished after {resumed} kills"
        # every restart after the first resumed it
        for log in kills.logs[1:]:
            assert "tournament kills resumes:" in log, log
        # one winner; the prizes are the pool, to the cent
        places = {b.account: (b.last or {}).get("place") for b in bots}
        prizes = {b.account: (b.last or {}).get("prize") or 0 for b in bots}
        assert sorted(p for p in places.values() if p).count(1) == 1, places
        assert all(places.values())
        pool = PLAYERS * (FEE - 100)
        assert sum(prizes.values()) == pool
        with trio.fail_after(30):
            got = await wallets(url, {b.name: b.token or "" for b in bots})
        assert got == {b.name: START - FEE + prizes[b.account] for b in bots}
    finally:
        if kills.server is not None:
            kills.server.stop()
    report = kills.check()
    assert "0 open" in report, report
