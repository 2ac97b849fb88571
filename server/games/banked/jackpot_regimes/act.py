"""ACT Canberra Poker jackpot arithmetic: the 2004 Boomerang Jackpot and the 2017 progressive.

Pure functions on integer cents (``../shared/rules/jackpots.md`` s2, s3, s5); no I/O. The
pool *storage* (memory/Redis, atomic commits) is a separate service: these functions compute
what a round pays and the pool/reserve it leaves, and the service commits the deltas.

Sources: Casino Control (Canberra Poker) Approval 2004 (seed 000) r 7.3, r 10.1-10.5,
r 11.1-11.3; Casino Control (Poker - Canberra Poker) Approval 2017 (seed 002) r 7.3,
r 10.1-10.7, r 11.1-11.4.

Vocabulary: ``pool`` is the jackpot prize pool ``P`` (the amount on the meter), ``reserve``
the reserve pool ``R``, ``seed`` the floor the prize pool is topped back up to (jackpots.md
s5.4). A box's *hand* here is its jackpot category, or ``None`` when it has none (a folded
hand always passes ``None``: r 7.3 forfeits the jackpot wager on a fold).

Rounding (jackpots.md s5.1): percentages, pro-rata amounts and equal shares are rounded down
to the cent; residual cents stay in the prize pool. Python ints are arbitrary precision, so
``C * e_i`` cannot overflow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

ROYAL_FLUSH = "royal_flush"
STRAIGHT_FLUSH = "straight_flush"
FOUR_OF_A_KIND = "four_of_a_kind"
FULL_HOUSE = "full_house"
FLUSH = "flush"
DEAD_MANS_HAND = "dead_mans_hand"

MAJOR = (ROYAL_FLUSH, STRAIGHT_FLUSH)

#: r 11.1 (both versions): the royal flush and straight flush minimums, $10,000 and $1,000.
RF_MINIMUM = 1_000_000
SF_MINIMUM = 100_000
#: ACT profiles need a seed of at least the RF minimum (canberra-poker.md A4).
MINIMUM_SEED = RF_MINIMUM

#: 2004 r 11.1: fixed bonus payouts in dollars (cents here), whatever the approved wager.
FIXED_2004: dict[str, int] = {
    FOUR_OF_A_KIND: 50_000,
    FULL_HOUSE: 15_000,
    FLUSH: 10_000,
    DEAD_MANS_HAND: 5_000,
}
#: 2017 r 11.1(c)-(e): multiples of the Displayed Jackpot Wager.
FIXED_2017_MULTIPLE: dict[str, int] = {
    FOUR_OF_A_KIND: 500,
    FULL_HOUSE: 150,
    FLUSH: 100,
}

QUALIFYING_2004 = frozenset((*MAJOR, *FIXED_2004))
QUALIFYING_2017 = frozenset((*MAJOR, *FIXED_2017_MULTIPLE))


class ActJackpotWire(TypedDict):
    """:meth:`JackpotSettlement.to_wire`: the commit's figures, prizes keyed by box as text."""

    pool: int
    reserve: int
    prizes: dict[str, int]
    house_funded: int


@dataclass(frozen=True)
class ActJackpotConfig:
    """The approved parameters of one ACT jackpot (canberra-poker.md s11; jackpots.md s5).

    ``wager``: the 2004 approved Boomerang wager (r 10.2) or the 2017 Displayed Jackpot Wager
    (r 3.6). ``prize_rate_bp``: the share of each wager credited to the prize pool, in basis
    points; the rest goes to the reserve (2004 r 10.5; 2017 r 10.6: "the distribution ...
    shall be approved"; proposal 30% / 70%). ``fixed_prize_source``: ``reserve`` (default,
    jackpots.md s5.3) or ``house``. ``winning_wager`` (2004 only, jackpots.md A-J4): ``keep``
    (the operator keeps a winning Boomerang wager) or ``return`` (it is returned).
    """

    wager: int = 100
    prize_rate_bp: int = 3000
    seed: int = MINIMUM_SEED
    fixed_prize_source: str = "reserve"
    winning_wager: str = "keep"

    def split(self, amount: int) -> tuple[int, int]:
        """(prize-pool part, reserve part) of one wager: floor to the prize pool, rest to R."""
        to_pool = amount * self.prize_rate_bp // 10_000
        return to_pool, amount - to_pool


