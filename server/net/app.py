"""``croupier serve``: the WebSocket table server (websockets' trio API).

One process: a lobby of tables (one trio task each), accounts with HMAC session tokens, the
ledger (every cent, durable in ``--data DIR``: ``server/store/``), and the connections. The
modules beside this one do one job each:

* ``server/net/connections.py``: a connection (two tasks) and the keepalive sweep;
* ``server/net/router.py``: sessions, the lobby, and each table message to its table's inbox;
* ``server/net/http.py``: the page from ``clients/web/``, ``/health`` and ``/status``, same port;
* ``server/tables/``: the table layer (``base.py`` shows a command's whole path).

Tests start it in-process::

    running = await nursery.start(serve, config)   # port 0 by default: a free port
    ... ws://127.0.0.1:{running.port}/ws ...
    await running.aclose()                          # void rounds, cash out, close with 1001
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import logging
import os
import secrets
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio
from websockets.http11 import Request, Response
from websockets.trio.server import ServerConnection
from websockets.trio.server import serve as ws_serve

from protocol.errors import CloseCode
from protocol.messages import TableInfo
from server import gc_policy, logs, metrics
from server.cli import OneLineParser, dollars_option, port_option
from server.config import (
    DEFAULT_LEASE,
    DEFAULT_PORT,
    DEFAULT_TABLES,
    ConfigError,
    ServerConfig,
    TableConfig,
    load_tables,
)
from server.credentials import CredentialError, add_redis, redis_url
from server.errors import ScenarioError
from server.games.poker import rules_for
from server.games.registry import TableKind, table_kind
from server.jackpots.memory import MemoryJackpotService
from server.jackpots.model import JackpotError, JackpotUnavailable
from server.jackpots.reconcile import POOL_OF
from server.jackpots.service import open_jackpot_service
from server.net import http
from server.net.connections import Keepalive, run_connection
from server.net.router import Router
from server.net.websocket import Socket
from server.room.accounts import Accounts
from server.room.waiting import WaitingLists
from server.store import checkpoints
from server.store.ledger import AsyncStore, Ledger, Store, pool_voids
from server.store.memory import MemoryStore
from server.store.model import StoreError
from server.store.sqlite import SqliteStore, default_data_dir
from server.store.witness import Witness, ledger_stream
from server.tables.banked import BankedTable
from server.tables.base import Abandon, Shutdown, TableActor
from server.tables.blackjack import BlackjackTable
from server.tables.connection import Connection
from server.tables.poker import PokerTable
from server.tables.stadium import StadiumTable
from server.tournaments.conditions import ConditionsError
from server.tournaments.conditions import load as load_conditions
from server.tournaments.runner import SNAPSHOT as TOURNAMENT_SNAPSHOT
from server.tournaments.runner import TournamentRunner

if TYPE_CHECKING:  # coredis is imported only by a server on Redis
    from server.room.directory import Directory

log = logging.getLogger("croupier.server")

#: The table class of each kind of table (game ids and their kinds: server.games.registry).
TABLE_CLASSES: dict[TableKind, type[TableActor]] = {
    "poker": PokerTable,
    "banked": BankedTable,
    "blackjack": BlackjackTable,
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
    """The server's state: config, accounts, ledger, tables and live connections."""

    def __init__(
        self,
        config: ServerConfig,
        store: AsyncStore | None = None,
        witness: Witness | None = None,
    ) -> None:
        """``store``/``witness``: the Redis store (``--redis``) and the witness of the data
        directory, opened by :func:`serve`; by default the SQLite store of ``--data``."""
        self.config = config
        self.store: Store | AsyncStore
        if store is not None:
            self.store = store
        elif config.data is None:
            self.store = MemoryStore()
        else:
            self.store = SqliteStore(config.data)
            witness = witness or Witness(config.data)
        instance = None if store is None else store.instance  # a shared store names us
        signer = checkpoints.signing_key(config.signing_key_file)  # or $CROUPIER_SIGNING_KEY
        self.ledger = Ledger(self.store, witness=witness, instance=instance, signer=signer)
        #: a deployment's table directory (``--directory``, server/room/directory.py): tables are
        #: opened as their leases are won (:meth:`adopt`), not here
        self.directory: Directory | None = None
        self.ledger.shared = store is not None and config.directory
        # rounds a dead process left open: voided (on a shared store: only our tables'; in a
        # deployment each table's, when this process wins its lease: adopt)
        ours = {t.id for t in config.tables} if store is not None else None
        # a tournament's money was one ledger round in older servers: one left open is voided
        # (a tournament now survives: server/tournaments/runner.py, its snapshot)
        tournaments = {f"tournament:{c.id}" for c in config.tournaments}
        self.recovered = (
            self.ledger.recover(tournaments)
            if self.ledger.shared
            else self.ledger.recover(None if ours is None else ours | tournaments, self.pools())
        )
        if self.recovered["rounds_voided"] or self.recovered["stakes_returned"]:
            log.warning("crash recovery: %s", self.recovered)
        dev_secret = None
        if config.dev:
            dev_secret = self.ledger.meta.get("dev_secret")
            if dev_secret is None:
                dev_secret = secrets.token_hex(32)
                self.ledger.remember("dev_secret", dev_secret)
                self.ledger.flush_now()
        self.accounts = Accounts(config.secret, ttl=config.token_ttl, dev_secret=dev_secret)
        self.tables: dict[str, TableActor] = {}
        self._seat_index: dict[str, set[str]] = {}  # account -> table ids, shared by tables
        self._sessions: dict[str, set[str]] = {}  # account -> stadium tables (one meter)
        self._poker: dict[str, PokerTable] = {}
        self.waiting = WaitingLists(self._poker)  # waiting lists span tables: the server's
        for table in () if self.ledger.shared else config.tables:
            self.add_table(table)
        self.router = Router(
            config, self.accounts, self.ledger, self.tables, self._seat_index, self.waiting
        )
        self._nursery: trio.Nursery | None = None
        self._jackpots: Any = None
        # tournaments (server/tournaments/runner.py): one task each, tables added as they open
        self.tournaments: dict[str, TournamentRunner] = {
            c.id: TournamentRunner(c, config, self.ledger, self) for c in config.tournaments
        }
        self.router.tournaments = self.tournaments
        for key, saved in self.ledger.meta.items():  # not over, and not run by this server
            name = key.removeprefix(TOURNAMENT_SNAPSHOT)
            if saved and key != name and name not in self.tournaments:
                log.warning(
                    "tournament %s is not over (its fees are in its pool): "
                    "serve --tournament with its conditions to resume it",
                    name,
                )
        self.connections: set[Connection] = set()
        self.ledger.on_status.append(self._store_status)
        self._said = "ok"  # the store's state the sessions were last told (server_status)
        self.keepalive = Keepalive(config)  # pings and hello deadlines: one sweep
        meta = self.ledger.meta
        self.accounts.revoked |= {k.split(":", 1)[1] for k in meta if k.startswith("revoked:")}
        self.accounts.suspended |= {
            k.split(":", 1)[1] for k, v in meta.items() if k.startswith("suspended:") and v
        }
        self.gate = http.Gate(
            origins=config.origins,
            max_per_ip=config.max_per_ip,
            is_staff=self.accounts.is_staff,
            dev=config.dev,
        )
        #: tables started and the port open (:func:`serve`); a stop asked for (SIGTERM,
        #: Ctrl-C): ``/ready`` fails from that instant, before the graceful stop begins
        self.started = False
        self.draining = False
        self.probes = http.Probes(
            status=self.health, ready=self.ready, metrics=metrics.registry_for(self)
        )

    def pools(self) -> dict[str, str]:
        """Each linked table's jackpot pool: as configured, and as the ledger remembers it
        (a table since reconfigured may have left a round open)."""
        meta = self.ledger.meta
        found = {k[len(POOL_OF) :]: v for k, v in meta.items() if k.startswith(POOL_OF) and v}
        found.update({t.id: t.jackpot_pool for t in self.config.tables if t.jackpot_pool})
        return found

    async def void_in_pools(self) -> None:
        """Carry out the pool voids crash recovery wrote down (``jackpot_void:`` facts): a
        round it voided leaves its pool as it was before the round (a coin-in the pool
        took is taken back; the ledger's reversal already took the money back). Retried
        while the pool store is out; each is done once (the pool's void is idempotent)."""
        ledger, service = self.ledger, self._jackpots
        while service is not None:
            owed = pool_voids(ledger.meta)
            if not owed:
                return
            for fact, pool, ref in owed:
                try:
                    await service.void_round(pool, ref)
                except JackpotUnavailable:
                    break
                except JackpotError as exc:  # no such pool (never opened): nothing owed
                    log.warning("jackpot void of %s in %s: %s", ref, pool, exc)
                ledger.remember(fact, "")
            else:
                continue
            await service.wait_available()
            await trio.sleep(0.5)

    def _store_status(self) -> None:
        """The store went out or came back: every session is told at once, ahead of the
        frames that wait for the store (``server_status``; commit, then speak)."""
        notice = self.router.store_status()
        if notice.status == self._said:
            return  # the ledger reports every failed retry: sessions are told of changes
        self._said = notice.status
        for conn in self.connections:
            if conn.account is not None:
                conn.notice(notice)

    def add_table(self, table: TableConfig) -> TableActor:
        """Build ``table``'s actor and give it the server's shared indexes."""
        try:
            kind = table_class(table.game, table.kind)
        except ConfigError as exc:
            raise ConfigError(f"table {table.id}: {exc}") from None
        actor = self.tables[table.id] = kind(table, self.config, self.ledger)
        actor.seat_index = self._seat_index
        if isinstance(actor, StadiumTable):
            actor.sessions = self._sessions
        if isinstance(actor, PokerTable):
            self._poker[table.id] = actor
            actor.waiting = self.waiting
        return actor

    async def start_table(self, actor: TableActor) -> None:
        assert self._nursery is not None, "tables start once the server runs"
        if isinstance(actor, BankedTable):
            actor.use_jackpots(self._jackpots)  # linked pools (in memory, or Redis: --redis)
        await self._nursery.start(actor.run)

    # -- a deployment (server/room/directory.py): the directory's host ---------------------------
    def owned(self) -> dict[str, int]:
        """The tables this process holds a lease of, and their tokens."""
        return dict(self.ledger.fences)

    def rows(self) -> dict[str, TableInfo]:
        return {t: self.router.lobby_row(a) for t, a in self.tables.items()}

    async def adopt(self, config: TableConfig, token: int) -> None:
        """Run ``config``'s table, now owned with ``token``: its interrupted round voided
        and its stakes sent home from what the store holds (the crash-recovery ruling)."""
        if self.closing:
            return
        from server.store.redis import RedisStore

        store = self.store
        assert isinstance(store, RedisStore)
        balances, rounds = await store.table_state(config.id)
        pools = {config.id: config.jackpot_pool} if config.jackpot_pool else None
        counts = self.ledger.adopt_table(config.id, token, balances, rounds, pools)
        for name, n in counts.items():
            self.recovered[name] += n
        if counts["rounds_voided"] or counts["stakes_returned"]:
            log.warning("table %s taken over (token %d): %s", config.id, token, counts)
        if self.closing:  # recovered (the shutdown's drain commits it), not reopened
            return
        if pool_voids(self.ledger.meta) and self._nursery is not None:
            self._nursery.start_soon(self.void_in_pools)
        await self.start_table(self.add_table(config))

    def abandon(self, table: str, reason: str) -> None:
        """``table``'s lease is lost: it stops now and moves no more money (its new owner
        voids the round and sends the stakes home from the store)."""
        actor = self.tables.pop(table, None)
        self._poker.pop(table, None)
        self.ledger.drop_table(table)
        if actor is not None:
            actor.submit(Abandon(reason))

    def fenced(self, table: str) -> None:
        """The store refused a batch of ``table`` (a stale table or wallet token): the table
        stops, and its lease, if still ours, is given up so that a live process (maybe this
        one) takes it over at once from what the store holds."""
        token = self.ledger.fences.get(table)
        if table in self.tables and self.directory is not None:
            self.directory.lost += 1
            log.error("table %s: a write with a stale token was refused; the table stops", table)
        self.abandon(table, "moved")
        if token is not None and self.directory is not None and self._nursery is not None:
            self._nursery.start_soon(self._release, table, token)

    async def _release(self, table: str, token: int) -> None:
        assert self.directory is not None
        try:
            await self.directory.release({table: token})
        except StoreError:
            pass  # the lease then expires

    @property
    def closing(self) -> bool:
        return self.router.closing

    # -- the host of tournaments (server/tournaments/runner.py Host) -------------------------
    def open_tournament_table(self, table: TableActor) -> None:
        """A tournament opened a table: it joins the lobby and runs in the server's nursery."""
        assert self._nursery is not None, "tables are added only while the server runs"
        table.seat_index = self._seat_index
        self.tables[table.id] = table
        self.router.table_order[table.id] = len(self.router.table_order)
        self._nursery.start_soon(table.run)

    def remove_table(self, table_id: str) -> None:
        self.tables.pop(table_id, None)

    def connection(self, account: str) -> Connection | None:
        return self.router.by_account.get(account)

    # -- money (for /status and conservation tests) -----------------------------------------
    def money(self) -> dict[str, int]:
        per_table = [t.money() for t in self.tables.values()]
        out = {
            "issued": self.ledger.issued,
            "wallets": self.ledger.total(),
            "stakes": sum(m["stakes"] for m in per_table),
            "commission": sum(m["commission"] for m in per_table),
        }
        if any(isinstance(t, BankedTable | StadiumTable) for t in self.tables.values()):
            for key in ("house", "jackpot_contributed", "jackpot_paid"):
                out[key] = sum(m[key] for m in per_table)
        if self.tournaments:  # entry fees held: prize pools and tournament commission
            out["tournaments"] = sum(
                v for k, v in self.ledger.balances.items() if k.startswith("tournament:")
            )
        return out

    def health(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": "closing" if self.closing else "ok" if self.ledger.can_move else "store",
            "tables": len(self.tables),
            "connections": len(self.connections),
            "money": self.money(),
        }
        if self.directory is not None:  # a deployment: what this process owns and did
            out["directory"] = {
                "instance": self.ledger.instance,
                "url": self.directory.url,
                "owned": sorted(self.tables),
                "taken_over": self.directory.taken_over,
                "lost": self.directory.lost,
                "refused": self.ledger.refused,
                "known": len(self.directory.entries),
            }
        jackpots = [
            t.jackpot_info()
            for t in self.tables.values()
            if isinstance(t, BankedTable) and t.link is not None
        ]
        if jackpots:  # linked banked tables: pool, meter, open, jackpot wagers coined in
            out["jackpots"] = jackpots
        return out

    def ready(self) -> tuple[bool, str]:
        """``/ready``: whether a load balancer should send new players here, and why not."""
        if self.draining or self.closing:
            return False, "draining"
        if not self.started:
            return False, "starting"
        if not self.ledger.can_move:
            return False, "store"
        return True, "ready"

    def jackpot_meters(self) -> dict[str, int]:
        """Each linked pool's meter as this process's tables last saw it (``/metrics``)."""
        return {
            t.link.pool: t.meter
            for t in self.tables.values()
            if isinstance(t, BankedTable) and t.link is not None and t.meter is not None
        }

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        return http.respond(self.config.web_root, self.gate, self.probes, connection, request)

    # -- one connection ---------------------------------------------------------------------
    async def handle(self, ws: ServerConnection) -> None:
        assert isinstance(ws, Socket)  # serve(create_connection=Socket)
        conn = Connection(self.config.outbound_queue, self.ledger.gate)
        self.connections.add(conn)
        counts = self.ledger.metrics
        counts.connections_opened += 1
        try:  # counted against its address's cap before the handshake (http.Gate.admit)
            await run_connection(ws, conn, self.config, self.router.route, self.keepalive)
        finally:
            if conn.close_code == CloseCode.TOO_SLOW:
                counts.dropped_slow += 1
            if conn.account is not None:  # its session ends
                counts.sessions[conn.role] -= 1
            log.info("connection closed (%s %s)", conn.close_code, conn.close_reason)
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
        for runner in self.tournaments.values():  # a tournament not over: its snapshot
            event = trio.Event()
            runner.submit(Shutdown(event))
            done.append(event)
        with trio.move_on_after(10):
            for event in done:
                await event.wait()
        await self.ledger.drain(5)  # the voids and cash-outs of the shutdown, committed
        for conn in list(self.connections):
            conn.finish(CloseCode.GOING_AWAY, "server shutting down")
        # let each writer drain its queue and close with 1001 before websockets closes the rest
        with trio.move_on_after(self.config.close_timeout * 2 + 1):
            while self.connections:
                await trio.sleep(0.01)
        # every movement so far committed, then the store released (the next server may start)
        if not await self.ledger.drain():
            log.error("shutdown: %d ledger batches not committed", self.ledger.backlog)
        if self.directory is not None:  # the others take the tables over at once
            with trio.move_on_after(2):
                try:
                    await self.directory.release(self.owned(), leaving=True)
                except Exception as exc:  # best effort: the leases expire anyway (Ctrl-C
                    # may have stopped the Redis client's own tasks already)
                    log.warning("shutdown: leases not released (%s); they expire", exc)
        self.store.close()


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
    async with (
        open_server_store(config) as (store, witness),
        open_jackpot_service(config.redis, witness) as jackpots,
        trio.open_nursery() as nursery,
    ):
        croupier = Croupier(config, store, witness)
        if croupier.ledger.lost is not None:  # one line (croupier serve), no table runs
            raise StoreError(
                f"{croupier.ledger.why_not()}; restore it, or start on a new store "
                "(croupier ledger check says what is there)"
            )
        croupier._nursery, croupier._jackpots = nursery, jackpots
        if isinstance(jackpots, MemoryJackpotService):  # the embedded pools: on the books
            jackpots.bind(croupier.ledger)
        await nursery.start(croupier.ledger.run)
        nursery.start_soon(croupier.void_in_pools)  # what crash recovery left to the pools
        if store is not None:
            nursery.start_soon(store.keep_alive, croupier.ledger.instance)
        for table in list(croupier.tables.values()):
            await croupier.start_table(table)
        for runner in croupier.tournaments.values():
            await nursery.start(runner.run)
        nursery.start_soon(croupier.keepalive.run)
        nursery.start_soon(croupier.router.staff.run)  # the staff console's live floor
        ws_server = await nursery.start(_ws_serve_partial(croupier, host, port, config))
        bound = ws_server.listeners[0].socket.getsockname()[1]
        running = RunningServer(croupier, bound, host, ws_server, nursery.cancel_scope)
        if croupier.ledger.shared:  # a deployment: claim our tables, then keep the leases
            from server.room.directory import Directory
            from server.store.redis import RedisStore

            assert isinstance(store, RedisStore)
            directory = Directory(
                store,
                config.advertise or running.url,
                lease=config.lease,
                previous=store.previous,
            )
            croupier.directory = croupier.router.directory = directory
            croupier.gate.peers = directory.peers
            croupier.ledger.on_fenced.append(croupier.fenced)
            await directory.start(croupier, config.tables)
            nursery.start_soon(directory.run, croupier)
        croupier.started = True  # /ready
        task_status.started(running)
        await trio.sleep_forever()


