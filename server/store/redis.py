"""The production store: the ledger in Redis (coredis on trio), shared by every server on it.

``croupier serve --redis URL`` keeps the ledger, the accounts' facts (dev secret, cashier
request ids) and the jackpot pools in one Redis. Durability is Redis's: run it with
``appendonly yes`` and ``appendfsync always`` (the server refuses a Redis without AOF unless
``--allow-volatile-redis``), and with a replica, ``WAIT`` (README, "Redis").

Theory of operation
-------------------
* Keys: every ledger key is ``ledger:{ledger}:NAME``: one Redis Cluster hash tag, so one
  slot, so a Lua script may touch them all (``ledger.lua`` lists them). One slot bounds the
  ledger to one node's throughput; the jackpot pools keep their own tags (``jp:{pool}:``).
* Commit: the ledger's committer hands a group of batches to :meth:`RedisStore.commit`, an
  ``async`` method awaited on the trio thread (the SQLite store's commit runs in a worker
  thread instead). The group is ONE call of ``ledger.lua``: all or nothing, and every
  transfer is applied once per id (its id is the idempotency record), so a commit whose
  answer was lost is retried as it was and moves nothing twice.
* Epoch and version: the store was created with a random ``epoch`` and counts the batches
  committed (``version``). Every commit carries the epoch this server works on and the last
  version it saw; the script refuses (writing nothing) a store that is empty or whose epoch
  differs or whose version is lower: Redis restarted empty or from an older snapshot. That
  is :class:`~server.store.model.StoreLost`; money never moves on that store again. Several
  servers share one store, so versions only grow (each server's own commits are not
  contiguous).
* Outage: a connection error, a timeout, or a Redis that answers with an error (``LOADING``
  while it reads its AOF) is :class:`~server.store.model.StoreUnavailable`: the ledger keeps
  the batches and retries.
* Liveness: each server refreshes ``alive`` (its instance -> an expiry time) every second;
  ``croupier ledger check`` counts open rounds as owned while any server is alive.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any

import anyio
import coredis
import coredis.exceptions
import trio
from coredis.tokens import PureToken

from server import redis_client
from server.redis_client import RedisClient
from server.redis_client import public_url as public_url  # re-exported (callers import it here)
from server.store.accounts import table_prefix
from server.store.chain import SHA1, Entry, hasher
from server.store.chain import verify as verify_entries
from server.store.checkpoints import Checkpoint
from server.store.checkpoints import verify as verify_checkpoints
from server.store.journal import (
    JournalEntry,
    JournalQuery,
    JournalRound,
    players_of,
    record_text,
)
from server.store.model import (
    Batch,
    CheckReport,
    Loaded,
    RoundState,
    StoreError,
    StoreLost,
    StoreUnavailable,
    Transfer,
    check_books,
    wallet,
)

LUA = files("server.store").joinpath("ledger.lua").read_text()
TAG = "{ledger}"
NAMES = (
    "meta",
    "balances",
    "transfers",
    "rounds",
    "owners",
    "open",
    "facts",
    "notes",
    "fence",  # table -> fencing token (server/room/directory.py)
    "wfence",  # account -> wallet token (server/room/directory.py)
    "chain",  # the chain over what the script appends (server/store/chain.py)
    "jgame",  # round -> its game (the journal's index)
)
ALIVE_SECONDS = 5.0
#: a live server refreshes its liveness entry this often
ALIVE_REFRESH = 1.0

#: Redis cannot be reached or cannot serve now (LOADING, OOM, ...): retry later.
DOWN_ERRORS: tuple[type[BaseException], ...] = (
    coredis.exceptions.RedisError,
    TimeoutError,
    OSError,
    trio.TooSlowError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
    anyio.BrokenResourceError,  # coredis' own streams (a connection that went away)
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)


#: seconds a starting server tries a Redis that does not answer before it refuses to start
START_WAIT = 10.0


def key(name: str) -> str:
    """``ledger:{ledger}:NAME``: the braces make ``ledger`` the Redis Cluster hash tag."""
    return f"ledger:{TAG}:{name}"


KEYS = [key(n) for n in NAMES]


def connect(url: str, *, timeout: float = 5.0) -> RedisClient:
    """A client that fails fast (no retries: the ledger retries whole commits); one Redis or
    a Redis Cluster (``server/redis_client.py``)."""
    try:
        client: RedisClient = redis_client.connect(url, stream_timeout=timeout)
    except redis_client.RedisURLError as exc:
        raise StoreError(str(exc)) from None
    return client


def _encode(batch: Batch) -> str:
    """One batch as ``ledger.lua`` reads it; transfers stay JSON text (stored verbatim)."""
    notes = []
    for note in batch.notes:
        meta = note.get("meta")
        notes.append(
            [
                str(note.get("id", meta)),
                None if meta is None else str(meta),
                str(note.get("value", "1")),
                json.dumps(note, default=str),
            ]
        )
    body: dict[str, object] = {
        "o": [[r.ref, r.table, r.owner] for r in batch.opened],
        "t": [
            json.dumps([t.id, t.source, t.target, str(t.amount), t.kind, t.round])
            for t in batch.transfers
        ],
        "c": [[c.ref, c.state] for c in batch.closed],
        "n": notes,
    }
    # a deployment's directory (server/room/directory.py): the fencing token of the batch's table,
    # the wallet tokens of the wallets it debits; "z": no player account below zero
    if batch.table is not None and batch.fence is not None:
        body["f"] = [batch.table, str(batch.fence)]
    if batch.wallets:
        body["w"] = {a: str(t) for a, t in batch.wallets.items()}
    if batch.guarded:
        body["z"] = 1
    return json.dumps(body)


def parse_transfer(text: str) -> Transfer:
    ident, source, target, amount, kind, round_ = json.loads(text)
    return Transfer(ident, source, target, int(amount), kind, round_)


class RedisStore:
    """The ledger in Redis (see the module docstring). Open it with :func:`open_redis_store`."""

    def __init__(
        self,
        client: RedisClient,
        url: str,
        *,
        op_timeout: float = 5.0,
        instance: str | None = None,
        previous: str | None = None,
        replicas: int = 0,
    ):
        #: this server's id (its transfer ids' prefix, its rounds' owner); ``previous``: the
        #: last server on the same data directory, dead now (its rounds are orphans)
        self.instance = instance or secrets.token_hex(4)
        self.previous = previous
        #: a commit counts once this many replicas have it too (WAIT; 0: the primary's AOF)
        self.replicas = replicas
        self.client = client
        self._url = url  # with its credentials (a cluster's nodes are dialled with them)
        self.url = public_url(url)
        self.op_timeout = op_timeout
        self._script = client.register_script(LUA)
        self.epoch = ""
        self.version = 0
        self._loaded: Loaded | None = None
        #: the batches (indexes) the last commit refused: a stale owner's (ledger.lua)
        self.refused: list[int] = []
        #: the chain's length and head as the last call of the script left them
        self.chain_n = 0
        self.chain_head = ""

    @property
    def id(self) -> str:
        """The store's name in the witness file."""
        return self.url

    async def _call(self, awaitable: Any) -> Any:
        try:
            with trio.fail_after(self.op_timeout):
                return await awaitable
        except DOWN_ERRORS as exc:
            refused = redis_client.refusal(exc, self._url)  # an ACL changed under us: retry
            raise StoreUnavailable(
                refused or f"ledger store {self.url}: {redis_client.reason(exc)}"
            ) from exc

    async def check_access(self, *, down_ok: bool = False) -> None:
        """PING with the URL's credentials at start: Redis refusing them (wrong user or
        password, an ACL without PING) is a StoreError, one line for ``croupier serve``;
        an unreachable Redis is StoreUnavailable unless ``down_ok``."""
        try:
            with trio.fail_after(self.op_timeout):
                await self.client.ping()
        except redis_client.REFUSED as exc:
            raise StoreError(redis_client.refusal(exc, self._url)) from None
        except DOWN_ERRORS as exc:
            if not down_ok:
                raise StoreUnavailable(
                    f"cannot reach the Redis at {self.url}: {redis_client.reason(exc)}"
                ) from exc

    # -- start --------------------------------------------------------------------------------
    async def init(self) -> None:
        """Give an empty store an epoch (a store that has one keeps it)."""
        epoch, version = await self._call(self._script(KEYS, ["init", secrets.token_hex(8)]))
        self.epoch, self.version = str(epoch), int(version)

    async def fetch(self) -> Loaded:
        """Read what a server needs at start (:meth:`load` returns it)."""
        c = self.client
        meta = await self._call(c.hgetall(key("meta")))
        self.epoch, self.version = meta.get("epoch", ""), int(meta.get("version", 0))
        self.chain_n, self.chain_head = int(meta.get("chain_n", 0)), meta.get("chain_head", "")
        balances = {a: int(v) for a, v in (await self._call(c.hgetall(key("balances")))).items()}
        opened = await self._call(c.hgetall(key("open")))
        open_rounds: dict[str, tuple[str, str, list[Transfer]]] = {}
        if opened:
            alive = self._alive(await self._call(c.hgetall(key("alive")))) - {self.previous}
            refs = sorted(opened)
            who = await self._call(c.hmget(key("owners"), refs))
            for ref, owner in zip(refs, who, strict=True):
                table, server = json.loads(owner or '["", ""]')
                if server in alive:
                    continue  # a live server's round in play: not ours to void
                ids = [i for i in opened[ref].split("\n") if i]
                texts = await self._call(c.hmget(key("transfers"), ids)) if ids else ()
                open_rounds[ref] = (table, server, [parse_transfer(t) for t in texts if t])
        facts = dict(await self._call(c.hgetall(key("facts"))))
        self._loaded = Loaded(self.epoch, self.version, balances, open_rounds, facts)
        return self._loaded

    def load(self) -> Loaded:
        if self._loaded is None:
            raise RuntimeError("RedisStore.load before fetch (use open_redis_store)")
        return self._loaded

    async def appendonly(self) -> bool:
        """Whether Redis persists every write in its append-only file (INFO persistence,
        readable by the minimal ACL of docs/redis.md; on a cluster, every primary)."""
        if not redis_client.is_cluster(self.url):
            return await self._aof_enabled(self.client)
        nodes = await self._call(self.client.cluster_nodes())
        for node in nodes:
            if "master" not in node["flags"]:
                continue
            async with redis_client.node_client(self._url, node["host"], node["port"]) as one:
                if not await self._aof_enabled(one):
                    return False
        return True

    async def _aof_enabled(self, client: Any) -> bool:
        reply = await self._call(client.info("persistence"))
        return str(reply.get("aof_enabled", "0")) == "1"

    # -- commit -------------------------------------------------------------------------------
    async def commit(self, batches: list[Batch]) -> int:
        """Commit ``batches`` in one script call (all or nothing); the new version."""
        args = ["commit", self.epoch, str(self.version), *map(_encode, batches)]
        if self.replicas and batches:  # WAIT: applied on the primary only is retried
            with self.client.ensure_replication(self.replicas, int(self.op_timeout * 500)):
                reply = await self._call(self._script(KEYS, args))
        else:
            reply = await self._call(self._script(KEYS, args))
        if reply[0] == "lost":
            epoch, version = str(reply[1]), int(reply[2])
            if not epoch:
                raise StoreLost(
                    f"the ledger store {self.url} is empty, but this server saw epoch "
                    f"{self.epoch} version {self.version} (Redis restarted without its data?)"
                )
            raise StoreLost(
                f"the ledger store {self.url} is at epoch {epoch} version {version}, but this "
                f"server saw epoch {self.epoch} version {self.version} (Redis restored from "
                "an older snapshot, or replaced?)"
            )
        self.version = int(reply[1])
        self.refused = [int(i) for i in reply[2:-2]]
        self.chain_n, self.chain_head = int(reply[-2]), str(reply[-1])
        no = set(self.refused)  # a refused batch's records are not written either
        await self._journal([e for i, b in enumerate(batches) if i not in no for e in b.journal])
        return self.version

    # -- the journal ----------------------------------------------------------------------------
    async def _journal(self, entries: list[JournalEntry]) -> None:
        """Append the rounds' records after their batch's money committed, in one call of
        the script (``journal``): one hash per round, a field per sequence number (HSETNX:
        a batch sent again writes nothing new), sorted sets by table and by player for
        recall, and the chain's entry for the records written. A crash between the two calls
        leaves a settled round without some of its records; its money is exact either way."""
        if not entries:
            return
        args = ["journal"]
        for e in entries:
            body = record_text(e.to_json() | {"table": e.table})
            start = None
            if e.kind == "start":
                start = [e.table, str(e.body.get("game", "")), e.at, players_of(e.body)]
            args.append(json.dumps([e.round, e.seq, body, start]))
        reply = await self._call(self._script(KEYS, args))
        self.chain_n, self.chain_head = int(reply[0]), str(reply[1])

    async def adopt(self) -> None:
        """A store made before the chain: its first entry lists every row it holds (done
        once, by the first server that starts on it: the script checks)."""
        c = self.client

        async def read() -> tuple[Any, ...]:
            if await c.hget(key("meta"), "chain_n") is not None:
                return ()
            rows = [await c.hgetall(key(n)) for n in ("transfers", "notes", "rounds", "owners")]
            journals = []
            async for name in c.scan_iter(match=key("journal:*")):
                journals.append((str(name), await c.hgetall(name)))
            return (*rows, journals)

        found = await self._call(read())
        if not found:
            return
        current = _current(*found)
        rows = [[s, k, d] for s, keyed in current.items() for k, d in sorted(keyed.items())]
        if rows:
            reply = await self._call(self._script(KEYS, ["adopt", json.dumps(rows)]))
            self.chain_n, self.chain_head = int(reply[0]), str(reply[1])

    async def add_checkpoint(self, point: Checkpoint, n: int) -> None:
        """Keep a signed checkpoint of the chain (append-only list)."""
        text = json.dumps([n, point.text, point.signature])
        await self._call(self.client.rpush(key("checkpoints"), [text]))

    async def verify_chain(self, verify_key: Any = None) -> list[str]:
        """The chain against what the store holds, and the signed checkpoints (as
        ``SqliteStore.verify_chain``; the hash is SHA-1, Redis's Lua has no other)."""
        c = self.client

        async def read() -> tuple[list[Any], ...]:
            entries = await c.lrange(key("chain"), 0, -1)
            points = await c.lrange(key("checkpoints"), 0, -1)
            transfers = await c.hgetall(key("transfers"))
            notes = await c.hgetall(key("notes"))
            rounds = await c.hgetall(key("rounds"))
            owners = await c.hgetall(key("owners"))
            journals = []
            async for name in c.scan_iter(match=key("journal:*")):
                journals.append((str(name), await c.hgetall(name)))
            return entries, points, [transfers, notes, rounds, owners], journals

        entries, points, (transfers, notes, rounds, owners), journals = await self._call(read())
        current = _current(transfers, notes, rounds, owners, journals)
        chain = []
        for text in entries:
            n, prev, h, rows = json.loads(text)
            chain.append(Entry(int(n), str(prev), str(h), [tuple(r) for r in rows]))
        report = verify_entries(SHA1, chain, current)
        kept = [json.loads(p) for p in points]
        problems = list(report.problems)
        problems += verify_checkpoints(
            verify_key,
            [Checkpoint(str(t), str(sig)) for _n, t, sig in kept],
            {e.n: e.hash for e in chain},
            report.length,
            self.epoch,
        )
        return problems

    async def journal_rounds(self, query: JournalQuery) -> list[JournalRound]:
        """The rounds ``query`` asks for, oldest first (as the SQLite store answers)."""
        c = self.client
        index = key(f"jplayer:{query.account}") if query.account else key(f"jtable:{query.table}")
        low = str(query.since) if query.since is not None else "-inf"
        picked = await self._call(
            c.zrange(index, low, "+inf", sortby=PureToken.BYSCORE, withscores=True)
        )
        rounds = sorted(((float(m[1]), str(m[0])) for m in picked), reverse=True)
        out: list[JournalRound] = []
        for _at, ref in rounds:
            fields = await self._call(c.hgetall(key(f"journal:{ref}")))
            records = sorted((json.loads(v) for v in fields.values()), key=lambda r: r["seq"])
            if not records:
                continue
            table = str(records[0]["table"])
            if query.table is not None and table != query.table:
                continue
            if query.game:
                game = await self._call(c.hget(key("jgame"), ref))
                if game not in query.game:
                    continue
            state = await self._call(c.hget(key("rounds"), ref))
            rnd = JournalRound(ref, table, str(state) if state else "open")
            for r in records:
                rnd.entries.append(
                    JournalEntry(ref, int(r["seq"]), table, r["kind"], float(r["at"]), r["body"])
                )
            out.append(rnd)
            if query.limit is not None and len(out) >= query.limit:
                break
        return list(reversed(out))

    async def journal_tables(self) -> list[str]:
        """Every table that opened a round here (``croupier history export`` of every
        table reads each one's journal index)."""
        owners = await self._call(self.client.hgetall(key("owners")))
        return sorted({str(json.loads(v)[0]) for v in owners.values()} - {""})

    async def audit_entries(self) -> list[dict[str, Any]]:
        """The audit log (``server/room/operator.py``): every note whose id starts ``audit:``
        (``HSCAN``, a page at a time), in the order of their times."""
        found: list[dict[str, Any]] = []
        cursor: int | None = 0
        while cursor is not None:
            cursor, page = await self._call(
                self.client.hscan(key("notes"), cursor, match="audit:*", count=1000)
            )
            assert isinstance(page, dict)
            found += [json.loads(body) for body in page.values()]
            cursor = cursor or None
        return sorted(found, key=lambda e: (float(e.get("at", 0)), str(e.get("id"))))

    async def table_state(
        self, table: str
    ) -> tuple[dict[str, int], dict[str, tuple[str, str, list[Transfer]]]]:
        """What a new owner of ``table`` reads (server/room/directory.py): the balances of the
        table's accounts, and its rounds still open (with their transfers)."""
        c = self.client

        async def scan() -> dict[str, int]:
            found: dict[str, int] = {}
            async for name, value in c.hscan_iter(key("balances"), match=table_prefix(table) + "*"):
                found[str(name)] = int(value)
            return found

        balances: dict[str, int] = await self._call(scan())
        opened = await self._call(c.hgetall(key("open")))
        rounds: dict[str, tuple[str, str, list[Transfer]]] = {}
        refs = sorted(opened)
        who = await self._call(c.hmget(key("owners"), refs)) if refs else []
        for ref, owner in zip(refs, who, strict=True):
            where, server = json.loads(owner or '["", ""]')
            if where != table:
                continue
            ids = [i for i in opened[ref].split("\n") if i]
            texts = await self._call(c.hmget(key("transfers"), ids)) if ids else ()
            rounds[ref] = (where, server, [parse_transfer(t) for t in texts if t])
        return balances, rounds

    async def wallet(self, account: str, *, open_account: bool = False) -> tuple[int, int, bool]:
        """Take ``account``'s wallet for this server (server/room/directory.py, "Wallets"): a
        new wallet token (HINCRBY, so every earlier holder's is stale) and the stored
        balance, in one transaction. ``open_account`` (dev mode): also mark the account
        opened (HSETNX); the third value is whether this call opened it (then this server
        gives the starting balance: once across the deployment)."""

        async def take() -> tuple[int, int, bool]:
            async with self.client.pipeline(transaction=True) as pipe:
                token_r = pipe.hincrby(key("wfence"), account, 1)
                balance_r = pipe.hget(key("balances"), wallet(account))
                if open_account:
                    opened_r = pipe.hsetnx(key("facts"), f"opened:{account}", "1")
            token, balance = await token_r, await balance_r
            first = bool(await opened_r) if open_account else False
            return int(token), int(balance or 0), first

        result: tuple[int, int, bool] = await self._call(take())
        return result

    async def wallet_balances(self, accounts: list[str]) -> dict[str, int]:
        """The stored balances of these accounts' wallets."""
        if not accounts:
            return {}
        names = [wallet(a) for a in accounts]
        values = await self._call(self.client.hmget(key("balances"), names))
        return {a: int(v or 0) for a, v in zip(accounts, values, strict=True)}

    async def set_meta(self, name: str, value: str) -> None:
        await self._call(self.client.hset(key("facts"), {name: value}))

    async def keep_alive(self, instance: str) -> None:
        """Refresh this server's liveness (for ``ledger check``) until cancelled."""
        try:
            while True:
                expires = time.time() + ALIVE_SECONDS
                try:
                    await self._call(self.client.hset(key("alive"), {instance: str(expires)}))
                except StoreUnavailable:
                    pass
                await trio.sleep(ALIVE_REFRESH)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                try:
                    await self._call(self.client.hdel(key("alive"), [instance]))
                except StoreUnavailable:
                    pass

    # -- check ----------------------------------------------------------------------------------
    async def books(self) -> tuple[dict[str, int], dict[str, str]]:
        """Every balance and every fact (what a pool is reconciled with), in one read."""

        async def read() -> tuple[dict[str, int], dict[str, str]]:
            async with self.client.pipeline(transaction=True) as pipe:
                balances_r = pipe.hgetall(key("balances"))
                facts_r = pipe.hgetall(key("facts"))
            balances = {str(a): int(v) for a, v in (await balances_r).items()}
            return balances, {str(k): str(v) for k, v in (await facts_r).items()}

        books: tuple[dict[str, int], dict[str, str]] = await self._call(read())
        return books

    async def check(self, settle: float = ALIVE_REFRESH * 1.5) -> CheckReport:
        """The books of the whole store, read in one transaction (a consistent snapshot).

        An open round is a live server's round in play, or a dead server's left for
        recovery. A server that died a moment ago still has an unexpired liveness entry, so
        when rounds are open the entries are read again ``settle`` s later: a live server
        has refreshed its own meanwhile (every :data:`ALIVE_REFRESH` s), a dead one has not.
        The report names the owners (``owners``), and a dead owner's open rounds are a
        problem: no server is there to void them."""
        async with self.client.pipeline(transaction=True) as pipe:
            balances_r = pipe.hgetall(key("balances"))
            transfers_r = pipe.hgetall(key("transfers"))
            rounds_r = pipe.hgetall(key("rounds"))
            owners_r = pipe.hgetall(key("owners"))
            alive_r = pipe.hgetall(key("alive"))
            facts_r = pipe.hgetall(key("facts"))
        balances = {a: int(v) for a, v in (await balances_r).items()}
        transfers = [parse_transfer(t) for t in (await transfers_r).values()]
        rounds: dict[str, RoundState] = dict(await rounds_r)  # type: ignore[arg-type]  # Redis holds only the three states
        meta = dict(await facts_r)
        who = await owners_r
        owners = {
            ref: str(json.loads(who.get(ref) or '["", ""]')[1])
            for ref, state in rounds.items()
            if state == "open"
        }
        first = await alive_r
        alive = self._alive(first)
        if alive & set(owners.values()) and settle > 0:
            await trio.sleep(settle)  # a dead server's entry does not move
            again = await self._call(self.client.hgetall(key("alive")))
            alive = {i for i in self._alive(again) if again.get(i) != first.get(i)}
        return check_books(balances, transfers, rounds, alive, meta=meta, owners=owners)

    @staticmethod
    def _alive(expiries: dict[str, str]) -> set[str]:
        """The instances whose liveness has not expired."""
        now = time.time()
        return {instance for instance, until in expiries.items() if float(until) > now}

    def close(self) -> None:
        return None


