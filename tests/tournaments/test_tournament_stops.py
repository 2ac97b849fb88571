"""Tournaments survive their server (issue 25): ``croupier serve --tournament FILE`` killed
(SIGKILL) or stopped (SIGTERM) loses nothing and cancels nothing.

The whole tournament is a fact of the ledger's store, written in the commit that holds each
step's money (``server/tournaments/runner.py``: the snapshot). The next start resumes it:
entries open stay open with their fees in the pool; a running tournament goes on with the
same players in the same seats, their chips as at their table's last completed hand, the same
level with the time it had left. Cancelling is the director's decision (2017 r 17.23;
docs/rulings.md, "Interrupted tournament play").
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client
from server.store import cli as ledger_cli
from server.tournaments.lifecycle import Phase
from tests.integration.helpers import ServerProcess, csp_table, write_tables
from tests.server.helpers import running_server
from tests.shared import REPO
from tests.tournaments.helpers import (
    ReturningBot,
    holdem,
    ledger_check,
    server_config,
    wallets,
)

SNG = REPO / "docs" / "tournaments" / "act-holdem-sng.toml"  # 18 to start: it never does here
FEE = 5_500
START = 1_000_000  # the ServerProcess' --starting-balance 10000 (dollars)


async def enter(url: str, names: list[str]) -> dict[str, str]:
    """Each name registers (the fee leaves its wallet); their tokens."""
    tokens = {}
    for name in names:
        async with Client.connect(url, name=name) as client:
            await client.register("act-holdem-sng")
            assert client.token is not None
            tokens[name] = client.token
    return tokens


async def entries(url: str) -> int:
    async with Client.connect(url, name="lobby") as client:
        rows = await client.tournaments()
    return int(next(r for r in rows if r["id"] == "act-holdem-sng")["entries"])


async def test_entries_survive_a_sigkill_and_a_sigterm(tmp_path: Path) -> None:
    tables = write_tables(tmp_path / "tables.toml", [csp_table("csp-t", "t-link")])
    data = tmp_path / "data"
    args = ("--data", str(data), "--tournament", str(SNG))
    first = ServerProcess(tables, None, *args)
    try:
        await first.started()
        with trio.fail_after(30):
            tokens = await enter(first.url, ["ann", "bob", "cy"])
            assert set((await wallets(first.url, tokens)).values()) == {START - FEE}
        first.proc.kill()  # kill -9 with the three entries in the pool
        first.proc.wait(10)
    finally:
        first.stop()
    second = ServerProcess(tables, None, *args)
    try:
        await second.started()
        with trio.fail_after(30):
            # the entries are still there, their fees in the pool: nothing was refunded
            assert set((await wallets(second.url, tokens)).values()) == {START - FEE}
            assert await entries(second.url) == 3
            more = await enter(second.url, ["dee"])
        second.proc.send_signal(signal.SIGTERM)  # a graceful stop cancels nothing either
        out, err = second.proc.communicate(timeout=30)
        assert "act-holdem-sng resumes: registering, session 0, level 1, 3 players" in err, err
        assert " 0 left" in out, out + err
    finally:
        second.stop()
    report = ledger_check(data)
    assert "0 open" in report, report
    third = ServerProcess(tables, None, *args)
    try:
        await third.started()
        with trio.fail_after(30):
            back = await wallets(third.url, {**tokens, **more})
            assert set(back.values()) == {START - FEE}, back
            assert await entries(third.url) == 4
    finally:
        third.stop()
    ledger_check(data)


async def play_until(
    bots: list[ReturningBot], url: str, done: Callable[[], bool], timeout: float
) -> None:
    """Every bot plays (connected to ``url``) until ``done()``."""
    with trio.fail_after(timeout):
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(bot.play, url)
            while not done():
                await trio.sleep(0.005)
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize("store", ["sqlite", "redis"])
async def test_a_graceful_stop_pauses_a_running_tournament_and_the_next_start_resumes_it(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    """Twelve bots at two tables; the server stops gracefully mid-tournament: nothing is
    cancelled or refunded, and the next server on the same store resumes it with the same
    players, seats, chips (as at each table's last completed hand), level and time left in
    it; the bots come back, and it finishes with one winner paid the pool."""
    extra: dict[str, Any] = {"data": tmp_path}
    if store == "redis":
        proc = request.getfixturevalue("redis_proc")
        extra.update(
            redis=f"redis://127.0.0.1:{proc.port}/0",
            redis_ledger=True,
            dev_redis=True,
            allow_volatile_redis=True,
        )
    conditions = holdem(12, sit_and_go=12, tables=2, prizes=["65", "35"], id="surv")
    config = server_config(conditions, minute=2.0, **extra)
    bots = [ReturningBot(f"sv{i}", "surv", seed=i) for i in range(12)]
    async with running_server(config) as server:
        runner = server.croupier.tournaments["surv"]

        def stop_now() -> bool:  # play on until two players are out (the bots leave then)
            return len(runner.tournament.out) >= 2

        await play_until(bots, server.url, stop_now, 60)
    before = json.loads(runner.ledger.meta[runner.key])  # as the stop wrote it
    t = runner.tournament
    assert t.phase is Phase.RUNNING and runner.stopped
    assert sum(runner.stacks.values()) == t.issued == 12 * 1000
    async with running_server(config) as server:
        again = server.croupier.tournaments["surv"]
        u = again.tournament
        assert again.resumed and u.phase is Phase.RUNNING
        assert u.playing == t.playing and u.out == t.out and u.entries == t.entries
        assert u.tables == t.tables  # the same tables and seats
        assert again.stacks == before["stacks"] == runner.stacks
        assert again.level == runner.level
        left = (again.level_ends - trio.current_time()) - before["level_ends"]
        assert -10.0 < left <= 0.001  # the level's time left, as at the stop
        ledger = server.croupier.ledger
        assert ledger.balances.get(u.pool_account, 0) == u.pool == 12 * 1000
        seats = {tb.number: dict(tb.players) for tb in u.tables}

        def reseated() -> bool:  # every player back in their seat (sitting out till back)
            tables = again.tables
            return tables.keys() == seats.keys() and all(
                {n: s.account for n, s in tables[t].seats.items()} == seats[t]  # type: ignore[attr-defined]
                for t in seats
            )

        with trio.fail_after(10):
            while not reseated():
                await trio.sleep(0.01)
        await play_until(bots, server.url, lambda: again.over and all(b.done for b in bots), 90)
        assert u.phase is Phase.COMPLETE and again.problems == []
        places = again.places
        assert sorted(p for p, _ in places.values()).count(1) == 1 and len(places) == 12
        assert sum(prize or 0 for _, prize in places.values()) == 12 * 1000
        assert ledger.balances.get(u.pool_account, 0) == 0
        assert ledger.meta[again.key] == ""  # over: nothing to resume
    if store == "sqlite":
        assert ledger_cli.main(["check", "--data", str(tmp_path)]) == 0
