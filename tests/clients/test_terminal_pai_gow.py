"""``croupier play`` at a pai gow table (QLD Sch 6; issue 25 point 1).

``set I J`` sends the box's tiles I and J (positions 1-4 as the decision line numbers them)
as the low hand and the other two as the high hand (s27); ``house`` asks for the house way
(s29(1)). A setting the server refuses (a high hand below the low, s2) leaves the decision
owed. The bot mode sets its tiles both ways and passes over the bank's box 1 (s18(13)).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from clients.client import Client
from clients.terminal.commands import BadCommand, BankedCommand, parse_banked_command
from clients.terminal.render import card_face, numbered_tiles
from server.config import TableConfig
from server.games.banked.pai_gow import key, settings_of
from tests.clients.support import config
from tests.clients.test_terminal import _run_main
from tests.support import running_server

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


class Piped:
    """A ``croupier play`` process driven through pipes: type lines, wait for output."""

    def __init__(self, proc: trio.Process) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.stdin, self.stdout = proc.stdin, proc.stdout
        self.out = b""
        self.mark = 0  # output before this was matched already

    async def type(self, line: str) -> None:
        await self.stdin.send_all(line.encode() + b"\n")

    async def until(self, pattern: bytes) -> re.Match[bytes]:
        """The next match of ``pattern`` after the last one (30 s at most)."""
        with trio.move_on_after(30):
            while True:
                found = re.compile(pattern).search(self.out, self.mark)
                if found:
                    self.mark = found.end()
                    return found
                chunk = await self.stdout.receive_some(65536)
                assert chunk, self.out.decode()
                self.out += chunk
        raise AssertionError(f"{pattern!r} not seen in:\n{self.out.decode()}")

    @property
    def text(self) -> str:
        return self.out.decode()


@contextlib.asynccontextmanager
async def piped(url: str, name: str) -> AsyncIterator[Piped]:
    env = dict(os.environ, COLUMNS="140", PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "server.cli", "play", "--url", url, "--name", name]
    async with trio.open_nursery() as nursery:
        proc: trio.Process = await nursery.start(
            functools.partial(
                trio.run_process,
                [*argv, "--table", TABLE],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                check=False,
                env=env,
                cwd=ROOT,
            )
        )
        yield Piped(proc)


def positions(tiles: list[str], hand: tuple[str, str]) -> tuple[int, int]:
    """The positions (1-4) of ``hand``'s two tiles among ``tiles`` (a tile may come twice)."""
    first = tiles.index(hand[0]) + 1
    second = next(i for i, t in enumerate(tiles, 1) if t == hand[1] and i != first)
    return first, second


DECISION_TILES = rb"box 2: your decision \(set I J or house_way; tiles ([^)\n]*)\)"


def tiles_in(found: re.Match[bytes]) -> list[str]:
    return re.findall(r"\[(\d-\d)\]", found.group(1).decode())


async def test_interactive_set_through_a_pipe() -> None:
    """A refused setting is owed again; then ``set I J`` with the right tiles plays."""
    async with running_server(config(pai_gow_table())) as server:
        with trio.fail_after(90):
            async with piped(server.url, "pat") as pat:
                await pat.until(b"joined Pai gow test as a player")
                await pat.type("w 2 bet 5")
                tiles = tiles_in(await pat.until(DECISION_TILES))
                assert len(tiles) == 4
                ways = settings_of(tiles)
                good = ways[0]
                wrong = next((s for s in ways if key(s.high) > key(s.low)), None)
                if wrong is not None:  # its high hand as the low hand: refused (s2)
                    await pat.type("set {} {}".format(*positions(tiles, wrong.high)))
                    await pat.until(b"ranks below the low hand")
                    await pat.until(b"your decision is still owed")
                await pat.type("set {} {}".format(*positions(tiles, good.low)))
                await pat.until(rb"result: box 2 \(pat\)")
                await pat.type("q")
                await pat.until(b"you left the table")
    text = pat.text
    assert "box 2: set" in text
    assert "pat: bet $5.00 on box 2" in text
    shown = re.findall(r"box 2 shows (\[\d-\d\] \[\d-\d\]) \((high|low): ", text)
    assert {hand for _, hand in shown} == {"high", "low"}
    assert f"[{good.low[0]}] [{good.low[1]}]" in dict((h, c) for c, h in shown)["low"]


async def test_player_banker_sets_the_banks_tiles_through_a_pipe() -> None:
    """s18(2): having played box 2, the player banks there the next round; the bank's
    tiles come to him alone and he sets them on the ``bank`` street (s28(8))."""
    table = dataclasses.replace(
        pai_gow_table(),
        options={
            "minimum": 500,
            "maximum": 50_000,
            "player_banking_enabled": True,
        },
    )
    async with (
        running_server(config(table)) as server,
        Client.connect(server.url, name="bob") as bob,
    ):
        await bob.join(TABLE, seat=3)

        async def bob_plays() -> None:  # a bet on box 3 each round, set the house way
            async for message in bob:
                event = message.get("event") or {}
                if event.get("type") == "betting_open":
                    await bob.send(
                        {"type": "wager", "table": TABLE, "box": 3, "wager": "bet", "amount": 500}
                    )
                elif event.get("type") == "decision" and event.get("box") == 3:
                    await bob.decide(TABLE, 3, "house_way")

        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(bob_plays)
                async with piped(server.url, "pat") as pat:
                    await pat.until(b"joined Pai gow test as a player")
                    await pat.type("w 2 bet 5")
                    await pat.until(DECISION_TILES)
                    await pat.type("house")
                    await pat.until(rb"result: box 2 \(pat\)")
                    await pat.until(rb"round #2: betting open")
                    await pat.type("w 2 bank 50")
                    await pat.until(rb"pat: bank \$50\.00 on box 2")
                    await pat.until(rb"dealer: \[")  # the bank's tiles, to the banker
                    tiles = tiles_in(await pat.until(DECISION_TILES))
                    assert len(tiles) == 4
                    good = settings_of(tiles)[0]
                    await pat.type("set {} {}".format(*positions(tiles, good.low)))
                    await pat.until(rb"result: box 2 \(pat\)")
                    await pat.type("q")
                    await pat.until(b"you left the table")
                nursery.cancel_scope.cancel()
    text = pat.text
    assert "bank street" in text or "bank: boxes 2" in text
    assert f"dealer shows [{good.high[0]}] [{good.high[1]}] (bank high" in text
    assert f"dealer shows [{good.low[0]}] [{good.low[1]}] (bank low" in text
