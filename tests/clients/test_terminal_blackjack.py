"""The terminal client at blackjack tables (clients/terminal/blackjack.py).

Seed 004, Schedule 2 (BJ) and Schedule 15 (SW). Typed commands through a pipe play a
forced round with a split (s25) and a double (s24); the bot mode plays rounds of blackjack
switch, where the prompt lists the legal verbs and the others as "not now".
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import trio

from clients.client import Client
from clients.terminal.blackjack import (
    BlackjackSession,
    default_amount,
    hand_text,
    is_blackjack,
)
from clients.terminal.commands import BadCommand, BankedCommand
from server.config import TableConfig
from tests.clients.support import config
from tests.support import running_server

ROOT = Path(__file__).resolve().parents[2]
SHOE = ["8h", "6c", "8d", "3s", "Kd", "2c", "Tc", "9h"]


def bj_table(game: str = "blackjack", table_id: str = "bj-test") -> TableConfig:
    return TableConfig(
        id=table_id,
        game=game,
        name=f"{game} test",
        options={"minimum": 500, "maximum": 50_000},
        betting_seconds=2.5,
        decision_seconds=20.0,
        seed=5,
    )


def test_totals_defaults_and_games() -> None:
    assert hand_text(["Ah", "6c"]) == "soft 17"
    assert hand_text(["Ah", "6c", "Kd"]) == "17"
    assert hand_text(["Th", "6c", "Kd"]) == "bust 26"
    assert default_amount({"verb": "double", "min": 1, "max": 1000}) == 1000
    assert default_amount({"verb": "insurance", "min": 1, "max": 525}) == 500  # $10 x 2
    assert default_amount({"verb": "follow", "min": 1, "max": 2}) == 1
    assert default_amount({"verb": "split", "amounts": [1000]}) is None
    assert all(map(is_blackjack, ("blackjack", "spanish-blackjack", "blackjack-switch")))
    assert not is_blackjack("baccarat")
    assert BlackjackSession.parse("b 2 main $5") == BankedCommand("back", 2, "main", 500)
    assert BlackjackSession.parse("double") == BankedCommand("decide", None, "double", None)
    with pytest.raises(BadCommand):
        BlackjackSession.parse("b 2 main")


async def _play(url: str, stdin: bytes, *args: str) -> str:
    env = dict(os.environ, COLUMNS="140", PYTHONPATH=str(ROOT))
    proc = await trio.run_process(
        [sys.executable, "-m", "server.cli", "play", "--url", url, *args],
        stdin=stdin,
        capture_stdout=True,
        capture_stderr=True,
        check=False,
        env=env,
        cwd=ROOT,
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, out + proc.stderr.decode()
    return out


async def test_typed_split_double_stand_through_a_pipe() -> None:
    async with (
        running_server(config(bj_table())) as server,
        Client.connect(server.url, name="shoe-fixer") as dealer,
    ):
        await dealer.join("bj-test", role="spectator")
        assert await dealer.dev_force("bj-test", shoe=SHOE) == 1
        with trio.fail_after(60):
            out = await _play(
                server.url,
                # a decision typed first (issue 27, point 2) waits for its box without
                # holding up the wager typed after it; the end of input waits for them
                b"split\nbuy 10\nw 9 main 10\nw 1 main $10\ndouble\nstand\n",
                "--name",
                "pat",
                "--table",
                "bj-test",
            )
    assert "pat: main $10.00 on box 1" in out
    assert "unknown command 'buy' (decisions here: " in out  # every command answered
    assert "no box 9 at this table (boxes 1 to " in out
    assert "decide split waits until your box owes it" in out
    assert "box 1: split $10.00" in out
    assert "box 1: double $10.00" in out  # typed without an amount: the full double
    assert "box 1: stand" in out
    assert "result: box 1 (pat): bet $30.00, paid $60.00, +$30.00" in out


async def test_bot_plays_blackjack_switch_rounds() -> None:
    table = bj_table("blackjack-switch", "sw-test")
    async with running_server(config(table)) as server:
        argv = ["--bot", "--hands", "3", "--table", "sw-test", "--seed", "2"]
        with trio.fail_after(90):
            out = await _play(server.url, b"", *argv)
        money_now = server.croupier.money()
    assert "played 3 rounds" in out
    assert out.count("result: box 1 (bot)") == 3
    assert money_now["issued"] == money_now["wallets"] + money_now["stakes"] + money_now["house"]
