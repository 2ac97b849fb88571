"""The jackpot pool model: names, errors, configuration, results and the pool arithmetic.

Pure code, no I/O: what both pool stores (:mod:`server.jackpots.memory`,
:mod:`server.jackpots.redis_store`) share and what the service interface
(:mod:`server.jackpots.service`) speaks in. The model is ``../shared/rules/jackpots.md``
section 5:

* 5.1  integer cents; a contribution's prize part is ``floor(w * prize_bp / 10000)``; when the
  prize and reserve rates make 100% the reserve takes the exact remainder (ACT r.10.5/r.10.6,
  digest 2.6 / 3.1), otherwise the reserve part is floored too and the operator keeps the
  rest (QLD, digest 4.1 step 1).
* 5.3  fixed prizes come from the pool's fixed-prize source (reserve, short reserve -> house)
  and never touch the meter.
* 5.4  after every award commit the meter is topped up to the seed level from the reserve,
  and the house funds any remainder (:func:`fund_award`; ``pool.lua`` runs the same steps).
* 5.9  ``meter + reserve + paid = seed + contributions + house`` at every version, checked
  from stored totals and by replaying the audit trail (:func:`verify`).

The prize arithmetic of each regime lives with the engines that use it
(:mod:`server.games.banked.jackpot_regimes`); :func:`regime_prizes` turns its result into
:class:`Prize` values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

#: Where a prize is paid from (digest 5.3, 5.4): the progressive meter; the pool's fixed-prize
#: source; or the house outright (QLD set jackpots, s24/s25(1)).
PrizeKind = Literal["progressive", "fixed", "house"]
#: Who covers a progressive prize above the meter (digest 3 step 3: ACT-2017 reserve then
#: house; 4.1 step 6: QLD house).
ShortfallSource = Literal["reserve", "house"]
#: Where fixed prizes come from (digest 5.3: ACT reserve, QLD house).
FixedSource = Literal["reserve", "house"]

POOL_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
ID_TEXT = re.compile(r"^[A-Za-z0-9_.:/-]{1,128}$")
BASIS = 10_000  # rates are in basis points: 2500 = 25%


class JackpotError(Exception):
    """A jackpot request that cannot be carried out; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class JackpotUnavailable(JackpotError):
    """The pool store cannot be reached: do not offer jackpot wagers (2017 r.4.2; QLD s34).

    ``unknown`` is True when the request may or may not have been applied (the connection
    was lost mid-call): retry it later with the same id, it is idempotent.
    """

    def __init__(self, message: str = "jackpot pool unavailable", *, unknown: bool = False):
        super().__init__("jackpot_unavailable", message)
        self.unknown = unknown


def check_pool_name(pool: str) -> str:
    """Pool ids go inside a Redis hash tag ``jp:{pool}:...``; no braces, no spaces."""
    if not isinstance(pool, str) or not POOL_NAME.match(pool):
        raise JackpotError("bad_pool", f"pool id must match {POOL_NAME.pattern}: {pool!r}")
    return pool


def check_id(kind: str, value: str) -> str:
    if not isinstance(value, str) or not ID_TEXT.match(value):
        raise JackpotError("bad_id", f"{kind} must match {ID_TEXT.pattern}: {value!r}")
    return value


