"""Typed amounts are dollars (server.money.parse_dollars), shown amounts are dollars."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.money import AmountError, dollars, parse_dollars


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("6", 600),
        ("6.5", 650),
        ("6.50", 650),
        ("$6.50", 650),
        ("$6", 600),
        (" 0.05 ", 5),
        ("0", 0),
        ("1,234.05", 123405),
        ("$12,345,678", 1234567800),
    ],
)
def test_typed_amounts_are_dollars(text: str, cents: int) -> None:
    assert parse_dollars(text) == cents


@pytest.mark.parametrize(
    "text", ["6.555", "$0.001", "-5", "abc", "", "$", "6.", ".5", "1,23", "6 dollars", "1e3"]
)
def test_what_is_not_dollars_and_cents_is_refused(text: str) -> None:
    with pytest.raises(AmountError):
        parse_dollars(text)


def test_a_third_decimal_is_refused_with_a_message_that_says_so() -> None:
    with pytest.raises(AmountError, match="at most two decimals"):
        parse_dollars("6.555")


@given(st.integers(min_value=0, max_value=10**12))
def test_what_dollars_writes_parse_dollars_reads_back(cents: int) -> None:
    assert parse_dollars(dollars(cents)) == cents
