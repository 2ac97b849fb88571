"""``croupier serve``: the WebSocket table server (websockets' trio API).

One process: a lobby of tables (one trio task each), accounts with HMAC session tokens, an
in-memory wallet, and per connection a reader (decode, validate, rate-limit, route) and a
writer (drains the connection's bounded outbound queue). The same port answers plain HTTP:
the browser page from ``clients/web/``, and ``/health``.

Tests start it in-process::

    running = await nursery.start(serve, config)   # port 0 by default: a free port
    ... ws://127.0.0.1:{running.port}/ws ...
    await running.aclose()                          # void rounds, cash out, close with 1001
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import email.utils
import functools
import json
import logging
import mimetypes
import os
import sys
from pathlib import Path
from typing import Any

import msgpack
import trio
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.trio.server import ServerConnection
from websockets.trio.server import serve as ws_serve

from protocol import errors
from protocol.codec import ProtocolError, decode_client, encode
from protocol.errors import CloseCode
from protocol.messages import (
    PROTOCOL_VERSION,
    Act,
    BuyIn,
    Error,
    Hello,
    Join,
    Leave,
    Lobby,
    LobbyList,
    Ping,
    Pong,
    SitIn,
    SitOut,
    Welcome,
)
from server import gc_policy
from server.accounts import Accounts, BadToken
from server.config import DEFAULT_PORT, DEFAULT_TABLES, ConfigError, ServerConfig, load_tables
from server.errors import ScenarioError
from server.games.poker import rules_for
from server.jackpots.service import open_jackpot_service
from server.tables import base as cmd
from server.tables.banked import BANKED_GAMES, BankedTable
from server.tables.base import TableActor
from server.tables.connection import Connection
from server.tables.poker import PokerTable
from server.wallet import Wallet

log = logging.getLogger("croupier.server")

#: Table kinds by game id prefix; banked games register theirs here later.
TABLE_KINDS: dict[str, type[TableActor]] = {
    g: PokerTable
    for g in ("holdem-act", "omaha-act", "manila-act", "holdem-qld", "omaha-qld", "manila-qld")
}
TABLE_KINDS.update(dict.fromkeys(BANKED_GAMES, BankedTable))


class RateLimit:
    """A token bucket: ``rate`` messages per second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.at = trio.current_time()

    def take(self) -> bool:
        now = trio.current_time()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Croupier:
    """The server's state: config, accounts, wallet, tables and live connections."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.accounts = Accounts(config.secret, ttl=config.token_ttl)
        self.wallet = Wallet()
        self.tables: dict[str, TableActor] = {}
        for table in config.tables:
            kind = TABLE_KINDS.get(table.game)
            if kind is None:
                raise ConfigError(f"table {table.id}: unknown game {table.game!r}")
            self.tables[table.id] = kind(table, config, self.wallet)
        self.seat_index: dict[str, set[str]] = {}  # account -> table ids (indexing kinds)
        self.table_order = {tid: i for i, tid in enumerate(self.tables)}
        self.unindexed = [t for t in self.tables.values() if not t.indexes_seats]
        for t in self.tables.values():
            if t.indexes_seats:
                t.seat_index = self.seat_index
        self.connections: set[Connection] = set()
        self.by_account: dict[str, Connection] = {}
        self.closing = False

    # -- money (for /health and conservation tests) -----------------------------------------
    def money(self) -> dict[str, int]:
        stakes = sum(t.money()["stakes"] for t in self.tables.values())
        commission = sum(t.money()["commission"] for t in self.tables.values())
        out = {
            "issued": self.wallet.issued,
            "wallets": self.wallet.total(),
            "stakes": stakes,
            "commission": commission,
        }
        if any(isinstance(t, BankedTable) for t in self.tables.values()):
            for key in ("house", "jackpot_contributed", "jackpot_paid"):
                out[key] = sum(t.money().get(key, 0) for t in self.tables.values())
        return out

    def health(self) -> dict[str, Any]:
        out = {
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

    # -- HTTP on the same port --------------------------------------------------------------
    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            return None
        if path == "/health":
            return _response(200, json.dumps(self.health()).encode(), "application/json")
        root = self.config.web_root.resolve()
        target = (root / (path.lstrip("/") or "index.html")).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_relative_to(root) or not target.is_file():
            return connection.respond(404, "not found\n")
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype.endswith("javascript"):
            ctype += "; charset=utf-8"
        return _response(200, target.read_bytes(), ctype)

    # -- one connection ---------------------------------------------------------------------
    async def handle(self, ws: ServerConnection) -> None:
        conn = Connection(self.config.outbound_queue)
        self.connections.add(conn)
        writer_done = trio.Event()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer, ws, conn, writer_done)
                nursery.start_soon(self._reader, ws, conn)
                nursery.start_soon(self._hello_deadline, conn)
                await conn.closing.wait()
                if conn.graceful:
                    with trio.move_on_after(self.config.close_timeout):
                        await writer_done.wait()
                nursery.cancel_scope.cancel()
        finally:
            self.connections.discard(conn)
            if conn.account and self.by_account.get(conn.account) is conn:
                del self.by_account[conn.account]
            for table_id in list(conn.tables):
                self.tables[table_id].submit(cmd.Detach(conn))
            with trio.move_on_after(self.config.close_timeout, shield=True):
                await ws.aclose(conn.close_code, conn.close_reason)

    async def _writer(self, ws: ServerConnection, conn: Connection, done: trio.Event) -> None:
        try:
            async for message in conn.outbox:
                await ws.send(encode(message))
        except ConnectionClosed:
            conn.drop(CloseCode.NORMAL, "")
        finally:
            done.set()

    async def _hello_deadline(self, conn: Connection) -> None:
        await trio.sleep(self.config.hello_timeout)
        if conn.account is None:
            conn.drop(CloseCode.POLICY, "no hello in time")

    async def _reader(self, ws: ServerConnection, conn: Connection) -> None:
        limit = RateLimit(self.config.rate, self.config.burst)
        violations = 0
        try:
            async for frame in ws:
                if conn.closing.is_set():
                    return
                try:
                    if not limit.take():
                        raise ProtocolError(errors.RATE_LIMITED, "too many messages")
                    message = decode_client(frame)
                    self.route(conn, message)
                except ProtocolError as exc:
                    violations += 1
                    conn.send(Error(code=exc.code, message=exc.message, ref=_ref(frame)))
                    if violations >= self.config.max_violations:
                        conn.drop(CloseCode.POLICY, "too many bad messages")
                        return
        except ConnectionClosed:
            pass
        conn.drop(CloseCode.NORMAL, "")

    def route(self, conn: Connection, message: Any) -> None:
        """Handle one valid message: session and lobby here, table commands to the table."""
        if isinstance(message, Hello):
            self.hello(conn, message)
            return
        if conn.account is None:
            raise ProtocolError(errors.HELLO_REQUIRED, "send hello first")
        if isinstance(message, Lobby):
            conn.send(LobbyList([t.info() for t in self.tables.values()]))
            return
        if isinstance(message, Ping):
            conn.send(Pong(message.nonce))
            return
        table = self.tables.get(message.table)
        if table is None:
            conn.send(
                Error(
                    code=errors.UNKNOWN_TABLE,
                    message=f"no table {message.table!r}",
                    ref=_ref_of(message),
                    table=message.table,
                )
            )
            return
        if self.closing:
            conn.send(
                Error(
                    code=errors.SHUTTING_DOWN,
                    message="the server is shutting down",
                    ref=_ref_of(message),
                    table=message.table,
                )
            )
            return
        if isinstance(message, Join):
            table.submit(cmd.Join(conn, message.role, message.seat, message.last_seq))
        elif isinstance(message, BuyIn):
            table.submit(cmd.BuyIn(conn, message.amount))
        elif isinstance(message, Act):
            table.submit(cmd.Act(conn, message.verb, message.amount))
        elif isinstance(message, SitOut):
            table.submit(cmd.SitOut(conn))
        elif isinstance(message, SitIn):
            table.submit(cmd.SitIn(conn))
        elif isinstance(message, Leave):
            table.submit(cmd.Leave(conn))
        else:  # other table kinds' messages (banked games): the table decides
            table.submit(cmd.Message(conn, message))

    def hello(self, conn: Connection, message: Hello) -> None:
        if conn.account is not None:
            raise ProtocolError(errors.ALREADY_HELLO, "hello was already accepted")
        if message.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                errors.PROTOCOL_VERSION, f"this server speaks protocol {PROTOCOL_VERSION}"
            )
        if message.token is not None:
            try:
                ident = self.accounts.verify(message.token)
            except BadToken as exc:
                raise ProtocolError(errors.BAD_TOKEN, str(exc)) from None
            token = message.token
        elif self.accounts.dev:
            ident, token = self.accounts.guest(message.name)
        else:
            raise ProtocolError(errors.GUESTS_DISABLED, "this server needs a session token")
        balance = self.wallet.open(ident.account, self.config.starting_balance)
        conn.account, conn.name = ident.account, message.name or ident.name
        old = self.by_account.get(ident.account)
        if old is not None and old is not conn:
            old.drop(CloseCode.REPLACED, "session taken over by a newer connection")
            for table_id in list(old.tables):
                self.tables[table_id].submit(cmd.Detach(old))
        self.by_account[ident.account] = conn
        seated = self.seated_tables(ident.account)
        conn.send(
            Welcome(
                protocol=PROTOCOL_VERSION,
                token=token,
                account=ident.account,
                name=conn.name,
                balance=balance,
                dev=self.accounts.dev,
                seated=seated,
                max_frame=self.config.max_frame,
            )
        )

    def seated_tables(self, account: str) -> list[str]:
        """Ids of the tables where ``account`` holds a seat, in lobby order (no full scan:
        a reconnect storm of thousands of players must not cost tables x seats each)."""
        held = list(self.seat_index.get(account, ()))
        held += [t.id for t in self.unindexed if t.seat_of_account(account) is not None]
        return sorted(held, key=self.table_order.__getitem__)

    # -- shutdown ---------------------------------------------------------------------------
    async def shutdown(self) -> None:
        """Stop the tables (void running rounds, return stakes), then close clients with 1001."""
        self.closing = True
        done = []
        for table in self.tables.values():
            event = trio.Event()
            table.submit(cmd.Shutdown(event))
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


def _ref_of(message: Any) -> str:
    return str(type(message).__struct_config__.tag)


def _ref(frame: Any) -> str | None:
    """The ``type`` of a refused frame when it can be read (for ``error.ref``)."""
    if not isinstance(frame, bytes):
        return None
    try:
        obj = msgpack.unpackb(frame, strict_map_key=False)
    except Exception:
        return None
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind[:32] if isinstance(kind, str) else None


def _response(status: int, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Content-Length", str(len(body))),
            ("Content-Type", content_type),
            ("Cache-Control", "no-cache"),
        ]
    )
    return Response(status, "OK" if status == 200 else "Error", headers, body)


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
    args = parser.parse_args(argv)
    try:
        tables = load_tables(args.tables)
        for t in tables:
            if t.game not in TABLE_KINDS:
                raise ConfigError(f"table {t.id}: unknown game {t.game!r}")
            if TABLE_KINDS[t.game] is PokerTable:
                rules_for(t.game, dict(t.options))
            elif TABLE_KINDS[t.game] is BankedTable:
                BankedTable.check_config(t)
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
    )
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    try:
        trio.run(_main, config)
    except* KeyboardInterrupt:  # Ctrl-C: trio raises it in an ExceptionGroup after _main's
        pass  # graceful shutdown (rounds voided, stakes returned, clients closed with 1001)
    return 0


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
