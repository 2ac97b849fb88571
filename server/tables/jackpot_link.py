"""The table side of a linked progressive jackpot: meter, availability, coin-in and awards.

A banked table whose config names a ``jackpot_pool`` talks to the pool service
(:mod:`server.jackpots.service`; in-memory by default, Redis with ``croupier serve --redis``)
only through a :class:`JackpotLink`. Every call here is async and runs in a helper task of the
table; the table itself stays synchronous and learns the outcome as an internal command.

* **Pool per regime.** Caribbean stud (QLD Sch 3) links under the QLD profile, Canberra Poker
  2017 under ACT-2017; the pool's rates and seed come from the game's options
  (:func:`pool_config_for`). ACT-2004 (Boomerang) is not linked: its r 11.3 ordering by
  determination time on a shared pool needs approval (jackpots.md 5.5; docs/rulings.md).
* **Coin-in** (jackpots.md 5.2, QLD s14(2)-(3), ACT-2017 r 10.2, r 10.6): at "no more bets"
  each jackpot wager is contributed under ``(round id, "box<N>")``, idempotent in the service;
  a wager the service refuses because it is unreachable is returned to the player (QLD s34,
  s13(2); 2017 r 4.2). A contribution whose outcome is unknown stays in the service's outbox
  and lands exactly once.
* **Award** (jackpots.md 5.5, A-J9, A-J11): the regime computes the prizes on the *live* pool
  and the service commits them with compare-and-set (:func:`award_by_rule`), so linked tables
  in any process are ordered by commit. While the service is down the award is held and
  retried with the same id (5.8); ante and bet settle without waiting.
* **Meter** (QLD s9(2)(c), s9(3); ACT-2017 r 10.3): :meth:`JackpotLink.watch` follows every
  commit on the pool, from any process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from server.errors import ScenarioError
from server.games.banked.jackpot_regimes import act, qld
from server.games.banked.scenario import round_class
from server.games.registry import tabled
from server.jackpots.model import (
    JackpotError,
    JackpotUnavailable,
    MeterUpdate,
    PoolConfig,
    Prize,
    Snapshot,
    regime_prizes,
)
from server.jackpots.service import JackpotService, award_by_rule

log = logging.getLogger("croupier.tables.jackpot")


#: A fact a linked table keeps while a round's jackpot award is owed: ``jackpot_award:TABLE|
#: ROUND`` = what the award needs (JSON), "" once its prizes are paid. A server stopped
#: between the pool's commit and the ledger's payment finds it at the next start and pays.
AWARD_OWED = "jackpot_award:"

#: How often availability is looked at (the service itself pings every 0.25 s).
POLL_SECONDS = 0.1
#: Wait before retrying a held award or void the pool refused (logged each time).
RETRY_SECONDS = 5.0


class LinkError(ValueError):
    """A table's jackpot configuration cannot be linked to a pool."""


def regime_of(game: str) -> str:
    """The regime a game's jackpot links under: its spec's ``jackpot_regime``."""
    try:
        spec = round_class(game).spec
    except ScenarioError as exc:
        raise LinkError(str(exc)) from None
    if spec.jackpot_regime is None:
        linkable = sorted(g for g in tabled("banked") if round_class(g).spec.jackpot_regime)
        raise LinkError(
            f"{game}: no linked jackpot (only {', '.join(linkable)}; ACT-2004 "
            "Boomerang needs approval for a shared pool, jackpots.md 5.5)"
        )
    return spec.jackpot_regime


def pool_config_for(game: str, options: Mapping[str, Any]) -> PoolConfig:
    """The pool's approved configuration from the game's validated options."""
    regime = regime_of(game)
    if regime == "qld":
        if options["jackpot_kind"] != "progressive":
            raise LinkError("a set jackpot has no pool (QLD s24): link only a progressive one")
        return PoolConfig(
            "qld",
            options["prize_rate_bp"],
            options["reserve_rate_bp"],
            options["jackpot_seed"],
            "house",
            "house",
        )
    prize = options["prize_pool_rate_bp"]
    return PoolConfig(
        "act2017",
        prize,
        10_000 - prize,
        options["jackpot_seed"],
        "reserve",
        options["fixed_prize_source"],
    )


