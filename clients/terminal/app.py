"""The ``croupier play`` program: connect, pick a table from the lobby, join, run a session."""

from __future__ import annotations

import argparse
import errno
import random
import socket
import sys
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import trio
from rich.console import Console
from rich.table import Table
from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidStatus,
    InvalidURI,
)

from clients.client import Client, ServerError
from clients.terminal.banked import BankedSession
from clients.terminal.blackjack import BlackjackSession, is_blackjack
from clients.terminal.poker import POKER_GAME, buy_in_amount
from clients.terminal.render import money
from clients.terminal.room import RoomSession
from clients.terminal.session import (
    LineEditor,
    Session,
    next_line,
    play_session,
    read_keys,
    read_lines,
)
from clients.terminal.stadium import StadiumSession
from clients.terminal.tournaments import TournamentSession, is_tournament_line, tournament_line

DEFAULT_URL = "ws://127.0.0.1:8765/ws"


class PlayError(Exception):
    """A failure the person can fix; the message (one line) says how."""


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be the server's WebSocket address (None: it may be)."""
    parts = urlsplit(url)
    if parts.scheme in ("http", "https"):
        fixed = urlunsplit(("ws" if parts.scheme == "http" else "wss", parts.netloc, "/ws", "", ""))
        return f"--url {url} is a web page address: the client speaks WebSocket, try --url {fixed}"
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        return f"--url {url} is not a WebSocket URL: use ws://HOST:PORT/ws, e.g. {DEFAULT_URL}"
    if parts.path in ("", "/"):
        fixed = urlunsplit((parts.scheme, parts.netloc, "/ws", "", ""))
        return f"--url {url} has no path: the server's WebSocket is at /ws, try --url {fixed}"
    return None


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for e in exc.exceptions:
            yield from _leaves(e)
    else:
        yield exc


def connect_problem(exc: BaseException, url: str) -> str | None:
    """One line for a connection that failed (None: not a connection failure)."""
    for e in _leaves(exc):
        if isinstance(e, InvalidURI):
            return f"--url {url} is not a WebSocket URL: use ws://HOST:PORT/ws"
        if isinstance(e, InvalidStatus):
            status = e.response.status_code
            return (
                f"{url} answered HTTP {status} instead of a WebSocket: is this a croupier "
                "server, and is the path /ws?"
            )
        if isinstance(e, InvalidHandshake):
            return f"{url} did not complete a WebSocket handshake ({e}): check --url"
        if isinstance(e, socket.gaierror):
            return f"cannot find the host in {url}: check --url"
        if isinstance(e, ConnectionRefusedError) or (
            isinstance(e, OSError) and e.errno in (errno.ECONNREFUSED, None)
        ):
            return (
                f"no server is listening at {url}: start one with `croupier serve`, or check --url"
            )
        if isinstance(e, OSError | TimeoutError):
            return f"cannot connect to {url}: {e.strerror or e}"
        if isinstance(e, ConnectionClosed):
            return f"the server closed the connection ({e})"
        if isinstance(e, ServerError):
            return f"the server refused: {e}"
    return None


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


def live_display(args: argparse.Namespace, console: Console) -> bool:
    """The full-screen display: a person at a terminal (not --bot, not --plain)."""
    return not args.bot and not args.plain and console.is_terminal and sys.stdin.isatty()


async def run(args: argparse.Namespace, console: Console) -> int:
    """Connect and play; a failure the person can fix raises :class:`PlayError`."""
    problem = url_problem(args.url)
    if problem:
        raise PlayError(problem)
    lines_send, lines = trio.open_memory_channel[str | None](64)
    editor = LineEditor() if live_display(args, console) else None
    failure: PlayError | None = None
    status = 1
    async with trio.open_nursery() as nursery:
        if editor is not None:
            nursery.start_soon(read_keys, lines_send, editor)
        elif not args.bot:
            nursery.start_soon(read_lines, lines_send)
        name = args.name or ("bot" if args.bot else None)
        try:
            async with Client.connect(args.url, token=args.token, name=name) as client:
                status = await session(client, args, console, lines, editor)
        except (Exception, BaseExceptionGroup) as exc:
            mine = [e for e in _leaves(exc) if isinstance(e, PlayError)]
            problem = str(mine[0]) if mine else connect_problem(exc, args.url)
            if problem is None:
                raise
            failure = PlayError(problem)
            failure.__cause__ = exc
        finally:
            nursery.cancel_scope.cancel()
    if failure is not None:  # raised outside the nursery: not wrapped in an ExceptionGroup
        raise failure
    return status


