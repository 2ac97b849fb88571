"""``croupier loadtest --stadium``: terminals on one stadium table over real WebSockets."""

from __future__ import annotations

import json
from pathlib import Path

import trio

from loadtest import cli
from loadtest.stadium import percentile
from server.config import TableConfig
from tests.clients.support import config
from tests.support import running_server


def test_percentile_by_nearest_rank() -> None:
    assert percentile([], 0.5) == 0.0
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 0.99) == 99.0


async def test_stadium_mode_wagers_every_window_and_money_is_conserved(tmp_path: Path) -> None:
    table = TableConfig(
        id="rou-load",
        game="roulette",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=0.4,
    )
    out = tmp_path / "stadium.json"
    async with running_server(config(table, round_pause=0.05)) as server:
        argv = ["--url", server.url, "--stadium", "rou-load", "--terminals", "40"]
        argv += ["--rounds", "3", "--json", str(out)]
        with trio.fail_after(60):
            code = await trio.to_thread.run_sync(cli.main, argv)
        report = json.loads(out.read_text())
        assert code == 0, report
        assert report["conserved"] and report["settlements"] == 40 * 3
        assert report["wagers"] >= 40 * 3 and report["p99_ms"] >= report["p50_ms"] > 0
        assert not server.croupier.tables["rou-load"].members


async def test_stadium_mode_buys_the_credits_a_wallet_holds(tmp_path: Path) -> None:
    """Issue 27, point 7: against a server whose guests start with $1,000 (croupier serve's
    default) the terminals buy what they can and the run ends (it waited for settlements
    that never came: every credit_in of $10,000 was refused)."""
    table = TableConfig(
        id="rou-poor",
        game="roulette",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=0.3,
    )
    out = tmp_path / "stadium.json"
    async with running_server(config(table, round_pause=0.05, starting_balance=100_000)) as server:
        argv = ["--url", server.url, "--stadium", "rou-poor", "--terminals", "3"]
        argv += ["--rounds", "2", "--json", str(out)]
        with trio.fail_after(60):
            code = await trio.to_thread.run_sync(cli.main, argv)
        report = json.loads(out.read_text())
        assert code == 0, report
        assert report["settlements"] == 3 * 2 and report["refused"] == {}
        assert report["conserved"]


async def test_stadium_mode_is_bounded_in_time_and_its_terminals_leave() -> None:
    """A table that does not settle in time (a 60 s window here) ends the play at the
    deadline: every terminal cashes out and leaves, and the report says it timed out."""
    from loadtest.stadium import run_terminals

    table = TableConfig(
        id="rou-slow",
        game="roulette",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=60.0,
    )
    async with running_server(config(table)) as server:
        with trio.fail_after(30):
            stats = await run_terminals(server.url, "rou-slow", "roulette", 2, 3, deadline=1.0)
            while server.croupier.tables["rou-slow"].members:
                await trio.sleep(0.05)
        assert stats.timed_out and stats.settled == 0
        m = server.croupier.money()
        assert m["wallets"] + m["stakes"] + m["house"] == m["issued"]