def wager_id(box: int) -> str:
    return f"box{box}"


def box_of(winner: str) -> int:
    """The box a prize is for (prizes name their box: ``"3"``)."""
    return int(winner.removeprefix("box"))


def compute_prizes(
    regime: str, options: Mapping[str, Any], hands: Mapping[int, str], snap: Snapshot
) -> list[Prize]:
    """The regime's prizes for this round's winning hands on the live pool ``snap``.

    QLD: :func:`regimes_qld.award` (s24, s25 by ``multi_winner_mode``; fixed prizes from the
    house, jackpots.md 4.1 steps 5-6). ACT-2017: :func:`regimes_act.settle_2017` (r 11.1-11.4;
    fixed prizes ``multiple x DJW`` from the pool's fixed-prize source, jackpots.md 3 step 4).
    Straight and royal flushes are paid from the meter, the rest as fixed prizes
    (:func:`regime_prizes`); the service funds shortfalls and the top-up the same way the
    regimes do.
    """
    if regime == "qld":
        a = qld.award(dict(hands), snap.meter, snap.reserve, qld_config(options))
        majors = [b for b, h in a.hands.items() if h in (qld.STRAIGHT_FLUSH, qld.ROYAL_FLUSH)]
        return regime_prizes(a.prizes, majors)
    cfg = act.ActJackpotConfig(
        wager=options["jackpot_wager"],
        prize_rate_bp=options["prize_pool_rate_bp"],
        seed=options["jackpot_seed"],
        fixed_prize_source=options["fixed_prize_source"],
    )
    s = act.settle_2017(cfg, snap.meter, snap.reserve, dict(hands))
    return regime_prizes(s.prizes, [b for b, h in hands.items() if h in act.MAJOR])


def qld_config(o: Mapping[str, Any]) -> qld.QldJackpotConfig:
    return qld.QldJackpotConfig(
        kind=o["jackpot_kind"],
        wager=o["jackpot_wager"] or 0,
        prize_rate_bp=o["prize_rate_bp"],
        reserve_rate_bp=o["reserve_rate_bp"],
        seed=o["jackpot_seed"],
        multi_winner_mode=o["multi_winner_mode"],
        sharing_sign_displayed=o["sharing_sign_displayed"],
        apply_minimums_when_shared=o["apply_minimums_when_shared"],
        dead_mans_hand_enabled=o["dead_mans_hand_enabled"],
        set_prize_sf=o["set_prize_sf"],
        set_prize_rf=o["set_prize_rf"],
    )


def _terms(config: PoolConfig) -> tuple[str, int, int]:
    """What linked tables must agree on: the regime and the contribution rates."""
    return config.regime, config.prize_bp, config.reserve_bp


@dataclass
class CoinInResult:
    """Outcome of a round's coin-in: the pool before it (``None`` if unreadable), the boxes
    whose jackpot wager the service took, and those returned because it was unreachable."""

    before: Snapshot | None
    accepted: dict[int, int] = field(default_factory=dict)
    returned: dict[int, int] = field(default_factory=dict)


