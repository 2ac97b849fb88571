"""The table directory of a deployment: many ``croupier serve`` processes on one Redis.

``croupier serve --redis URL --directory`` joins the deployment whose ledger is at URL. Every
table of the deployment is listed in Redis with its config, the process that owns it, that
process's client URL, and its lobby row (seats, players, state). Any process's lobby lists
them all; a ``join`` for a table another process owns is answered ``table_elsewhere`` with
that process's URL (the clients follow it); a table no process owns (its owner died, the
lease has not expired yet) is ``table_moving``.

Theory of operation
-------------------
* **Keys** (``directory.lua``): under the ledger's hash tag ``{ledger}`` (one deployment, one
  ledger, one slot), so that ``ledger.lua`` reads the same fence map in its own call:
  ``dir:tables`` (config), ``dir:leases`` (owner, url, token, until), ``dir:rows`` (lobby
  rows), ``dir:procs`` (each process's url and liveness), ``fence`` (table -> token).
* **Lease and fencing token.** A process *claims* a table whose lease is free or expired
  (Redis's clock decides): the claim increments the table's fencing token (``HINCRBY``, so
  it only grows) and writes the lease. The owner renews every lease each ``lease / 3``
  seconds (:meth:`Directory.run`, one trio task); a renewal that finds the lease gone or at
  another token reports the table *lost*, and the process stops it at once (the table
  leaves, every client told ``left`` with reason ``moved``; nothing of its money moves).
* **Fenced writes.** Every ledger batch of a table carries the token its owner holds
  (``server/store/ledger.py``); ``ledger.lua`` refuses the whole batch (nothing written,
  the table's journal records neither) when the table's token in Redis is higher. So a
  paused owner (SIGSTOP, a long GC, a partition) that wakes after its lease was taken
  cannot write a cent: its first commit is refused and it drops the table, or its first
  renewal finds the lease lost, whichever comes first.
* **Wallets** (the money across processes). A player's wallet is held by the process its
  connection is on: ``hello`` takes a new *wallet token* (``HINCRBY wfence``) and reads the
  stored balance in one transaction (:meth:`Directory.take_wallet`). Only the holder may
  debit the wallet (:class:`~server.store.ledger.WalletElsewhere` otherwise); each batch
  that debits a wallet carries the token, and ``ledger.lua`` refuses it when a newer holder
  took the wallet, or when it would take a wallet or a table stake below zero. Any process
  may credit a wallet (a cash-out at a table of another process); the holder re-reads its
  wallets from Redis after its commits (at least every second), so credits made elsewhere
  reach its cache. Two processes can therefore never both spend one wallet.
* **Failover.** Each round of the loop also lists the *orphans* (tables with no live lease)
  and claims its share of them (at most ``ceil(orphans / live processes)`` per round, in a
  random order, so the survivors split the tables). A taken table is *adopted*: its
  accounts and its open rounds are read from Redis, the interrupted round is voided through
  the ledger's crash recovery (every wager back, every stake home: docs/rulings.md, "Crash
  recovery"), committed under the new token, and the table task starts again.
* **Start and stop.** A process claims the tables of its own ``--tables`` file at start
  (a table another live process owns stays with it); a process that replaces a dead one on
  the same data directory (the witness's previous instance) takes its leases at once. A
  graceful stop closes its tables as before (rounds voided, stakes home), then releases its
  leases: the others take the tables over within one loop round.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, Protocol

import msgspec
import trio

from protocol.messages import TableInfo
from server.config import DEFAULT_LEASE, TableConfig
from server.store.ledger import Ledger
from server.store.model import StoreUnavailable
from server.store.redis import RedisStore, key

log = logging.getLogger("croupier.directory")

LUA = files("server.room").joinpath("directory.lua").read_text()
KEYS = [key("dir:tables"), key("dir:leases"), key("fence"), key("dir:procs")]
ROWS = key("dir:rows")


def config_json(config: TableConfig) -> str:
    return json.dumps(dataclasses.asdict(config), sort_keys=True)


def config_from_json(text: str) -> TableConfig:
    return TableConfig(**json.loads(text))


@dataclass(frozen=True, slots=True)
class Entry:
    """One table as the directory last read it."""

    config: TableConfig
    owner: str | None  # the owning instance (None: no live lease)
    url: str | None  # its client URL
    row: TableInfo | None  # its last published lobby row


class Host(Protocol):
    """What the directory needs of the process (``server/net/app.py``, :class:`Croupier`)."""

    def owned(self) -> dict[str, int]:
        """The tables this process runs -> their fencing tokens."""
        ...

    def rows(self) -> dict[str, TableInfo]:
        """The lobby rows of the tables this process runs."""
        ...

    async def adopt(self, config: TableConfig, token: int) -> None:
        """Run ``config``'s table, now owned with ``token`` (recover it first)."""
        ...

    def abandon(self, table: str, reason: str) -> None:
        """Stop ``table`` at once, moving no money: its lease is lost."""
        ...

    @property
    def closing(self) -> bool:
        """The process is stopping: it takes no table over."""
        ...


