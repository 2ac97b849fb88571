"""The progressive jackpot pool service: one interface, two backends.

The service *moves* jackpot money; it does not decide how much a hand wins. The prize
arithmetic of each regime (ACT-2004 Boomerang, ACT-2017 progressive, QLD Caribbean stud) is
pure and lives in :mod:`server.games.banked.jackpot_regimes`; a table asks the regime for the
amounts, then commits them here atomically. The data types, errors and pool arithmetic are
the pool model (:mod:`server.jackpots.model`, ``../shared/rules/jackpots.md`` section 5);
this module is the interface a table uses:

* 5.5  every money movement is one atomic commit with an idempotency key, an audit entry and a
  version bump; ordering across linked tables is commit order (:func:`award_by_rule`
  computes on a version and commits with compare-and-set).
* 5.6  ``refund`` returns one wager's credited contribution; ``void_round`` all of a round's.
* 5.8  when the store cannot be reached, ``available`` is False and jackpot wagers must not be
  offered (ACT-2017 r.4.2; QLD Sch 3 s34, s13(2)).

Backends: :mod:`server.jackpots.memory` (embedded default, one process) and
:mod:`server.jackpots.redis_store` (coredis + Lua, shared by every process on one Redis); both
import only the model. :func:`open_jackpot_service` picks one from a URL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import trio

from server.jackpots.memory import MemoryJackpotService
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
)
from server.store.witness import Witness


class JackpotService(Protocol):
    """What a table (and the ``croupier jackpot`` command) uses. All methods are async (trio)."""

    @property
    def available(self) -> bool:
        """False while the store cannot be reached: offer no jackpot wagers (r.4.2; s34)."""
        ...

    async def wait_available(self) -> None:
        """Return once the store is reachable again (jackpot wagers may reopen)."""
        ...

    async def wait_unavailable(self) -> None:
        """Return once the store is found unreachable (close jackpot wagers, r.4.2; s34)."""
        ...

    async def open_pool(
        self, pool: str, config: PoolConfig, *, meter: int | None = None, reserve: int = 0
    ) -> Snapshot:
        """Create a pool: meter (default ``config.seed``) + reserve is its opening seed."""
        ...

    async def reset(
        self,
        pool: str,
        reset_id: str,
        *,
        meter: int | None = None,
        reserve: int | None = None,
        config: PoolConfig | None = None,
    ) -> Snapshot:
        """Start a new reconciliation epoch (5.9): meter (default seed) and reserve (default:
        unchanged) become the new opening balance; paid/contributions/house restart at 0."""
        ...

    async def contribute(
        self, pool: str, round_id: str, wager_id: str, amount_cents: int
    ) -> ContributionResult:
        """Credit one jackpot wager (idempotent per (round, wager))."""
        ...

    async def contribute_round(
        self, pool: str, round_id: str, wagers: Mapping[str, int]
    ) -> dict[str, ContributionResult]:
        """A round's coin-in at once (wager id -> cents): as many :meth:`contribute` calls,
        in one commit per round on Redis (one script call, one round trip)."""
        ...

    async def award(
        self,
        pool: str,
        round_id: str,
        award_id: str,
        prizes: Sequence[Prize] | int,
        *,
        expected_version: int | None = None,
    ) -> AwardResult:
        """Pay a round's prizes and top up, atomically (idempotent per (round, award id)).

        ``prizes`` may be plain cents: one progressive prize. With ``expected_version`` the
        commit happens only if the pool is still at that version (else ``conflict``)."""
        ...

    async def refund(self, pool: str, round_id: str, wager_id: str) -> RefundResult:
        """Reverse one wager's contribution (5.6); later contributions of it are refused."""
        ...

    async def void_round(self, pool: str, round_id: str) -> RefundResult:
        """Reverse every contribution of a void round (5.6 phase ``void``)."""
        ...

    async def snapshot(self, pool: str) -> Snapshot | None: ...

    async def pools(self) -> list[str]: ...

    async def audit(self, pool: str) -> list[dict[str, str]]: ...

    async def check(self, pool: str) -> CheckReport: ...

    def watch(
        self, pool: str
    ) -> AbstractAsyncContextManager[trio.MemoryReceiveChannel[MeterUpdate]]:
        """Live meter updates: every commit on the pool, from any process, in commit order."""
        ...

    async def drained(self) -> None:
        """Return once every pending contribution has been confirmed (outbox empty)."""
        ...

    @property
    def pending(self) -> int:
        """Contributions accepted but not yet confirmed by the store."""
        ...


async def award_by_rule(
    service: JackpotService,
    pool: str,
    round_id: str,
    award_id: str,
    compute: Callable[[Snapshot], Sequence[Prize] | Awaitable[Sequence[Prize]]],
    *,
    attempts: int = 50,
) -> AwardResult:
    """Digest 5.5 "compute in the application, commit with compare-and-set".

    ``compute`` is the regime: it gets the live pool and returns the prizes (amounts the
    regime computed, e.g. an RF wins ``max(10,000, meter)``). The commit carries the version
    the amounts were computed on; if another table committed in between, recompute.
    """
    for _ in range(attempts):
        snap = await service.snapshot(pool)
        if snap is None:
            raise JackpotError("no_pool", f"no jackpot pool {pool!r}")
        prizes = compute(snap)
        if not isinstance(prizes, Sequence):
            prizes = await prizes
        result = await service.award(
            pool, round_id, award_id, prizes, expected_version=snap.version
        )
        if result.status != "conflict":
            return result
    raise JackpotError("contention", f"pool {pool!r} changed on every one of {attempts} tries")


@asynccontextmanager
async def open_jackpot_service(
    url: str | None, witness: Witness | None = None
) -> AsyncIterator[JackpotService]:
    """The in-memory backend for ``None``; the Redis backend for ``redis://HOST:PORT[/DB]``
    (with ``witness``: what this server saw of each pool, :mod:`server.store.witness`)."""
    if url is None:
        yield MemoryJackpotService()
        return
    # Imported here so that a server without Redis never loads coredis.
    from server.jackpots.redis_store import open_redis_service

    async with open_redis_service(url, witness=witness) as service:
        yield service
