"""Shared pieces of the client tests: an in-process server and bot players.

The bots are ordinary protocol clients (``clients/client.py``) running in the same trio run
as the server, so a browser or a terminal client under test finds a table with opponents.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import trio

from clients.client import Client
from server.config import ServerConfig, TableConfig

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

HOLDEM = {"blinds": [100, 200], "structure": "no-limit", "min_table_stake": 4000}

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    """Debian's chromium (never a Playwright-downloaded browser)."""
    path = shutil.which("chromium")
    assert path, "Debian's chromium is not installed (apt-get install -y chromium)"
    return path


def holdem_table(
    table_id: str = "holdem-test", *, seats: int = 6, seed: int | None = 7
) -> TableConfig:
    return TableConfig(
        id=table_id,
        game="holdem-act",
        name="Hold'em $1/$2 test table",
        options=dict(HOLDEM, max_seats=seats),
        seed=seed,
    )


def config(*tables: TableConfig, **kw: Any) -> ServerConfig:
    """A server config for client tests: generous turn time, short pause between rounds."""
    base: dict[str, Any] = dict(
        port=0,
        tables=tables or (holdem_table(),),
        turn_time=30.0,
        time_bank=0.0,
        grace=30.0,
        round_pause=0.5,
        starting_balance=1_000_000,
        close_timeout=1.0,
    )
    base.update(kw)
    return ServerConfig(**base)


class Bot:
    """An opponent: joins a seat, buys in, and checks or calls (or picks at random).

    ``passive`` bots never fold, bet or raise, so a hand against them reaches the showdown
    unless the player under test folds.
    """

    def __init__(
        self,
        url: str,
        table: str,
        seat: int,
        *,
        passive: bool = True,
        seed: int = 0,
        buy_in: int = 20_000,
        token: str | None = None,
    ) -> None:
        self.url, self.table, self.seat = url, table, seat
        self.passive = passive
        self.rng = random.Random(seed)
        self.buy_in = buy_in
        self.token = token  # a server with a secret has no guests
        self.rounds = 0
        self.errors: list[dict[str, Any]] = []

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with Client.connect(self.url, token=self.token, name=f"bot{self.seat}") as client:
            await client.join(self.table, seat=self.seat)
            await client.buy_in(self.table, self.buy_in)
            task_status.started()
            async for msg in client:
                await self.on_message(client, msg)

    async def on_message(self, client: Client, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "error":
            self.errors.append(msg)
        elif kind == "turn" and msg["seat"] == self.seat and msg["legal"]:
            verb, amount = self.choose(msg["legal"])
            await client.act(self.table, verb, amount)
        elif kind == "event" and msg["event"]["type"] == "round_ended":
            self.rounds += 1
            stake = client.tables[self.table].stake
            if stake is not None and stake < self.buy_in // 2:
                await client.send(
                    {"type": "buy_in", "table": self.table, "amount": self.buy_in - stake}
                )

    def choose(self, legal: dict[str, Any]) -> tuple[str, int | None]:
        if self.passive:
            return (
                ("check", None)
                if "check" in legal
                else ("call", None)
                if "call" in legal
                else ("allin", None)
                if "allin" in legal
                else ("fold", None)
            )
        verb = self.rng.choice(sorted(legal))
        if verb in ("bet", "raise"):
            bounds = legal[verb]
            if bounds.get("sizes"):
                return verb, self.rng.choice(bounds["sizes"])
            return verb, bounds["min"]
        return verb, None
