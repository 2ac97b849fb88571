"""Jackpot pools kept by this process: the embedded default, on the books of its ledger.

Same behaviour as the Redis backend (``tests/jackpots`` runs one suite over both): every
method body runs without a checkpoint between reading and writing, so each commit is atomic
with respect to other trio tasks, exactly as one Lua script is in Redis (digest 5.5). Linked
tables in the same process see each other's commits through :meth:`watch` at once.

Durable (``croupier serve`` without Redis): :meth:`MemoryJackpotService.bind` loads the pools
from the ledger's store and hands every commit to the ledger (:meth:`Ledger.jackpot`) as one
:data:`PoolRecord`: the pool's totals, the round or award it touched, and its audit entry.
They go to the store in the ledger's next batch, with the money that moves before and after
them, in order: SQLite keeps them in the same file, so a restart or a kill -9 keeps every
meter to the cent. A coin-in the pool took whose ledger movement did not commit belongs to a
round that crash recovery voids, and the server voids it in the pool too
(``server/net/app.py``); an award the pool made whose prize the ledger did not pay is paid when
its table starts again (``server/tables/banked.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from server.jackpots.model import (
    AwardResult,
    CheckReport,
    ContributionResult,
    JackpotError,
    MeterUpdate,
    PoolConfig,
    Prize,
    RefundResult,
    Snapshot,
    as_prizes,
    audit_entry,
    check_cents,
    check_id,
    check_pool_name,
    fund_award,
    verify,
)

WATCH_BUFFER = 256

#: One commit of a pool, as the ledger's store keeps it (:meth:`MemoryJackpotService.bind`):
#: ``pool``; ``state`` (config, totals, version, reset ids); ``round`` (``[round id, {credited,
#: refunded, void}]``) or ``award`` (``[round id, award id, result]``) when the commit touched
#: one; ``audit``: the commit's audit entry (``version`` is its number).
PoolRecord = dict[str, Any]


class Books(Protocol):
    """What the pools need of a ledger: somewhere to put each commit, and what it kept."""

    def jackpot(self, record: PoolRecord) -> None: ...

    def jackpot_records(self) -> Iterable[PoolRecord]: ...


@dataclass
class _Round:
    credited: dict[str, tuple[int, int]] = field(default_factory=dict)
    refunded: set[str] = field(default_factory=set)
    void: bool = False


@dataclass
class _Pool:
    config: PoolConfig
    meter: int
    reserve: int
    seed: int
    paid: int = 0
    contributions: int = 0
    house: int = 0
    version: int = 0
    audit: list[dict[str, str]] = field(default_factory=list)
    rounds: dict[str, _Round] = field(default_factory=dict)
    awards: dict[tuple[str, str], AwardResult] = field(default_factory=dict)
    resets: set[str] = field(default_factory=set)
    watchers: list[trio.MemorySendChannel[MeterUpdate]] = field(default_factory=list)

    def state(self) -> dict[str, Any]:
        """The pool's totals, config and reset ids (a :data:`PoolRecord`'s ``state``)."""
        return {
            "config": self.config.to_dict(),
            "meter": self.meter,
            "reserve": self.reserve,
            "seed": self.seed,
            "paid": self.paid,
            "contributions": self.contributions,
            "house": self.house,
            "version": self.version,
            "resets": sorted(self.resets),
        }

    @classmethod
    def restore(cls, state: Mapping[str, Any]) -> _Pool:
        pool = cls(
            PoolConfig.from_dict(state["config"]),
            int(state["meter"]),
            int(state["reserve"]),
            int(state["seed"]),
            int(state["paid"]),
            int(state["contributions"]),
            int(state["house"]),
            int(state["version"]),
        )
        pool.resets = set(state.get("resets") or ())
        return pool

    def snapshot(self, name: str) -> Snapshot:
        return Snapshot(
            name,
            self.meter,
            self.reserve,
            self.paid,
            self.seed,
            self.contributions,
            self.house,
            self.version,
            self.config,
        )

    def commit(
        self, name: str, op: str, round_id: str, ref: str, deltas: tuple[int, ...], **extra: int
    ) -> None:
        """Apply balanced deltas, bump the version, audit, publish (one step)."""
        dm, dr, dp, dc, dh = deltas
        if dm + dr + dp != dc + dh:  # pragma: no cover - guarded by construction
            raise AssertionError("unbalanced jackpot commit")
        self.meter += dm
        self.reserve += dr
        self.paid += dp
        self.contributions += dc
        self.house += dh
        self.version += 1
        self.audit.append(
            audit_entry(op, round_id, ref, deltas, self.version, self.meter, self.reserve, **extra)
        )
        self.publish(name, op, round_id)

    def epoch(self, name: str, op: str, ref: str, meter: int, reserve: int) -> None:
        self.meter, self.reserve, self.seed = meter, reserve, meter + reserve
        self.paid = self.contributions = self.house = 0
        self.version += 1
        self.audit.append(
            audit_entry(op, "", ref, (0, 0, 0, 0, 0), self.version, meter, reserve, seed=self.seed)
        )
        self.publish(name, op, "")

    def publish(self, name: str, op: str, round_id: str) -> None:
        update = MeterUpdate(name, self.meter, self.reserve, self.version, op, round_id)
        for channel in list(self.watchers):
            try:
                channel.send_nowait(update)
            except trio.WouldBlock:
                pass  # a reader this far behind sees the next update's absolute meter
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.watchers.remove(channel)


def _round_state(rnd: _Round) -> dict[str, Any]:
    return {
        "credited": {w: list(pr) for w, pr in sorted(rnd.credited.items())},
        "refunded": sorted(rnd.refunded),
        "void": rnd.void,
    }


def _award_state(result: AwardResult) -> dict[str, Any]:
    return {
        "paid": [list(p) for p in result.paid],
        "from_meter": result.from_meter,
        "from_reserve": result.from_reserve,
        "house_funded": result.house_funded,
        "topped_up": result.topped_up,
        "version": result.version,
    }


class MemoryJackpotService:
    """Jackpot pools held in this process; durable on the ledger's store once :meth:`bind`
    is called (``croupier serve``), else lost when it exits (tests, a command's own)."""

    def __init__(self) -> None:
        self._pools: dict[str, _Pool] = {}
        self._available = True
        self._books: Books | None = None

    def bind(self, books: Books) -> None:
        """Load the pools the ledger's store kept, and keep every commit there from now on
        (with the ledger's next batch, in order with the money)."""
        pools: dict[str, _Pool] = {}
        for record in books.jackpot_records():
            name = record["pool"]
            pool = pools.get(name)
            state = record.get("state")
            if state is not None:
                fresh = _Pool.restore(state)
                if pool is None:
                    pool = pools[name] = fresh
                else:  # the latest totals; rounds, awards and audit as kept so far
                    fresh.rounds, fresh.awards, fresh.audit = pool.rounds, pool.awards, pool.audit
                    pool = pools[name] = fresh
            if pool is None:
                continue
            if record.get("round") is not None:
                ref, body = record["round"]
                pool.rounds[ref] = _Round(
                    {w: (int(p), int(r)) for w, (p, r) in body["credited"].items()},
                    set(body["refunded"]),
                    bool(body["void"]),
                )
            if record.get("award") is not None:
                ref, award_id, body = record["award"]
                pool.awards[(ref, award_id)] = AwardResult(
                    "applied",
                    tuple((str(w), int(a)) for w, a in body["paid"]),
                    int(body["from_meter"]),
                    int(body["from_reserve"]),
                    int(body["house_funded"]),
                    int(body["topped_up"]),
                    int(body["version"]),
                )
            if record.get("audit") is not None:
                pool.audit.append(dict(record["audit"]))
        self._pools = pools
        self._books = books

    def _record(
        self,
        name: str,
        state: _Pool,
        round_id: str | None = None,
        award: tuple[str, str] | None = None,
    ) -> None:
        """Hand the commit just made to the ledger (nothing when not bound)."""
        if self._books is None:
            return
        record: PoolRecord = {
            "pool": name,
            "state": state.state(),
            "audit": state.audit[-1] if state.audit else None,
        }
        if round_id is not None:
            record["round"] = [round_id, _round_state(state.rounds[round_id])]
        if award is not None:
            record["award"] = [award[0], award[1], _award_state(state.awards[award])]
        self._books.jackpot(record)

    # -- availability: an embedded store is always reachable ------------------------------
    @property
    def available(self) -> bool:
        return self._available

    async def wait_available(self) -> None:
        await trio.lowlevel.checkpoint()

    async def wait_unavailable(self) -> None:
        await trio.sleep_forever()  # an embedded store does not go away

    @property
    def pending(self) -> int:
        return 0

    async def drained(self) -> None:
        await trio.lowlevel.checkpoint()

    def _pool(self, pool: str) -> _Pool:
        check_pool_name(pool)
        try:
            return self._pools[pool]
        except KeyError:
            raise JackpotError("no_pool", f"no jackpot pool {pool!r}") from None

    # -- lifecycle ---------------------------------------------------------------------------
    async def open_pool(
        self, pool: str, config: PoolConfig, *, meter: int | None = None, reserve: int = 0
    ) -> Snapshot:
        await trio.lowlevel.checkpoint()
        check_pool_name(pool)
        meter = config.seed if meter is None else check_cents("meter", meter)
        check_cents("reserve", reserve)
        if pool in self._pools:
            raise JackpotError("pool_exists", f"jackpot pool {pool!r} already exists")
        state = _Pool(config, meter, reserve, meter + reserve)
        self._pools[pool] = state
        state.epoch(pool, "open", "open", meter, reserve)
        self._record(pool, state)
        return state.snapshot(pool)

    async def reset(
        self,
        pool: str,
        reset_id: str,
        *,
        meter: int | None = None,
        reserve: int | None = None,
        config: PoolConfig | None = None,
    ) -> Snapshot:
        await trio.lowlevel.checkpoint()
        state = self._pool(pool)
        check_id("reset id", reset_id)
        if reset_id in state.resets:
            return state.snapshot(pool)
        if config is not None:
            state.config = config
        meter = state.config.seed if meter is None else check_cents("meter", meter)
        reserve = state.reserve if reserve is None else check_cents("reserve", reserve)
        state.resets.add(reset_id)
        state.epoch(pool, "reset", reset_id, meter, reserve)
        self._record(pool, state)
        return state.snapshot(pool)

    # -- money movements -----------------------------------------------------------------------
    async def contribute(
        self, pool: str, round_id: str, wager_id: str, amount_cents: int
    ) -> ContributionResult:
        await trio.lowlevel.checkpoint()
        state = self._pool(pool)
        check_id("round id", round_id)
        check_id("wager id", wager_id)
        check_cents("contribution", amount_cents, positive=True)
        rnd = state.rounds.setdefault(round_id, _Round())
        if wager_id in rnd.credited:
            prize, reserve = rnd.credited[wager_id]
            return ContributionResult("duplicate", prize, reserve, state.version)
        if rnd.void or wager_id in rnd.refunded:
            return ContributionResult("refunded", 0, 0, state.version)
        prize, reserve = state.config.split(amount_cents)
        rnd.credited[wager_id] = (prize, reserve)
        state.commit(
            pool,
            "contribute",
            round_id,
            wager_id,
            (prize, reserve, 0, prize + reserve, 0),
            wager=amount_cents,
        )
        self._record(pool, state, round_id)
        return ContributionResult("applied", prize, reserve, state.version)

    async def contribute_round(
        self, pool: str, round_id: str, wagers: Mapping[str, int]
    ) -> dict[str, ContributionResult]:
        for wager_id, amount in wagers.items():  # validate all before applying any
            check_id("wager id", wager_id)
            check_cents("contribution", amount, positive=True)
        return {w: await self.contribute(pool, round_id, w, a) for w, a in wagers.items()}

    async def award(
        self,
        pool: str,
        round_id: str,
        award_id: str,
        prizes: Sequence[Prize] | int,
        *,
        expected_version: int | None = None,
    ) -> AwardResult:
        await trio.lowlevel.checkpoint()
        state = self._pool(pool)
        check_id("round id", round_id)
        check_id("award id", award_id)
        ordered = as_prizes(award_id, prizes)
        key = (round_id, award_id)
        if key in state.awards:
            done = state.awards[key]
            return AwardResult(
                "duplicate",
                done.paid,
                done.from_meter,
                done.from_reserve,
                done.house_funded,
                done.topped_up,
                done.version,
            )
        if expected_version is not None and expected_version != state.version:
            return AwardResult("conflict", (), 0, 0, 0, 0, state.version)
        meter, reserve, paid, house, from_meter, topped_up = fund_award(
            state.meter, state.reserve, state.config, ordered
        )
        from_reserve = state.reserve - reserve
        state.commit(
            pool,
            "award",
            round_id,
            award_id,
            (meter - state.meter, reserve - state.reserve, paid, 0, house),
            topup=topped_up,
        )
        result = AwardResult(
            "applied",
            tuple((p.winner, p.amount) for p in ordered),
            from_meter,
            from_reserve,
            house,
            topped_up,
            state.version,
        )
        state.awards[key] = result
        self._record(pool, state, award=key)
        return result

    async def refund(self, pool: str, round_id: str, wager_id: str) -> RefundResult:
        await trio.lowlevel.checkpoint()
        state = self._pool(pool)
        check_id("round id", round_id)
        check_id("wager id", wager_id)
        rnd = state.rounds.setdefault(round_id, _Round())
        if wager_id in rnd.refunded:
            return RefundResult("duplicate", 0, 0, 0, state.version)
        rnd.refunded.add(wager_id)
        if wager_id not in rnd.credited:
            self._remember_round(pool, state, round_id)
            return RefundResult("none", 0, 0, 0, state.version)
        prize, reserve = self._reverse(state, pool, "refund", round_id, wager_id, rnd)
        self._record(pool, state, round_id)
        return RefundResult("applied", prize, reserve, 1, state.version)

    async def void_round(self, pool: str, round_id: str) -> RefundResult:
        await trio.lowlevel.checkpoint()
        state = self._pool(pool)
        check_id("round id", round_id)
        rnd = state.rounds.setdefault(round_id, _Round())
        if rnd.void:
            return RefundResult("duplicate", 0, 0, 0, state.version)
        rnd.void = True
        total_prize = total_reserve = count = 0
        for wager_id in sorted(rnd.credited):  # wager id order, as the Redis backend
            if wager_id in rnd.refunded:
                continue
            rnd.refunded.add(wager_id)
            prize, reserve = self._reverse(state, pool, "void", round_id, wager_id, rnd)
            self._record(pool, state, round_id)
            total_prize += prize
            total_reserve += reserve
            count += 1
        if not count:  # no coin-in: the round is void all the same (later ones refused)
            self._remember_round(pool, state, round_id)
        status = "applied" if count else "none"
        return RefundResult(status, total_prize, total_reserve, count, state.version)

    def _remember_round(self, name: str, state: _Pool, round_id: str) -> None:
        """A round's state changed without a commit of money (a void or a refund of nothing
        credited): kept all the same, so that a later coin-in of it is refused after a
        restart too."""
        if self._books is not None:
            self._books.jackpot(
                {"pool": name, "round": [round_id, _round_state(state.rounds[round_id])]}
            )

    @staticmethod
    def _reverse(
        state: _Pool, pool: str, op: str, round_id: str, wager_id: str, rnd: _Round
    ) -> tuple[int, int]:
        prize, reserve = rnd.credited[wager_id]
        dm, dr = -min(prize, state.meter), -min(reserve, state.reserve)
        house = prize + dm + reserve + dr  # already spent (a top-up, a prize): the house covers
        state.commit(pool, op, round_id, wager_id, (dm, dr, 0, -(prize + reserve), house))
        return prize, reserve

    # -- reading ---------------------------------------------------------------------------------
    async def snapshot(self, pool: str) -> Snapshot | None:
        await trio.lowlevel.checkpoint()
        check_pool_name(pool)
        state = self._pools.get(pool)
        return None if state is None else state.snapshot(pool)

    async def pools(self) -> list[str]:
        await trio.lowlevel.checkpoint()
        return sorted(self._pools)

    async def audit(self, pool: str) -> list[dict[str, str]]:
        await trio.lowlevel.checkpoint()
        return [dict(e) for e in self._pool(pool).audit]

    async def check(self, pool: str) -> CheckReport:
        snap = await self.snapshot(pool)
        entries = [] if snap is None else await self.audit(pool)
        return verify(snap, entries, pool)

    @asynccontextmanager
    async def watch(self, pool: str) -> AsyncIterator[trio.MemoryReceiveChannel[MeterUpdate]]:
        state = self._pool(pool)
        send, receive = trio.open_memory_channel[MeterUpdate](WATCH_BUFFER)
        send.send_nowait(
            MeterUpdate(pool, state.meter, state.reserve, state.version, "snapshot", "")
        )
        state.watchers.append(send)
        try:
            async with receive:
                yield receive
        finally:
            if send in state.watchers:
                state.watchers.remove(send)
            send.close()
