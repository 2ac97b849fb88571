"""``croupier play``: the terminal client against an in-process server.

The bot mode runs in-process (``main(argv)`` in a worker thread: its own ``trio.run``); the
interactive mode runs as a real ``croupier play`` process whose stdin and stdout are pipes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from rich.console import Console

from clients import terminal
from clients.client import Pace, TableView
from clients.terminal.commands import (
    HELP,
    BadCommand,
    BankedCommand,
    Command,
    check_action,
    game_help,
    parse_amount,
    parse_banked_command,
    parse_command,
)
from clients.terminal.hand import Hand, SeatHand
from clients.terminal.poker import POKER_GAME, buy_in_amount
from clients.terminal.render import card_text, event_words, money, plain_cards, recall_text
from clients.terminal.session import LineEditor, Session, command_loop
from clients.terminal.stadium import parse_stadium_command
from server.config import TableConfig
from tests.clients.support import Bot, config, holdem_table
from tests.support import running_server

TABLE = "holdem-test"
ROOT = Path(__file__).resolve().parents[2]


# -- pure parts --------------------------------------------------------------------------------
def test_typed_amounts_are_dollars() -> None:
    assert parse_amount("4") == 400
    assert parse_amount("$4") == 400
    assert parse_amount("4.5") == 450
    assert parse_amount("$1,234.05") == 123405
    for bad in ("4.123", "-5", "abc"):
        with pytest.raises(BadCommand):
            parse_amount(bad)
    assert money(123405) == "$1,234.05"
    assert money(-50) == "-$0.50"


def test_commands_map_to_protocol_verbs() -> None:
    assert parse_command("f") == Command("act", "fold")
    assert parse_command("k") == Command("act", "check")
    assert parse_command("c") == Command("act", "call")
    assert parse_command("a") == Command("act", "allin")
    assert parse_command("b 4") == Command("act", "bet", 400)
    assert parse_command("r $8") == Command("act", "raise", 800)
    assert parse_command("r 6") == Command("act", "raise", 600)  # six dollars, not six cents
    assert parse_command("buy 50") == Command("buy", amount=5000)
    assert parse_command("q") == Command("quit")
    assert parse_command("  ") is None
    for bad in ("b", "r x", "x", "f 100", "buy", "r 6.555"):
        with pytest.raises(BadCommand):
            parse_command(bad)


def test_actions_are_checked_against_the_legal_bounds_the_server_sent() -> None:
    legal = {"fold": {}, "call": {"amount": 200}, "raise": {"min": 400, "max": 10000}}
    assert check_action(Command("act", "call"), legal) is None
    assert check_action(Command("act", "raise", 400), legal) is None
    assert "between $4.00 and $100.00" in (check_action(Command("act", "raise", 300), legal) or "")
    assert "not possible" in (check_action(Command("act", "check"), legal) or "")
    sized = {"bet": {"min": 200, "max": 400, "sizes": [200, 400]}}
    assert check_action(Command("act", "bet", 300), sized) is not None
    assert check_action(Command("act", "bet", 400), sized) is None


def test_buy_in_stays_within_the_table_limits() -> None:
    assert buy_in_amount({"min_buy_in": 4000, "max_buy_in": None}) == 20000
    assert buy_in_amount({"min_buy_in": 4000, "max_buy_in": 10000}) == 10000
    assert buy_in_amount({"min_buy_in": 4000, "max_buy_in": None}, 0, 100) == 4000
    assert buy_in_amount({"min_buy_in": 4000, "max_buy_in": 40000}, 1000) == 19000  # top up
    assert buy_in_amount({"min_buy_in": 4000, "max_buy_in": 40000}, 38000, 5000) == 2000
    assert buy_in_amount({"min_buy_in": 4000, "max_buy_in": 40000}, 30000) == 0


def test_hand_folds_round_events_into_stacks_bets_board_and_result() -> None:
    hand = Hand(number=1)
    hand.seats = {1: SeatHand(stack=1000), 2: SeatHand(stack=1000)}
    for ev in (
        {"type": "blind_posted", "seat": 1, "kind": "blind1", "amount": 100, "stack": 900},
        {"type": "blind_posted", "seat": 2, "kind": "blind2", "amount": 200, "stack": 800},
        {"type": "hole_cards_dealt", "seat": 1, "cards": ["As", "Kd"]},
        {
            "type": "action_taken",
            "seat": 1,
            "verb": "raise",
            "amount": 500,
            "total": 600,
            "stack": 400,
        },
        {
            "type": "action_taken",
            "seat": 2,
            "verb": "fold",
            "amount": 0,
            "total": 200,
            "stack": 800,
        },
        {"type": "uncalled_returned", "seat": 1, "amount": 400},
    ):
        hand.apply(ev)
    assert hand.seats[1].cards == ["As", "Kd"] and hand.seats[2].folded
    assert hand.pot == 400 and hand.seats[1].stack == 800
    hand.apply(
        {
            "type": "pot_awarded",
            "pot": 0,
            "amount": 400,
            "winners": [1],
            "shares": {"1": 400},
            "commission": 0,
        }
    )
    hand.apply({"type": "round_ended", "stacks": {"1": 1200, "2": 800}})
    assert hand.ended and hand.seats[1].stack == 1200 and hand.seats[1].won == 400


# -- against a server --------------------------------------------------------------------------
def _run_main(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = terminal.main(argv)
    return code, out.getvalue()


async def test_bot_mode_joins_plays_three_hands_and_leaves() -> None:
    async with (
        running_server(config(holdem_table(TABLE))) as server,
        trio.open_nursery() as nursery,
    ):
        opponent = Bot(server.url, TABLE, 1, passive=False, seed=3)
        await nursery.start(opponent.run)
        argv = ["--url", server.url, "--bot", "--hands", "3", "--table", TABLE, "--seed", "1"]
        with trio.fail_after(90):
            code, out = await trio.to_thread.run_sync(_run_main, argv)
        table = server.croupier.tables[TABLE]
        assert code == 0, out
        assert "played 3 hands" in out
        assert table.hand >= 3
        assert "hand #1" in out and "hand over" in out
        # it left: only the opponent is seated, and every cent is accounted for
        assert sorted(table.seats) == [1]
        money_now = server.croupier.money()
        assert (
            money_now["wallets"] + money_now["stakes"] + money_now["commission"]
            == money_now["issued"]
        )
        nursery.cancel_scope.cancel()
    assert opponent.errors == []


async def test_interactive_mode_through_a_pipe_join_fold_quit() -> None:
    async with (
        running_server(config(holdem_table(TABLE), round_pause=1.0)) as server,
        trio.open_nursery() as nursery,
    ):
        await nursery.start(Bot(server.url, TABLE, 2).run)
        env = dict(os.environ, COLUMNS="100", PYTHONPATH=str(ROOT))
        with trio.fail_after(90):
            proc = await trio.run_process(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "play",
                    "--url",
                    server.url,
                    "--name",
                    "carol",
                    "--table",
                    TABLE,
                    "--buy-in",
                    "$150",
                ],
                stdin=b"f\n",  # then the end of the input: the fold waits for its turn
                capture_stdout=True,
                capture_stderr=True,
                check=False,
                env=env,
                cwd=ROOT,
            )
        out = proc.stdout.decode()
        nursery.cancel_scope.cancel()
    assert proc.returncode == 0, out + proc.stderr.decode()
    assert "connected as carol" in out
    assert "Tables" in out and TABLE in out  # the lobby list
    assert "joined" in out and "seat 1" in out
    assert "bought in for $150.00" in out
    assert "your cards:" in out  # own hole cards, as text
    assert "carol (you) folds" in out  # the piped fold, played at its turn
    assert "you left the table: $" in out  # end of input: leave, stake back to the wallet


async def test_interactive_mode_picks_a_table_from_the_lobby_and_watches() -> None:
    async with (
        running_server(config(holdem_table(TABLE), round_pause=1.0)) as server,
        trio.open_nursery() as nursery,
    ):
        await nursery.start(Bot(server.url, TABLE, 2).run)
        await nursery.start(Bot(server.url, TABLE, 3).run)
        env = dict(os.environ, COLUMNS="100", PYTHONPATH=str(ROOT))
        with trio.fail_after(90):
            proc = await trio.run_process(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "play",
                    "--url",
                    server.url,
                    "--name",
                    "dan",
                    "--watch",
                ],
                stdin=b"nope\n1\nf\nq\n",
                capture_stdout=True,
                capture_stderr=True,
                check=False,
                env=env,
                cwd=ROOT,
            )
        out = proc.stdout.decode()
        nursery.cancel_scope.cancel()
    assert proc.returncode == 0, out + proc.stderr.decode()
    assert "table number or id" in out
    assert "no table 'nope'" in out
    assert "joined Hold'em $1/$2 test table as a spectator" in out
    assert "spectators cannot act" in out
    assert "your cards:" not in out  # a spectator sees no hole cards
    assert "you left the table: $0.00" in out


async def test_server_shutdown_returns_the_stake_and_ends_the_client() -> None:
    """The server stops (voiding any round): the seat is cashed out and the client exits."""
    env = dict(os.environ, COLUMNS="100", PYTHONPATH=str(ROOT))
    async with trio.open_nursery() as outer:
        async with running_server(config(holdem_table(TABLE))) as server:
            await outer.start(Bot(server.url, TABLE, 2).run)
            proc = await trio.lowlevel.open_process(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "play",
                    "--url",
                    server.url,
                    "--name",
                    "erin",
                    "--table",
                    TABLE,
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=ROOT,
            )
            output = bytearray()

            async def read_until(text: bytes) -> None:
                while text not in output:
                    chunk = await proc.stdout.receive_some(4096)
                    assert chunk, output.decode()
                    output.extend(chunk)

            with trio.fail_after(60):
                await read_until(b"hand #")  # seated, bought in, playing
        # the server has shut down (running_server's exit); stdin is still open
        with trio.fail_after(30):
            while chunk := await proc.stdout.receive_some(4096):
                output.extend(chunk)
            code = await proc.wait()
        await proc.stdin.aclose()
        outer.cancel_scope.cancel()
    out = output.decode()
    assert "the table is closing" in out
    # Either the voided round and the ``left`` message arrive before the close (the
    # protocol's promise), or the connection closes with 1001 first; both end cleanly.
    assert (
        "you left the table" in out and "(shutdown)" in out
    ) or "the server shut down (1001)" in out, out
    assert code == 0, out


def test_only_player_vs_player_poker_tables_are_played() -> None:
    for game in ("holdem-act", "omaha-act", "manila-act", "holdem-qld", "omaha-qld", "manila-qld"):
        assert POKER_GAME.match(game)
    for game in ("holdem-bonus", "three-card-poker", "caribbean-stud", "casino-war"):
        assert not POKER_GAME.match(game)


# -- banked tables ------------------------------------------------------------------------------
BANKED = "tcp-test"


def banked_table() -> TableConfig:
    return TableConfig(
        id=BANKED,
        game="three-card-poker",
        name="Three card poker test",
        options={"minimum": 500, "maximum": 50_000},
        betting_seconds=2.5,
        decision_seconds=20.0,
        seed=5,
    )


def test_banked_commands_parse() -> None:
    assert parse_banked_command("w 2 ante 5") == BankedCommand("wager", 2, "ante", 500)
    assert parse_banked_command("w 2 pair_plus $5") == BankedCommand("wager", 2, "pair_plus", 500)
    assert parse_banked_command("w 2 ante 0") == BankedCommand("wager", 2, "ante", 0)
    assert parse_banked_command("bet") == BankedCommand("decide", None, "bet", None)
    assert parse_banked_command("d 3 raise 10") == BankedCommand("decide", 3, "raise", 1000)
    assert parse_banked_command("l") == BankedCommand("recall")
    for bad in ("w 2 ante", "w x ante 5", "d 3", "bet 1 2", "w 2 ante -5"):
        with pytest.raises(BadCommand):
            parse_banked_command(bad)
    assert recall_text(None) == "no previous round at this table"
    assert (
        recall_text({"round": 4, "bet_total": 1500, "paid_total": 2000, "net": 500})
        == "last round #4: bet $15.00, paid $20.00, won $5.00"
    )


async def test_bot_mode_plays_rounds_at_a_banked_table() -> None:
    """QLD Sch 19: wagers in the betting window, a decision per street, then the result."""
    async with running_server(config(holdem_table(TABLE), banked_table())) as server:
        argv = ["--url", server.url, "--bot", "--hands", "2", "--table", BANKED, "--seed", "4"]
        with trio.fail_after(90):
            code, out = await trio.to_thread.run_sync(_run_main, argv)
        table = server.croupier.tables[BANKED]
        money_now = server.croupier.money()
    assert code == 0, out
    assert "played 2 rounds" in out
    assert out.count("result: box 1 (bot)") == 2
    assert "no more bets" in out and "dealer shows" in out
    assert table.members == {}  # it left
    assert (
        money_now["issued"]
        == money_now["wallets"]
        + money_now["stakes"]
        + money_now["commission"]
        + money_now["house"]
        + money_now["jackpot_contributed"]
        - money_now["jackpot_paid"]
    )


async def test_interactive_banked_round_through_a_pipe() -> None:
    async with running_server(config(holdem_table(TABLE), banked_table())) as server:
        env = dict(os.environ, COLUMNS="100", PYTHONPATH=str(ROOT))
        with trio.fail_after(90):
            proc = await trio.run_process(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "play",
                    "--url",
                    server.url,
                    "--name",
                    "pat",
                    "--table",
                    BANKED,
                ],
                stdin=b"w 2 ante 5\nw 2 pair_plus $5\nbet\n",  # the end of input waits for it
                capture_stdout=True,
                capture_stderr=True,
                check=False,
                env=env,
                cwd=ROOT,
            )
    out = proc.stdout.decode()
    assert proc.returncode == 0, out + proc.stderr.decode()
    assert "joined Three card poker test as a player" in out
    assert "pat: ante $5.00 on box 2" in out and "pat: pair_plus $5.00 on box 2" in out
    assert out.count("pat: ante $5.00 on box 2") == 1  # each typed wager sent once
    assert "box 2: bet $5.00" in out  # the decision, at its moment
    assert "result: box 2 (pat): bet $15.00" in out
    assert "you left the table" in out


# -- the full-screen display, in a real terminal (tmux) ----------------------------------------
async def _tmux(sock: str, *args: str) -> str:
    proc = await trio.run_process(
        ["tmux", "-L", sock, *args], capture_stdout=True, capture_stderr=True, check=False
    )
    return proc.stdout.decode()


async def test_the_live_screen_redraws_in_place_in_a_terminal() -> None:
    """Typed commands and events never stack copies of the table: one header after 20 inputs.

    The client runs in a 100x40 tmux pane (a real pseudo-terminal) against a server on
    127.0.0.1 with an opponent, so hands are dealt while the inputs arrive.
    """
    assert shutil.which("tmux"), "tmux is not installed (run.sh setup_system installs it)"
    sock = f"croupier-test-{os.getpid()}"
    name = "Hold'em $1/$2 test table"
    async with (
        running_server(config(holdem_table(TABLE), round_pause=0.3)) as server,
        trio.open_nursery() as nursery,
    ):
        await nursery.start(Bot(server.url, TABLE, 2).run)
        command = (
            f"cd {ROOT} && PYTHONPATH={ROOT} {sys.executable} -m server.cli play "
            f"--url {server.url} --name tess --table {TABLE} --buy-in 100"
        )
        await _tmux(sock, "new-session", "-d", "-x", "100", "-y", "40", command)
        try:
            with trio.fail_after(60):
                while "hand #" not in await _tmux(sock, "capture-pane", "-p"):
                    await trio.sleep(0.2)
            inputs = ["k", "c", "t", "zz", "b 4", "c", "r 6.555", "k", "t", "c"] * 2
            for line in inputs:
                await _tmux(sock, "send-keys", line, "Enter")
                await trio.sleep(0.15)
            await _tmux(sock, "send-keys", "last-line")  # typed, not yet entered
            with trio.fail_after(20):
                while "> last-line" not in (screen := await _tmux(sock, "capture-pane", "-p")):
                    await trio.sleep(0.2)
            assert screen.count(name) == 1, screen  # the panel's title, drawn once
            assert len(screen.splitlines()) <= 40
            assert "unknown command 'zz'" in screen, screen  # the log, under the table
            assert "at most two decimals" in screen
            assert "\u2665" in screen or "\u2660" in screen or "\u2666" in screen  # suits
        finally:
            await _tmux(sock, "kill-server")
        nursery.cancel_scope.cancel()


def test_line_editor_turns_keystrokes_into_lines() -> None:
    editor = LineEditor()
    assert editor.feed(b"r 6") == [] and editor.buffer == "r 6"
    assert editor.feed(b"x\x7f.5\r") == ["r 6.5"] and editor.buffer == ""
    assert editor.feed(b"\x1b[Ak\n") == ["k"]  # an arrow key is ignored
    assert editor.feed(b"junk\x15c\r") == ["c"]  # Ctrl-U clears the line
    assert editor.feed("b $4\u2665".encode()[:-1]) == []  # half a UTF-8 character waits
    assert editor.feed(b"\x04") == []  # Ctrl-D ends the input on an empty line only
    editor.buffer = ""
    assert editor.feed(b"\x04") == [None]
    assert editor.feed(b"1\n") == ["1"]  # cooked mode (the lobby): whole lines


def test_every_event_is_words_and_cards_look_the_same_everywhere() -> None:
    line = event_words({"type": "jackpot_wager_accepted", "box": 2, "amount": 100, "round": 3})
    assert line == "jackpot wager accepted: box 2, $1.00"
    assert plain_cards(["2d", "Jd", "Ts"]) == "2\u2666 J\u2666 10\u2660"
    assert card_text(["2d", "Jd", "Ts"]).plain == plain_cards(["2d", "Jd", "Ts"])
    help_text = game_help(
        {
            "name": "TCP",
            "game": "three-card-poker",
            "wagers": [
                {"name": "ante", "initial": True, "required": True, "doc": "s14(a)"},
                {"name": "pair_plus", "initial": True, "doc": "s14(b); only with an ante (s28)"},
                {"name": "bet", "initial": False, "doc": "exactly 1 x ante, s17(4)-(5)"},
            ],
            "verbs": ["bet", "fold", "timeout", "insufficient"],
        }
    )
    assert "ante" in help_text and "decisions you type: bet, fold" in help_text
    assert "timeout" not in help_text and "``" not in help_text + HELP
    # the rule numbers are for staff and the logs (issue 27, point 2)
    assert "only with an ante" in help_text and "exactly 1 x ante" in help_text
    assert "s14" not in help_text and "s17" not in help_text and "s28" not in help_text


class _SlowClient:
    """A client under a message limit of 2 a second (the client keeps to 1.6, one at once)
    whose every send also takes 0.3 s."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.pace = Pace(2.0, 2.0)
        self.left = trio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        await self.pace.take()
        await trio.sleep(0.3)
        self.sent.append(message)
        if message["type"] == "leave":
            self.left.set()


