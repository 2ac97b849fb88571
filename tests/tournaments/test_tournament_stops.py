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
import math
import signal
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from clients.client import Client
from server.store import cli as ledger_cli
from server.tournaments.lifecycle import Phase
from tests.integration.helpers import ServerProcess, csp_table, write_tables
from tests.shared import REPO
from tests.support import running_server, until
from tests.tournaments.helpers import (
    ReturningBot,
    canberra_sng,
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


async def test_a_break_and_a_buy_back_survive_a_graceful_stop(tmp_path: Path) -> None:
    """The director pauses the tournament after a buy-back; the server stops during the
    break. The next one resumes it on the break (the level's clock stopped, nothing dealt)
    with the buy-back's entry, chips and seat; the director resumes play, and the pool, the
    buy-back's fee included, is paid out in full."""
    extra = "[buy_backs]\nper_player = 1\nlast_session = 1\nlast_level = 12"
    conditions = holdem(12, sit_and_go=12, tables=2, id="brk", min_players=3, extra=extra)
    config = server_config(conditions, minute=60.0, data=tmp_path)
    bots = [ReturningBot(f"bk{i}", "brk", seed=i, buy_back=True) for i in range(12)]
    control = {"type": "operator", "tournament": "brk", "reason": "test"}

    async with running_server(config) as server:
        runner = server.croupier.tournaments["brk"]
        token = server.croupier.accounts.issue("tina", "Tina", role="tournament_director")
        async with trio.open_nursery() as nursery, Client.connect(server.url, token=token) as td:
            for bot in bots:
                nursery.start_soon(bot.play, server.url)
            await until(lambda: len(runner.tournament.entries) > 12)  # a buy-back
            await td.request({**control, "action": "pause_tournament"}, "operator")
            await until(lambda: runner.tournament.phase is Phase.ON_BREAK)
            nursery.cancel_scope.cancel()
    t = runner.tournament
    before = json.loads(runner.ledger.meta[runner.key])
    assert before["tournament"]["phase"] == "on_break" and t.buy_backs
    async with running_server(config) as server:
        again = server.croupier.tournaments["brk"]
        u = again.tournament
        assert again.resumed and u.phase is Phase.ON_BREAK
        assert u.entries == t.entries and u.buy_backs == t.buy_backs and u.issued == t.issued
        assert u.tables == t.tables and again.stacks == runner.stacks
        assert math.isinf(again.level_ends) and math.isinf(again.break_ends)  # until resumed
        assert again.level_left == before["level_left"]
        token = server.croupier.accounts.issue("tina", "Tina", role="tournament_director")
        async with trio.open_nursery() as nursery, Client.connect(server.url, token=token) as td:
            for bot in bots:
                nursery.start_soon(bot.play, server.url)
            await until(lambda: all(tb.members for tb in again.tables.values()))
            assert all(tb.hand == 0 for tb in again.tables.values())  # nothing dealt
            await td.request({**control, "action": "resume_tournament"}, "operator")
            assert u.phase is Phase.RUNNING
            left = again.level_ends - trio.current_time()
            assert before["level_left"] - 10 < left <= before["level_left"]
            await until(lambda: again.over and all(b.done for b in bots))
            nursery.cancel_scope.cancel()
        assert u.phase is Phase.COMPLETE and again.problems == []
        paid = sum(prize or 0 for _, prize in again.places.values())
        assert paid == u.pool == len(u.entries) * 1000 > 12 * 1000
    assert ledger_cli.main(["check", "--data", str(tmp_path)]) == 0


async def test_a_canberra_poker_session_survives_a_graceful_stop(tmp_path: Path) -> None:
    """Canberra Poker (2017 r 17): stopped after a few rounds of play, the next server
    resumes the session with the rounds played, the boxes (r 17.7: kept for the session),
    the starting marker (r 17.15) and each player's chips after the last round; it plays on
    to the places, the pool paid out in full."""
    # chips for more than three rounds: with the helper's 300 the deal sometimes put every
    # player but one below the table minimum in two rounds, and the stop never came
    conditions = canberra_sng(rounds=12, chips=1000)
    config = server_config(conditions, data=tmp_path)
    bots = [ReturningBot(f"cb{i}", "cp", seed=i) for i in range(7)]
    async with running_server(config) as server:
        runner = server.croupier.tournaments["cp"]
        await play_until(bots, server.url, lambda: runner.rounds >= 3, 60)
    t = runner.tournament
    assert t.phase is Phase.RUNNING
    async with running_server(config) as server:
        again = server.croupier.tournaments["cp"]
        u = again.tournament
        assert again.resumed and u.phase is Phase.RUNNING and again.rounds == runner.rounds
        assert u.tables == t.tables and again.stacks == runner.stacks
        number = u.tables[0].number
        assert again.tables[number].marker == t.tables[0].marker  # type: ignore[attr-defined]
        await play_until(bots, server.url, lambda: again.over and all(b.done for b in bots), 90)
        assert u.phase is Phase.COMPLETE
        assert sum(prize or 0 for _, prize in again.places.values()) == u.pool == 7 * 1800
    assert ledger_cli.main(["check", "--data", str(tmp_path)]) == 0


async def test_a_start_missed_while_the_server_was_down_waits_the_grace(tmp_path: Path) -> None:
    """r 17.9 (docs/rulings.md): nobody forfeits by the server's stop. Entries are open
    when the server stops; the next one starts after the scheduled time: the entrants get
    the reconnection grace to come back before the seats are taken."""
    conditions = holdem(9, id="sched", min_players=3)
    bots = [ReturningBot(f"sc{i}", "sched", seed=i) for i in range(3)]
    async with running_server(server_config(conditions, data=tmp_path)) as server:
        with trio.fail_after(30):
            for bot in bots:
                await bot.enter(server.url)
    missed = msgspec.structs.replace(conditions, starts_at=datetime.now(UTC) - timedelta(hours=1))
    config = server_config(missed, data=tmp_path, grace=300.0)
    async with running_server(config) as server:
        again = server.croupier.tournaments["sched"]
        assert again.resumed and again.tournament.phase is Phase.REGISTERING
        assert len(again.tournament.entries) == 3
        assert again.starts - trio.current_time() > 200  # the grace, not at once