def check_buy_in(table: dict[str, Any], amount: int) -> None:
    """A --buy-in outside the table's limits is refused before joining (never adjusted)."""
    low, high = table.get("min_buy_in") or 0, table.get("max_buy_in")
    if amount < low:
        raise PlayError(
            f"--buy-in {money(amount)} is below this table's minimum buy-in of {money(low)}"
        )
    if high is not None and amount > high:
        raise PlayError(
            f"--buy-in {money(amount)} is above this table's maximum buy-in of {money(high)}"
        )


async def session(
    client: Client,
    args: argparse.Namespace,
    console: Console,
    lines: trio.MemoryReceiveChannel[str | None],
    editor: LineEditor | None = None,
) -> int:
    welcome = client.welcome
    console.print(
        f"connected as [bold]{welcome.get('name')}[/bold] ({welcome.get('account')}), "
        f"wallet {money(client.balance)}" + ("  [dim]dev mode[/dim]" if welcome.get("dev") else "")
    )
    if not args.token and not args.bot:
        console.print(
            f"session token (keep it in a file for --token-file): {client.token}", style="dim"
        )
    if args.tournament:  # register and play it (clients/terminal/tournaments.py)
        register = f"register {args.tournament}"
        status = await tournament_line(client, args, console, lines, editor, register)
        return 1 if status is None else status  # None: the registration was refused
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
        console.print("table number or id, or tournaments (q to quit): ", end="")
        line = await next_line(lines)
        if line is None or line.strip().lower() in ("q", "quit"):
            return 0
        if is_tournament_line(line):  # tournaments, register ID, unregister ID
            status = await tournament_line(client, args, console, lines, editor, line)
            if status is not None:
                return status
            table_id = ""
            continue
        table_id = line.strip()
        chosen = pick_table(tables, table_id)
    role = "spectator" if args.watch else "player"
    if args.buy_in is not None and POKER_GAME.match(chosen["game"]) and not args.watch:
        check_buy_in(chosen, args.buy_in)
    if args.seat is not None and not 1 <= args.seat <= chosen["seats"]:
        raise PlayError(f"--seat {args.seat}: {chosen['name']} has seats 1 to {chosen['seats']}")
    view = await client.join(chosen["id"], role=role, seat=args.seat)
    if client.url != args.url:  # a deployment: Client.join followed table_elsewhere
        console.print(f"(the table is served at {client.url}: connected there)")
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
        amount = buy_in_amount(chosen, 0, args.buy_in)
        try:
            balance = await client.buy_in(chosen["id"], amount)
            console.print(f"bought in for {money(amount)}; wallet {money(balance)}")
        except ServerError as exc:
            console.print(f"[red]buy-in refused: {exc}[/red]")
    rng = random.Random(args.seed) if args.bot else None
    live = editor is not None
    kind: type[Session] = BankedSession if banked else RoomSession  # poker: the room around it
    if banked and is_blackjack(str(chosen.get("game", ""))):
        kind = BlackjackSession  # hands, splits, every verb listed (clients/terminal/blackjack.py)
    if stadium:
        kind = StadiumSession  # credits, wagers on one shared outcome (clients/terminal/stadium.py)
    if view.view.get("table", {}).get("tournament"):
        kind = TournamentSession  # a held tournament seat: chips (clients/terminal/tournaments.py)
    player: Session = kind(
        client, client.tables[chosen["id"]], console, live=live, bot=rng, hands=args.hands
    )
    player.editor = editor
    await play_session(player, lines, bot=bool(args.bot))
    if player.closed:
        return 1
    if args.bot:
        console.print(
            f"bot: played {player.hands_played} {player.ROUNDS}, "
            f"{money(player.returned)} returned, wallet {money(client.balance)}"
        )
    return 0
