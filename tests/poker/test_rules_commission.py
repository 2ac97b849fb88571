"""Commission arithmetic: the digests' unit tables (``server.money.commission``)."""

from __future__ import annotations

import pytest

from server.money import commission, dollars, split

D = 100  # cents per dollar


@pytest.mark.parametrize(
    ("pot", "expect"),
    [
        (19, 0),
        (20, 1),
        (39, 1),
        (40, 2),
        (99, 4),
        (100, 5),
        (119, 5),
        (120, 5),
        (250, 5),
    ],
)
def test_act_11_1_unit_table(pot: int, expect: int) -> None:
    """ACT r 11.1 (m = $1, cap base $100): 5% of the largest multiple of $20, nil to $19."""
    assert commission(pot * D, 5, 20 * D, 100 * D, D) == expect * D


@pytest.mark.parametrize(
    ("pot", "expect"),
    [
        (19, 0),
        (20, 2),
        (29, 2),
        (30, 3),
        (39, 3),
        (40, 4),
        (199, 19),
        (200, 20),
        (420, 20),
    ],
)
def test_qld_sch11_s30_unit_table(pot: int, expect: int) -> None:
    """QLD Sch 11 s30(1)-(2) (10%, W = $2, cap base $200): largest multiple of $10."""
    assert commission(pot * D, 10, 10 * D, 200 * D, D) == expect * D


@pytest.mark.parametrize(
    ("pot", "expect"),
    [
        (19, 0),
        (20, 1),
        (39, 1),
        (40, 2),
        (100, 5),
        (119, 5),
        (120, 5),
        (128, 5),
    ],
)
def test_qld_sch5_s28_unit_table(pot: int, expect: int) -> None:
    """QLD Sch 5 s28(1)-(2) (B = $1, cap base $100)."""
    assert commission(pot * D, 5, 20 * D, 100 * D, D) == expect * D


def test_qld_50c_coin_pot_over_19_dollars() -> None:
    """QLD Sch 11 s30(1) with 50c coins (Pt2 s6): $19.50 is "more than $19" and pays $1."""
    assert commission(1950, 10, 1000, 20000, 50) == 100


def test_reduced_rate_rounds_down_to_the_chip() -> None:
    """QLD s30(3) (digest A-6): 7% of $30 = $2.10 pays $2 with $1 chips."""
    assert commission(3000, 7, 1000, 20000, 100) == 200


def test_split_in_chip_units_remainder_as_one_amount() -> None:
    """ACT r 9.4: equal shares in $1 units; the remainder goes as one amount."""
    assert split(4100, 2, 100) == (2000, 100)
    assert split(10000, 3, 100) == (3300, 100)
    assert split(700, 4, 100) == (100, 300)
    assert dollars(12345) == "$123.45" and dollars(500) == "$5.00"
    assert dollars(123456789) == "$1,234,567.89" and dollars(-5) == "-$0.05"
