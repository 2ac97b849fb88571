"""Jackpot pools in Redis (coredis on trio): shared by every process and table on one Redis.

* Every money movement is one call of ``pool.lua`` (EVALSHA, coredis falls back to SCRIPT
  LOAD on NOSCRIPT): idempotency check, arithmetic, totals, version and the audit stream
  entry (XADD ``jp:{pool}:audit``) in one atomic step (digest jackpots.md 5.5). All keys of a
  pool carry the hash tag ``{pool}``, so the script runs on Redis Cluster too.
* Live meters (QLD s9(2)(c), s9(3)): :meth:`watch` follows the audit stream with a blocking
  XREAD (:mod:`server.jackpots.redis_meters`); a table sees another table's commit as soon
  as Redis has it, and after a reconnection it resumes from the last entry it saw, so no
  update is skipped.
* Availability (ACT-2017 r.4.2, r.14.5; QLD Sch 3 s13(2), s34): a health task pings Redis;
  any connection error marks the service unavailable at once. While unavailable,
  :meth:`contribute` refuses new jackpot wagers. A contribution whose outcome is unknown (the
  connection dropped mid-call) stays in the outbox and is retried with the same id until Redis
  confirms it (applied or duplicate): exactly once. Awards, refunds and voids first flush
  their pool's outbox, so a round's jackpot phase settles only after its coin-ins landed
  (digest 5.8).
* Lost data (issue 9): a pool carries the ``epoch`` it was opened with and its ``version``.
  The service remembers what it saw of each pool (from its snapshots and coin-ins, and from
  the data directory's witness file, :mod:`server.store.witness`, across restarts) and every
  script call carries it as a guard: a pool that is gone, replaced or older than that (Redis
  restarted empty or from an older snapshot) is never written again and is never silently
  re-opened; the pool is :attr:`RedisJackpotService.lost`, the service unavailable (no
  jackpot wagers), and the log says why (:mod:`server.jackpots.redis_seen`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any

import coredis
import coredis.exceptions
import trio

from server import redis_client
from server.jackpots.model import (
    BASIS,
    POOL_NAME,
    AwardResult,
    CheckReport,
    ContributionResult,
    JackpotError,
    JackpotUnavailable,
    MeterUpdate,
    PoolConfig,
    Prize,
    RefundResult,
    Snapshot,
    as_prizes,
    check_cents,
    check_id,
    check_pool_name,
    verify,
)
from server.jackpots.redis_meters import MeterFeed
from server.jackpots.redis_seen import PoolsSeen
from server.redis_client import RedisClient
from server.store.witness import Witness

log = logging.getLogger(__name__)

LUA = files("server.jackpots").joinpath("pool.lua").read_text()
WATCH_BUFFER = 256
AUDIT_CHUNK = 1000
#: The split multiplies the wager by at most 10,000 basis points inside Lua (doubles).
MAX_WAGER = 2**53 // BASIS

DOWN_ERRORS: tuple[type[BaseException], ...] = (
    coredis.exceptions.ConnectionError,
    TimeoutError,
    OSError,
    trio.TooSlowError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
)
#: A ping fails on these (any Redis error too).
PING_ERRORS: tuple[type[BaseException], ...] = (*DOWN_ERRORS, coredis.exceptions.RedisError)


def key(pool: str, *parts: str) -> str:
    """``jp:{pool}:part:...``: the braces make ``pool`` the Redis Cluster hash tag."""
    return ":".join(("jp", "{" + pool + "}", *parts))


def _config_args(config: PoolConfig) -> list[str]:
    return [
        config.regime,
        str(config.prize_bp),
        str(config.reserve_bp),
        str(config.seed),
        config.shortfall,
        config.fixed_source,
    ]


class RedisJackpotService:
    """The Redis backend. Create it with :func:`open_redis_service` (it runs background tasks)."""

    def __init__(
        self,
        client: RedisClient,
        nursery: trio.Nursery,
        *,
        op_timeout: float = 1.0,
        ping_interval: float = 0.25,
        watch_block_ms: int = 500,
        witness: Witness | None = None,
        store_id: str = "",
    ) -> None:
        self._client = client
        self.witness = witness
        self.store_id = store_id
        #: what this server saw of each pool, and the pools that lost data
        self.pools_seen = PoolsSeen(witness, store_id)
        #: pool -> why it is not to be trusted (empty, replaced or older than seen)
        self.lost = self.pools_seen.lost
        self._nursery = nursery
        self._script = client.register_script(LUA)
        self.op_timeout = op_timeout
        self.ping_interval = ping_interval
        self.watch_block_ms = watch_block_ms
        self._meters = MeterFeed(
            client,
            self._read,
            self.wait_available,
            DOWN_ERRORS,
            op_timeout=op_timeout,
            ping_interval=ping_interval,
            block_ms=watch_block_ms,
        )
        self._available = False
        self._up = trio.Event()
        self._down = trio.Event()
        self._down.set()
        self._wake = trio.Event()
        self._empty = trio.Event()
        self._empty.set()
        #: (pool, round, wager) -> amount: accepted, not yet confirmed by Redis.
        self._outbox: dict[tuple[str, str, str], int] = {}
        #: contributions Redis refused for good (e.g. pool deleted): kept for the operator.
        self.rejected: list[tuple[tuple[str, str, str], int, str]] = []

    # -- availability ----------------------------------------------------------------------
    @property
    def available(self) -> bool:
        return self._available and not self.lost

    # -- lost data ------------------------------------------------------------------------------
    def seen(self, pool: str) -> tuple[str, int] | None:
        """What this server saw of ``pool`` (this run, or the witness file)."""
        return self.pools_seen.seen(pool)

    def _judge(self, pool: str, epoch: str, version: int) -> None:
        """Raise (and remember) if ``pool`` at ``epoch``/``version`` lost data."""
        why, news = self.pools_seen.judge(pool, epoch, version)
        if why is None:
            return
        if news:
            log.error("%s; no jackpot wagers on it", why)
            self._mark_down(why)
        raise JackpotUnavailable(f"jackpot pool unavailable: {why}")

    async def wait_available(self) -> None:
        await self._up.wait()

    async def wait_unavailable(self) -> None:
        await self._down.wait()

    @property
    def pending(self) -> int:
        return len(self._outbox)

    async def drained(self) -> None:
        await self._empty.wait()

    def _mark_up(self) -> None:
        if not self._available:
            log.info("jackpot store reachable: jackpot wagers may be offered")
        self._available = True
        self._up.set()
        if self._down.is_set():
            self._down = trio.Event()
        self._wake.set()

    def _mark_down(self, why: object) -> None:
        if self._available:
            log.warning("jackpot store unreachable (%s): stop offering jackpot wagers", why)
        self._available = False
        self._down.set()
        if self._up.is_set():
            self._up = trio.Event()

    async def _health(self) -> None:
        """Ping loop: the only way back to ``available`` after a failure."""
        while True:
            try:
                with trio.fail_after(self.op_timeout):
                    await self._client.ping()
            except PING_ERRORS as exc:
                self._mark_down(exc)
            else:
                self._mark_up()
            await trio.sleep(self.ping_interval)

    async def _eval(self, keys: list[str], args: list[str]) -> list[Any]:
        if not self._available:
            raise JackpotUnavailable()
        pool = keys[0][len("jp:{") : keys[0].rindex("}:")]
        if pool in self.lost:
            self._judge(pool, "", 0)
        seen = self.seen(pool)
        if seen is not None and args[0] != "open":
            args = [f"{args[0]}|{seen[0]}|{seen[1]}", *args[1:]]
        try:
            with trio.fail_after(self.op_timeout):
                reply: list[Any] = list(await self._script(keys, args))
            if reply[0] == "lost":
                self._judge(pool, str(reply[1]) or "legacy", int(reply[2]))
            elif reply[0] == "no_pool" and seen is not None:
                self._judge(pool, "", 0)
            return reply
        except DOWN_ERRORS as exc:
            self._mark_down(exc)
            raise JackpotUnavailable(f"jackpot pool unavailable: {exc}", unknown=True) from exc
        except coredis.exceptions.RedisError as exc:  # the script refused: nothing applied
            raise JackpotError("store_error", f"jackpot store error: {exc}") from exc

    async def _read(self, call: Any) -> Any:
        if not self._available:
            raise JackpotUnavailable()
        try:
            with trio.fail_after(self.op_timeout):
                return await call
        except DOWN_ERRORS as exc:
            self._mark_down(exc)
            raise JackpotUnavailable(f"jackpot pool unavailable: {exc}") from exc

    # -- outbox ------------------------------------------------------------------------------
    async def _drainer(self) -> None:
        """Retry unconfirmed contributions (same ids) whenever Redis is reachable."""
        while True:
            if not self._outbox or not self._available:
                self._wake = trio.Event()
                await self._wake.wait()
                continue
            try:
                await self._flush(None)
            except JackpotUnavailable:
                continue  # marked down; the health task wakes us when it is back
            except Exception:  # never take the server down; retry later
                log.exception("jackpot outbox drain failed")
                await trio.sleep(1)

    async def _flush(self, pool: str | None) -> None:
        """Confirm the outbox entries (of ``pool``, or all), one script call per round.
        Raises JackpotUnavailable."""
        rounds: dict[tuple[str, str], list[tuple[str, int]]] = {}
        for (p, round_id, wager_id), amount in list(self._outbox.items()):
            if pool is None or p == pool:
                rounds.setdefault((p, round_id), []).append((wager_id, amount))
        for (p, round_id), wagers in rounds.items():
            try:
                await self._contribute_batch(p, round_id, wagers)
            except JackpotUnavailable:
                raise
            except JackpotError as exc:
                for wager_id, amount in wagers:
                    self.rejected.append(((p, round_id, wager_id), amount, exc.code))
                log.error("jackpot contributions of %s/%s refused: %s", p, round_id, exc)
            for wager_id, _ in wagers:
                self._settle((p, round_id, wager_id))

    def _settle(self, entry: tuple[str, str, str]) -> None:
        self._outbox.pop(entry, None)
        if not self._outbox:
            self._empty.set()

    # -- lifecycle -----------------------------------------------------------------------------
    async def open_pool(
        self, pool: str, config: PoolConfig, *, meter: int | None = None, reserve: int = 0
    ) -> Snapshot:
        check_pool_name(pool)
        meter = config.seed if meter is None else check_cents("meter", meter)
        check_cents("reserve", reserve)
        if self.seen(pool) is not None:  # it existed: gone now is lost, never re-opened
            await self.snapshot(pool)
        reply = await self._eval(
            [key(pool, "state"), key(pool, "audit"), key(pool, "open")],
            ["open", *_config_args(config), str(meter), str(reserve), secrets.token_hex(8)],
        )
        if reply[0] == "pool_exists":
            raise JackpotError("pool_exists", f"jackpot pool {pool!r} already exists")
        return await self._must_snapshot(pool)

    async def reset(
        self,
        pool: str,
        reset_id: str,
        *,
        meter: int | None = None,
        reserve: int | None = None,
        config: PoolConfig | None = None,
    ) -> Snapshot:
        check_pool_name(pool)
        check_id("reset id", reset_id)
        args = [
            "reset",
            reset_id,
            "" if meter is None else str(check_cents("meter", meter)),
            "" if reserve is None else str(check_cents("reserve", reserve)),
        ]
        if config is not None:
            args += _config_args(config)
        reply = await self._eval(
            [key(pool, "state"), key(pool, "audit"), key(pool, "reset", reset_id)], args
        )
        self._raise_missing(pool, reply)
        return await self._must_snapshot(pool)

    # -- money movements ---------------------------------------------------------------------
    async def _contribute_batch(
        self, pool: str, round_id: str, wagers: Sequence[tuple[str, int]]
    ) -> dict[str, ContributionResult]:
        args = ["contribute", round_id]
        for wager_id, amount in wagers:
            args += [wager_id, str(amount)]
        reply = await self._eval(
            [key(pool, "state"), key(pool, "audit"), key(pool, "round", round_id)], args
        )
        self._raise_missing(pool, reply)
        results = {
            wager_id: ContributionResult(
                reply[4 * i], int(reply[4 * i + 1]), int(reply[4 * i + 2]), int(reply[4 * i + 3])
            )
            for i, (wager_id, _) in enumerate(wagers)
        }
        seen = self.seen(pool)
        if seen is not None and results:
            self.pools_seen.saw(pool, seen[0], max(int(r.version or 0) for r in results.values()))
        return results

    async def contribute(
        self, pool: str, round_id: str, wager_id: str, amount_cents: int
    ) -> ContributionResult:
        """Refused (JackpotUnavailable) while Redis is down: the wager must not be accepted.

        Once accepted, the contribution is in the outbox until Redis confirms it; if the
        connection drops mid-call the result is ``pending`` and the outbox retries it (also
        when the caller is cancelled mid-call).
        """
        return (await self.contribute_round(pool, round_id, {wager_id: amount_cents}))[wager_id]

    async def contribute_round(
        self, pool: str, round_id: str, wagers: Mapping[str, int]
    ) -> dict[str, ContributionResult]:
        """A round's coin-in in one script call; each wager as :meth:`contribute` would."""
        check_pool_name(pool)
        check_id("round id", round_id)
        for wager_id, amount in wagers.items():
            check_id("wager id", wager_id)
            check_cents("contribution", amount, positive=True)
            if amount > MAX_WAGER:
                raise JackpotError("bad_amount", f"contribution above {MAX_WAGER} cents")
        if not self.available:  # down, or a pool lost data
            raise JackpotUnavailable("jackpot pool unavailable: jackpot wagers closed")
        pending = ContributionResult("pending", 0, 0, None)
        results = {w: pending for w in wagers if (pool, round_id, w) in self._outbox}
        batch = [(w, a) for w, a in wagers.items() if w not in results]
        if not batch:
            return results
        for wager_id, amount in batch:
            self._outbox[(pool, round_id, wager_id)] = amount
        if self._empty.is_set():
            self._empty = trio.Event()
        try:
            results.update(await self._contribute_batch(pool, round_id, batch))
        except JackpotUnavailable:
            self._wake.set()
            return {w: pending for w in wagers}
        except JackpotError:
            for wager_id, _ in batch:
                self._settle((pool, round_id, wager_id))
            raise
        except BaseException:
            self._wake.set()  # cancelled mid-call: the wagers were accepted; the outbox confirms
            raise
        for wager_id, _ in batch:
            self._settle((pool, round_id, wager_id))
        return results

    async def award(
        self,
        pool: str,
        round_id: str,
        award_id: str,
        prizes: Sequence[Prize] | int,
        *,
        expected_version: int | None = None,
    ) -> AwardResult:
        check_pool_name(pool)
        check_id("round id", round_id)
        check_id("award id", award_id)
        ordered = as_prizes(award_id, prizes)
        await self._flush(pool)
        text = ",".join(f"{p.winner}={p.amount}" for p in ordered)
        args = [
            "award",
            round_id,
            award_id,
            "" if expected_version is None else str(expected_version),
            text,
            str(len(ordered)),
        ]
        for prize in ordered:
            args += [prize.kind, str(prize.amount)]
        reply = await self._eval(
            [key(pool, "state"), key(pool, "audit"), key(pool, "award", round_id, award_id)],
            args,
        )
        self._raise_missing(pool, reply)
        status, from_meter, from_reserve, house, topped, version, stored = reply
        paid = tuple(
            (winner, int(amount))
            for winner, amount in (item.rsplit("=", 1) for item in stored.split(",") if item)
        )
        return AwardResult(
            status, paid, int(from_meter), int(from_reserve), int(house), int(topped), int(version)
        )

    async def refund(self, pool: str, round_id: str, wager_id: str) -> RefundResult:
        check_pool_name(pool)
        check_id("round id", round_id)
        check_id("wager id", wager_id)
        if not self._available:
            raise JackpotUnavailable()
        entry = (pool, round_id, wager_id)
        reply = await self._eval(
            [key(pool, "state"), key(pool, "audit"), key(pool, "round", round_id)],
            ["refund", round_id, wager_id],
        )
        if entry in self._outbox:  # the refund marker refuses its retry anyway: drop it
            self._settle(entry)
        return self._refund_result(pool, reply)

    async def void_round(self, pool: str, round_id: str) -> RefundResult:
        check_pool_name(pool)
        check_id("round id", round_id)
        reply = await self._eval(
            [key(pool, "state"), key(pool, "audit"), key(pool, "round", round_id)],
            ["void", round_id],
        )
        for entry in [e for e in self._outbox if e[0] == pool and e[1] == round_id]:
            self._settle(entry)
        return self._refund_result(pool, reply)

    def _refund_result(self, pool: str, reply: list[Any]) -> RefundResult:
        self._raise_missing(pool, reply)
        status, prize, reserve, count, version = reply
        return RefundResult(status, int(prize), int(reserve), int(count), int(version))

    @staticmethod
    def _raise_missing(pool: str, reply: list[Any]) -> None:
        if reply[0] == "no_pool":
            raise JackpotError("no_pool", f"no jackpot pool {pool!r}")

    # -- reading -----------------------------------------------------------------------------------
    async def snapshot(self, pool: str) -> Snapshot | None:
        check_pool_name(pool)
        data = await self._read(self._client.hgetall(key(pool, "state")))
        epoch = (data.get("epoch") or "legacy") if data else ""
        version = int(data.get("version", 0)) if data else 0
        self._judge(pool, epoch, version)
        if not data:
            return None
        self.pools_seen.saw(pool, epoch, version)
        config = PoolConfig(
            data["regime"],
            int(data["prize_bp"]),
            int(data["reserve_bp"]),
            int(data["seed_level"]),
            data["shortfall"],
            data["fixed_source"],
        )
        return Snapshot(
            pool,
            int(data["meter"]),
            int(data["reserve"]),
            int(data["paid"]),
            int(data["seed"]),
            int(data["contributions"]),
            int(data["house"]),
            int(data["version"]),
            config,
        )

    async def _must_snapshot(self, pool: str) -> Snapshot:
        snap = await self.snapshot(pool)
        if snap is None:
            raise JackpotError("no_pool", f"no jackpot pool {pool!r}")
        return snap

    async def pools(self) -> list[str]:
        """Every pool on this Redis: SCAN for ``jp:{*}:state`` (no registry to fall behind)."""
        if not self._available:
            raise JackpotUnavailable()
        names: list[str] = []
        prefix, suffix = len("jp:{"), len("}:state")
        try:
            with trio.fail_after(10 * self.op_timeout):
                async for found in self._client.scan_iter(
                    match="jp:{*}:state", count=1000, type_="hash"
                ):
                    name = found[prefix:-suffix]
                    if POOL_NAME.match(name):
                        names.append(name)
        except DOWN_ERRORS as exc:
            self._mark_down(exc)
            raise JackpotUnavailable(f"jackpot pool unavailable: {exc}") from exc
        return sorted(names)

    async def audit(self, pool: str, *, up_to: int | None = None) -> list[dict[str, str]]:
        """The audit stream in order (entries above version ``up_to`` left out)."""
        check_pool_name(pool)
        entries: list[dict[str, str]] = []
        start = "-"
        while True:
            chunk = await self._read(
                self._client.xrange(key(pool, "audit"), start, "+", count=AUDIT_CHUNK)
            )
            for entry in chunk:
                fields = dict(entry.field_values)
                if up_to is not None and int(fields["ver"]) > up_to:
                    return entries
                entries.append(fields)
            if len(chunk) < AUDIT_CHUNK:
                return entries
            start = "(" + chunk[-1].identifier

    async def stamp(self, pool: str) -> tuple[str, int]:
        """The pool's (epoch, version) as stored; ("", 0) if it is not there."""
        check_pool_name(pool)
        epoch, version = await self._read(
            self._client.hmget(key(pool, "state"), ["epoch", "version"])
        )
        if version is None:
            return "", 0
        return epoch or "legacy", int(version)

    async def check(self, pool: str) -> CheckReport:
        """Stored totals first, then the audit stream up to that version (5.9)."""
        snap = await self.snapshot(pool)
        entries = [] if snap is None else await self.audit(pool, up_to=snap.version)
        return verify(snap, entries, pool)

    @asynccontextmanager
    async def watch(self, pool: str) -> AsyncIterator[trio.MemoryReceiveChannel[MeterUpdate]]:
        check_pool_name(pool)
        send, receive = trio.open_memory_channel[MeterUpdate](WATCH_BUFFER)
        scope = trio.CancelScope()

        async def follow() -> None:
            with scope:
                async with send:
                    await self._meters.follow(pool, key(pool, "audit"), send)

        self._nursery.start_soon(follow)
        try:
            async with receive:
                yield receive
        finally:
            scope.cancel()


@asynccontextmanager
async def open_redis_service(url: str, **options: Any) -> AsyncIterator[RedisJackpotService]:
    """Connect (lazily: a Redis that is down at start only makes the service unavailable)."""
    client: RedisClient = redis_client.connect(
        url,
        connect_timeout=options.pop("connect_timeout", 0.5),
        stream_timeout=options.pop("stream_timeout", 2.0),
    )
    try:
        async with client, trio.open_nursery() as nursery:
            from server.store.redis import public_url

            service = RedisJackpotService(client, nursery, store_id=public_url(url), **options)
            try:
                with trio.fail_after(service.op_timeout):
                    await client.ping()
                service._mark_up()
            except DOWN_ERRORS as exc:
                service._mark_down(exc)
            nursery.start_soon(service._health)
            nursery.start_soon(service._drainer)
            try:
                yield service
            finally:
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # the background tasks never raise: a lone error here is the caller's own (wrapped by
        # our nursery and coredis' task group); re-raise it as it was raised.
        inner: BaseException = group
        while isinstance(inner, BaseExceptionGroup) and len(inner.exceptions) == 1:
            inner = inner.exceptions[0]
        if inner is group:
            raise
        raise inner from None
