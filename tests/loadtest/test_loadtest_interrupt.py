"""Ctrl-C on ``croupier loadtest`` (issue 27, point 7): the bots leave their seats at once
(the seats were held for the server's grace period, minutes, when the workers died), and
the run still reports."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import trio

from tests.clients.support import config, holdem_table
from tests.support import running_server

ROOT = Path(__file__).resolve().parents[2]


async def test_ctrl_c_stops_the_run_and_the_bots_leave_their_seats() -> None:
    table = holdem_table("ctrl-c", seats=4)
    # a long grace: seats emptied before it are seats the bots left
    async with running_server(config(table, grace=300.0)) as server:
        poker = server.croupier.tables["ctrl-c"]
        argv = [sys.executable, "-m", "server.cli", "loadtest", "--url", server.url]
        argv += ["--tables", "1", "--seats", "3", "--duration", "300", "--quiet"]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        async with trio.open_nursery() as nursery:
            proc = await nursery.start(
                lambda task_status: trio.run_process(
                    argv,
                    capture_stdout=True,
                    capture_stderr=True,
                    check=False,
                    env=env,
                    cwd=ROOT,
                    task_status=task_status,
                )
            )
            with trio.fail_after(60):
                while len(poker.seats) < 3 or poker.hand < 2:  # playing
                    await trio.sleep(0.1)
            proc.send_signal(signal.SIGINT)  # what Ctrl-C sends the runner
            with trio.fail_after(60):
                await proc.wait()
                while poker.seats:
                    await trio.sleep(0.1)
    assert proc.returncode in (0, 1)
    m = server.croupier.money()
    assert m["wallets"] + m["stakes"] + m["commission"] == m["issued"]