@dataclass
class JackpotSettlement:
    """What a round's jackpot commit pays and leaves.

    ``prizes``: box -> prize paid (gross; the wager is not returned, jackpots.md A-J8).
    ``returned``: box -> wager returned (2004 ``winning_wager = return`` only).
    ``kept``: wagers the operator keeps (2004 winning wagers, default). ``contributed``:
    (prize pool, reserve) credits made by this call. ``house_funded``: money the house put in
    (shortfalls, fixed prizes beyond the reserve, top-up beyond the reserve).
    """

    pool: int
    reserve: int
    prizes: dict[int, int] = field(default_factory=dict)
    returned: dict[int, int] = field(default_factory=dict)
    kept: int = 0
    contributed: tuple[int, int] = (0, 0)
    house_funded: int = 0

    def to_wire(self) -> ActJackpotWire:
        return {
            "pool": self.pool,
            "reserve": self.reserve,
            "prizes": {str(b): p for b, p in sorted(self.prizes.items())},
            "house_funded": self.house_funded,
        }


def payout_order(boxes: list[int]) -> list[int]:
    """2017 r 11.2: right to left from the box at the dealer's immediate right (highest box)."""
    return sorted(boxes, reverse=True)


def _pay_fixed(s: JackpotSettlement, amount: int, cfg: ActJackpotConfig) -> None:
    """Fixed prizes come from the reserve (or the house); a short reserve is house-funded."""
    if cfg.fixed_prize_source == "reserve":
        from_reserve = min(amount, max(s.reserve, 0))
        s.reserve -= from_reserve
        s.house_funded += amount - from_reserve
    else:
        s.house_funded += amount


def _top_up(s: JackpotSettlement, cfg: ActJackpotConfig) -> None:
    """jackpots.md s5.4: refill the prize pool to the seed from the reserve, then the house."""
    if s.pool < cfg.seed:
        need = cfg.seed - s.pool
        from_reserve = min(need, max(s.reserve, 0))
        s.reserve -= from_reserve
        s.house_funded += need - from_reserve
        s.pool = cfg.seed


# --------------------------------------------------------------------------------------
# ACT 2004: Boomerang Jackpot (jackpots.md s2)
# --------------------------------------------------------------------------------------


