"""The ledger and its stores: idempotent transfers, atomic batches, recovery, the books check.

Unit tests on the in-memory double and on SQLite files; property tests interleave transfers
(with repeated ids), rounds and voids at random and check the books after every commit.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.store.model import (
    Batch,
    InsufficientFunds,
    RoundClosed,
    RoundOpened,
    StoreLost,
    StoreUnavailable,
    Transfer,
    check_books,
    reversal,
)
from server.store.sqlite import DataDirInUse, SqliteStore


def _t(ident: str, source: str, target: str, amount: int, round_: str | None = None) -> Transfer:
    return Transfer(ident, source, target, amount, "test", round_)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "memory":
        yield MemoryStore()
    else:
        s = SqliteStore(tmp_path / "data")
        yield s
        s.close()


def test_a_transfer_id_applied_twice_moves_money_once(store) -> None:  # type: ignore[no-untyped-def]
    batch = Batch(transfers=[_t("a", "cashier", "wallet:ann", 500)])
    store.commit([batch])
    store.commit([batch, batch])
    loaded = store.load()
    assert loaded.balances == {"cashier": -500, "wallet:ann": 500}
    assert store.check().balanced


def test_open_rounds_come_back_with_their_transfers(store) -> None:  # type: ignore[no-untyped-def]
    store.commit(
        [
            Batch(transfers=[_t("d", "cashier", "wallet:ann", 1000)]),
            Batch(
                opened=[RoundOpened("t.1", "t", "p1")],
                transfers=[_t("w", "wallet:ann", "table:t:box:1", 300, "t.1")],
            ),
            Batch(
                opened=[RoundOpened("t.0", "t", "p1")],
                closed=[RoundClosed("t.0", "settled")],
            ),
        ]
    )
    loaded = store.load()
    assert set(loaded.open_rounds) == {"t.1"}
    table, owner, transfers = loaded.open_rounds["t.1"]
    assert (table, owner) == ("t", "p1") and [t.id for t in transfers] == ["w"]
    report = store.check()
    assert report.open_rounds == 1 and not report.balanced  # open, and no server owns it
    assert store.check(owners_alive=True).balanced


def test_recovery_voids_open_rounds_and_returns_stakes(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "d")
    store.commit(
        [
            Batch(
                transfers=[
                    _t("d1", "cashier", "wallet:ann", 10_000),
                    _t("d2", "cashier", "wallet:bob", 10_000),
                    _t("b1", "wallet:ann", "table:p:stake:1:ann", 4000),
                ]
            ),
            Batch(
                opened=[RoundOpened("c.1", "c", "dead")],
                transfers=[
                    _t("w1", "wallet:bob", "table:c:box:2", 700, "c.1"),
                    _t("j1", "table:c:box:2", "table:c:jackpot", 90, "c.1"),
                    _t("j2", "table:c:box:2", "table:c:house", 10, "c.1"),
                ],
            ),
        ]
    )
    store.close()
    again = SqliteStore(tmp_path / "d")
    ledger = Ledger(again)
    counts = ledger.recover()
    assert counts == {"rounds_voided": 1, "stakes_returned": 1}
    assert ledger.balance("ann") == 10_000 and ledger.balance("bob") == 10_000
    report = again.check()
    assert report.balanced and report.rounds_voided == 1 and report.open_rounds == 0
    assert Ledger(again).recover() == {"rounds_voided": 0, "stakes_returned": 0}  # idempotent
    again.close()


def test_recovery_pays_stadium_credit_meters_home(tmp_path: Path) -> None:
    """No terminal session survives a restart: a credit meter (wallet:ACCOUNT/meter) goes
    back to its owner's wallet; a wager of a round in play is back on the meter first."""
    store = SqliteStore(tmp_path / "d")
    store.commit(
        [
            Batch(
                transfers=[
                    _t("d1", "cashier", "wallet:ann", 10_000),
                    _t("c1", "wallet:ann", "wallet:ann/meter", 3000),
                ]
            ),
            Batch(
                opened=[RoundOpened("rou.1", "rou", "dead")],
                transfers=[_t("w1", "wallet:ann/meter", "table:rou:box:1", 500, "rou.1")],
            ),
        ]
    )
    store.close()
    again = SqliteStore(tmp_path / "d")
    ledger = Ledger(again)
    assert ledger.recover() == {"rounds_voided": 1, "stakes_returned": 1}
    assert ledger.balance("ann") == 10_000 and ledger.balance("ann/meter") == 0
    assert again.check().balanced
    again.close()


