"""The ``croupier play`` program: connect, pick a table from the lobby, join, run a session."""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

import trio
from rich.console import Console
from rich.table import Table
from websockets.exceptions import ConnectionClosed

from clients.client import Client, ServerError
from clients.terminal.banked import BankedSession
from clients.terminal.commands import parse_amount
from clients.terminal.poker import POKER_GAME, PokerSession, buy_in_amount
from clients.terminal.render import money
from clients.terminal.session import (
    Session,
    next_line,
    pump_messages,
    read_commands,
    read_lines,
)
from clients.terminal.stadium import StadiumSession


def lobby_table(tables: list[dict[str, Any]]) -> Table:
    grid = Table(title="Tables", title_justify="left", header_style="dim")
    for col in ("#", "id", "name", "stakes", "buy-in", "seats"):
        grid.add_column(col)
    for i, t in enumerate(tables, 1):
        blinds = "/".join(money(v) for v in (t.get("stakes") or {}).values())
        buy = (
            "wallet"
            if not POKER_GAME.match(t["game"])
            else f"{money(t['min_buy_in'])}-{money(t['max_buy_in'])}"
            if t.get("max_buy_in")
            else f"{money(t['min_buy_in'])}+"
        )
        grid.add_row(str(i), t["id"], t["name"], blinds, buy, f"{t['taken']}/{t['seats']}")
    return grid


def pick_table(tables: list[dict[str, Any]], choice: str) -> dict[str, Any] | None:
    choice = choice.strip()
    if choice.isdigit() and 1 <= int(choice) <= len(tables):
        return tables[int(choice) - 1]
    return next((t for t in tables if t["id"] == choice), None)


async def run(args: argparse.Namespace, console: Console) -> int:
    interactive = not args.bot
    lines_send, lines = trio.open_memory_channel[str | None](64)
    async with trio.open_nursery() as nursery:
        if interactive:
            nursery.start_soon(read_lines, lines_send)
        name = args.name or ("bot" if args.bot else None)
        try:
            async with Client.connect(args.url, token=args.token, name=name) as client:
                status = await session(client, args, console, lines)
        except ServerError as exc:
            console.print(f"[red]croupier play: the server refused: {exc}[/red]")
            status = 1
        except OSError as exc:
            console.print(f"[red]croupier play: cannot connect to {args.url}: {exc}[/red]")
            status = 1
        except ConnectionClosed as exc:
            console.print(f"[red]croupier play: the connection closed ({exc})[/red]")
            status = 1
        nursery.cancel_scope.cancel()
    return status


async def session(
    client: Client,
    args: argparse.Namespace,
    console: Console,
    lines: trio.MemoryReceiveChannel[str | None],
) -> int:
    welcome = client.welcome
    console.print(
        f"connected as [bold]{welcome.get('name')}[/bold] ({welcome.get('account')}), "
        f"wallet {money(client.balance)}" + ("  [dim]dev mode[/dim]" if welcome.get("dev") else "")
    )
    if not args.token and not args.bot:
        console.print(f"session token (for --token): {client.token}", style="dim")
    tables = await client.lobby()
    console.print(lobby_table(tables))
    table_id = args.table or (welcome.get("seated") or [None])[0]
    chosen: dict[str, Any] | None = None
    if table_id:
        chosen = pick_table(tables, table_id)
    elif args.bot:
        chosen = next(
            (t for t in tables if t["taken"] < t["seats"] and POKER_GAME.match(t["game"])), None
        )
    while chosen is None:
        if table_id and not args.bot:
            console.print(f"[red]no table {table_id!r}[/red]")
        if args.bot:
            console.print("[red]no table to join[/red]")
            return 1
        console.print("table number or id (q to quit): ", end="")
        line = await next_line(lines)
        if line is None or line.strip().lower() in ("q", "quit"):
            return 0
        table_id = line.strip()
        chosen = pick_table(tables, table_id)
    role = "spectator" if args.watch else "player"
    view = await client.join(chosen["id"], role=role, seat=args.seat)
    console.print(
        f"joined [bold]{chosen['name']}[/bold] as "
        + (
            f"seat {view.seat}"
            if view.seat is not None
            else "a player"
            if view.role == "player"
            else "a spectator"
        )
    )
    banked = isinstance(view.view.get("table", {}).get("wagers"), list)
    stadium = bool(view.view.get("table", {}).get("stadium"))
    if role == "player" and not banked and not stadium and not view.stake:
        wanted = parse_amount(args.buy_in) if args.buy_in else None
        amount = buy_in_amount(chosen, 0, wanted)
        try:
            balance = await client.buy_in(chosen["id"], amount)
            console.print(f"bought in for {money(amount)}; wallet {money(balance)}")
        except ServerError as exc:
            console.print(f"[red]buy-in refused: {exc}[/red]")
    rng = random.Random(args.seed) if args.bot else None
    live = not args.bot and not args.plain and console.is_terminal and sys.stdin.isatty()
    kind = StadiumSession if stadium else BankedSession if banked else PokerSession
    player: Session = kind(
        client, client.tables[chosen["id"]], console, live=live, bot=rng, hands=args.hands
    )
    if not live:
        player.show_table()
        if not args.bot:
            console.print(player.HINT, style="dim")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump_messages, client, player)
        if args.bot:
            await player.done.wait()
        else:
            await read_commands(player, lines, nursery)
        nursery.cancel_scope.cancel()
    if player.closed:
        return 1
    if args.bot:
        console.print(
            f"bot: played {player.hands_played} {player.ROUNDS}, "
            f"{money(player.returned)} returned, wallet {money(client.balance)}"
        )
    return 0
