"""In-memory jackpot pools: the embedded default for one server process.

Same behaviour as the Redis backend (``tests/jackpots`` runs one suite over both): every
method body runs without a checkpoint between reading and writing, so each commit is atomic
with respect to other trio tasks, exactly as one Lua script is in Redis (digest 5.5). Linked
tables in the same process see each other's commits through :meth:`watch` at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

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


class MemoryJackpotService:
    """Jackpot pools held in this process (lost when it exits; use Redis to share/persist)."""

    def __init__(self) -> None:
        self._pools: dict[str, _Pool] = {}
        self._available = True

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
            return RefundResult("none", 0, 0, 0, state.version)
        prize, reserve = self._reverse(state, pool, "refund", round_id, wager_id, rnd)
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
            total_prize += prize
            total_reserve += reserve
            count += 1
        status = "applied" if count else "none"
        return RefundResult(status, total_prize, total_reserve, count, state.version)

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
