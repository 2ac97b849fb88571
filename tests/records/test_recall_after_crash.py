"""Game recall after a ``kill -9`` (issue 10, "done when"): a player recalls its last 10
rounds, the one the crash interrupted shown as voided (docs/rulings.md, "Crash recovery")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from clients.client import Client
from tests.integration.helpers import ServerProcess, write_tables
from tests.server.helpers import Bot

T = "crash-holdem"


class StallingBot(Bot):
    """Plays like a bot until ``rounds`` are over, then never acts again (its turn waits)."""

    def __init__(self, *args: Any, rounds: int, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.limit = rounds
        self.ended = 0
        self.stalled = trio.Event()

    async def on_message(self, client: Client, msg: dict[str, Any]) -> None:
        if msg["type"] == "event" and msg["event"]["type"] == "round_ended":
            self.ended += 1
        if self.ended >= self.limit:
            if msg["type"] == "turn" and msg["seat"] == self.seat and msg["legal"]:
                self.stalled.set()  # a round is in play and waits for this seat
            return
        await super().on_message(client, msg)


async def test_recall_after_kill_9_shows_the_interrupted_round_voided(tmp_path: Path) -> None:
    tables = write_tables(
        tmp_path / "tables.toml",
        [{"id": T, "game": "holdem-act", "options": {"blinds": [100, 200]}}],
    )
    data = str(tmp_path / "data")
    extra = ("--data", data, "--turn-time", "60", "--starting-balance", "1000")
    server = await ServerProcess(tables, None, *extra).started()
    try:
        one = StallingBot(server.url, T, 1, seed=1, rounds=12)
        two = StallingBot(server.url, T, 2, seed=2, rounds=12)
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(one.run)
                nursery.start_soon(two.run)
                while not (one.stalled.is_set() or two.stalled.is_set()):
                    await trio.sleep(0.02)
                await trio.sleep(0.3)  # the round's start is committed (group commit)
                server.proc.kill()  # SIGKILL, mid-round
                server.proc.wait(10)
                nursery.cancel_scope.cancel()
        assert one.client is not None
        token = one.client.token
    finally:
        server.stop()
    again = await ServerProcess(tables, None, *extra).started()
    try:
        async with Client.connect(again.url, token=token) as me:
            rounds = await me.history(T)
    finally:
        again.stop()
    assert len(rounds) == 10
    assert [r["state"] for r in rounds] == ["settled"] * 9 + ["voided"]
    last = rounds[-1]
    assert last["net"] == 0 and last["commitments"]  # issue 23: no reveal in any recall
    assert any(e["type"] == "hole_cards_dealt" for e in last["events"])
    assert all(r["seat"] == 1 for r in rounds)
