"""ACT Canberra Poker jackpot arithmetic (jackpots.md s2-s3), pool level.

The card-level vectors (CP-05..CP-13, JP-*.act-*) run through the scenario command in
``tests/test_vectors.py``; these tests pin the pure functions to jackpots.md s8's pool-level
rows and check the money identity on random rounds.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.games.banked.jackpot_regimes.act import (
    DEAD_MANS_HAND,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    QUALIFYING_2004,
    QUALIFYING_2017,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
    ActJackpotConfig,
    boomerang_majors,
    coin_in_2017,
    payout_order,
    reverse_coin_in_2017,
    settle_2004,
    settle_2017,
)

UNIT = ActJackpotConfig(wager=100)  # a $1 wager, 30% / 70%, seed $10,000, fixed from reserve


def test_jp01_2004_rf_sf_pro_rata_10_to_1() -> None:
    """2004 r 11.2 (JP-01): RF + SF on J0 = 50,000 share the cap 10:1."""
    s = settle_2004(UNIT, 5_000_000, 2_000_000, {2: ROYAL_FLUSH, 5: STRAIGHT_FLUSH, 7: None})
    assert s.prizes == {2: 4_545_454, 5: 454_545}
    assert (s.pool, s.reserve, s.house_funded) == (1_000_000, 1_000_101, 0)


def test_jp02_2004_two_sf_within_cap_not_scaled() -> None:
    """2004 r 11.1-11.2 (JP-02): 2 x 10% of J0 is within J0, so each SF gets 10%."""
    s = settle_2004(UNIT, 5_000_000, 2_000_000, {3: STRAIGHT_FLUSH, 6: STRAIGHT_FLUSH})
    assert s.prizes == {3: 500_000, 6: 500_000}
    assert (s.pool, s.reserve) == (4_000_000, 2_000_000)


def test_jp03_2004_two_rf_literal_cap() -> None:
    """2004 r 11.2 (JP-03, canberra-poker.md A4): two RF entitlements of 15,000 share J0."""
    s = settle_2004(UNIT, 1_500_000, 2_000_000, {1: ROYAL_FLUSH, 4: ROYAL_FLUSH})
    assert s.prizes == {1: 750_000, 4: 750_000}
    assert (s.pool, s.reserve) == (1_000_000, 1_000_000)


def test_jp07_2004_contributions_from_non_winning_wagers_only() -> None:
    """2004 r 10.5 (JP-07): a folded full house counts as non-winning; fixed prizes from R."""
    hands = {1: FLUSH, 2: None, 3: None, 4: DEAD_MANS_HAND, 5: None, 6: FOUR_OF_A_KIND, 7: None}
    s = settle_2004(UNIT, 2_345_678, 150_000, hands)
    assert s.prizes == {1: 10_000, 4: 5_000, 6: 50_000}
    assert (s.pool, s.reserve, s.house_funded) == (2_345_798, 85_280, 0)
    assert s.contributed == (120, 280)
    assert s.kept == 300


def test_2004_winning_wager_return_option() -> None:
    """jackpots.md A-J4 option ``return``: a winning Boomerang wager comes back."""
    cfg = ActJackpotConfig(wager=100, winning_wager="return")
    s = settle_2004(cfg, 2_000_000, 500_000, {1: FLUSH, 2: None})
    assert s.returned == {1: 100}
    assert s.kept == 0


def test_jp11_2004_r11_3_cap_at_recalculated_pool() -> None:
    """2004 r 11.3 (JP-11): a later-determined round is capped at the pool at determination."""
    assert boomerang_majors({3: STRAIGHT_FLUSH}, 6_000_000, 1_000_000) == {3: 600_000}
    assert boomerang_majors({3: ROYAL_FLUSH}, 6_000_000, 1_000_000) == {3: 1_000_000}
    assert boomerang_majors({3: ROYAL_FLUSH, 5: STRAIGHT_FLUSH}, 6_000_000, 1_000_000) == {
        3: 909_090,
        5: 90_909,
    }
    assert boomerang_majors({3: ROYAL_FLUSH, 5: ROYAL_FLUSH}, 6_000_000, 1_000_000) == {
        3: 500_000,
        5: 500_000,
    }


def test_2004_fixed_prizes_short_reserve_is_house_funded() -> None:
    """jackpots.md s5.3: fixed prizes beyond the reserve are paid by the house."""
    s = settle_2004(UNIT, 2_000_000, 20_000, {1: FOUR_OF_A_KIND})
    assert s.prizes == {1: 50_000}
    assert (s.reserve, s.house_funded) == (0, 30_000)


def test_jp01_2017_sf_first_then_rf_takes_rest() -> None:
    """2017 r 11.4, r 11.1(a)-(b) (JP-01): SF 10% of the pool first, the RF the rest."""
    pool, reserve = coin_in_2017(UNIT, 5_000_000, 2_000_000, 3)
    assert (pool, reserve) == (5_000_090, 2_000_210)
    s = settle_2017(UNIT, pool, reserve, {2: ROYAL_FLUSH, 5: STRAIGHT_FLUSH, 7: None})
    assert s.prizes == {5: 500_009, 2: 4_500_081}
    assert (s.pool, s.reserve) == (1_000_000, 1_000_210)


def test_jp02_2017_two_sf_sequential_then_shared() -> None:
    """2017 r 11.3(b) (JP-02, A-J2): sequential 10% payouts, added, shared equally."""
    pool, reserve = coin_in_2017(UNIT, 5_000_000, 2_000_000, 2)
    s = settle_2017(UNIT, pool, reserve, {3: STRAIGHT_FLUSH, 6: STRAIGHT_FLUSH})
    assert s.prizes == {3: 475_005, 6: 475_005}
    assert (s.pool, s.reserve) == (4_050_050, 2_000_140)


def test_jp03_2017_two_rf_minimum_each_shortfall_from_reserve() -> None:
    """2017 r 11.3(a) (JP-03): shares of 7,500 are raised to 10,000; shortfall from R."""
    pool, reserve = coin_in_2017(UNIT, 1_500_000, 2_000_000, 2)
    s = settle_2017(UNIT, pool, reserve, {1: ROYAL_FLUSH, 4: ROYAL_FLUSH})
    assert s.prizes == {1: 1_000_000, 4: 1_000_000}
    assert (s.pool, s.reserve, s.house_funded) == (1_000_000, 500_200, 0)


def test_jp06_2017_two_rf_one_sf() -> None:
    """2017 r 11.4 with r 11.3(a) (JP-06, A-J3): the SF first, the RFs share the rest."""
    pool, reserve = coin_in_2017(UNIT, 8_000_000, 2_000_000, 3)
    s = settle_2017(UNIT, pool, reserve, {2: STRAIGHT_FLUSH, 4: ROYAL_FLUSH, 6: ROYAL_FLUSH})
    assert s.prizes == {2: 800_009, 4: 3_600_040, 6: 3_600_040}
    assert (s.pool, s.reserve) == (1_000_000, 1_000_211)


def test_2017_fixed_prizes_scale_with_djw_and_no_dead_mans_hand() -> None:
    """2017 r 11.1(c)-(e), r 10.7: 500/150/100 x DJW; Dead Man's Hand does not qualify."""
    cfg = ActJackpotConfig(wager=500)
    s = settle_2017(
        cfg,
        2_000_000,
        1_000_000,
        {
            1: FOUR_OF_A_KIND,
            2: FULL_HOUSE,
            3: FLUSH,
            4: DEAD_MANS_HAND,
        },
    )
    assert s.prizes == {1: 250_000, 2: 75_000, 3: 50_000}


