"""Ledger account names as values (server/store/accounts.py): parse and print round-trip,
so every stored name keeps its exact form."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.store.accounts import (
    CASHIER,
    TABLE_KINDS,
    Kind,
    LedgerAccount,
    ledger_account,
)

tables = st.text(min_size=1).filter(lambda t: ":" not in t)
owners = st.text()
numbers = st.integers(min_value=0, max_value=10**6)
placed = st.none() | tables
plain = st.sampled_from([Kind.POT, Kind.HOUSE, Kind.COMMISSION, Kind.JACKPOT])

accounts = st.one_of(
    st.just(CASHIER),
    owners.filter(lambda o: not o.endswith("/meter")).map(LedgerAccount.wallet),
    owners.map(LedgerAccount.meter),
    st.builds(LedgerAccount.stake, numbers, owners, placed),
    st.builds(LedgerAccount.box, numbers, st.none() | owners, placed),
    st.builds(LedgerAccount.of_table, plain, placed),
    st.builds(
        LedgerAccount.tournament, st.sampled_from([Kind.PRIZE_POOL, Kind.ENTRY_COMMISSION]), tables
    ),
)


@given(accounts)
def test_every_account_round_trips(a: LedgerAccount) -> None:
    assert ledger_account(str(a)) == a
    assert LedgerAccount.parse(str(a)) == a
    assert hash(ledger_account(str(a))) == hash(a)


@given(st.text())
def test_a_name_parses_to_itself_or_not_at_all(name: str) -> None:
    try:
        a = ledger_account(name)
    except ValueError:
        return
    assert str(a) == name


@given(accounts, tables)
def test_a_local_name_placed_at_its_table(a: LedgerAccount, table: str) -> None:
    if a.kind not in TABLE_KINDS:
        return
    placed_at = a.at(table)
    assert str(placed_at) == f"table:{table}:{a.local}"
    assert placed_at.on_table == table
    assert ledger_account(a.local) == LedgerAccount(a.kind, a.owner, None, a.number)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cashier", CASHIER),
        ("wallet:ann", LedgerAccount(Kind.WALLET, "ann")),
        ("wallet:ann/meter", LedgerAccount(Kind.METER, "ann")),
        ("table:t1:stake:3:ann:x", LedgerAccount(Kind.STAKE, "ann:x", "t1", 3)),
        ("table:t1:box:2", LedgerAccount(Kind.BOX, None, "t1", 2)),
        ("table:t1:box:2:bob", LedgerAccount(Kind.BOX, "bob", "t1", 2)),
        ("table:t1:house", LedgerAccount(Kind.HOUSE, None, "t1")),
        ("box:4", LedgerAccount(Kind.BOX, None, None, 4)),
        ("pot", LedgerAccount(Kind.POT)),
        ("tournament:sng:pool", LedgerAccount(Kind.PRIZE_POOL, None, "sng")),
        ("tournament:sng:commission", LedgerAccount(Kind.ENTRY_COMMISSION, None, "sng")),
    ],
)
def test_the_stored_names(name: str, expected: LedgerAccount) -> None:
    assert ledger_account(name) == expected
    assert str(expected) == name


@pytest.mark.parametrize(
    "name",
    ["", "table:t1", "table::house", "table:t1:box:01", "box:x", "stake:1", "tournament:t:x"],
)
def test_not_an_account(name: str) -> None:
    with pytest.raises(ValueError, match="not a ledger account"):
        ledger_account(name)


def test_what_an_account_is() -> None:
    assert ledger_account("wallet:ann/meter").is_player
    assert ledger_account("table:t:stake:1:a").is_player
    assert not ledger_account("table:t:box:1").is_player
    assert ledger_account("table:t:pot").on_table == "t"
    assert ledger_account("tournament:t:pool").on_table is None
    with pytest.raises(ValueError):
        LedgerAccount.wallet("ann/meter")
    with pytest.raises(ValueError):
        LedgerAccount.stake(1, "ann", "a:b")