class JackpotLink:
    """One table's connection to its pool (see the module docstring)."""

    def __init__(
        self, service: JackpotService, pool: str, game: str, options: Mapping[str, Any]
    ) -> None:
        self.service = service
        self.pool = pool
        self.game = game
        self.options = dict(options)
        self.regime = regime_of(game)
        self.config = pool_config_for(game, options)
        self.ready = False  # the pool exists (opened here or by another table/process)
        self.mismatch: str | None = None  # the pool exists on other terms: not linked
        self.meter: int | None = None
        self.version = 0

    @property
    def open(self) -> bool:
        """Whether jackpot wagers may be offered now (2017 r 4.2; QLD s13(2), s34)."""
        return self.ready and self.service.available

    def split(self, amount: int) -> tuple[int, int, int]:
        """(prize part, reserve part, operator part) of one jackpot wager (jackpots.md 5.1)."""
        prize, reserve = self.config.split(amount)
        return prize, reserve, amount - prize - reserve

    # -- background ------------------------------------------------------------------------
    async def ensure_pool(self) -> None:
        """Open the pool with the seed as its meter unless it exists; wait out outages.

        A pool that exists under another regime or other rates is not joined: linked tables
        share one jackpot (QLD Sch 3 s9), so the table offers no jackpot wager and says why
        (:attr:`mismatch`, logged) until the configuration is fixed.
        """
        while not self.ready and self.mismatch is None:
            try:
                snap = await self.service.snapshot(self.pool)
                if snap is None:
                    try:
                        await self.service.open_pool(self.pool, self.config)
                    except JackpotUnavailable:
                        raise
                    except JackpotError as exc:
                        if exc.code != "pool_exists":
                            raise
                        continue  # opened by another table meanwhile: compare its config
                elif _terms(snap.config) != _terms(self.config):
                    self.mismatch = (
                        f"pool {self.pool} runs {_terms(snap.config)}, this table "
                        f"{_terms(self.config)}"
                    )
                    log.error("jackpot not linked: %s", self.mismatch)
                    return
                self.ready = True
            except JackpotUnavailable:
                await trio.sleep(POLL_SECONDS)
                await self.service.wait_available()

    async def watch(self, on_update: Callable[[MeterUpdate], None]) -> None:
        """Every commit on the pool, from any process (the service resumes after outages)."""
        await self.ensure_pool()
        if not self.ready:
            return
        async with self.service.watch(self.pool) as updates:
            async for update in updates:
                if update.version >= self.version:
                    self.meter, self.version = update.meter, update.version
                    on_update(update)

    async def watch_availability(self, on_change: Callable[[bool], None]) -> None:
        """Report every change of :attr:`open` (polled; the service pings Redis itself)."""
        last: bool | None = None
        while True:
            now = self.open
            if now != last:
                on_change(now)
                last = now
            await trio.sleep(POLL_SECONDS)

    # -- one round ---------------------------------------------------------------------------
    async def coin_in(self, round_id: str, wagers: Mapping[int, int]) -> CoinInResult:
        """Contribute each jackpot wager; any the service cannot take are returned."""
        try:
            before = await self.service.snapshot(self.pool) if self.open else None
        except JackpotUnavailable:
            before = None
        result = CoinInResult(before)
        for box, amount in sorted(wagers.items()):
            if before is None:
                result.returned[box] = amount
                continue
            try:
                outcome = await self.service.contribute(self.pool, round_id, wager_id(box), amount)
            except JackpotError as exc:  # unavailable, or refused for good (logged)
                if not isinstance(exc, JackpotUnavailable):
                    log.error(
                        "pool %s refused the coin-in of %s/%d: %s", self.pool, round_id, box, exc
                    )
                result.returned[box] = amount
                continue
            if outcome.status in ("applied", "pending", "duplicate"):
                result.accepted[box] = amount
            else:  # "refunded": refused for good; the wager goes back
                result.returned[box] = amount
        return result

    async def award(self, round_id: str, hands: Mapping[int, str]) -> dict[int, int]:
        """Commit this round's prizes on the live pool; held and retried while unreachable."""

        def compute(snap: Snapshot) -> Sequence[Prize]:
            return compute_prizes(self.regime, self.options, hands, snap)

        while True:
            try:
                result = await award_by_rule(self.service, self.pool, round_id, "settle", compute)
            except JackpotUnavailable:
                await trio.sleep(POLL_SECONDS)
                await self.service.wait_available()
                continue
            except JackpotError as exc:  # e.g. the pool was removed: held, retried, logged
                log.error("pool %s: award of %s held: %s", self.pool, round_id, exc)
                await trio.sleep(RETRY_SECONDS)
                continue
            paid: dict[int, int] = {}
            for winner, amount in result.paid:
                paid[box_of(winner)] = paid.get(box_of(winner), 0) + amount
            return paid

    async def void(self, round_id: str) -> int:
        """Reverse a void round's contributions (5.6); returns the prize+reserve reversed."""
        while True:
            try:
                result = await self.service.void_round(self.pool, round_id)
            except JackpotUnavailable:
                await trio.sleep(POLL_SECONDS)
                await self.service.wait_available()
                continue
            except JackpotError as exc:
                log.error("pool %s: void of %s held: %s", self.pool, round_id, exc)
                await trio.sleep(RETRY_SECONDS)
                continue
            return result.prize + result.reserve