def _current(
    transfers: Mapping[Any, Any],
    notes: Mapping[Any, Any],
    rounds: Mapping[Any, Any],
    owners: Mapping[Any, Any],
    journals: list[tuple[str, Mapping[Any, Any]]],
) -> dict[str, dict[str, str]]:
    """What the store holds now, as its chain lists it: stream -> key -> SHA-1 digest."""
    digest = hasher(SHA1)
    current: dict[str, dict[str, str]] = {
        "transfer": {str(k): digest(str(v).encode()) for k, v in transfers.items()},
        "note": {str(k): digest(str(v).encode()) for k, v in notes.items()},
        "journal": {},
        "round": {},
    }
    prefix = len(key("journal:"))
    for name, fields in journals:
        for seq, text in fields.items():
            current["journal"][f"{name[prefix:]}|{seq}"] = digest(str(text).encode())
    for ref, state in rounds.items():
        table, owner = json.loads(owners.get(ref) or '["", ""]')
        opened = f"open|{ref}|{table}|{owner}"
        current["round"][opened] = digest(opened.encode())
        if state != "open":
            closed = f"close|{ref}|{state}"
            current["round"][closed] = digest(closed.encode())
    return current


@asynccontextmanager
async def open_redis_store(
    url: str,
    *,
    create: bool = True,
    previous: str | None = None,
    replicas: int = 0,
    adopt: bool = False,
    wait: float = 0.0,
) -> AsyncIterator[RedisStore]:
    """Connect and read the ledger (:meth:`RedisStore.fetch`). ``create``: give an empty
        store a new epoch first (not when the witness says this server saw data there: then it
        stays empty and the ledger reports it lost). ``previous``: the dead server this one
        follows on its data directory. Raises StoreUnavailable if Redis cannot be reached (a server
    starting tries again for ``wait`` seconds: :data:`START_WAIT`)."""
    client = connect(url)
    async with client:
        store = RedisStore(client, url, previous=previous, replicas=replicas)
        # a Redis that does not answer at once (restarting, or this machine busy past the
        # 0.5 s connect timeout) is tried again for ``wait`` s before the start is refused
        waited, delay = 0.0, 0.1
        while True:
            try:  # each step may be done again (an epoch is given once, reads are reads)
                if create:
                    await store.init()
                if previous is not None and store.epoch:
                    await store._call(client.hdel(key("alive"), [previous]))
                await store.fetch()
                break
            except StoreUnavailable:
                if waited >= wait:
                    raise
                await trio.sleep(delay)
                waited, delay = waited + delay, min(delay * 2, 2.0)
        if store.epoch and adopt:
            await store.adopt()
        yield store