@asynccontextmanager
async def open_server_store(
    config: ServerConfig,
) -> AsyncIterator[tuple[Any, Witness | None]]:
    """The Redis ledger store with ``--redis`` (:mod:`server.store.redis`; None otherwise:
    the Croupier opens ``--data``'s SQLite) and the witness of the data directory.

    A server on a Redis (``--redis``, or ``--jackpot-redis`` for the pools only) refuses
    (StoreError, one line) to run in dev mode without ``dev_redis``, on a Redis without AOF
    persistence without ``allow_volatile_redis``, and on a Redis that holds no ledger unless
    told to create one (``new_store``, implied by ``dev_redis``): a Redis that lost its data
    must never pass for a new one, whatever the data directory's witness says."""
    if config.redis is None:
        yield None, None
        return
    if config.dev and not config.dev_redis:
        raise StoreError(
            "a dev-mode server (no --secret) refuses a Redis: a dev server on a production "
            "Redis once minted money; give --secret, or --dev-redis for a test Redis"
        )
    from server.store.redis import (
        START_WAIT,
        RedisStore,
        connect,
        open_redis_store,
        public_url,
    )

    async with connect(config.redis) as client:
        # a refused password or ACL fails here, in one line (a jackpot-only server may
        # start while its Redis is down: the pools are unavailable until it is back)
        probe = RedisStore(client, config.redis)
        await probe.check_access(down_ok=not config.redis_ledger)
        if not config.allow_volatile_redis and not await probe.appendonly():
            raise StoreError(
                f"the Redis at {public_url(config.redis)} has no AOF persistence "
                "(appendonly no): a restart would lose money; set appendonly yes and "
                "appendfsync always (README, Redis), or give --allow-volatile-redis"
            )
    # the SQLite store locks the data directory itself
    witness = None if config.data is None else Witness(config.data, lock=config.redis_ledger)
    try:
        if not config.redis_ledger:
            yield None, witness
            return
        seen = witness is not None and witness.seen(ledger_stream(public_url(config.redis)))
        previous = None if witness is None else witness.instance
        create = not seen and (config.new_store or config.dev_redis)
        async with open_redis_store(
            config.redis,
            create=create,
            previous=previous,
            replicas=config.redis_replicas,
            adopt=True,  # a store made before the chain gets its first entry
            wait=START_WAIT,  # a Redis restarting as this server starts: waited for
        ) as store:
            if not store.epoch and not seen:  # never a flushed Redis for a new one
                raise StoreError(
                    f"the Redis at {public_url(config.redis)} holds no croupier ledger: if "
                    "this deployment is new, start once with --new-store; if it held one, "
                    "Redis lost its data (restore its AOF) and no server may run on it"
                )
            if witness is not None:
                witness.instance = store.instance
                witness.write()
            yield store, witness
    finally:
        if witness is not None:
            witness.close()