def test_recovery_sends_a_wager_left_riding_home(tmp_path: Path) -> None:
    """A stadium wager that stayed on the layout after its settled round (a winning stake
    riding, ETG s7(4)) goes home to the terminal's owner, recorded when it was placed."""
    store = SqliteStore(tmp_path / "d")
    store.commit(
        [
            Batch(
                transfers=[
                    _t("d1", "cashier", "wallet:bob", 10_000),
                    _t("c1", "wallet:bob", "wallet:bob/meter", 3000),
                ]
            ),
            Batch(
                opened=[RoundOpened("rou.1", "rou", "dead")],
                transfers=[_t("w1", "wallet:bob/meter", "table:rou:box:4", 500, "rou.1")],
                notes=[{"meta": "owner:table:rou:box:4", "value": "bob"}],
            ),
            Batch(closed=[RoundClosed("rou.1", "settled")]),  # the stake stays riding
        ]
    )
    store.close()
    again = SqliteStore(tmp_path / "d")
    ledger = Ledger(again)
    assert ledger.recover() == {"rounds_voided": 0, "stakes_returned": 2}  # layout and meter
    assert ledger.balance("bob") == 10_000
    assert not ledger.balances.get("table:rou:box:4") and again.load().balances["wallet:bob"]
    again.close()


def test_a_wallet_never_goes_below_zero() -> None:
    ledger = Ledger(MemoryStore())
    ledger.open("ann", 500)
    with pytest.raises(InsufficientFunds):
        ledger.move("wallet:ann", "table:t:box:1", 501, "wager", None)
    assert ledger.balance("ann") == 500
    ledger.open("ann", 500)  # once per account, ever
    assert ledger.balance("ann") == 500 and ledger.issued == 500


def test_one_server_per_data_directory(tmp_path: Path) -> None:
    first = SqliteStore(tmp_path / "d")
    with pytest.raises(DataDirInUse):
        SqliteStore(tmp_path / "d")
    first.close()
    SqliteStore(tmp_path / "d").close()


def test_a_store_changed_under_the_server_is_never_trusted(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "d")
    store.commit([Batch(transfers=[_t("a", "cashier", "wallet:ann", 5)])])
    db = sqlite3.connect(tmp_path / "d" / "ledger.sqlite3")
    db.execute("UPDATE meta SET value = '0' WHERE key = 'version'")  # rolled back
    db.commit()
    with pytest.raises(StoreLost):
        store.commit([Batch(transfers=[_t("b", "cashier", "wallet:ann", 5)])])
    store.close()


async def test_the_committer_retries_through_an_outage() -> None:
    import trio

    store = MemoryStore()
    ledger = Ledger(store)
    seen: list[bool] = []
    ledger.on_status.append(lambda: seen.append(ledger.available))
    async with trio.open_nursery() as nursery:
        await nursery.start(ledger.run)
        store.down = True
        ledger.open("ann", 700)
        with trio.fail_after(5):
            while ledger.available:
                await trio.sleep(0.01)
        assert not ledger.can_move and "cannot be reached" in ledger.why_not()
        store.down = False
        with trio.fail_after(5):
            while not ledger.available or ledger.backlog:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert seen == [False, True]
    assert store.balances == {"cashier": -700, "wallet:ann": 700}