def test_2017_void_reverses_coin_in_exactly() -> None:
    """jackpots.md s5.6: a void round's coin-in is reversed to the cent."""
    pool, reserve = coin_in_2017(UNIT, 1_234_567, 89_012, 5)
    assert reverse_coin_in_2017(UNIT, pool, reserve, 5) == (1_234_567, 89_012)


def test_2017_r11_2_payout_order_right_to_left() -> None:
    """2017 r 11.2: right to left, beginning at the dealer's immediate right (box 7)."""
    assert payout_order([1, 5, 3, 7]) == [7, 5, 3, 1]


_hands = st.dictionaries(
    st.integers(1, 7),
    st.one_of(st.none(), st.sampled_from(sorted(QUALIFYING_2004))),
    max_size=7,
)


@given(
    _hands,
    st.integers(0, 50_000_000),
    st.integers(0, 5_000_000),
    st.integers(1, 10_000),
    st.sampled_from(["reserve", "house"]),
    st.sampled_from(["keep", "return"]),
)
def test_2004_money_identity(hands, pool, reserve, wager, source, winning) -> None:
    """Prizes + returns + kept + pool/reserve change = wagers + house funding (s5.9)."""
    cfg = ActJackpotConfig(wager=wager, fixed_prize_source=source, winning_wager=winning)
    s = settle_2004(cfg, pool, reserve, hands)
    wagers = wager * len(hands)
    paid = sum(s.prizes.values()) + sum(s.returned.values()) + s.kept
    assert paid + (s.pool - pool) + (s.reserve - reserve) == wagers + s.house_funded
    assert s.pool >= cfg.seed and s.reserve >= 0 and s.house_funded >= 0
    assert sum(p for b, p in s.prizes.items() if hands[b] in (ROYAL_FLUSH, STRAIGHT_FLUSH)) <= max(
        pool, 0
    ) or not any(h in (ROYAL_FLUSH, STRAIGHT_FLUSH) for h in hands.values())


@given(
    st.dictionaries(
        st.integers(1, 7),
        st.one_of(st.none(), st.sampled_from(sorted(QUALIFYING_2017))),
        max_size=7,
    ),
    st.integers(0, 50_000_000),
    st.integers(0, 5_000_000),
    st.integers(1, 10_000),
)
def test_2017_money_identity(hands, pool, reserve, wager) -> None:
    """Coin-in plus settlement: wagers + house funding = prizes + pool/reserve change."""
    cfg = ActJackpotConfig(wager=wager)
    p1, r1 = coin_in_2017(cfg, pool, reserve, len(hands))
    s = settle_2017(cfg, p1, r1, hands)
    wagers = wager * len(hands)
    assert (
        sum(s.prizes.values()) + (s.pool - pool) + (s.reserve - reserve) == wagers + s.house_funded
    )
    for b, h in hands.items():
        if h == ROYAL_FLUSH:
            assert s.prizes[b] >= 1_000_000
        if h == STRAIGHT_FLUSH:
            assert s.prizes[b] >= 100_000