def _ws_serve_partial(croupier: Croupier, host: str, port: int, config: ServerConfig) -> Any:
    async def start(task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        await ws_serve(
            croupier.handle,
            port,
            host=host,
            process_request=croupier.process_request,
            server_header=None,  # no version banner
            compression=None,
            max_size=config.max_frame,
            max_queue=16,
            create_connection=Socket,  # reads without a task of ours (server/net/connections.py)
            ping_interval=None,  # keepalive: one sweep per process (croupier.keepalive)
            close_timeout=config.close_timeout,
            task_status=task_status,
        )

    return start


# -- command line ----------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="croupier serve", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=port_option,
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
        "--secret-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="file whose first line is the HMAC secret for session tokens (or env "
        "CROUPIER_SECRET; never on the command line, where ps shows it); without a secret "
        "the server runs in dev mode with guest accounts",
    )
    parser.add_argument(
        "--origin",
        action="append",
        default=None,
        metavar="URL",
        help="a browser origin allowed to connect (https://casino.example; repeat for "
        "more); required with a secret; default in dev mode: pages on this machine only",
    )
    parser.add_argument(
        "--max-per-ip",
        type=int,
        default=64,
        metavar="N",
        help="WebSocket connections one address may hold (default 64)",
    )
    parser.add_argument(
        "--max-spectators",
        type=int,
        default=200,
        metavar="N",
        help="spectators one table takes (default 200)",
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=ServerConfig.max_tables,
        metavar="N",
        help=f"tables one account may sit at at once (default {ServerConfig.max_tables})",
    )
    parser.add_argument(
        "--unstaked-seat-time",
        type=float,
        default=ServerConfig.unstaked_seat_time,
        metavar="SECONDS",
        help="a poker seat held without a stake is released after this (default "
        f"{ServerConfig.unstaked_seat_time:g})",
    )
    parser.add_argument(
        "--turn-time",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="seconds a player has to act (default 20)",
    )
    parser.add_argument(
        "--time-bank",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="extra seconds per seat, drawn on when the turn time runs out (default 30)",
    )
    parser.add_argument(
        "--time-bank-add",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="seconds added to a seat's time bank every --time-bank-hands hands (default 5)",
    )
    parser.add_argument(
        "--time-bank-hands",
        type=int,
        default=10,
        metavar="N",
        help="hands a seat plays between time bank top-ups; 0: never (default 10)",
    )
    parser.add_argument(
        "--time-bank-max",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the most a time bank holds (default: --time-bank)",
    )
    parser.add_argument(
        "--seat-offer-time",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="seconds a freed seat is held for the first on its waiting list (default 20)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="seconds a disconnected player's seat is held (default 60)",
    )
    parser.add_argument(
        "--round-pause",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="seconds between rounds (default 2)",
    )
    parser.add_argument(
        "--starting-balance",
        type=dollars_option,
        default=None,
        metavar="AMOUNT",
        help="dollars a new guest account starts with, dev mode only (default $1,000)",
    )
    parser.add_argument(
        "--max-deposit",
        type=dollars_option,
        default=ServerConfig.max_deposit,
        metavar="AMOUNT",
        help="the most one cashier deposit may pay in (default $1,000,000)",
    )
    parser.add_argument(
        "--max-wallet",
        type=dollars_option,
        default=ServerConfig.max_wallet,
        metavar="AMOUNT",
        help="the most a deposit may bring a wallet to (default $10,000,000; winnings may "
        "take it beyond)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=default_data_dir(),
        help="data directory of the ledger (SQLite; default ./var, env CROUPIER_DATA): "
        "wallets, stakes, rounds and the dev secret survive a restart or a crash",
    )
    add_redis(
        parser,
        "keep every store (ledger, accounts, jackpot pools) in Redis "
        "(redis://[USER:PASSWORD@]HOST:PORT, rediss:// for TLS, redis+cluster://: "
        "docs/redis.md), shared by every server on it; --data then holds only the "
        "witness file; default: SQLite in --data, jackpot pools in memory",
        on_request=True,
    )
    add_redis(
        parser,
        "keep only the jackpot pools in Redis (linked servers), the ledger in --data",
        flag="--jackpot-redis",
        on_request=True,
    )
    parser.add_argument(
        "--redis-wait",
        type=int,
        default=0,
        metavar="N",
        help="with --redis: a ledger commit counts only once N replicas confirm it (WAIT)",
    )
    parser.add_argument(
        "--directory",
        action="store_true",
        help="with --redis: join the deployment's table directory (several processes on one "
        "Redis: one lobby, each table owned by one process under a lease, failover)",
    )
    parser.add_argument(
        "--lease",
        type=float,
        default=DEFAULT_LEASE,
        metavar="SECONDS",
        help=f"with --directory: a table's lease; a dead process's tables are taken over "
        f"within it (default {DEFAULT_LEASE:g})",
    )
    parser.add_argument(
        "--advertise",
        metavar="URL",
        default=None,
        help="with --directory: the client URL other processes send players to (default "
        "ws://HOST:PORT/ws)",
    )
    parser.add_argument(
        "--allow-volatile-redis",
        action="store_true",
        help="accept a Redis without AOF persistence (tests only: a restart loses money)",
    )
    parser.add_argument(
        "--dev-redis",
        action="store_true",
        help="let a dev-mode server (no --secret) use --redis (tests only)",
    )
    parser.add_argument(
        "--signing-key-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="the Ed25519 key that signs checkpoints of the records' hash chain (or env "
        "CROUPIER_SIGNING_KEY; croupier ledger keygen makes one): keep it off the store",
    )
    parser.add_argument(
        "--new-store",
        action="store_true",
        help="with --redis: an empty Redis becomes a new ledger store (the first start of a "
        "deployment); without it a server refuses an empty Redis, which may be one that "
        "lost its data",
    )
    parser.add_argument(
        "--tournament",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="run the tournament of this conditions file (TOML, docs/tournaments/; repeat "
        "for more): in the lobby at once, registration open",
    )
    parser.add_argument(
        "--tournament-minute",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="seconds in a minute of the tournaments' clock: levels and breaks (default 60)",
    )
    parser.add_argument(
        "--log-format",
        choices=logs.FORMATS,
        default="text",
        help="log lines as text (default) or one JSON object a line, with the table, round "
        "and account where there is one (server/logs.py)",
    )
    parser.add_argument(
        "--log-level",
        choices=logs.LEVELS,
        default="warning",
        help="the least a line must matter to be logged (default warning; info adds each "
        "round's start and end, and each connection)",
    )
    parser.add_argument(
        "--drain-grace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="on SIGTERM, /ready fails at once and play goes on this long before the "
        "graceful stop, so a load balancer stops sending players first (default 0)",
    )
    args = parser.parse_args(argv)
    try:  # never a password in argv (server/credentials.py)
        args.redis = redis_url(args, "croupier serve", on_request=True)
        args.jackpot_redis = redis_url(
            args, "croupier serve", flag="--jackpot-redis", on_request=True
        )
    except CredentialError as exc:
        parser.error(str(exc))
    secret = os.environ.get("CROUPIER_SECRET") or None
    if args.secret_file is not None:
        try:
            secret = args.secret_file.read_text().splitlines()[0].strip() or None
        except (OSError, IndexError):
            parser.error(f"cannot read a secret from {args.secret_file}")
    if secret is not None and not args.origin:
        parser.error("a production server (with a secret) needs --origin URL, the page's origin")
    if args.directory and not args.redis:
        parser.error("--directory needs --redis (the deployment's ledger and directory)")
    if args.redis and args.jackpot_redis:
        parser.error("give --redis (every store) or --jackpot-redis (the pools only), not both")
    if secret is not None and args.starting_balance is not None:
        parser.error(
            "--starting-balance is for dev mode only: with a secret accounts start at $0 and "
            "the cashier pays in (croupier cashier deposit ACCOUNT AMOUNT)"
        )
    if args.new_store and not args.redis:
        parser.error("--new-store is for --redis (a new --data directory is a new store)")
    starting = 100_000 if args.starting_balance is None else args.starting_balance
    try:
        checkpoints.signing_key(args.signing_key_file)
    except checkpoints.BadKey as exc:
        parser.error(str(exc))
    if args.max_deposit > args.max_wallet:
        parser.error("--max-deposit is above --max-wallet: no deposit could reach it")
    if secret is None and starting > args.max_wallet:
        parser.error("--starting-balance is above --max-wallet")
    try:
        tables = load_tables(args.tables)
        for t in tables:
            try:
                kind = table_class(t.game, t.kind)
            except ConfigError as exc:
                raise ConfigError(f"table {t.id}: {exc}") from None
            if kind is PokerTable:
                rules_for(t.game, dict(t.options))
            elif issubclass(kind, BankedTable | StadiumTable):
                kind.check_config(t)
        tournaments = tuple(load_conditions(p) for p in args.tournament)
    except (ConfigError, ScenarioError, ConditionsError) as exc:
        print(f"croupier serve: {exc}", file=sys.stderr)
        return 2
    config = ServerConfig(
        host=args.host,
        port=args.port,
        secret=secret,
        origins=tuple(args.origin) if args.origin else None,
        max_per_ip=args.max_per_ip,
        max_spectators=args.max_spectators,
        max_tables=args.max_tables,
        unstaked_seat_time=args.unstaked_seat_time,
        tables=tables,
        turn_time=args.turn_time,
        time_bank=args.time_bank,
        time_bank_add=args.time_bank_add,
        time_bank_hands=args.time_bank_hands,
        time_bank_max=args.time_bank_max,
        seat_offer_time=args.seat_offer_time,
        grace=args.grace,
        round_pause=args.round_pause,
        drain_grace=args.drain_grace,
        starting_balance=starting,
        max_deposit=args.max_deposit,
        max_wallet=args.max_wallet,
        new_store=args.new_store,
        signing_key_file=args.signing_key_file,
        redis=args.redis or args.jackpot_redis,
        redis_ledger=args.redis is not None,
        data=args.data,
        allow_volatile_redis=args.allow_volatile_redis,
        dev_redis=args.dev_redis,
        redis_replicas=args.redis_wait,
        directory=args.directory,
        lease=args.lease,
        advertise=args.advertise,
        tournaments=tournaments,
        tournament_minute=args.tournament_minute,
    )
    if args.drain_grace < 0:
        parser.error("--drain-grace is seconds, 0 or more")
    logs.configure(args.log_format, args.log_level)
    failed: list[BaseException] = []
    try:
        trio.run(_main, config)
    except* KeyboardInterrupt:  # Ctrl-C: trio raises it in an ExceptionGroup after _main's
        pass  # graceful shutdown (rounds voided, stakes returned, clients closed with 1001)
    except* StoreError as group:  # e.g. the data directory is another server's
        failed.append(_first(group))
    if failed:
        print(f"croupier serve: {failed[0]}", file=sys.stderr)
        return 2
    return 0


def _first(group: BaseExceptionGroup[StoreError]) -> BaseException:
    for exc in group.exceptions:
        return _first(exc) if isinstance(exc, BaseExceptionGroup) else exc
    return group


async def _main(config: ServerConfig) -> None:
    from server.store.redis import public_url

    async with trio.open_nursery() as nursery:
        running: RunningServer = await nursery.start(
            functools.partial(serve, config, port=config.port)
        )
        # From here on a Ctrl-C (SIGINT) is a message, not an exception. Trio's default raises
        # KeyboardInterrupt in whatever task runs when the signal lands (a table mid-step, a
        # connection mid-send): that tore down the tables and the ledger's committer before
        # the graceful stop could void their rounds, and left a round open in the store.
        # SIGTERM (systemd, docker stop, kill) stops the server the same graceful way.
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            mode = "dev mode: guest accounts" if config.dev else "tokens required"
            stamp = datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S")
            print(
                f"croupier serving {len(running.croupier.tables)} tables ({mode}) at {stamp}",
                flush=True,
            )
            print(f"  page:    {running.http_url}", flush=True)
            print(f"  clients: {running.url}", flush=True)
            where = (
                f"in Redis {public_url(config.redis)}"
                if config.redis and config.redis_ledger
                else "in memory (tests only)"
                if config.data is None
                else f"in {config.data}/"
            )
            recovered = running.croupier.recovered
            print(
                f"  ledger:  {where}; crash recovery voided {recovered['rounds_voided']} rounds, "
                f"returned {recovered['stakes_returned']} stakes",
                flush=True,
            )
            for runner in running.croupier.tournaments.values():
                if runner.resumed:  # a tournament not over when the server stopped or died
                    t = runner.tournament
                    print(
                        f"  tournament {runner.id} resumed: {t.phase.value}, "
                        f"{len(t.playing) or len(t.status)} players",
                        flush=True,
                    )
            gc_policy.tune_at_startup()  # full collections off the hot path (docs/perf.md)
            gc_policy.watch_pauses()
            nursery.start_soon(gc_policy.keep)
            try:
                async for _ in signals:
                    break  # Ctrl-C or SIGTERM: the graceful stop
                running.croupier.draining = True  # /ready fails from now on
                if config.drain_grace:
                    log.warning("stopping in %.1f s (/ready fails now)", config.drain_grace)
                    with trio.move_on_after(config.drain_grace):
                        async for _ in signals:
                            break  # a second signal: stop now
            finally:
                with trio.CancelScope(shield=True), trio.move_on_after(15):
                    await running.aclose()
                stamp = datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S")
                ledger = running.croupier.ledger
                print(
                    f"croupier stopped at {stamp}: rounds voided, stakes returned, "
                    f"{ledger.committed} ledger batches committed, {ledger.backlog} left",
                    flush=True,
                )
        nursery.cancel_scope.cancel()  # the gc keeper
