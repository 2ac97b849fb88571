"""The Queensland Caribbean stud jackpot (Sch 3 s2, s5, s23-s25; jackpots.md §4, §5): pure
arithmetic, no I/O. The pool *storage* (memory / Redis, atomic commit) lives elsewhere; the
table task reads the pool, calls these functions and commits the deltas they return.

All amounts are integer cents. Percentages and equal shares round down; residual cents stay in
the jackpot prize (jackpots.md §5.1). Steps, in the order the rules put them:

1. :func:`coin_in` - each accepted jackpot wager credits ``floor(w x prize_rate)`` to the
   jackpot prize and ``floor(w x reserve_rate)`` to the reserve; the operator keeps the rest
   (progressive only; a set jackpot has no pool) (§4.1 step 1, §5.2).
2. :func:`award` - after ante and bet settlement (s23(3)): fixed prizes (s24(1): flush 100,
   full house 150, four of a kind 500, dead man's hand 50 if enabled, s5(2)) from the house;
   straight and royal flushes under s24 and, for several on one table, s25 in the selected
   ``multi_winner_mode``; amounts above the jackpot prize are house-funded (§4.1 step 6); then
   the prize is topped up to the seed from the reserve, the house funding any shortfall (§5.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: Jackpot hands (s5): the short names used in awards and events.
DMH, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, ROYAL_FLUSH = (
    "dead man's hand",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
)

MODES = ("s24_shared", "sequential_shared", "independent")


@dataclass(frozen=True)
class QldJackpotConfig:
    """The approved control system's figures (s2 "jackpot prize"; caribbean-stud.md §11).

    Rates are in basis points (2500 = 25%). Prizes in cents: the rules' "100" is 100 units of
    the jackpot wager denomination; the digest and the vectors read units as dollars.
    """

    kind: str = "progressive"  # or "set" (s24)
    wager: int = 100
    prize_rate_bp: int = 2500
    reserve_rate_bp: int = 500
    seed: int = 1_000_000
    multi_winner_mode: str = "s24_shared"
    sharing_sign_displayed: bool = True
    apply_minimums_when_shared: bool = False
    dead_mans_hand_enabled: bool = False
    set_prize_sf: int = 250_000
    set_prize_rf: int = 2_500_000
    sf_minimum: int = 100_000  # s24(1): greater of 1,000 ...
    rf_minimum: int = 1_000_000  # s24(1): greater of 10,000 ...
    fixed_prizes: dict[str, int] = field(
        default_factory=lambda: {
            DMH: 5_000,
            FLUSH: 10_000,
            FULL_HOUSE: 15_000,
            FOUR_OF_A_KIND: 50_000,
        }
    )


@dataclass(frozen=True)
class CoinIn:
    """Where ``n`` jackpot wagers went: prize pool, reserve, operator (cents)."""

    prize: int
    reserve: int
    operator: int


def coin_in(n_wagers: int, cfg: QldJackpotConfig) -> CoinIn:
    """Contributions of ``n_wagers`` accepted jackpot wagers (§4.1 step 1; set: all operator)."""
    total = n_wagers * cfg.wager
    if cfg.kind == "set":
        return CoinIn(0, 0, total)
    prize = n_wagers * (cfg.wager * cfg.prize_rate_bp // 10_000)
    reserve = n_wagers * (cfg.wager * cfg.reserve_rate_bp // 10_000)
    return CoinIn(prize, reserve, total - prize - reserve)


@dataclass(frozen=True)
class Award:
    """The jackpot settlement of one round at one table.

    ``prizes``: box -> full prize paid (before deducting the consumed wager). ``from_pool``:
    the part of the SF/RF prizes the jackpot prize held; ``house_funded``: every amount the
    house paid (fixed prizes, set prizes, SF/RF excess, top-up shortfall); ``topup_reserve``:
    moved from reserve to prize. ``pool``/``reserve``: after the round.
    """

    prizes: dict[int, int]
    hands: dict[int, str]
    from_pool: int
    house_prizes: int
    house_topup: int
    topup_reserve: int
    pool: int
    reserve: int

    @property
    def house_funded(self) -> int:
        return self.house_prizes + self.house_topup


def is_jackpot_hand(hand: str | None, cfg: QldJackpotConfig) -> bool:
    if hand is None:
        return False
    if hand == DMH:
        return cfg.dead_mans_hand_enabled
    return hand in (FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, ROYAL_FLUSH)


def _s24_win(hand: str, rem: int, cfg: QldJackpotConfig) -> int:
    """One hand's s24(1) win on the jackpot prize ``rem`` (never below 0)."""
    rem = max(rem, 0)
    if hand == STRAIGHT_FLUSH:
        return max(cfg.sf_minimum, rem // 10)
    return max(cfg.rf_minimum, rem)


def _share(total: int, n: int) -> int:
    return total // n


def major_prizes(
    majors: Sequence[tuple[int, str]], pool: int, cfg: QldJackpotConfig
) -> dict[int, int]:
    """SF/RF prizes for one table's round; ``majors`` in payout order (s19(2): descending box).

    Progressive (s24, s25(2) when the sharing sign is displayed, s25(3)); set (s25(1)).
    """
    if not majors:
        return {}
    sfs = [b for b, h in majors if h == STRAIGHT_FLUSH]
    rfs = [b for b, h in majors if h == ROYAL_FLUSH]
    if cfg.kind == "set":
        # s25(1): several of the same hand share that set prize; SF + RF each their own.
        out = {b: _share(cfg.set_prize_sf, len(sfs)) for b in sfs}
        out.update({b: _share(cfg.set_prize_rf, len(rfs)) for b in rfs})
        return out
    if cfg.multi_winner_mode == "sequential_shared" and cfg.sharing_sign_displayed:
        return _sequential_shared(sfs, rfs, pool, cfg)
    if cfg.multi_winner_mode == "independent" and cfg.sharing_sign_displayed:
        return _independent(sfs, rfs, pool, cfg)
    # s24 wins in payout order, each on the jackpot as the previous wins left it (A-J5, A-J6).
    wins: dict[int, int] = {}
    rem = pool
    for box, hand in majors:
        wins[box] = _s24_win(hand, rem, cfg)
        rem = max(rem - wins[box], 0)
    if not cfg.sharing_sign_displayed or len(majors) == 1:
        return wins  # s25(3): without the sign each hand is paid its own s24 win
    if len(sfs) == 1 and len(rfs) == 1:
        total = wins[sfs[0]] + wins[rfs[0]]
        sf = total // 10  # s25(2)(c): SF 10% of the jackpot total,
        return {sfs[0]: sf, rfs[0]: total - sf}  # RF the remaining 90%
    out = {}
    for group in (sfs, rfs):  # s25(2)(a)/(b); mixed: within each category
        if group:
            total = sum(wins[b] for b in group)
            out.update({b: _share(total, len(group)) for b in group})
    return out


def _sequential_shared(
    sfs: list[int], rfs: list[int], pool: int, cfg: QldJackpotConfig
) -> dict[int, int]:
    """The former default (jackpots.md §4.3 option): sequential 10%s, first RF the rest."""
    rem = pool
    sf_total = 0
    for _ in sfs:
        a = rem // 10
        sf_total += a
        rem -= a
    rf_total = rem if rfs else 0
    out = {}
    for b in sfs:
        share = _share(sf_total, len(sfs))
        out[b] = max(cfg.sf_minimum, share) if cfg.apply_minimums_when_shared else share
    for b in rfs:
        share = _share(rf_total, len(rfs))
        out[b] = max(cfg.rf_minimum, share) if cfg.apply_minimums_when_shared else share
    return out


def _independent(
    sfs: list[int], rfs: list[int], pool: int, cfg: QldJackpotConfig
) -> dict[int, int]:
    """Option ``independent``: every SF on the same jackpot; the RFs share what is left."""
    out = {b: max(cfg.sf_minimum, pool // 10) for b in sfs}
    left = max(pool - sum(out.values()), 0)
    for b in rfs:
        out[b] = max(cfg.rf_minimum, _share(left, len(rfs)))
    return out


def award(hands: dict[int, str], pool: int, reserve: int, cfg: QldJackpotConfig) -> Award:
    """Settle the jackpot for one round: ``hands`` maps each eligible box (a jackpot wager,
    not folded) to its jackpot hand; ``pool``/``reserve`` after this round's coin-in."""
    eligible = {b: h for b, h in hands.items() if is_jackpot_hand(h, cfg)}
    prizes: dict[int, int] = {}
    house_prizes = 0
    for b, h in eligible.items():
        if h in cfg.fixed_prizes:
            prizes[b] = cfg.fixed_prizes[h]  # fixed prizes: from the house (§5.3)
            house_prizes += prizes[b]
    majors = sorted(
        ((b, h) for b, h in eligible.items() if h in (STRAIGHT_FLUSH, ROYAL_FLUSH)), reverse=True
    )
    major = major_prizes(majors, pool, cfg)
    prizes.update(major)
    if cfg.kind == "set":
        house_prizes += sum(major.values())
        return Award(dict(sorted(prizes.items())), eligible, 0, house_prizes, 0, 0, pool, reserve)
    paid = sum(major.values())
    from_pool = min(paid, pool)
    house_prizes += paid - from_pool  # above the jackpot prize: house (§4.1 step 6)
    pool -= from_pool
    topup_reserve = house_topup = 0
    if pool < cfg.seed:  # top-up to seed (§5.4)
        topup_reserve = min(cfg.seed - pool, reserve)
        house_topup = cfg.seed - pool - topup_reserve
        reserve -= topup_reserve
        pool = cfg.seed
    return Award(
        dict(sorted(prizes.items())),
        eligible,
        from_pool,
        house_prizes,
        house_topup,
        topup_reserve,
        pool,
        reserve,
    )
