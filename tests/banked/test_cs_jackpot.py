"""The QLD Caribbean stud jackpot regime (server/games/banked/jackpot_regimes/qld.py) at pool level:
jackpots.md §8 QLD rows, the linked-table ordering (JP-10/10b), and the §5.9 reconciliation
invariant ``meter + reserve + paid = before + contributions + house``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.games.banked.jackpot_regimes import qld as q

RF, SF = q.ROYAL_FLUSH, q.STRAIGHT_FLUSH


def commit(hands, pool, reserve, n_wagers, **cfg):
    c = q.QldJackpotConfig(**cfg)
    ci = q.coin_in(n_wagers, c)
    a = q.award(hands, pool + ci.prize, reserve + ci.reserve, c)
    paid = sum(a.prizes.values())
    # §5.9: meter + reserve + paid = before + contributions + house
    assert a.pool + a.reserve + paid == pool + reserve + ci.prize + ci.reserve + a.house_funded
    return a


def test_s4_1_coin_in_25_5_70():
    assert q.coin_in(3, q.QldJackpotConfig()) == q.CoinIn(75, 15, 210)
    assert q.coin_in(2, q.QldJackpotConfig(kind="set")) == q.CoinIn(0, 0, 200)


@pytest.mark.parametrize(
    "hands, pool, reserve, n, cfg, prizes, after",
    [
        # JP-01 QLD: SF + RF, s25(2)(c)
        (
            {2: RF, 5: SF},
            5_000_000,
            2_000_000,
            3,
            {},
            {2: 4_500_068, 5: 500_007},
            (1_000_000, 1_000_015, 0),
        ),
        # JP-02 QLD: two SFs, s25(2)(a)
        (
            {3: SF, 6: SF},
            5_000_000,
            2_000_000,
            2,
            {},
            {3: 475_004, 6: 475_004},
            (4_050_042, 2_000_010, 0),
        ),
        # JP-03 QLD: two RFs on a small pool, minimum enters the sum (A-J5)
        (
            {1: RF, 4: RF},
            1_500_000,
            2_000_000,
            2,
            {},
            {1: 1_250_025, 4: 1_250_025},
            (1_000_000, 1_000_010, 1_000_000),
        ),
        (
            {1: RF, 4: RF},
            1_500_000,
            2_000_000,
            2,
            {"multi_winner_mode": "sequential_shared"},
            {1: 750_025, 4: 750_025},
            (1_000_000, 1_000_010, 0),
        ),
        # JP-04: three SFs, all three modes
        (
            {2: SF, 4: SF, 6: SF},
            6_000_000,
            2_000_000,
            3,
            {},
            {2: 542_006, 4: 542_006, 6: 542_006},
            (4_374_057, 2_000_015, 0),
        ),
        (
            {2: SF, 4: SF, 6: SF},
            6_000_000,
            2_000_000,
            3,
            {"multi_winner_mode": "independent"},
            {2: 600_007, 4: 600_007, 6: 600_007},
            (4_200_054, 2_000_015, 0),
        ),
        # JP-05: single RF below the minimum, seed 5000
        ({3: RF}, 599_925, 300_000, 3, {"seed": 500_000}, {3: 1_000_000}, (500_000, 0, 599_985)),
        # JP-08: no sign, each hand its own s24 win in payout order (A-J6)
        (
            {2: RF, 6: SF},
            7_000_000,
            2_000_000,
            2,
            {"sharing_sign_displayed": False},
            {2: 6_300_045, 6: 700_005},
            (1_000_000, 1_000_010, 0),
        ),
        # JP-09: set prizes shared (s25(1)), with and without the sign
        (
            {1: SF, 2: SF, 3: SF, 5: RF, 6: RF},
            0,
            0,
            5,
            {"kind": "set"},
            {1: 83_333, 2: 83_333, 3: 83_333, 5: 1_250_000, 6: 1_250_000},
            (0, 0, 2_749_999),
        ),
        # JP-12: SF + RF on a small jackpot, three readings
        (
            {2: RF, 6: SF},
            799_950,
            300_000,
            2,
            {"seed": 500_000},
            {2: 990_000, 6: 110_000},
            (500_000, 0, 499_990),
        ),
        (
            {2: RF, 6: SF},
            799_950,
            300_000,
            2,
            {"seed": 500_000, "multi_winner_mode": "sequential_shared"},
            {2: 720_000, 6: 80_000},
            (500_000, 0, 199_990),
        ),
        (
            {2: RF, 6: SF},
            799_950,
            300_000,
            2,
            {"seed": 500_000, "sharing_sign_displayed": False},
            {2: 1_000_000, 6: 100_000},
            (500_000, 0, 499_990),
        ),
    ],
)
def test_jackpots_md_section_8_qld_rows(hands, pool, reserve, n, cfg, prizes, after):
    a = commit(hands, pool, reserve, n, **cfg)
    assert a.prizes == prizes
    assert (a.pool, a.reserve, a.house_funded) == after


def test_jp10_linked_tables_commit_order_decides():
    """s9, A-J11: wins on different linked tables are paid on the pool each commit left."""
    c = q.QldJackpotConfig(prize_rate_bp=0, reserve_rate_bp=0)
    a1 = q.award({1: RF}, 10_000_000, 5_000_000, c)
    a2 = q.award({4: SF}, a1.pool, a1.reserve, c)
    assert (a1.prizes[1], a2.prizes[4], a2.pool, a2.reserve) == (
        10_000_000,
        100_000,
        1_000_000,
        3_900_000,
    )
    b1 = q.award({4: SF}, 10_000_000, 5_000_000, c)
    b2 = q.award({1: RF}, b1.pool, b1.reserve, c)
    assert (b1.prizes[4], b2.prizes[1], b2.pool, b2.reserve) == (
        1_000_000,
        9_000_000,
        1_000_000,
        4_000_000,
    )


def test_s24_fixed_prizes_do_not_touch_the_pool():
    a = commit(
        {1: q.FLUSH, 2: q.FULL_HOUSE, 3: q.FOUR_OF_A_KIND, 4: q.DMH},
        2_500_000,
        400_000,
        4,
        dead_mans_hand_enabled=True,
    )
    assert a.prizes == {1: 10_000, 2: 15_000, 3: 50_000, 4: 5_000}
    assert (a.pool, a.reserve) == (2_500_100, 400_020)


def test_mixed_group_beyond_s25_2_c_shares_within_category():
    """jackpots.md §4.3 step 3 [INTERP]: 2 SF + 1 RF, wins shared within each category."""
    a = commit({1: SF, 3: SF, 5: RF}, 10_000_000, 0, 0, prize_rate_bp=0, reserve_rate_bp=0)
    # payout order 5 (RF: 100000.00), 3 (SF: minimum 1000), 1 (SF: minimum 1000)
    assert a.prizes == {5: 10_000_000, 3: 100_000, 1: 100_000}


def test_apply_minimums_when_shared_raises_sequential_shares():
    a = commit(
        {1: RF, 4: RF},
        1_500_000,
        0,
        0,
        prize_rate_bp=0,
        reserve_rate_bp=0,
        multi_winner_mode="sequential_shared",
        apply_minimums_when_shared=True,
    )
    assert a.prizes == {1: 1_000_000, 4: 1_000_000}


@given(
    st.dictionaries(
        st.integers(1, 7),
        st.sampled_from([SF, RF, q.FLUSH, q.FULL_HOUSE, q.FOUR_OF_A_KIND, q.DMH]),
        max_size=7,
    ),
    st.integers(0, 50_000_000),
    st.integers(0, 10_000_000),
    st.sampled_from(q.MODES),
    st.booleans(),
    st.sampled_from(["progressive", "set"]),
)
def test_reconciliation_invariant_always_holds(hands, pool, reserve, mode, sign, kind):
    """jackpots.md §5.9 on random rounds; the pool never goes negative and meets the seed."""
    a = commit(
        hands,
        pool,
        reserve,
        len(hands),
        multi_winner_mode=mode,
        sharing_sign_displayed=sign,
        kind=kind,
        dead_mans_hand_enabled=True,
    )
    assert a.pool >= 0 and a.reserve >= 0 and all(p >= 0 for p in a.prizes.values())
    if kind == "progressive":
        assert a.pool >= q.QldJackpotConfig().seed
