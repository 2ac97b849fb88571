"""Commit, then speak (``server/store/gate.py``): the gate's marks, and a connection's frames.

Without sockets: a connection's fast path is a list the test reads (``Connection.direct``),
and the ledger runs on the in-memory store with its real committer (group commit), so
"durable" is the committer's word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from server.store.gate import CommitGate
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.store.model import MAX_CENTS, OverLimit, wallet
from server.tables.connection import Connection


def conn_on(gate: CommitGate) -> tuple[Connection, list[Any]]:
    """A connection whose fast path writes to the returned list."""
    written: list[Any] = []
    conn = Connection(64, gate)

    def direct(message: Any) -> Any:
        written.append(message)
        return None

    conn.direct = direct
    return conn, written


def test_a_speaker_with_nothing_pending_speaks_at_once() -> None:
    gate = CommitGate()
    conn, written = conn_on(gate)
    gate.begin("t2")
    gate.wrote("t2")  # another table's write is not t1's concern
    gate.end()
    gate.begin("t1")
    conn.send("hello")
    assert written == []  # a step speaks at its end
    gate.end()
    assert written == ["hello"] and not conn.backlog


def test_a_frame_waits_for_its_speakers_write_and_later_frames_queue_behind() -> None:
    gate = CommitGate()
    conn, written = conn_on(gate)
    gate.begin("t1")
    conn.send("before the money")  # sent before the move, in the same step: it waits too
    gate.wrote("t1")
    conn.send("result")
    gate.end()
    gate.begin("t9")  # a table with nothing pending: its frame waits behind (order)
    conn.send("unrelated")
    gate.end()
    assert written == []
    assert list(conn.held or ()) == [(1, "before the money"), (1, "result"), (0, "unrelated")]
    gate.committed(1)  # released at the commit, through the fast path, in order
    assert written == ["before the money", "result", "unrelated"] and conn.held is None
    assert not gate.pending("t1")


def test_reading_a_balance_takes_on_its_accounts_pending_write() -> None:
    gate = CommitGate()
    gate.begin("t1")
    gate.wrote("t1", "ann")  # table t1 credits ann's wallet
    gate.end()
    gate.begin("t2")
    assert gate.need() == 0
    gate.read("ann")  # t2 tells ann her balance: it includes t1's credit
    assert gate.need() == 1
    gate.end()
    gate.committed(1)
    gate.begin("t2")
    assert gate.need() == 0
    gate.end()


def test_a_notice_goes_ahead_of_what_waits() -> None:
    gate = CommitGate()
    conn, written = conn_on(gate)
    gate.speaker = "router"
    gate.wrote()
    conn.send("welcome")  # held
    conn.notice("the store is out")
    assert written == ["the store is out"]
    gate.speaker = None
    gate.committed(1)
    assert written == ["the store is out", "welcome"]


async def test_a_held_frame_is_sent_once_its_commit_returns() -> None:
    store = MemoryStore()
    ledger = Ledger(store)
    gate = ledger.gate
    sent: list[tuple[Any, int]] = []
    conn = Connection(64, gate)

    def direct(message: Any) -> Any:  # the fast path, noting the store's version then
        sent.append((message, store.version))
        return None

    conn.direct = direct
    async with trio.open_nursery() as nursery:
        await nursery.start(ledger.run)
        gate.begin("cashier-desk")
        ledger.deposit("ann", 500)
        conn.send("deposited")
        gate.end()
        assert sent == [] and store.version == 0  # not durable yet: nothing said
        with trio.fail_after(5):
            while not sent:
                await trio.sleep(0.001)
        assert sent == [("deposited", 1)]  # said after the commit that holds it
        assert store.balances[wallet("ann")] == 500
        nursery.cancel_scope.cancel()


def test_no_account_goes_beyond_what_a_client_reads_exactly() -> None:
    ledger = Ledger(MemoryStore())
    ledger.deposit("ann", MAX_CENTS - 10)
    with pytest.raises(OverLimit):
        ledger.deposit("ann", 11)
    assert ledger.balance("ann") == MAX_CENTS - 10  # nothing moved
    ledger.deposit("ann", 10)
    assert ledger.balance("ann") == MAX_CENTS


def test_the_sqlite_store_holds_every_amount_to_an_exact_integer(tmp_path: Path) -> None:
    """Beyond 2^53 - 1 (what a browser reads exactly) or as a REAL, a row is refused by the
    store itself (CHECK constraints), whatever wrote it."""
    import sqlite3

    from server.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "d")
    store.close()
    db = sqlite3.connect(tmp_path / "d" / "ledger.sqlite3")
    for bad in (MAX_CENTS + 1, 1.5):
        with pytest.raises(sqlite3.IntegrityError):
            db.execute("INSERT INTO balances VALUES ('wallet:x', ?)", (bad,))
        with pytest.raises(sqlite3.IntegrityError):
            db.execute(
                "INSERT INTO transfers VALUES ('t', 'cashier', 'wallet:x', ?, 'k', NULL, 0)",
                (bad,),
            )
    db.execute("INSERT INTO balances VALUES ('wallet:x', ?)", (MAX_CENTS,))
    db.close()
