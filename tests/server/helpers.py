"""Helpers for server tests: a fast config, an in-process server, scripted bot clients."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import trio
from websockets.exceptions import ConnectionClosed

from clients.client import Client
from server.config import ServerConfig, TableConfig
from server.net.app import RunningServer
from tests.support import next_message

GAMES = ("holdem-act", "omaha-act", "manila-act", "holdem-qld", "omaha-qld", "manila-qld")

STAKES: dict[str, dict[str, Any]] = {
    "holdem-act": {"blinds": [100, 200], "structure": "no-limit", "min_table_stake": 4000},
    "omaha-act": {"blinds": [100, 200], "structure": "full-pot", "min_table_stake": 4000},
    "manila-act": {"blinds": [200], "min_table_stake": 4000},
    "holdem-qld": {
        "blinds": [100, 200],
        "structure": "limit",
        "min_buy_in": 4000,
        "max_buy_in": 40000,
    },
    "omaha-qld": {
        "blinds": [100, 200],
        "structure": "half-pot",
        "min_buy_in": 4000,
        "max_buy_in": 40000,
    },
    "manila-qld": {"blinds": [200], "min_table_stake": 4000},
}


def table(game: str, *, seats: int = 9, seed: int | None = None, **options: Any) -> TableConfig:
    opts = dict(STAKES[game], max_seats=seats, **options)
    return TableConfig(id=f"{game}-t", game=game, name=game, options=opts, seed=seed)


def fast_config(*tables: TableConfig, **kw: Any) -> ServerConfig:
    base = ServerConfig(
        port=0,
        tables=tables,
        turn_time=5.0,
        time_bank=0.0,
        grace=60.0,
        round_pause=0.0,
        starting_balance=1_000_000,
        close_timeout=1.0,
    )
    return replace(base, **kw)


def choose(legal: dict[str, Any], rng: random.Random) -> tuple[str, int | None]:
    """A random legal action within the bounds the server sent."""
    verbs = list(legal)
    verb = rng.choice(verbs)
    if verb == "fold" and "check" in legal and rng.random() < 0.8:
        verb = "check"
    if verb in ("bet", "raise"):
        bounds = legal[verb]
        if bounds.get("sizes"):
            return verb, rng.choice(bounds["sizes"])
        lo, hi = bounds["min"], bounds["max"]
        amount = lo if rng.random() < 0.7 else rng.randint(lo, hi)
        return verb, amount
    return verb, None


class Bot:
    """A scripted player: joins, buys in, acts at once within the legal bounds, rebuys.

    Every decoded frame it receives is kept in ``frames`` (for the no-leak checks).
    """

    def __init__(self, url: str, table: str, seat: int, *, seed: int, buy_in: int = 10_000) -> None:
        self.url, self.table, self.seat = url, table, seat
        self.rng = random.Random(seed)
        self.buy_in = buy_in
        self.frames: list[dict[str, Any]] = []
        self.rounds_seen = 0
        self.errors: list[dict[str, Any]] = []
        self.client: Client | None = None

    async def run(self) -> None:
        async with Client.connect(self.url, name=f"bot{self.seat}") as client:
            self.client = client
            view = await client.join(self.table, seat=self.seat)
            self.frames.append(
                {"type": "snapshot", "view": copy.deepcopy(view.view), "seat": view.seat}
            )
            await client.buy_in(self.table, self.buy_in)
            async for msg in client:
                self.frames.append(msg)
                try:
                    await self.on_message(client, msg)
                except ConnectionClosed:  # the server closed it (a shutdown) as we answered
                    return

    async def on_message(self, client: Client, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "error":
            self.errors.append(msg)
        elif kind == "turn" and msg["seat"] == self.seat and msg["legal"]:
            verb, amount = choose(msg["legal"], self.rng)
            await client.act(self.table, verb, amount)
        elif kind == "event" and msg["event"]["type"] in ("round_ended",):
            self.rounds_seen += 1
            view = client.tables[self.table]
            stake = view.stake
            if stake is not None and stake < 4000:
                await client.send(
                    {"type": "buy_in", "table": self.table, "amount": self.buy_in - stake}
                )


async def play_hands(
    server: RunningServer, bots: list[Bot], hands: int, timeout: float = 120.0
) -> None:
    """Run the bots until every table they sit at has finished ``hands`` rounds."""
    tables = {server.croupier.tables[b.table] for b in bots}
    with trio.fail_after(timeout):
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(bot.run)
            while not all(t.hand >= hands for t in tables):
                await trio.sleep(0.02)
            nursery.cancel_scope.cancel()


def is_event(kind: str, **fields: Any):
    def pred(msg: dict[str, Any]) -> bool:
        if msg["type"] != "event" or msg["event"]["type"] != kind:
            return False
        return all(msg["event"].get(k) == v for k, v in fields.items())

    return pred


def my_turn(seat: int):
    return lambda m: m["type"] == "turn" and m["seat"] == seat and bool(m["legal"])


async def next_turn(
    watcher: Client, players: dict[int, Client], on_message=None, timeout: float = 10.0
) -> dict[str, Any]:
    """The next ``turn`` as the seat to act received it (with its legal actions).

    ``watcher`` (a seated client or spectator) sees every table message; ``on_message`` is
    called with each one read from it on the way.
    """
    with trio.fail_after(timeout):
        while True:
            msg = await watcher.recv()
            if on_message is not None:
                on_message(msg)
            if msg["type"] == "turn":
                break
        seat = msg["seat"]
        if msg["legal"] or seat not in players:
            return msg
        return await next_message(players[seat], my_turn(seat), timeout)
