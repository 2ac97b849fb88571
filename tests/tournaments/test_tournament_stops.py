"""A tournament's money survives the server: ``croupier serve --tournament FILE`` killed
(SIGKILL) or stopped (SIGTERM) while entries are open loses nothing.

Every fee, prize and refund of a tournament is a transfer of one ledger round, open until the
tournament is complete or cancelled (``server/tournaments/runner.py``). A crash leaves the
round open; the next start's crash recovery voids it: every entry fee and commission goes
back to the wallets, as a cancellation would (2017 r 17.23; docs/rulings.md). A graceful stop
cancels the tournament and refunds them before the ledger's last commit.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import trio

from clients.client import Client
from tests.integration.helpers import ServerProcess, csp_table, write_tables
from tests.shared import REPO

SNG = REPO / "docs" / "tournaments" / "act-holdem-sng.toml"  # 18 to start: it never does here
FEE = 5_500
START = 1_000_000  # the ServerProcess' --starting-balance 10000 (dollars)


def ledger_check(data: Path) -> str:
    check = subprocess.run(
        [sys.executable, "-m", "server.cli", "ledger", "check", "--data", str(data)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    return check.stdout


async def enter(url: str, names: list[str]) -> dict[str, str]:
    """Each name registers (the fee leaves its wallet); their tokens."""
    tokens = {}
    for name in names:
        async with Client.connect(url, name=name) as client:
            await client.register("act-holdem-sng")
            assert client.token is not None
            tokens[name] = client.token
    return tokens


async def wallets(url: str, tokens: dict[str, str]) -> dict[str, int]:
    out = {}
    for name, token in tokens.items():
        async with Client.connect(url, token=token) as client:
            out[name] = client.balance
    return out


async def test_sigkill_then_restart_refunds_every_fee_and_sigterm_cancels(tmp_path: Path) -> None:
    tables = write_tables(tmp_path / "tables.toml", [csp_table("csp-t", "t-link")])
    data = tmp_path / "data"
    args = ("--data", str(data), "--tournament", str(SNG))
    first = ServerProcess(tables, None, *args)
    try:
        await first.started()
        with trio.fail_after(30):
            tokens = await enter(first.url, ["ann", "bob", "cy"])
            assert set((await wallets(first.url, tokens)).values()) == {START - FEE}
        first.proc.kill()  # kill -9 with the three entries in the pool
        first.proc.wait(10)
    finally:
        first.stop()
    second = ServerProcess(tables, None, *args)
    try:
        await second.started()
        with trio.fail_after(30):
            # crash recovery voided the tournament's round: every fee and commission back
            assert set((await wallets(second.url, tokens)).values()) == {START}
            more = await enter(second.url, ["dee"])
        second.proc.send_signal(signal.SIGTERM)  # a graceful stop cancels the tournament
        out, err = second.proc.communicate(timeout=30)
        assert " 0 left" in out, out + err
    finally:
        second.stop()
    report = ledger_check(data)
    assert "0 open" in report, report
    third = ServerProcess(tables, None, *args)
    try:
        await third.started()
        with trio.fail_after(30):
            back = await wallets(third.url, {**tokens, **more})
        assert set(back.values()) == {START}, back
    finally:
        third.stop()
    ledger_check(data)
