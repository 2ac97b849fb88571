"""``croupier play`` at a pai gow table (QLD Sch 6; issue 25 point 1).

``set I J`` sends the box's tiles I and J (positions 1-4 as the decision line numbers them)
as the low hand and the other two as the high hand (s27); ``house`` asks for the house way
(s29(1)). A setting the server refuses (a high hand below the low, s2) leaves the decision
owed. The bot mode sets its tiles both ways and passes over the bank's box 1 (s18(13)).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from clients.terminal.commands import BadCommand, BankedCommand, parse_banked_command
from clients.terminal.render import card_face, numbered_tiles
from server.config import TableConfig
from server.games.banked.pai_gow import key, settings_of
from tests.clients.support import config, running_server
from tests.clients.test_terminal import _run_main

TABLE = "pg-test"
ROOT = Path(__file__).resolve().parents[2]


def pai_gow_table() -> TableConfig:
    return TableConfig(
        id=TABLE,
        game="pai-gow",
        name="Pai gow test",
        options={"minimum": 500, "maximum": 50_000},
        betting_seconds=2.0,
        decision_seconds=30.0,
        seed=7,
    )


def test_set_and_house_commands_parse() -> None:
    assert parse_banked_command("set 1 3") == BankedCommand("decide", None, "set", low=(1, 3))
    assert parse_banked_command("d 4 set 2 4") == BankedCommand("decide", 4, "set", low=(2, 4))
    assert parse_banked_command("house") == BankedCommand("decide", None, "house_way")
    assert parse_banked_command("house_way") == BankedCommand("decide", None, "house_way")
    for bad in ("set", "set 1", "set 1 1", "set 0 2", "set 1 5", "set 1 2 3"):
        with pytest.raises(BadCommand):
            parse_banked_command(bad)
    cmd = BankedCommand("decide", None, "set", low=(1, 3))
    assert cmd.setting(["6-6", "4-5", "1-1", "2-3"]) == {
        "high": ["4-5", "2-3"],
        "low": ["6-6", "1-1"],
    }
    assert card_face("1-3") == "[1-3]"
    assert numbered_tiles(["6-6", "1-3"]) == "1 [6-6]  2 [1-3]"


async def test_bot_mode_sets_tiles_at_a_pai_gow_table() -> None:
    async with running_server(config(pai_gow_table())) as server:
        argv = ["--url", server.url, "--bot", "--hands", "3", "--table", TABLE, "--seed", "2"]
        with trio.fail_after(120):
            code, out = await trio.to_thread.run_sync(_run_main, argv)
        table = server.croupier.tables[TABLE]
        money_now = server.croupier.money()
    assert code == 0, out
    assert "played 3 rounds" in out
    assert out.count("result: box 2 (bot)") == 3  # box 1 is the bank's
    assert "dealer shows" in out and "bank low" in out
    assert table.members == {}
    assert money_now["issued"] == (
        money_now["wallets"] + money_now["stakes"] + money_now["commission"] + money_now["house"]
    )


async def test_interactive_set_through_a_pipe() -> None:
    """A refused setting is owed again; then ``set I J`` with the right tiles plays."""
    async with running_server(config(pai_gow_table())) as server:
        env = dict(os.environ, COLUMNS="140", PYTHONPATH=str(ROOT))
        argv = [sys.executable, "-m", "server.cli", "play", "--url", server.url]
        argv += ["--name", "pat", "--table", TABLE]
        out = b""
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                proc: trio.Process = await nursery.start(
                    functools.partial(
                        trio.run_process,
                        argv,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                        check=False,
                        env=env,
                        cwd=ROOT,
                    )
                )
                assert proc.stdin is not None and proc.stdout is not None
                stdout = proc.stdout

                async def until(pattern: bytes) -> re.Match[bytes]:
                    nonlocal out
                    with trio.move_on_after(30) as scope:
                        while True:
                            found = re.search(pattern, out)
                            if found:
                                return found
                            chunk = await stdout.receive_some(65536)
                            assert chunk, out.decode()
                            out += chunk
                    assert not scope.cancelled_caught, (pattern, out.decode())
                    raise AssertionError("unreachable")

                await until(b"joined Pai gow test as a player")
                await proc.stdin.send_all(b"w 2 bet 5\n")
                line = await until(rb"your decision \(set I J or house_way; tiles ([^)\n]*)\)")
                tiles = re.findall(r"\[(\d-\d)\]", line.group(1).decode())
                assert len(tiles) == 4
                ways = settings_of(tiles)
                good = ways[0]
                low = [tiles.index(good.low[0]) + 1]
                low.append(
                    next(i for i, t in enumerate(tiles, 1) if t == good.low[1] and i != low[0])
                )
                wrong = next((s for s in ways if key(s.high) > key(s.low)), None)
                if wrong is not None:  # its high hand as the low hand: refused (s2)
                    bad = [tiles.index(wrong.high[0]) + 1]
                    bad.append(
                        next(
                            i for i, t in enumerate(tiles, 1) if t == wrong.high[1] and i != bad[0]
                        )
                    )
                    await proc.stdin.send_all(f"set {bad[0]} {bad[1]}\n".encode())
                    await until(b"ranks below the low hand")
                    await until(b"your decision is still owed")
                await proc.stdin.send_all(f"set {low[0]} {low[1]}\n".encode())
                await until(rb"result: box 2 \(pat\)")
                await proc.stdin.send_all(b"q\n")
                await until(b"you left the table")
    text = out.decode()
    assert "box 2: set" in text
    assert "pat: bet $5.00 on box 2" in text
    shown = re.findall(r"box 2 shows (\[\d-\d\] \[\d-\d\]) \((high|low): ", text)
    assert {hand for _, hand in shown} == {"high", "low"}
    assert f"[{good.low[0]}] [{good.low[1]}]" in dict((h, c) for c, h in shown)["low"]
