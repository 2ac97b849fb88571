"""The terminal client's poker room (clients/terminal/room.py): room commands, and a real
``croupier play`` process on two tables at once from one connection, switching between them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from clients.terminal.commands import BadCommand, Command
from clients.terminal.room import parse_room_command
from tests.clients.support import Bot, config, holdem_table, running_server

ROOT = Path(__file__).resolve().parents[2]


def test_room_commands_parse() -> None:
    assert parse_room_command("join holdem-b") == Command("join", "holdem-b", None)
    assert parse_room_command("join holdem-b 3") == Command("join", "holdem-b", 3)
    assert parse_room_command("go holdem-b") == Command("go", "holdem-b", None)
    assert parse_room_command("tables") == Command("tables")
    assert parse_room_command("pre cf") == Command("pre", "check_fold")
    assert parse_room_command("pre c 4") == Command("pre", "call", 400)  # dollars
    assert parse_room_command("pre ca") == Command("pre", "call_any")
    assert parse_room_command("pre x") == Command("pre", None)
    assert parse_room_command("wait holdem-a any") == Command("wait", "holdem-a", 1)
    assert parse_room_command("blind wait") == Command("blind", "wait")
    assert parse_room_command("f") == Command("act", "fold")  # table commands as before
    for bad in ("pre", "pre c", "pre zz", "go", "join a b", "blind", "blind x"):
        with pytest.raises(BadCommand):
            parse_room_command(bad)


async def test_terminal_plays_two_tables_from_one_connection_and_switches() -> None:
    """``join ID`` sits at a second table on the same connection (bought in on its
    snapshot), ``tables`` lists both, ``go ID`` switches, and a fold typed there is played
    at that table's turn; ``q`` leaves both."""
    a, b = holdem_table("holdem-a", seats=2), holdem_table("holdem-b", seats=2)
    async with (
        running_server(config(a, b, round_pause=0.5)) as server,
        trio.open_nursery() as nursery,
    ):
        await nursery.start(Bot(server.url, "holdem-a", 2).run)
        await nursery.start(Bot(server.url, "holdem-b", 2).run)
        env = dict(os.environ, COLUMNS="120", PYTHONPATH=str(ROOT))
        argv = [sys.executable, "-m", "server.cli", "play", "--url", server.url]
        argv += ["--name", "dora", "--table", "holdem-a", "--buy-in", "$150"]
        with trio.fail_after(60):
            proc = await trio.lowlevel.open_process(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=ROOT,
            )
            assert proc.stdin is not None and proc.stdout is not None
            out = b""

            async def read() -> None:
                nonlocal out
                assert proc.stdout is not None
                async for chunk in proc.stdout:
                    out += chunk

            nursery.start_soon(read)

            async def say(line: str, then: float) -> None:
                assert proc.stdin is not None
                await proc.stdin.send_all(line.encode() + b"\n")
                await trio.sleep(then)

            await trio.sleep(2.0)
            await say("join holdem-b", 2.0)
            await say("tables", 0.5)
            await say("go holdem-b", 0.5)
            await say("f", 4.0)
            await say("q", 0.0)
            await proc.stdin.aclose()
            await proc.wait()
            await trio.sleep(0.2)
        text = out.decode()
        nursery.cancel_scope.cancel()
    assert proc.returncode == 0, text
    assert "buy-in $40.00 or more; you are dealt in at the next hand" in text
    flat = " ".join(text.split())  # the console wraps long lines
    assert "3 hands without playing at a full table vacate the seat" in flat  # ACT 18.8
    assert "joined holdem-b as seat 1" in text
    assert "[holdem-b] buying in for" in text
    assert "holdem-a: seat 1 (player)" in text and "holdem-b: seat 1 (player)" in text
    assert "now at holdem-b" in text
    assert "[holdem-b] dora (you) folds" in text  # typed while at holdem-b, played there
