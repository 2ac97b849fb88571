"""``croupier serve``: the WebSocket table server (websockets' trio API).

One process: a lobby of tables (one trio task each), accounts with HMAC session tokens, an
in-memory wallet, and the connections. The modules beside this one do one job each:

* ``server/connections.py``: a connection's reader and writer tasks;
* ``server/router.py``: sessions, the lobby, and each table message to its table's inbox;
* ``server/http.py``: the browser page from ``clients/web/`` and ``/health``, same port;
* ``server/tables/``: the table layer (``base.py`` shows a command's whole path).

Tests start it in-process::

    running = await nursery.start(serve, config)   # port 0 by default: a free port
    ... ws://127.0.0.1:{running.port}/ws ...
    await running.aclose()                          # void rounds, cash out, close with 1001
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import logging
import os
import sys
from pathlib import Path
from typing import Any

import trio
from websockets.http11 import Request, Response
from websockets.trio.server import ServerConnection
from websockets.trio.server import serve as ws_serve

from protocol.errors import CloseCode
from server import gc_policy, http
from server.accounts import Accounts
from server.config import DEFAULT_PORT, DEFAULT_TABLES, ConfigError, ServerConfig, load_tables
from server.connections import run_connection
from server.errors import ScenarioError
from server.games.poker import rules_for
from server.games.registry import TableKind, table_kind
from server.jackpots.service import open_jackpot_service
from server.router import Router
from server.tables.banked import BankedTable
from server.tables.base import Shutdown, TableActor
from server.tables.connection import Connection
from server.tables.poker import PokerTable
from server.tables.stadium import StadiumTable
from server.wallet import Wallet

log = logging.getLogger("croupier.server")

#: The table class of each kind of table (game ids and their kinds: server.games.registry).
TABLE_CLASSES: dict[TableKind, type[TableActor]] = {
    "poker": PokerTable,
    "banked": BankedTable,
    "stadium": StadiumTable,
}


def table_class(game: str, kind: str | None = None) -> type[TableActor]:
    """The class of a table of ``game``; ``kind`` as the table config asks (default: the
    game's first kind in the registry)."""
    try:
        return TABLE_CLASSES[table_kind(game, kind)]
    except LookupError as exc:
        raise ConfigError(str(exc.args[0])) from None


class Croupier:
    """The server's state: config, accounts, wallet, tables and live connections."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.accounts = Accounts(config.secret, ttl=config.token_ttl)
        self.wallet = Wallet()
        self.tables: dict[str, TableActor] = {}
        seat_index: dict[str, set[str]] = {}  # account -> table ids, shared by the tables
        sessions: dict[str, set[str]] = {}  # account -> stadium tables (one credit meter)
        for table in config.tables:
            try:
                kind = table_class(table.game, table.kind)
            except ConfigError as exc:
                raise ConfigError(f"table {table.id}: {exc}") from None
            actor = self.tables[table.id] = kind(table, config, self.wallet)
            actor.seat_index = seat_index
            if isinstance(actor, StadiumTable):
                actor.sessions = sessions
        self.router = Router(config, self.accounts, self.wallet, self.tables, seat_index)
        self.connections: set[Connection] = set()

    @property
    def closing(self) -> bool:
        return self.router.closing

    # -- money (for /health and conservation tests) -----------------------------------------
    def money(self) -> dict[str, int]:
        per_table = [t.money() for t in self.tables.values()]
        out = {
            "issued": self.wallet.issued,
            "wallets": self.wallet.total(),
            "stakes": sum(m["stakes"] for m in per_table),
            "commission": sum(m["commission"] for m in per_table),
        }
        if any(isinstance(t, BankedTable | StadiumTable) for t in self.tables.values()):
            for key in ("house", "jackpot_contributed", "jackpot_paid"):
                out[key] = sum(m[key] for m in per_table)
        return out

    def health(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": "closing" if self.closing else "ok",
            "tables": len(self.tables),
            "connections": len(self.connections),
            "money": self.money(),
        }
        jackpots = [
            t.jackpot_info()
            for t in self.tables.values()
            if isinstance(t, BankedTable) and t.link is not None
        ]
        if jackpots:  # linked banked tables: pool, meter, open, jackpot wagers coined in
            out["jackpots"] = jackpots
        return out

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        return http.respond(self.config.web_root, self.health, connection, request)

    # -- one connection ---------------------------------------------------------------------
    async def handle(self, ws: ServerConnection) -> None:
        conn = Connection(self.config.outbound_queue)
        self.connections.add(conn)
        try:
            await run_connection(ws, conn, self.config, self.router.route)
        finally:
            self.connections.discard(conn)
            self.router.disconnected(conn)
            with trio.move_on_after(self.config.close_timeout, shield=True):
                await ws.aclose(conn.close_code, conn.close_reason)

    # -- shutdown ---------------------------------------------------------------------------
    async def shutdown(self) -> None:
        """Stop the tables (void running rounds, return stakes), then close clients with 1001."""
        self.router.closing = True
        done = []
        for table in self.tables.values():
            event = trio.Event()
            table.submit(Shutdown(event))
            done.append(event)
        with trio.move_on_after(10):
            for event in done:
                await event.wait()
        for conn in list(self.connections):
            conn.finish(CloseCode.GOING_AWAY, "server shutting down")
        # let each writer drain its queue and close with 1001 before websockets closes the rest
        with trio.move_on_after(self.config.close_timeout * 2 + 1):
            while self.connections:
                await trio.sleep(0.01)


@dataclasses.dataclass
class RunningServer:
    """A started server: its port and URLs, the :class:`Croupier` state, and ``aclose()``."""

    croupier: Croupier
    port: int
    host: str
    _ws: Any
    _cancel: trio.CancelScope

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    async def aclose(self) -> None:
        """Graceful shutdown: rounds voided, stakes cashed out, clients closed with 1001."""
        await self.croupier.shutdown()
        with trio.move_on_after(self.croupier.config.close_timeout + 5):
            await self._ws.aclose()
        self._cancel.cancel()


async def serve(
    config: ServerConfig | None = None,
    *,
    host: str | None = None,
    port: int | None = 0,
    task_status: trio.TaskStatus[RunningServer] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run the server until cancelled or ``aclose()``; ``nursery.start`` gives the handle."""
    if config is None:
        config = ServerConfig(tables=load_tables(DEFAULT_TABLES))
    host = host or config.host
    port = config.port if port is None else port
    croupier = Croupier(config)
    async with open_jackpot_service(config.redis) as jackpots, trio.open_nursery() as nursery:
        for table in croupier.tables.values():
            if isinstance(table, BankedTable):
                table.use_jackpots(jackpots)  # linked pools (in memory, or Redis: --redis)
            await nursery.start(table.run)
        ws_server = await nursery.start(_ws_serve_partial(croupier, host, port, config))
        bound = ws_server.listeners[0].socket.getsockname()[1]
        running = RunningServer(croupier, bound, host, ws_server, nursery.cancel_scope)
        task_status.started(running)
        await trio.sleep_forever()


def _ws_serve_partial(croupier: Croupier, host: str, port: int, config: ServerConfig) -> Any:
    async def start(task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        await ws_serve(
            croupier.handle,
            port,
            host=host,
            process_request=croupier.process_request,
            compression=None,
            max_size=config.max_frame,
            max_queue=16,
            ping_interval=20,
            ping_timeout=20,
            close_timeout=config.close_timeout,
            task_status=task_status,
        )

    return start


# -- command line ----------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="croupier serve", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--tables",
        type=Path,
        default=DEFAULT_TABLES,
        help="TOML table config (default: one table of each game)",
    )
    parser.add_argument(
        "--secret",
        default=os.environ.get("CROUPIER_SECRET"),
        help="HMAC secret for session tokens (env CROUPIER_SECRET); "
        "without one the server runs in dev mode with guest accounts",
    )
    parser.add_argument("--turn-time", type=float, default=20.0)
    parser.add_argument("--time-bank", type=float, default=30.0)
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="seconds a disconnected player's seat is held (default 60)",
    )
    parser.add_argument("--round-pause", type=float, default=2.0)
    parser.add_argument(
        "--starting-balance",
        type=int,
        default=100_000,
        help="cents a new guest account starts with",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help="keep jackpot pools in Redis (redis://HOST:PORT), shared by every "
        "server on it; default: in memory, this process only",
    )
    parser.add_argument(
        "--staff",
        metavar="ACCOUNT=ROLE",
        action="append",
        type=_staff,
        default=[],
        help="give an account a staff role at stadium tables (dealer, stickperson, "
        "boxperson, supervisor, manager): result entry, corrections, limits; repeatable",
    )
    args = parser.parse_args(argv)
    try:
        tables = load_tables(args.tables)
        for t in tables:
            try:
                kind = table_class(t.game, t.kind)
            except ConfigError as exc:
                raise ConfigError(f"table {t.id}: {exc}") from None
            if kind is PokerTable:
                rules_for(t.game, dict(t.options))
            elif kind is BankedTable or kind is StadiumTable:
                kind.check_config(t)
    except (ConfigError, ScenarioError) as exc:
        print(f"croupier serve: {exc}", file=sys.stderr)
        return 2
    config = ServerConfig(
        host=args.host,
        port=args.port,
        secret=args.secret or None,
        tables=tables,
        turn_time=args.turn_time,
        time_bank=args.time_bank,
        grace=args.grace,
        round_pause=args.round_pause,
        starting_balance=args.starting_balance,
        redis=args.redis,
        staff=dict(args.staff),
    )
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    try:
        trio.run(_main, config)
    except* KeyboardInterrupt:  # Ctrl-C: trio raises it in an ExceptionGroup after _main's
        pass  # graceful shutdown (rounds voided, stakes returned, clients closed with 1001)
    return 0


def _staff(text: str) -> tuple[str, str]:
    account, _, role = text.partition("=")
    if not account or role not in ("dealer", "stickperson", "boxperson", "supervisor", "manager"):
        raise argparse.ArgumentTypeError(f"ACCOUNT=ROLE with a staff role, not {text!r}")
    return account, role


async def _main(config: ServerConfig) -> None:
    async with trio.open_nursery() as nursery:
        running: RunningServer = await nursery.start(
            functools.partial(serve, config, port=config.port)
        )
        mode = "dev mode: guest accounts" if config.dev else "tokens required"
        stamp = datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S")
        print(
            f"croupier serving {len(running.croupier.tables)} tables ({mode}) at {stamp}",
            flush=True,
        )
        print(f"  page:    {running.http_url}", flush=True)
        print(f"  clients: {running.url}", flush=True)
        gc_policy.tune_at_startup()  # full collections off the hot path (docs/perf.md)
        gc_policy.watch_pauses()
        nursery.start_soon(gc_policy.keep)
        try:
            await trio.sleep_forever()
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(15):
                await running.aclose()