def boomerang_entitlement(hand: str, j0: int) -> int:
    """2004 r 11.1: RF the greater of $10,000 and 100% of J0; SF of $1,000 and 10% of J0."""
    if hand == ROYAL_FLUSH:
        return max(RF_MINIMUM, j0)
    if hand == STRAIGHT_FLUSH:
        return max(SF_MINIMUM, j0 * 10 // 100)
    raise ValueError(f"not a major jackpot hand: {hand}")


def boomerang_majors(
    majors: Mapping[int, str], j0: int, p_det: int | None = None
) -> dict[int, int]:
    """2004 r 11.1-11.3: the major (RF/SF) payouts of one round.

    Each winner's r 11.1 entitlement is computed on J0, the amount displayed at the
    commencement of the round. The round's aggregate is capped (r 11.2) at J0 and (r 11.3)
    at the pool as recalculated when the hands were determined (``p_det``; a pool private
    to one table has ``p_det == j0``). Over the cap, the entitlements are divided pro rata
    (jackpots.md A-J1: this reproduces the rule's 10:1 and 20:1 examples exactly).
    """
    if not majors:
        return {}
    cap = min(j0, j0 if p_det is None else p_det)
    cap = max(cap, 0)
    ent = {box: boomerang_entitlement(h, j0) for box, h in majors.items()}
    total = sum(ent.values())
    if total <= cap:
        return ent
    return {box: cap * e // total for box, e in ent.items()}


def settle_2004(
    cfg: ActJackpotConfig,
    pool: int,
    reserve: int,
    hands: Mapping[int, str | None],
    j0: int | None = None,
) -> JackpotSettlement:
    """Settle the Boomerang Jackpot of one round (jackpots.md s2 steps 4-7).

    ``hands``: every box that placed the Boomerang wager -> its jackpot category (RF, SF,
    4K, FH, flush, Dead Man's Hand) or None (no qualifying hand, or folded: r 7.3).
    ``pool`` is the prize pool now (P_det); ``j0`` the amount displayed at commencement
    (defaults to ``pool``: one table's private pool).
    """
    j0 = pool if j0 is None else j0
    s = JackpotSettlement(pool=pool, reserve=reserve)
    won = {b: h for b, h in hands.items() if h in QUALIFYING_2004}
    # Step 4: major payouts from the prize pool (r 11.1-11.3).
    majors = {b: h for b, h in won.items() if h in MAJOR}
    for box, paid in boomerang_majors(majors, j0, pool).items():
        s.prizes[box] = paid
        s.pool -= paid
    # Step 5: fixed prizes (r 11.1), from the reserve by default; they never touch P.
    for box, h in sorted(won.items()):
        if h in FIXED_2004:
            s.prizes[box] = FIXED_2004[h]
            _pay_fixed(s, FIXED_2004[h], cfg)
    # Step 6: only non-winning wagers feed the pools (r 10.5), folded hands included.
    to_pool = to_reserve = 0
    for box in hands:
        if box in won:
            if cfg.winning_wager == "return":
                s.returned[box] = cfg.wager
            else:
                s.kept += cfg.wager
            continue
        p, r = cfg.split(cfg.wager)
        to_pool += p
        to_reserve += r
    s.pool += to_pool
    s.reserve += to_reserve
    s.contributed = (to_pool, to_reserve)
    # Step 7: top-up to the seed.
    _top_up(s, cfg)
    return s


# --------------------------------------------------------------------------------------
# ACT 2017: progressive jackpot (jackpots.md s3)
# --------------------------------------------------------------------------------------


def coin_in_2017(cfg: ActJackpotConfig, pool: int, reserve: int, wagers: int) -> tuple[int, int]:
    """2017 r 10.6: every accepted wager goes to the prize pool or the reserve, at coin-in.

    Returns the new (pool, reserve). Each wager is split on its own (floor to the pool).
    """
    p, r = cfg.split(cfg.wager)
    return pool + p * wagers, reserve + r * wagers


def reverse_coin_in_2017(
    cfg: ActJackpotConfig, pool: int, reserve: int, wagers: int
) -> tuple[int, int]:
    """A void round or a voided jackpot wager reverses its coin-in exactly (jackpots.md s5.6)."""
    p, r = cfg.split(cfg.wager)
    return pool - p * wagers, reserve - r * wagers


def progressive_majors(majors: Mapping[int, str], pool: int) -> dict[int, int]:
    """2017 r 11.1(a)-(b), r 11.3, r 11.4: the RF/SF payouts on the live prize pool.

    Straight flushes are paid first (r 11.4). One SF: the greater of $1,000 and 10% of the
    pool. Several: in r 11.2 order (right to left) each takes 10% of what the previous left;
    the 10% payouts are added and shared equally, at least $1,000 each (r 11.3(b),
    jackpots.md A-J2). Then the royal flushes: one takes the greater of $10,000 and the whole
    remaining pool; several share it equally, at least $10,000 each (r 11.3(a); A-J3 for
    mixed groups).
    """
    paid: dict[int, int] = {}
    sfs = payout_order([b for b, h in majors.items() if h == STRAIGHT_FLUSH])
    rfs = payout_order([b for b, h in majors.items() if h == ROYAL_FLUSH])
    if len(sfs) == 1:
        paid[sfs[0]] = max(SF_MINIMUM, max(pool, 0) * 10 // 100)
    elif sfs:
        rem = max(pool, 0)
        aggregate = 0
        for _ in sfs:
            a = rem * 10 // 100
            rem -= a
            aggregate += a
        share = max(SF_MINIMUM, aggregate // len(sfs))
        for box in sfs:
            paid[box] = share
    left = max(pool - sum(paid.values()), 0)
    if len(rfs) == 1:
        paid[rfs[0]] = max(RF_MINIMUM, left)
    elif rfs:
        share = max(RF_MINIMUM, left // len(rfs))
        for box in rfs:
            paid[box] = share
    return paid


def settle_2017(
    cfg: ActJackpotConfig, pool: int, reserve: int, hands: Mapping[int, str | None]
) -> JackpotSettlement:
    """Settle the progressive jackpot of one round (jackpots.md s3 steps 2-5).

    ``pool``/``reserve`` are the live values at the jackpot commit, *after* this round's
    coin-in (:func:`coin_in_2017`; canberra-poker.md A11). ``hands``: box -> jackpot
    category or None (folded or no qualifying hand). No dealer qualification is needed
    (r 10.5). Any payout beyond the prize pool comes from the reserve, then the house (s3).
    """
    s = JackpotSettlement(pool=pool, reserve=reserve)
    won = {b: h for b, h in hands.items() if h in QUALIFYING_2017}
    majors = {b: h for b, h in won.items() if h in MAJOR}
    for box, paid in progressive_majors(majors, pool).items():
        s.prizes[box] = paid
        s.pool -= paid
    if s.pool < 0:
        from_reserve = min(-s.pool, max(s.reserve, 0))
        s.reserve -= from_reserve
        s.house_funded += -s.pool - from_reserve
        s.pool = 0
    for box, h in sorted(won.items()):
        if h in FIXED_2017_MULTIPLE:
            amount = FIXED_2017_MULTIPLE[h] * cfg.wager
            s.prizes[box] = amount
            _pay_fixed(s, amount, cfg)
    _top_up(s, cfg)
    return s