def check_cents(kind: str, value: int, *, positive: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise JackpotError("bad_amount", f"{kind} must be integer cents: {value!r}")
    if value < 0 or (positive and value == 0) or value >= 2**53:
        raise JackpotError("bad_amount", f"{kind} out of range: {value}")
    return value


@dataclass(frozen=True)
class PoolConfig:
    """A pool's approved configuration (digest 5.3-5.4, 8 "Rates"; all PROPOSAL defaults).

    ``seed`` is the meter's floor for top-ups (5.4), not the opening balance.
    """

    regime: str = "qld"
    prize_bp: int = 2500
    reserve_bp: int = 500
    seed: int = 1_000_000
    shortfall: ShortfallSource = "house"
    fixed_source: FixedSource = "house"

    def __post_init__(self) -> None:
        for name in ("prize_bp", "reserve_bp"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= BASIS:
                raise JackpotError("bad_config", f"{name} must be 0..{BASIS} basis points")
        if self.prize_bp + self.reserve_bp > BASIS:
            raise JackpotError("bad_config", "prize and reserve rates exceed 100%")
        check_cents("seed", self.seed)
        if self.shortfall not in ("reserve", "house"):
            raise JackpotError("bad_config", f"shortfall must be reserve|house: {self.shortfall}")
        if self.fixed_source not in ("reserve", "house"):
            raise JackpotError("bad_config", "fixed_source must be reserve|house")

    @classmethod
    def profile(cls, regime: str, *, seed: int = 1_000_000) -> PoolConfig:
        """The digest's default rates per regime (section 8 "Rates", 5.3)."""
        if regime in ("act2004", "act2017"):
            return cls(regime, 3000, 7000, seed, "reserve", "reserve")
        if regime == "qld":
            return cls("qld", 2500, 500, seed, "house", "house")
        raise JackpotError("bad_config", f"unknown regime {regime!r} (act2004|act2017|qld)")

    def split(self, amount: int) -> tuple[int, int]:
        """(prize part, reserve part) of a wager of ``amount`` cents (digest 2.6, 3.1, 4.1)."""
        prize = amount * self.prize_bp // BASIS
        if self.prize_bp + self.reserve_bp == BASIS:
            return prize, amount - prize
        return prize, amount * self.reserve_bp // BASIS

    def to_dict(self) -> dict[str, Any]:
        return {
            "regime": self.regime,
            "prize_bp": self.prize_bp,
            "reserve_bp": self.reserve_bp,
            "seed": self.seed,
            "shortfall": self.shortfall,
            "fixed_source": self.fixed_source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PoolConfig:
        return cls(
            str(data["regime"]),
            int(data["prize_bp"]),
            int(data["reserve_bp"]),
            int(data["seed"]),
            data["shortfall"],
            data["fixed_source"],
        )


@dataclass(frozen=True)
class Snapshot:
    """A pool's stored totals at one version (digest 5.9 names)."""

    pool: str
    meter: int
    reserve: int
    paid: int
    seed: int  # opening balance: meter + reserve when opened or last reset (5.9)
    contributions: int  # net of refunds and voids
    house: int
    version: int
    config: PoolConfig

    @property
    def balanced(self) -> bool:
        return self.meter + self.reserve + self.paid == self.seed + self.contributions + self.house


@dataclass(frozen=True)
class Prize:
    """One prize of an award commit: ``amount`` cents to ``winner`` (a box or wager id)."""

    winner: str
    amount: int
    kind: PrizeKind = "progressive"


@dataclass(frozen=True)
class ContributionResult:
    """``status``: applied | duplicate (same id seen before: nothing changed) | refunded (the
    wager was refunded or its round voided first: nothing changed) | pending (accepted while
    the store was up, outcome unknown: the outbox retries it with the same id)."""

    status: str
    prize: int
    reserve: int
    version: int | None


@dataclass(frozen=True)
class AwardResult:
    """``status``: applied | duplicate | conflict (``expected_version`` did not match: nothing
    changed, recompute on ``version``). ``house_funded`` includes the top-up's house part."""

    status: str
    paid: tuple[tuple[str, int], ...]
    from_meter: int
    from_reserve: int
    house_funded: int
    topped_up: int
    version: int


@dataclass(frozen=True)
class RefundResult:
    """``status``: applied | duplicate | none (nothing was credited for it)."""

    status: str
    prize: int
    reserve: int
    wagers: int
    version: int | None


@dataclass(frozen=True)
class MeterUpdate:
    """What a linked table's meter shows after one commit (digest 5.7, QLD s9(2)(c), s9(3))."""

    pool: str
    meter: int
    reserve: int
    version: int
    op: str
    round_id: str


@dataclass
class CheckReport:
    """Result of :func:`verify`: ``ok`` only if every problem list is empty."""

    pool: str
    snapshot: Snapshot | None
    entries: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.snapshot is not None and not self.problems


# ---------------------------------------------------------------------------------------
# Audit entries: the same shape in both backends (Redis stream fields are these, as text).

AUDIT_DELTAS = ("dm", "dr", "dp", "dc", "dh")  # meter, reserve, paid, contributions, house


def audit_entry(
    op: str,
    round_id: str,
    ref: str,
    deltas: Sequence[int],
    version: int,
    meter: int,
    reserve: int,
    **extra: int,
) -> dict[str, str]:
    """One audit record. ``open``/``reset`` records carry absolute ``seed`` instead."""
    entry = {"op": op, "round": round_id, "ref": ref}
    entry.update({k: str(v) for k, v in zip(AUDIT_DELTAS, deltas, strict=True)})
    entry.update(ver=str(version), meter=str(meter), reserve=str(reserve))
    entry.update({k: str(v) for k, v in extra.items()})
    return entry


def verify(
    snapshot: Snapshot | None, entries: Sequence[Mapping[str, str]], pool: str
) -> CheckReport:
    """The reconciliation of digest 5.9, from the stored totals and from the audit trail.

    Replays every audit entry in order: ``open``/``reset`` set the epoch (seed, meter,
    reserve; totals back to zero), every other entry adds its deltas. Each entry must keep the
    invariant and its recorded meter/reserve/version must follow from the replay; the replay's
    end must equal the stored totals.
    """
    report = CheckReport(pool, snapshot, len(entries))
    if snapshot is None:
        report.problems.append("pool does not exist")
        return report
    if not snapshot.balanced:
        report.problems.append(
            f"stored totals break the invariant: meter {snapshot.meter} + reserve "
            f"{snapshot.reserve} + paid {snapshot.paid} != seed {snapshot.seed} + "
            f"contributions {snapshot.contributions} + house {snapshot.house}"
        )
    run = {"meter": 0, "reserve": 0, "paid": 0, "seed": 0, "contributions": 0, "house": 0}
    last_version = 0
    for n, entry in enumerate(entries):
        try:
            op, version = entry["op"], int(entry["ver"])
            if op in ("open", "reset"):
                run = dict.fromkeys(run, 0)
                run["meter"], run["reserve"] = int(entry["meter"]), int(entry["reserve"])
                run["seed"] = int(entry["seed"])
            else:
                dm, dr, dp, dc, dh = (int(entry[k]) for k in AUDIT_DELTAS)
                if dm + dr + dp != dc + dh:
                    report.problems.append(f"entry {n} ({op} {entry.get('ref')}) unbalanced")
                run["meter"] += dm
                run["reserve"] += dr
                run["paid"] += dp
                run["contributions"] += dc
                run["house"] += dh
        except (KeyError, ValueError) as exc:
            report.problems.append(f"entry {n} malformed: {exc!r}")
            continue
        if version != last_version + 1:
            report.problems.append(f"entry {n}: version {version} after {last_version}")
        last_version = version
        if (int(entry["meter"]), int(entry["reserve"])) != (run["meter"], run["reserve"]):
            report.problems.append(f"entry {n}: recorded meter/reserve differ from the replay")
        if run["meter"] < 0 or run["reserve"] < 0:
            report.problems.append(f"entry {n}: meter or reserve negative")
    stored = {
        "meter": snapshot.meter,
        "reserve": snapshot.reserve,
        "paid": snapshot.paid,
        "seed": snapshot.seed,
        "contributions": snapshot.contributions,
        "house": snapshot.house,
    }
    for key, value in stored.items():
        if run[key] != value:
            report.problems.append(f"audit replay gives {key} {run[key]}, stored {value}")
    if last_version != snapshot.version:
        report.problems.append(f"audit ends at version {last_version}, stored {snapshot.version}")
    return report


# ---------------------------------------------------------------------------------------
# The award arithmetic both backends apply (the Redis backend runs the same steps in Lua).

KIND_ORDER: dict[str, int] = {"progressive": 0, "fixed": 1, "house": 2}


def order_prizes(prizes: Sequence[Prize]) -> list[Prize]:
    """Progressive prizes first, then fixed, then house-paid (digest 3 steps 3-5)."""
    for prize in prizes:
        check_id("winner", prize.winner)
        check_cents("prize", prize.amount)
        if prize.kind not in KIND_ORDER:
            raise JackpotError("bad_prize", f"prize kind must be one of {list(KIND_ORDER)}")
    check_cents("total of the prizes", sum(p.amount for p in prizes))
    return sorted(prizes, key=lambda p: KIND_ORDER[p.kind])


def as_prizes(award_id: str, prizes: Sequence[Prize] | int) -> list[Prize]:
    """``award(..., amount)`` is one progressive prize to the award id itself."""
    if isinstance(prizes, int) and not isinstance(prizes, bool):
        return [Prize(award_id, check_cents("amount", prizes))]
    if isinstance(prizes, (str, bytes)) or not isinstance(prizes, Sequence):
        raise JackpotError("bad_prize", "prizes must be a list of Prize or integer cents")
    return order_prizes(list(prizes))


def regime_prizes(
    prizes: Mapping[int, int], majors: Iterable[int], *, major_kind: PrizeKind = "progressive"
) -> list[Prize]:
    """A regime's result (box -> cents, ``jackpot_regimes``) as service prizes: the boxes in
    ``majors`` (SF/RF) are paid from the meter (``house`` for a QLD set jackpot), the others
    are fixed prizes from the pool's fixed-prize source (digest 5.3)."""
    major_boxes = set(majors)
    return [
        Prize(str(box), amount, major_kind if box in major_boxes else "fixed")
        for box, amount in sorted(prizes.items(), reverse=True)  # payout order: right to left
    ]


def fund_award(
    meter: int, reserve: int, config: PoolConfig, prizes: Sequence[Prize]
) -> tuple[int, int, int, int, int, int]:
    """Pay ``prizes``, then top up; returns
    ``(meter_after, reserve_after, paid, house, from_meter, topped_up)``:

    * progressive: from the meter; any amount above it from the reserve (config
      ``shortfall == "reserve"``, ACT-2017 digest 3 step 3) and the house for the rest;
    * fixed: from the reserve (``fixed_source == "reserve"``, short reserve -> house) or
      the house (5.3); the meter is untouched;
    * house: the house pays it all (QLD set jackpot);
    * then the top-up to ``config.seed``: from the reserve, the house funds the rest (5.4).
    """
    paid = house = from_meter = 0
    for prize in order_prizes(prizes):
        amount = prize.amount
        paid += amount
        if prize.kind == "progressive":
            take = min(amount, meter)
            meter -= take
            from_meter += take
            short = amount - take
            if config.shortfall == "reserve":
                from_res = min(short, reserve)
                reserve -= from_res
                short -= from_res
            house += short
        elif prize.kind == "fixed" and config.fixed_source == "reserve":
            from_res = min(amount, reserve)
            reserve -= from_res
            house += amount - from_res
        else:
            house += amount
    topped_up = 0
    if meter < config.seed:
        topped_up = config.seed - meter
        from_res = min(topped_up, reserve)
        reserve -= from_res
        house += topped_up - from_res
        meter = config.seed
    return meter, reserve, paid, house, from_meter, topped_up
