"""Tournament test helpers: conditions in a few lines, a server running them, poker bots."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

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
{more.pop("extra", "")}
"""
    return decode(text)


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
