"""The terminal client shows a player's recalled rounds (``y``) and each round's shuffle
commitment, the next deal's hash and the seed it sends (clients/terminal/history.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import trio

from clients.terminal.commands import Command, parse_banked_command, parse_command
from clients.terminal.history import history_lines
from clients.terminal.render import event_words
from tests.clients.support import Bot, config, holdem_table
from tests.clients.test_terminal import ROOT, TABLE
from tests.support import running_server


def test_history_words() -> None:
    assert parse_command("y") == Command("history")
    assert parse_banked_command("history").kind == "history"
    assert history_lines({"rounds": []}) == ["no rounds of yours at this table yet"]
    lines = history_lines(
        {
            "rounds": [
                {
                    "at": 1764273600000,
                    "game": "holdem-act",
                    "state": "settled",
                    "seat": 1,
                    "stake": 15000,
                    "net": -200,
                    "events": [
                        {"type": "hole_cards_dealt", "seat": 1, "cards": ["As", "Kd"]},
                        {"type": "board_dealt", "cards": ["2c"], "board": ["7h", "8d", "2c"]},
                    ],
                },
                {
                    "at": 1764273600000,
                    "game": "baccarat",
                    "state": "voided",
                    "net": 0,
                    "boxes": {"2": {"player": 500}},
                    "events": [],
                },
            ]
        }
    )
    assert lines[0] == "your last 2 rounds here:"
    assert "your cards As Kd" in lines[1] and "board 7h 8d 2c" in lines[1]
    assert "lost $2.00" in lines[1] and "stake $150.00" in lines[1]
    assert "box 2: player $5.00" in lines[2] and "voided" in lines[2]
    committed = {"type": "commitment", "round": "r", "root": "ab" * 32, "size": 52}
    assert event_words({**committed, "seeds": ["x"]}).startswith(
        "deal committed: root abab"
    )  # issue 23: the deal's Merkle root; no reveal any more
    assert "server hash cdcd" in event_words(
        {"type": "secret_committed", "server_hash": "cd" * 32, "for": "round"}
    )
    assert "your seed 'lucky'" in event_words(
        {"type": "seed_taken", "seed": "lucky", "server_hash": "cd" * 32, "for": "round"}
    )


async def test_terminal_recalls_the_hand_it_played() -> None:
    async with (
        running_server(config(holdem_table(TABLE), round_pause=1.0)) as server,
        trio.open_nursery() as nursery,
    ):
        await nursery.start(Bot(server.url, TABLE, 2).run)
        env = dict(os.environ, COLUMNS="200", PYTHONPATH=str(ROOT))
        argv = [sys.executable, "-m", "server.cli", "play", "--url", server.url, "--name",
                "dora", "--table", TABLE, "--buy-in", "$150"]  # fmt: skip
        with trio.fail_after(90):
            proc = await trio.lowlevel.open_process(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env, cwd=ROOT,
            )  # fmt: skip
            assert proc.stdin is not None and proc.stdout is not None
            output = bytearray()

            async def read() -> None:
                assert proc.stdout is not None
                async for chunk in proc.stdout:
                    output.extend(chunk)

            async with trio.open_nursery() as io:
                io.start_soon(read)
                await proc.stdin.send_all(b"f\n")
                while output.count(b"deal committed") < 2:  # the next hand: this one ended
                    await trio.sleep(0.05)
                await proc.stdin.send_all(b"y\n")
                while b"rounds here" not in output:
                    await trio.sleep(0.05)
                await proc.stdin.send_all(b"q\n")
                await proc.stdin.aclose()
                await proc.wait()
        out = output.decode()
        nursery.cancel_scope.cancel()
    assert proc.returncode == 0, out
    assert "deal committed" in out and "your seed" in out  # its own random seed was taken
    assert "rounds here:" in out, out  # the hand it folded (and the next, in play)
    assert "your cards" in out.split("rounds here:")[1]