class Directory:
    """The deployment's directory as one process sees it (see the module docstring)."""

    def __init__(
        self,
        store: RedisStore,
        url: str,
        *,
        lease: float = DEFAULT_LEASE,
        previous: str | None = None,
    ) -> None:
        self.store = store
        self.instance = store.instance
        self.url = url
        self.lease = lease
        self.previous = previous or ""
        self._script = store.client.register_script(LUA)
        self.entries: dict[str, Entry] = {}
        self.taken_over = 0  # orphans this process adopted (failover)
        self.lost = 0  # tables this process stopped: lease lost or a write refused

    @property
    def ttl_ms(self) -> str:
        return str(int(self.lease * 1000))

    async def _run_script(self, args: list[str]) -> Any:
        return await self.store._call(self._script(KEYS, args))

    # -- leases -----------------------------------------------------------------------------
    async def claim(self, table: str, config: TableConfig | None = None) -> int | None:
        """Take ``table``'s lease if it is free (expired, ours, or the dead predecessor's):
        the new fencing token, or None (another live process owns it)."""
        reply = await self._run_script(
            [
                "claim",
                table,
                self.instance,
                self.url,
                self.ttl_ms,
                "" if config is None else config_json(config),
                self.previous,
            ]
        )
        token = int(reply[0])
        return token or None

    async def renew(self, owned: dict[str, int]) -> list[str]:
        """Renew this process's leases (and its liveness); the tables whose lease is lost."""
        args = ["renew", self.instance, self.url, self.ttl_ms]
        for table, token in sorted(owned.items()):
            args += [table, str(token)]
        return [str(t) for t in await self._run_script(args)]

    async def release(self, owned: dict[str, int], *, leaving: bool = False) -> None:
        """Give these leases up (a graceful stop: after the tables' money is committed);
        ``leaving``: the process leaves the deployment too."""
        args = ["release", self.instance]
        for table, token in sorted(owned.items()):
            args += [table, str(token)]
        if len(args) > 2:
            await self._run_script(args)
        if leaving:
            await self._run_script(["release", self.instance])

    async def orphans(self) -> tuple[list[str], list[str]]:
        """The tables without a live lease, and the live processes."""
        orphans, live = await self._run_script(["orphans"])
        return [str(t) for t in orphans], [str(i) for i in live]

    # -- the lobby --------------------------------------------------------------------------
    async def publish(self, rows: dict[str, TableInfo]) -> None:
        if rows:
            encoded = {t: msgspec.json.encode(r).decode() for t, r in rows.items()}
            await self.store._call(self.store.client.hset(ROWS, encoded))

    async def refresh(self) -> None:
        """Read every table's config, lease and row (the lobby and the redirects use it)."""
        c = self.store.client
        configs = await self.store._call(c.hgetall(KEYS[0]))
        leases = await self.store._call(c.hgetall(KEYS[1]))
        rows = await self.store._call(c.hgetall(ROWS))
        orphans, alive_now = await self.orphans()
        live, orphaned = set(alive_now), set(orphans)
        entries: dict[str, Entry] = {}
        for table, text in configs.items():
            lease = json.loads(leases[table]) if table in leases else None
            alive = lease is not None and table not in orphaned and lease["owner"] in live
            row = msgspec.json.decode(rows[table], type=TableInfo) if table in rows else None
            entries[str(table)] = Entry(
                config_from_json(text),
                str(lease["owner"]) if alive and lease else None,
                str(lease["url"]) if alive and lease else None,
                row,
            )
        self.entries = entries

    def peers(self) -> list[str]:
        """The client URLs of the other live servers (the page's CSP allows them)."""
        return sorted({e.url for e in self.entries.values() if e.url and e.url != self.url})

    def where(self, table: str) -> Entry | None:
        return self.entries.get(table)

    def lobby(self, local: dict[str, TableInfo]) -> list[TableInfo]:
        """Every table of the deployment: this process's rows live, the others' as last
        published, each with the URL of the process that serves it."""
        out = []
        for table in sorted(set(self.entries) | set(local)):
            if table in local:
                out.append(msgspec.structs.replace(local[table], url=self.url))
                continue
            entry = self.entries[table]
            row = entry.row or TableInfo(
                id=table,
                name=entry.config.name or table,
                game=entry.config.game,
                description="",
                stakes={},
                min_buy_in=0,
                max_buy_in=None,
                seats=0,
                taken=0,
                spectators=0,
            )
            out.append(msgspec.structs.replace(row, url=entry.url))
        return out

    # -- wallets ----------------------------------------------------------------------------
    async def take_wallet(
        self, ledger: Ledger, account: str, starting_balance: int | None = None
    ) -> None:
        """This process holds ``account``'s wallet from now on (its player connected here);
        taken between two of the ledger's commits. ``starting_balance`` (dev mode): an
        account new to the whole deployment gets it here, once (the ``opened`` fact is set
        in Redis in the same transaction)."""
        dev = starting_balance is not None
        async with ledger.committing:
            token, balance, first = await self.store.wallet(account, open_account=dev)
            ledger.adopt_wallet(account, token, balance, opened=dev)
        if first and starting_balance:
            ledger.deposit(account, starting_balance, "starting_balance")

    # -- the loop ---------------------------------------------------------------------------
    async def start(self, host: Host, configs: tuple[TableConfig, ...]) -> None:
        """Claim the tables of this process's own config (those no live process owns)."""
        await self.renew({})  # this process is live before it claims anything
        for config in configs:
            if host.closing:
                return
            token = await self.claim(config.id, config)
            if token is not None:
                await host.adopt(config, token)
        await self.publish(host.rows())  # the others' lobbies show our tables at once
        await self.refresh()

    async def run(self, host: Host) -> None:
        """Renew, publish, refresh and take orphans over, every ``lease / 3`` seconds."""
        period = self.lease / 3
        while True:
            await trio.sleep(period * random.uniform(0.8, 1.0))
            try:
                await self.tick(host)
            except StoreUnavailable as exc:
                log.error("directory: %s; retrying", exc)

    async def tick(self, host: Host) -> None:
        for table in await self.renew(host.owned()):
            if table not in host.owned():
                continue  # stopped meanwhile (a write of it refused: counted there)
            self.lost += 1
            log.error("directory: the lease of table %s is lost; the table stops", table)
            host.abandon(table, "moved")
        await self.publish(host.rows())
        orphans, live = await self.orphans()
        if orphans:
            await self.take_over(host, orphans, max(1, len(live)))
        await self.refresh()

    async def take_over(self, host: Host, orphans: list[str], live: int) -> None:
        """Claim a share of the orphaned tables and reopen them here."""
        random.shuffle(orphans)
        share = math.ceil(len(orphans) / live)
        configs = await self.store._call(self.store.client.hmget(KEYS[0], orphans[:share]))
        for table, text in zip(orphans[:share], configs, strict=True):
            if text is None or table in host.owned() or host.closing:
                continue
            token = await self.claim(table)
            if token is None:
                continue
            self.taken_over += 1
            log.warning("directory: took table %s over (token %d)", table, token)
            await host.adopt(config_from_json(text), token)
