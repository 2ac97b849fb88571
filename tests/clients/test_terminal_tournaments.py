"""``croupier play`` and tournaments (clients/terminal/tournaments.py): the commands, chips at a
tournament table, a bot registering with ``--tournament`` and playing to its place, and a
person in a real terminal (tmux) listing the tournaments, registering, withdrawing,
registering again and playing at the table the tournament seats them at, with the status
line (level, blinds, the clock, players left) over it."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
import trio

from clients.client import Client
from clients.terminal.commands import BadCommand, Command
from clients.terminal.render import money
from clients.terminal.room import parse_room_command
from clients.terminal.tournaments import (
    in_chips,
    is_tournament_line,
    parse_tournament_command,
    status_text,
)
from loadtest.tournament import TournamentBot as PokerBot
from server.config import ServerConfig
from tests.clients.support import config, holdem_table
from tests.clients.test_terminal import _run_main, _tmux
from tests.clients.test_web_tournaments import conditions
from tests.support import running_server

ROOT = Path(__file__).resolve().parents[2]


def test_tournament_commands_parse() -> None:
    assert is_tournament_line("tournaments") and is_tournament_line("Register sng")
    assert not is_tournament_line("1") and not is_tournament_line("holdem-test")
    assert parse_tournament_command("tournaments") == Command("tournaments")
    assert parse_tournament_command("register sng") == Command("register", "sng")
    assert parse_tournament_command("unregister sng") == Command("unregister", "sng")
    for bad in ("register", "unregister a b"):
        with pytest.raises(BadCommand):
            parse_tournament_command(bad)


def test_amounts_at_a_tournament_table_are_whole_chips() -> None:
    with in_chips():
        assert money(12345) == "12,345"
        assert parse_room_command("r 1,500") == Command("act", "raise", 1500)
        assert parse_room_command("pre c 400") == Command("pre", "call", 400)
        with pytest.raises(BadCommand, match="whole number"):
            parse_room_command("b 6.50")
    assert money(12345) == "$123.45"  # outside: money, in dollars
    assert parse_room_command("b 6.50") == Command("act", "bet", 650)


def test_the_status_line_says_level_blinds_clock_players_left_and_place() -> None:
    state = {
        "tournament": "sng",
        "phase": "running",
        "level": 3,
        "blinds": [50, 100],
        "level_ms": 95_000,
        "break_ms": None,
        "players_left": 3,
        "entries": 4,
        "table": "sng.2",
        "seat": 3,
        "place": None,
        "prize": None,
    }
    line = status_text(state, elapsed=5.0).plain
    assert "level 3, blinds 50/100" in line and "level ends in 1:30" in line
    assert "3/4 left" in line and "you: table 2 seat 3" in line
    done = {**state, "phase": "complete", "table": None, "place": 2, "prize": 1200}
    assert "you finished in place 2 and won $12.00" in status_text(done).plain
    pause = {**state, "phase": "on_break", "level_ms": None, "break_ms": None}
    assert "paused" in status_text(pause).plain


def _cfg(tournament: str) -> ServerConfig:
    return config(
        holdem_table(),
        tournaments=(conditions(tournament),),
        tournament_minute=1.5,
        turn_time=1.0,
        round_pause=0.2,
    )


async def test_bot_registers_with_tournament_is_moved_and_plays_to_its_place() -> None:
    """``--bot --tournament ID``: registered, seated, moved by the Tournament Director to
    the other table (the client plays on there), and out with its place."""
    async with running_server(_cfg("sng-bot")) as server, trio.open_nursery() as nursery:
        runner = server.croupier.tournaments["sng-bot"]
        t = runner.tournament
        director = server.croupier.accounts.issue("tina", "Tina", role="tournament_director")
        moved: list[int] = []

        async def director_moves_the_bot() -> None:
            while t.phase.value != "running":
                await trio.sleep(0.05)
            bot = next(a for a, n in runner.names.items() if n == "bot")
            there = next(tb for tb in t.tables if tb.number != runner.at[bot])
            seat = min(set(range(1, there.seats + 1)) - set(there.players))
            async with Client.connect(server.url, token=director) as td:
                move = {"table": there.number, "seat": seat}
                await td.request(
                    {
                        "type": "operator",
                        "action": "move_player",
                        "tournament": "sng-bot",
                        "account": bot,
                        "limits": move,
                        "reason": "test",
                    },
                    "operator",
                )
            moved.append(there.number)

        for i in range(3):
            nursery.start_soon(PokerBot(server.url, f"bot{i}", "sng-bot", seed=i).run)
        nursery.start_soon(director_moves_the_bot)
        argv = ["--url", server.url, "--bot", "--tournament", "sng-bot", "--seed", "3"]
        with trio.fail_after(90):
            code, out = await trio.to_thread.run_sync(_run_main, argv)
        nursery.cancel_scope.cancel()
    assert code == 0, out
    assert "registered for sng-bot" in out and "the tournament seats you at sng-bot." in out
    assert "(tournament chips)" in out and "level 1, blinds 10/20" in out
    assert "sits down with 1,000 chips" in out
    panel = out.split("(tournament chips)")[1].split("wallet $")[0]
    assert "$" not in panel and "1,000" in panel, out  # the table's amounts are chips
    assert f"you were moved to table {moved[0]}" in out
    assert f"you now play at sng-bot.{moved[0]}" in out
    place, prize = next(p for a, p in runner.places.items() if runner.names.get(a) == "bot")
    won = f" and won {money(prize)}" if prize else ""
    assert f"sng-bot: you finished in place {place}{won}; wallet $" in out


async def test_a_person_in_a_terminal_lists_registers_and_plays_a_tournament() -> None:
    """tmux runs the client in a 100x40 pseudo-terminal: typed at the lobby prompt,
    ``tournaments`` lists them, ``register`` enters (``unregister`` withdraws, refunded), and
    once the bots fill the sit-and-go the table is on the live screen with its status line."""
    assert shutil.which("tmux"), "tmux is not installed (run.sh setup_system installs it)"
    sock = f"croupier-tourney-{os.getpid()}"
    async with running_server(_cfg("sng-tty")) as server, trio.open_nursery() as nursery:
        runner = server.croupier.tournaments["sng-tty"]
        command = (
            f"cd {ROOT} && PYTHONPATH={ROOT} {sys.executable} -m server.cli play "
            f"--url {server.url} --name tess; sleep 60"
        )
        await _tmux(sock, "new-session", "-d", "-x", "100", "-y", "40", command)

        async def screen_shows(text: str, seconds: float = 20) -> str:
            screen = ""
            with trio.move_on_after(seconds):
                while text not in (screen := await _tmux(sock, "capture-pane", "-p")):
                    await trio.sleep(0.2)
                return screen
            raise AssertionError(f"{text!r} is not on the screen:\n{screen}")

        try:
            await screen_shows("or tournaments (q to quit)")
            await _tmux(sock, "send-keys", "tournaments", "Enter")
            listed = await screen_shows("0/4 entered, pool $0.00")
            while listed.count("or tournaments (q to quit)") < 2:  # the list, then the prompt
                listed = await screen_shows("0/4 entered, pool $0.00")
            await _tmux(sock, "send-keys", "register sng-tty", "Enter")
            await screen_shows("registered for sng-tty: 1 entered")
            await _tmux(sock, "send-keys", "unregister sng-tty", "Enter")
            # the fee back less the commission (ACT r 19.4)
            await screen_shows("you are not in sng-tty any more; wallet $9,999.00")
            await _tmux(sock, "send-keys", "register sng-tty", "Enter")
            again = await screen_shows("registered for sng-tty: 1 entered")
            while again.count("registered for sng-tty: 1 entered") < 2:
                again = await screen_shows("registered for sng-tty: 1 entered")
            for i in range(3):
                nursery.start_soon(PokerBot(server.url, f"bot{i}", "sng-tty", seed=i).run)
            table = await screen_shows("(tournament chips)")
            while "level ends in" not in table or "hand #1" not in table:
                table = await screen_shows("level ends in")
            final = await screen_shows("sng-tty: you finished in place", 60)
        finally:
            await _tmux(sock, "kill-server")
        nursery.cancel_scope.cancel()
    assert "sng-tty  Bots holdem  (holdem-act, registering, sit & go at 4)" in listed
    assert "entry $11.00 ($1.00 commission), 1,000 chips; 0/4 entered" in listed
    assert "players 3-4; levels 10/20 1m, 20/40 1m" in listed
    assert "sng-tty: running  |  level" in table and re.search(r"[34]/4 left", table)
    assert "you: table" in table and "wallet $9,988.00" in table
    assert "$" not in table.split("(tournament chips)")[1].split("wallet")[0]  # chips only
    assert runner.tournament.phase.value == "complete"
    assert "finished in place" in final