class _Typist(Session):
    """A session whose play commands are each one send (``$ 1`` -> a credit)."""

    @staticmethod
    def parse(line: str) -> Any:
        return parse_stadium_command(line)

    async def on_play_command(self, cmd: Any) -> None:
        await self.client.send({"type": "credit_in", "amount": cmd.amount})

    async def leave(self) -> None:
        await self.client.send({"type": "leave"})
        self.done.set()


def _typist() -> tuple[_Typist, _SlowClient, io.StringIO]:
    client, out = _SlowClient(), io.StringIO()
    view = TableView({"table": "t", "role": "player", "seat": 1, "seq": 0, "view": {}})
    console = Console(file=out, width=100)
    return _Typist(client, view, console, live=False), client, out  # type: ignore[arg-type]


async def test_a_slow_send_is_never_cancelled_and_every_typed_line_is_sent(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Issue 27, point 1: each line is sent to its end however long its send waits (the old
    loop cancelled a line after 0.25 s without a word)."""
    player, client, out = _typist()
    put, lines = trio.open_memory_channel[str | None](100)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(command_loop, player, lines)
        for _ in range(20):
            await put.send("$ 1")
            await trio.sleep(0.2)  # typed while the one before is still being sent
        await put.send(None)  # the end of the input
    assert [m["type"] for m in client.sent] == ["credit_in"] * 20 + ["leave"]
    assert "commands queued" in out.getvalue() and "queued commands sent" in out.getvalue()


async def test_q_leaves_at_once_and_says_what_it_dropped(
    autojump_clock: trio.testing.MockClock,
) -> None:
    player, client, out = _typist()
    put, lines = trio.open_memory_channel[str | None](100)
    for line in ["$ 1"] * 5 + ["zz", "q"]:
        put.send_nowait(line)
    start = trio.current_time()
    await command_loop(player, lines)
    assert [m["type"] for m in client.sent] == ["credit_in", "leave"]  # the one in hand
    assert trio.current_time() - start < 2.0  # not the 3 s and more the five would take
    text = out.getvalue()
    assert "unknown command 'zz'" in text  # refused at once, with a line
    assert "q: 4 queued commands dropped" in text


async def test_an_early_decision_never_blocks_the_terminal_at_a_banked_table() -> None:
    """Issue 27, point 2, in a real terminal (tmux): a decision typed while betting is open
    waits for its box without holding up the wager typed after it; commands that cannot be
    played are refused with a line; ``q`` leaves at once, saying what it dropped."""
    assert shutil.which("tmux"), "tmux is not installed (run.sh setup_system installs it)"
    sock = f"croupier-early-{os.getpid()}"
    table = dataclasses.replace(banked_table(), betting_seconds=6.0)  # room to type in
    async with running_server(config(holdem_table(TABLE), table)) as server:
        command = (
            f"cd {ROOT} && PYTHONPATH={ROOT} {sys.executable} -m server.cli play "
            f"--url {server.url} --name ezra --table {BANKED}"
        )
        await _tmux(sock, "new-session", "-d", "-x", "120", "-y", "45", command)
        await _tmux(sock, "set-option", "-t", "0", "remain-on-exit", "on")
        tcp = server.croupier.tables[BANKED]
        try:
            with trio.fail_after(60):
                while "betting open" not in await _tmux(sock, "capture-pane", "-p"):
                    await trio.sleep(0.2)
            keys = ["bet", "Enter", "buy 10", "Enter", "w 9 ante 5", "Enter"]
            await _tmux(sock, "send-keys", *keys, "w 2 ante 5", "Enter")
            with trio.fail_after(30):
                while "ezra: ante $5.00 on box 2" not in (
                    screen := await _tmux(sock, "capture-pane", "-p")
                ):
                    await trio.sleep(0.2)
            assert "decide bet waits until your box owes it" in screen, screen
            assert "unknown command 'buy' (decisions here: " in screen, screen
            assert "no box 9 at this table (boxes 1 to " in screen, screen
            with trio.fail_after(30):  # the early decision, played at its moment
                while "box 2: bet $5.00" not in (screen := await _tmux(sock, "capture-pane", "-p")):
                    await trio.sleep(0.2)
            # box 3 is not ezra's: its decision waits (until the round ends) when q comes
            await _tmux(sock, "send-keys", "d 3 bet", "Enter", "q", "Enter")
            with trio.fail_after(10):  # at once: not the decision time (20 s) nor 60 s
                while tcp.members:
                    await trio.sleep(0.1)
                while "you left the table" not in (
                    screen := await _tmux(sock, "capture-pane", "-p")
                ):
                    await trio.sleep(0.2)
            # dropped by q, or (the round ending first) not played: either way, said
            assert "q: 1 queued command dropped" in screen or "bet not played" in screen, screen
        finally:
            await _tmux(sock, "kill-server")
