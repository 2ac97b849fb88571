"""Tournament test helpers: conditions in a few lines, a server running them, poker bots."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import trio

from clients.client import Client
from server.config import ServerConfig
from server.tournaments.conditions import Conditions, decode
from tests.server.helpers import fast_config

#: ACT blinds double ([m, 2m], ACT r 5.3): short levels escalate fast, so bots finish
LEVELS = [(10, 20), (20, 40), (50, 100), (100, 200), (200, 400), (500, 1000), (1000, 2000)]
LEVELS += [(2500, 5000), (5000, 10000), (10000, 20000), (25000, 50000), (50000, 100000)]


def holdem(
    players: int, *, sit_and_go: int | None = None, tables: int | None = None, **more: Any
) -> Conditions:
    """No-limit hold'em (ACT r 19) for ``players``, nine a table, one-minute levels."""
    levels = "\n".join(f"[[levels]]\nblinds = [{a}, {b}]\nminutes = 1" for a, b in LEVELS)
    start = f"sit_and_go = {sit_and_go}" if sit_and_go else "starts_at = 2099-01-01T00:00:00Z"
    text = f"""
id = "{more.pop("id", "bots")}"
name = "Bots holdem"
game = "holdem-act"
structure = "no-limit"
entry = "bots in the lobby"
{start}
entry_fee = {more.pop("entry_fee", 1100)}
commission = {more.pop("commission", 100)}
chips = 1000
min_players = {more.pop("min_players", 2)}
max_players = {players}
ties = "share"
same_round = "by_chips"
prizes = {more.pop("prizes", ["50", "30", "20"])}

[[sessions]]
name = "Main"
tables = {tables or -(-players // 9)}
players_per_table = 9

{levels}
"""
    return decode(text)


def server_config(*conditions: Conditions, **kw: Any) -> ServerConfig:
    return replace(
        fast_config(),
        tournaments=conditions,
        tournament_minute=kw.pop("minute", 1.0),
        max_per_ip=500,
        outbound_queue=4096,
        turn_time=kw.pop("turn_time", 5.0),
        **kw,
    )


class PokerBot:
    """Registers, then plays every hand it is dealt at whatever table the tournament seats
    it: all-in now and then, a min-raise sometimes, else check, call a small bet, fold."""

    def __init__(
        self, url: str, name: str, tournament: str, seed: int, passive: bool = False
    ) -> None:
        self.url, self.name, self.tournament = url, name, tournament
        self.passive = passive  # check or call the blind, never raise: nobody busts soon
        self.rng = random.Random(seed)
        self.client: Client | None = None
        self.registered = trio.Event()
        self.states: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []

    async def run(self, register: bool = True) -> None:
        async with Client.connect(self.url, name=self.name) as client:
            self.client = client
            if register:
                await client.register(self.tournament)
            self.registered.set()
            async for msg in client:
                kind = msg["type"]
                if kind == "tournament":
                    self.states.append(msg)
                elif kind == "error":
                    self.errors.append(msg)
                elif kind == "turn" and msg["legal"]:
                    await self.act(client, msg["table"], msg["legal"])

    async def act(self, client: Client, table: str, legal: dict[str, Any]) -> None:
        r = self.rng.random()
        raise_verb = "raise" if "raise" in legal else "bet" if "bet" in legal else None
        stack = legal.get("allin", {}).get("amount", 0)
        if self.passive:
            verb = "check" if "check" in legal else "call" if "call" in legal else "fold"
            await client.act(table, verb)
        elif "allin" in legal and r < 0.04:
            await client.act(table, "allin")
        elif raise_verb and r < 0.15:
            await client.act(table, raise_verb, legal[raise_verb]["min"])
        elif "check" in legal:
            await client.act(table, "check")
        elif "call" in legal and (legal["call"]["amount"] * 4 <= stack or r < 0.35):
            await client.act(table, "call")
        else:
            await client.act(table, "fold")


def canberra_sng(**more: Any) -> Conditions:
    """A one-table Canberra Poker sit-and-go (2017 r 17) with few chips, so players drop
    below the table minimum within a few rounds."""
    text = f"""
id = "{more.pop("id", "cp")}"
name = "Canberra bots"
game = "canberra-poker-2017"
entry = "bots"
sit_and_go = 7
entry_fee = 2000
commission = 200
chips = {more.pop("chips", 300)}
min_players = 7
max_players = 7
ties = "share"
same_round = "share"
prizes = ["60", "30", "10"]

[limits]
minimum = 50
maximum = 100

[[sessions]]
name = "Session"
tables = 1
players_per_table = 7
rounds = {more.pop("rounds", 60)}
"""
    return decode(text)


class CanberraBot:
    """Registers; antes the table minimum when asked (``rogue``: at once, out of order, in
    every round), bets when it can, else folds."""

    def __init__(self, url: str, name: str, tournament: str, rogue: bool = False) -> None:
        self.url, self.name, self.tournament, self.rogue = url, name, tournament, rogue
        self.client: Client | None = None
        self.events: list[dict[str, Any]] = []
        self.states: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []

    async def run(self) -> None:
        async with Client.connect(self.url, name=self.name) as client:
            self.client = client
            await client.register(self.tournament)
            async for msg in client:
                kind = msg["type"]
                if kind == "tournament":
                    self.states.append(msg)
                elif kind == "error":
                    self.errors.append(msg)
                elif kind == "event":
                    await self.on_event(client, msg["table"], msg["event"])

    async def on_event(self, client: Client, table: str, ev: dict[str, Any]) -> None:
        self.events.append(ev)
        view = client.tables.get(table)
        box = view.seat if view is not None else None
        etype = ev["type"]
        if etype == "betting_open" and self.rogue:
            await self._ante(client, table, box)
        elif etype == "ante_turn" and ev["box"] == box:
            await self._ante(client, table, box)
        elif etype == "decision" and ev["box"] == box:
            verbs = [c["verb"] for c in ev["legal"]]
            verb = "bet" if "bet" in verbs else "fold"
            await client.decide(table, box, verb)

    async def _ante(self, client: Client, table: str, box: int | None) -> None:
        if box is not None:
            await client.send(
                {"type": "wager", "table": table, "box": box, "wager": "ante", "amount": 50}
            )
