"""``croupier play`` at stadium tables (QLD Sch 19): typed wagers and the bot mode."""

from __future__ import annotations

import os
import shutil
import sys

import pytest
import trio

from clients.terminal.commands import BadCommand
from clients.terminal.stadium import StadiumCommand, parse_stadium_command, positions
from server.config import TableConfig
from server.tables.stadium import layout_config
from tests.clients.support import config
from tests.clients.test_terminal import ROOT, _run_main, _tmux
from tests.support import running_server

TABLE = "rou-term"


def test_typed_stadium_commands_parse() -> None:
    assert parse_stadium_command("b straight_17 $5") == StadiumCommand("place", "straight_17", 500)
    assert parse_stadium_command("b red 0") == StadiumCommand("place", "red", 0)
    assert parse_stadium_command("$ $50") == StadiumCommand("credit", amount=5000)
    assert parse_stadium_command("$ 50") == StadiumCommand("credit", amount=5000)  # dollars
    assert parse_stadium_command("credit 25") == StadiumCommand("credit", amount=2500)
    assert parse_stadium_command("b red 6.50") == StadiumCommand("place", "red", 650)
    assert parse_stadium_command("c") == StadiumCommand("collect")
    assert parse_stadium_command("x") == StadiumCommand("cash_out")
    assert parse_stadium_command("m place_6 on") == StadiumCommand("marker", "place_6", on=True)
    assert parse_stadium_command("l") == StadiumCommand("recall")
    for bad in ("b red", "m place_6 maybe", "$", "zz"):
        with pytest.raises(BadCommand):
            parse_stadium_command(bad)


def test_bot_positions_come_from_the_layout_config() -> None:
    sic = positions(layout_config("sic-bo", {}))
    assert "total_10" in sic and "combo_1_2" in sic and "four_2356" in sic
    crp = positions(layout_config("craps", {"odds_multiple": 1}))
    assert "win" in crp and "place_6" in crp and "hard_8" in crp


async def test_bot_terminal_plays_three_rounds_at_a_roulette_stadium() -> None:
    table = TableConfig(
        id=TABLE,
        game="roulette",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=0.5,
    )
    async with running_server(config(table, round_pause=0.1)) as server:
        argv = ["--url", server.url, "--bot", "--hands", "3", "--table", TABLE, "--seed", "2"]
        with trio.fail_after(60):
            code, out = await trio.to_thread.run_sync(_run_main, argv)
        assert code == 0, out
        assert "round #1: place your bets" in out and "result: " in out
        assert "you bet $1.00" in out
        assert "played 3 rounds" in out
        m = server.croupier.money()
        assert m["wallets"] + m["stakes"] + m["house"] == m["issued"]
        assert not server.croupier.tables[TABLE].members


async def test_a_burst_of_typed_commands_all_reach_the_server_under_a_pty() -> None:
    """Issue 27, point 1: 100 ``$ 1`` typed at once in a real terminal (a tmux pane) buy
    $100 of credits: the burst is queued and paced to the server's message limit, never
    cancelled or dropped; ``q`` then leaves at once."""
    assert shutil.which("tmux"), "tmux is not installed (run.sh setup_system installs it)"
    sock = f"croupier-burst-{os.getpid()}"
    table = TableConfig(
        id=TABLE,
        game="roulette",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=2.0,
    )
    # a message limit of 20/s (the client keeps to 16/s, a burst of 10): the burst is paced
    async with running_server(config(table, round_pause=0.1, rate=20.0, burst=20.0)) as server:
        command = (
            f"cd {ROOT} && PYTHONPATH={ROOT} {sys.executable} -m server.cli play "
            f"--url {server.url} --name tess --table {TABLE}"
        )
        await _tmux(sock, "new-session", "-d", "-x", "120", "-y", "40", command)
        rou = server.croupier.tables[TABLE]
        try:
            with trio.fail_after(60):
                while "credits" not in await _tmux(sock, "capture-pane", "-p"):
                    await trio.sleep(0.2)
            await _tmux(sock, "send-keys", *["$ 1", "Enter"] * 100)  # one burst
            with trio.fail_after(60):
                while not (terminals := [m for m in rou.members.values() if m.account]) or (
                    rou._meter(terminals[0].account) < 10_000
                ):
                    await trio.sleep(0.1)
                while "credits $100.00" not in (screen := await _tmux(sock, "capture-pane", "-p")):
                    await trio.sleep(0.2)
            assert rou._meter(terminals[0].account) == 10_000  # each typed line once
            assert "refused" not in screen, screen
            await _tmux(sock, "send-keys", "q", "Enter")
            with trio.fail_after(30):  # q leaves at once: the table lets the terminal go
                while rou.members:
                    await trio.sleep(0.1)
        finally:
            await _tmux(sock, "kill-server")


