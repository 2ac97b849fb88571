"""Commit, then speak (``server/store/gate.py``): the gate's marks, and a connection's queue.

Without sockets: a connection's fast path is a list the test reads (``Connection.direct``),
its writer's queue is read straight off the channel, and the ledger runs on the in-memory
store with its real committer (group commit), so "durable" is the committer's word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from server.store.gate import CommitGate, Held
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


def queued(conn: Connection) -> list[Any]:
    out = []
    while True:
        try:
            out.append(conn.outbox.receive_nowait())
        except trio.WouldBlock:
            return out


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
    gate.begin("t9")  # a table with nothing pending: its frame queues behind (order)
    conn.send("unrelated")
    gate.end()
    assert written == []
    first, second, third = queued(conn)
    assert isinstance(first, Held) and first.mark == 1 and first.message == "before the money"
    assert isinstance(second, Held) and second.message == "result"
    assert third == "unrelated"  # not held itself, but behind what is
    gate.committed(1)
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
    assert written == [] and conn.notices == ["the store is out"]
    gate.speaker = None
    other, said = conn_on(gate)
    other.notice("the store is out")  # nothing waits on this one: written at once
    assert said == ["the store is out"]


async def test_the_writer_sends_a_held_frame_once_its_commit_returns() -> None:
    store = MemoryStore()
    ledger = Ledger(store)
    gate = ledger.gate
    conn, written = conn_on(gate)
    sent: list[Any] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(ledger.run)

        async def writer() -> None:  # what server/connections.py's writer does with a Held
            async for message in conn.outbox:
                if type(message) is Held:
                    while gate.durable < message.mark:
                        await gate.changed()
                    sent.append((message.message, store.version))
                else:
                    sent.append((message, store.version))
                conn.drained()

        nursery.start_soon(writer)
        gate.begin("cashier-desk")
        ledger.deposit("ann", 500)
        conn.send("deposited")
        gate.end()
        assert written == [] and store.version == 0  # not durable yet: nothing said
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
