"""Shutdown: no new rounds, the running round voided (every wager returned), every stake
cashed out to the wallet, every client closed with 1001."""

from __future__ import annotations

import trio
from websockets.exceptions import ConnectionClosed

from clients.client import Client
from tests.server.helpers import Bot, fast_config, table
from tests.support import running_server

T = "omaha-qld-t"


async def test_shutdown_voids_the_round_returns_stakes_and_closes_with_1001():
    config = fast_config(table("omaha-qld", seed=3))
    frames: list[dict] = []
    async with running_server(config) as server:
        croupier = server.croupier
        bots = [Bot(server.url, T, s, seed=s) for s in range(1, 10)]
        async with Client.connect(server.url) as watcher, trio.open_nursery() as nursery:
            await watcher.join(T, role="spectator")
            for bot in bots:
                nursery.start_soon(bot.run)
            with trio.fail_after(60):
                while croupier.tables[T].hand < 20 or croupier.tables[T].round is None:
                    await trio.sleep(0.01)
            in_round = sum(croupier.tables[T].round_stakes.values())
            assert in_round > 0
            await server.aclose()
            try:
                async for msg in watcher:
                    frames.append(msg)
            except ConnectionClosed:
                pass
            assert watcher.ws.close_code == 1001
    codes = {bot.client.ws.close_code for bot in bots}
    assert codes == {1001}
    events = [f["event"]["type"] for f in frames if f["type"] == "event"]
    assert "table_closing" in events and "round_voided" in events
    assert events.index("table_closing") < events.index("round_voided")
    assert "round_starting" not in events[events.index("table_closing") :]
    vacated = [
        f["event"] for f in frames if f["type"] == "event" and f["event"]["type"] == "seat_vacated"
    ]
    assert {v["seat"] for v in vacated} == set(range(1, 10))
    assert all(v["reason"] == "shutdown" for v in vacated)
    money = croupier.money()
    assert money["stakes"] == 0
    assert money["wallets"] + money["commission"] == money["issued"]
    health = croupier.health()
    assert health["status"] == "closing" and health["connections"] == 0


def test_ctrl_c_stops_croupier_serve_cleanly_with_exit_0():
    """Ctrl-C (SIGINT) is a graceful stop: no traceback, exit status 0 (trio raises the
    KeyboardInterrupt inside an ExceptionGroup; ``croupier serve`` must unwrap it)."""
    import os
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        env=dict(os.environ, CROUPIER_DATA=tempfile.mkdtemp(prefix="croupier-test-")),
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        for line in proc.stdout:
            if "clients:" in line or time.monotonic() > deadline:
                break
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    assert "Traceback" not in out
