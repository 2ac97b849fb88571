"""Tournament test helpers: conditions in a few lines, a server running them, poker bots."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio
from websockets.exceptions import ConnectionClosed

from clients.client import Client
from loadtest.tournament import TournamentBot
from server.config import ServerConfig
from server.tournaments.conditions import Conditions, decode
from tests.server.helpers import fast_config
from tests.shared import REPO

#: ACT blinds double ([m, 2m], ACT r 5.3): short levels escalate fast, so bots finish
LEVELS = [(10, 20), (20, 40), (50, 100), (100, 200), (200, 400), (500, 1000), (1000, 2000)]
LEVELS += [(2500, 5000), (5000, 10000), (10000, 20000), (25000, 50000), (50000, 100000)]


def holdem(
    players: int, *, sit_and_go: int | None = None, tables: int | None = None, **more: Any
) -> Conditions:
    """No-limit hold'em (ACT r 19) for ``players``, nine a table, one-minute levels."""
    return decode(holdem_text(players, sit_and_go=sit_and_go, tables=tables, **more))


def holdem_text(
    players: int, *, sit_and_go: int | None = None, tables: int | None = None, **more: Any
) -> str:
    """The conditions file (TOML) of :func:`holdem` (``croupier serve --tournament FILE``)."""
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
{more.pop("extra", "")}
"""
    return text


def poker_sng(game: str, structure: str, players: int, **more: Any) -> Conditions:
    """A one-table sit-and-go of ``game`` (ACT r 19) in ``structure`` for ``players``, the
    :data:`LEVELS` a minute each (Manila's one blind is the level's big blind). The last
    level's blinds are more than every chip in play, so the tournament ends within a few
    hands of reaching it whatever the players do: a test of it is bounded by the clock."""
    levels = "\n".join(
        f"[[levels]]\nblinds = {[b] if game.startswith('manila') else [a, b]}\nminutes = 1"
        for a, b in LEVELS
    )
    text = f"""
id = "{more.pop("id", "sng")}"
name = "{more.pop("name", f"{game} {structure}")}"
game = "{game}"
structure = "{structure}"
entry = "bots"
sit_and_go = {players}
entry_fee = {more.pop("entry_fee", 1100)}
commission = {more.pop("commission", 100)}
chips = 1000
min_players = 2
max_players = {players}
ties = "share"
same_round = "by_chips"
prizes = {["100"] if players < 3 else ["70", "30"]}

[[sessions]]
name = "Sit & Go"
tables = 1
players_per_table = {players}

{levels}
"""
    return decode(text)


def server_config(*conditions: Conditions, **kw: Any) -> ServerConfig:
    return replace(
        fast_config(),
        tournaments=conditions,
        tournament_minute=kw.pop("minute", 1.0),
        max_per_ip=500,
        rate=1000.0,  # bots act at once: heads-up at the end is hundreds of hands a second
        burst=2000.0,
        outbound_queue=4096,
        turn_time=kw.pop("turn_time", 5.0),
        **kw,
    )


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


@dataclass
class ReturningBot:
    """A tournament bot that comes back after its server stopped or died: it registers on
    its first connection, and on every later one (the same account, by its token) asks
    where it stands and takes its seat again (``join``); it plays like
    :class:`loadtest.tournament.TournamentBot` (whose ``act`` it uses)."""

    name: str
    tournament: str
    seed: int = 0
    token: str | None = None
    account: str | None = None
    states: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    buy_back: bool = False  #: buys back once when out, if play goes on
    bought: bool = False
    turns: int = 0  #: turns it was given (acted on)
    connections: int = 0  #: connections the server accepted

    def __post_init__(self) -> None:
        self.player = TournamentBot("", self.name, self.tournament, self.seed)

    @property
    def last(self) -> dict[str, Any] | None:
        return self.states[-1] if self.states else None

    @property
    def done(self) -> bool:
        last = self.last
        return last is not None and (bool(last["place"]) or last["phase"] == "cancelled")

    async def enter(self, url: str) -> None:
        """Register on a connection of its own (closed after the reply)."""
        async with Client.connect(url, name=self.name) as client:
            self.token, self.account = client.token, client.account
            self.states.append(await client.register(self.tournament))

    async def play(self, url: str) -> None:
        """One connection's life (it ends when the server goes): plays until cancelled."""
        first = self.token is None
        connect = (
            Client.connect(url, name=self.name) if first else Client.connect(url, token=self.token)
        )
        try:
            async with connect as client:
                self.token, self.account = client.token, client.account
                self.connections += 1
                if first:
                    self.states.append(await client.register(self.tournament))
                else:
                    await client.send({"type": "tournaments"})
                joined: set[str] = set()
                async for msg in client:
                    kind = msg["type"]
                    if kind == "tournament":
                        self.states.append(msg)
                        if self.buy_back and not self.bought and msg["place"]:
                            if msg["phase"] == "running" and msg["players_left"] >= 2:
                                self.bought = True
                                await client.send(
                                    {"type": "buy_back", "tournament": msg["tournament"]}
                                )
                        table = msg.get("table")
                        if not first and table and table not in joined:  # back: sit again
                            joined.add(table)
                            await client.send({"type": "join", "table": table, "role": "player"})
                    elif kind == "error":
                        self.errors.append(msg)
                    elif kind == "turn" and msg["legal"]:
                        self.turns += 1
                        await self.player.act(client, msg["table"], msg["legal"])
                    elif kind == "event":  # Canberra Poker: antes and decisions
                        await self.player.on_event(client, msg["table"], msg["event"])
        except (OSError, ConnectionClosed, trio.BrokenResourceError):
            return  # the server went away


def ledger_check(data: Path, *where: str) -> str:
    """``croupier ledger check --data DATA`` (``where``: ``--redis URL``) in its own
    process: passes, its report."""
    check = subprocess.run(
        [sys.executable, "-m", "server.cli", "ledger", "check", "--data", str(data), *where],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    return check.stdout


async def wallets(url: str, tokens: dict[str, str]) -> dict[str, int]:
    """Each name's wallet (by its token)."""
    out = {}
    for name, token in tokens.items():
        async with Client.connect(url, token=token) as client:
            out[name] = client.balance
    return out
