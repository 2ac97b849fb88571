"""The terminal client's poker room (clients/terminal/room.py): room commands, and a real
``croupier play`` process playing two tables from one connection (switching between them)
and taking a seat offered from a waiting list."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client
from clients.terminal.commands import BadCommand, Command
from clients.terminal.room import parse_room_command
from tests.clients.support import Bot, config, holdem_table
from tests.support import running_server

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


async def play(
    url: str, table: str, script: list[tuple[str | Callable[[], Awaitable[Any]], float]]
) -> tuple[int, str]:
    """Run ``croupier play`` at ``table`` as dora, type ``script`` (a line, or a coroutine
    function to run meanwhile, then seconds to wait), end with ``q``; exit code and output."""
    env = dict(os.environ, COLUMNS="120", PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "server.cli", "play", "--url", url]
    argv += ["--name", "dora", "--table", table, "--buy-in", "$150"]
    out = b""
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

        async def read() -> None:
            nonlocal out
            assert proc.stdout is not None
            async for chunk in proc.stdout:
                out += chunk

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            await trio.sleep(2.0)
            for step, then in [*script, ("q", 0.0)]:
                if isinstance(step, str):
                    await proc.stdin.send_all(step.encode() + b"\n")
                else:
                    await step()
                await trio.sleep(then)
            await proc.stdin.aclose()
            await proc.wait()
    return proc.returncode, out.decode()


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
        script = [("join holdem-b", 2.0), ("tables", 0.5), ("go holdem-b", 0.5), ("f", 4.0)]
        code, text = await play(server.url, "holdem-a", script)
        nursery.cancel_scope.cancel()
    assert code == 0, text
    assert "buy-in $40.00 or more; you are dealt in at the next hand" in text
    flat = " ".join(text.split())  # the console wraps long lines
    assert "3 hands without playing at a full table vacate the seat" in flat  # ACT 18.8
    assert "joined holdem-b as seat 1" in text
    assert "[holdem-b] buying in for" in text
    assert "holdem-a: seat 1 (player)" in text and "holdem-b: seat 1 (player)" in text
    assert "now at holdem-b" in text
    assert "[holdem-b] dora (you) folds" in text  # typed while at holdem-b, played there


async def test_terminal_waits_for_a_full_table_and_takes_the_seat_offered() -> None:
    """``wait ID`` joins a full table's waiting list; when a seat frees the offer is shown
    with its time, and ``accept`` takes it (a second table on the same connection)."""
    a, full = holdem_table("holdem-a", seats=2), holdem_table("holdem-full", seats=2)
    async with (
        running_server(config(a, full, seat_offer_time=20.0)) as server,
        trio.open_nursery() as nursery,
    ):
        await nursery.start(Bot(server.url, "holdem-a", 2).run)
        leaver = await nursery.start(_sitter, server.url, "holdem-full", 1)
        await nursery.start(_sitter, server.url, "holdem-full", 2)

        async def free_a_seat() -> None:
            await leaver.send({"type": "leave", "table": "holdem-full"})

        script = [("wait holdem-full", 1.0), (free_a_seat, 1.5), ("accept", 2.0), ("tables", 0.5)]
        code, text = await play(server.url, "holdem-a", script)
        nursery.cancel_scope.cancel()
    assert code == 0, text
    assert "waiting lists: holdem-full #1" in text
    assert "seat 1 at holdem-full is yours for 20 s: type accept" in text
    assert "joined holdem-full as seat 1" in text
    assert "holdem-full: seat 1 (player)" in text


async def _sitter(
    url: str, table: str, seat: int, task_status: Any = trio.TASK_STATUS_IGNORED
) -> None:
    """A player who holds a seat (no stake) until cancelled."""
    async with Client.connect(url, name=f"p{seat}") as client:
        await client.join(table, seat=seat)
        task_status.started(client)
        await trio.sleep_forever()