async def test_a_record_waits_for_money_or_its_delay_and_keeps_its_order() -> None:
    """A round's record (an action: no money) costs no commit of its own: it rides with the
    next movement, in order, or is committed within JOURNAL_DELAY (ledger.py)."""
    import trio

    from server.store import ledger as ledger_module
    from server.store.journal import JournalEntry

    store = MemoryStore()
    ledger = Ledger(store)
    ledger.open("ann", 700)
    ledger.flush_now()

    def record(seq: int) -> None:
        ledger.journal(JournalEntry("t.1", seq, "t", "command", 0.0, {"op": "act"}))

    async with trio.open_nursery() as nursery:
        await nursery.start(ledger.run)
        commits = ledger.committed
        record(1)
        await trio.sleep(ledger_module.GROUP_WINDOW * 4)
        assert ledger.committed == commits and "t.1" not in store.journal  # no commit yet
        record(2)
        ledger.move("wallet:ann", "table:t:stake:1:ann", 100, "buy_in", None)  # money moves
        with trio.fail_after(ledger_module.JOURNAL_DELAY / 2):
            while ledger.backlog:
                await trio.sleep(0.001)
        assert [e.seq for e in store.journal["t.1"]] == [1, 2]  # along with it, in order
        record(3)
        with trio.fail_after(ledger_module.JOURNAL_DELAY * 2 + 1):  # on its own, in time
            while ledger.backlog:
                await trio.sleep(0.01)
        assert [e.seq for e in store.journal["t.1"]] == [1, 2, 3]
        nursery.cancel_scope.cancel()


def test_reversal_gives_every_account_its_net_back() -> None:
    moves = [
        _t("1", "wallet:a", "table:t:box:1", 500),
        _t("2", "wallet:b", "table:t:box:2", 300),
        _t("3", "table:t:box:1", "table:t:jackpot", 100),
        _t("4", "table:t:box:2", "wallet:b", 300),
    ]
    back = reversal(moves)
    net: dict[str, int] = {}
    for t in moves:
        net[t.source] = net.get(t.source, 0) - t.amount
        net[t.target] = net.get(t.target, 0) + t.amount
    for source, target, amount in back:
        net[source] -= amount
        net[target] += amount
    assert all(v == 0 for v in net.values())


ACCOUNTS = ("wallet:a", "wallet:b", "table:t:box:1", "table:t:house", "table:t:jackpot")


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[str, object]]:
    """Random steps: deposits, wagers in rounds (ids sometimes repeated), settlements, voids."""
    steps: list[tuple[str, object]] = []
    for i in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["deposit", "move", "repeat", "open", "settle", "void"]))
        steps.append((kind, (i, draw(st.integers(1, 900)), draw(st.sampled_from(ACCOUNTS)))))
    return steps


@given(histories())
@settings(max_examples=150, deadline=None)
def test_random_interleavings_never_break_the_books(steps: list[tuple[str, object]]) -> None:
    store = MemoryStore()
    ledger = Ledger(store)
    sent: list[Batch] = []
    rounds: list[str] = []
    for kind, args in steps:
        i, amount, _account = args  # type: ignore[misc]
        if kind == "deposit":
            ledger.deposit("a" if i % 2 else "b", amount)
        elif kind == "move" and rounds:
            source = "wallet:a" if i % 2 else "wallet:b"
            ref = rounds[i % len(rounds)]  # concurrent rounds, each at its own table
            try:
                ledger.move(source, f"table:{ref}:box:1", amount, "wager", ref)
            except InsufficientFunds:
                pass
        elif kind == "repeat" and sent:
            store.commit([sent[i % len(sent)]])  # a lost answer: the same batch again
        elif kind == "open":
            rounds.append(f"t{i}")
            ledger.open_round(rounds[-1], f"t{i}")
        elif kind in ("settle", "void") and rounds:
            ref = rounds.pop(i % len(rounds))
            held = ledger.balances.get(f"table:{ref}:box:1", 0)
            target = f"table:{ref}:house" if kind == "settle" else "wallet:a"
            ledger.move(f"table:{ref}:box:1", target, held, kind, ref)
            ledger.close_round(ref, "settled" if kind == "settle" else "voided")
        ledger._take()
        batches, ledger._pending = list(ledger._pending), []
        store.commit(batches)
        sent += batches
        report = check_books(
            store.balances,
            store.transfers.values(),
            {r: s for r, (_t0, _o, s) in store.rounds.items()},
            owners_alive=True,
        )
        assert report.balanced, report.problems
        assert store.balances == {
            k: v for k, v in ledger.balances.items() if v or k in store.balances
        }
    # a crash now: recovery voids what is open and the books still balance
    again = Ledger(store)
    again.recover()
    assert store.check().balanced, store.check().problems


def test_a_store_that_is_down_raises_unavailable() -> None:
    store = MemoryStore()
    store.down = True
    with pytest.raises(StoreUnavailable):
        store.commit([Batch()])