def test_every_layout_position_has_a_players_name() -> None:
    """Issue 27, point 2: the names of clients/web/labels.json (read by the page and the
    terminal alike) cover every position of every stadium layout: no raw id is shown."""
    from clients.labels import label

    assert (label("win"), label("any7"), label("big6")) == ("Pass line", "Any seven", "Big 6")
    assert label("split_17_20") == "Split 17-20" and label("total_10") == "Total 10"
    for game, options in (
        ("roulette", {"wheel_type": "double_zero"}),
        ("sic-bo", {}),
        ("wheel-of-fortune", {"wheel_type": 50}),
        ("craps", {"odds_multiple": 1}),
        ("baccarat", {}),
    ):
        for position in positions(layout_config(game, options)):
            name = label(position)
            assert "_" not in name and (name[0].isupper() or name[0].isdigit()), (game, name)


async def test_the_terminal_names_craps_wagers_as_players_do() -> None:
    """Under a pseudo-terminal (a tmux pane): wagers typed by id (``b any7 1``) or by name
    (``b pass line 1``) are shown by their names (``Any seven``, ``Big 6``, ``Pass line``), as
    the page shows them."""
    assert shutil.which("tmux"), "tmux is not installed (run.sh setup_system installs it)"
    sock = f"croupier-labels-{os.getpid()}"
    table = TableConfig(
        id="craps-term",
        game="craps",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=30.0,
    )
    async with running_server(config(table, round_pause=0.1)) as server:
        command = (
            f"cd {ROOT} && PYTHONPATH={ROOT} {sys.executable} -m server.cli play "
            f"--url {server.url} --name tess --table craps-term"
        )
        await _tmux(sock, "new-session", "-d", "-x", "120", "-y", "40", command)
        try:
            with trio.fail_after(60):
                while "place your bets" not in await _tmux(sock, "capture-pane", "-p"):
                    await trio.sleep(0.2)
            for line in ("$ 10", "b pass line 1", "b any7 1", "b big6 1"):  # by name or id
                await _tmux(sock, "send-keys", line, "Enter")
            with trio.fail_after(30):
                while "Big 6" not in (screen := await _tmux(sock, "capture-pane", "-p")):
                    await trio.sleep(0.2)
            assert "Pass line" in screen and "Any seven" in screen, screen
            assert "any7 $" not in screen and "big6 $" not in screen, screen
        finally:
            await _tmux(sock, "kill-server")


def test_a_position_may_be_typed_by_its_name() -> None:
    from clients.terminal.stadium import resolve

    craps = layout_config("craps", {"odds_multiple": 1})
    assert parse_stadium_command("b pass line 5") == StadiumCommand("place", "pass_line", 500)
    assert resolve("pass_line", craps) == "win" and resolve("any_seven", craps) == "any7"
    assert resolve("big_6", craps) == "big6" and resolve("place_6", craps) == "place_6"
    assert resolve("hard_8", craps) == "hard_8" and resolve("nonsense", craps) == "nonsense"
    roulette = layout_config("roulette", {"wheel_type": "single_zero"})
    assert resolve("Red", roulette) == "red" and resolve("straight_17", roulette) == "straight_17"
    assert resolve("17", roulette) == "straight_17" and resolve("zero", roulette) == "straight_0"
    assert resolve("00", roulette) == "00" and resolve("37", roulette) == "37"  # single zero
