"""The Redis ledger store against a real ``redis-server`` (AOF, fsync always), one per test:
idempotency per transfer id, a batch all or nothing, open rounds at load, the books check,
an outage, and a store that lost data (empty, or older) refused with nothing written."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import trio

from server.store.ledger import Ledger
from server.store.model import (
    Batch,
    RoundClosed,
    RoundOpened,
    StoreLost,
    StoreUnavailable,
    Transfer,
)
from server.store.redis import KEYS, RedisStore, key, open_redis_store
from server.store.witness import Witness
from tests.integration.helpers import RedisServer


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
async def store(redis: RedisServer) -> AsyncIterator[RedisStore]:
    async with open_redis_store(redis.url) as s:
        yield s


async def commit(store: RedisStore, *batches: Batch) -> int:
    """As the ledger's committer does: retry while Redis is (re)connecting."""
    for _ in range(50):
        try:
            return await store.commit(list(batches))
        except StoreUnavailable:
            await trio.sleep(0.1)
    raise AssertionError("the store never came back")


def deposit(ident: str, account: str, amount: int) -> Transfer:
    return Transfer(ident, "cashier", f"wallet:{account}", amount, "deposit")


async def test_a_transfer_id_moves_money_once(store: RedisStore) -> None:
    batch = Batch(transfers=[deposit("t1", "ann", 500)])
    v1 = await store.commit([batch])
    v2 = await store.commit([batch, Batch(transfers=[deposit("t1", "ann", 500)])])
    assert v2 == v1 + 2  # the version counts batches, applied or not
    loaded = await store.fetch()
    assert loaded.balances == {"cashier": -500, "wallet:ann": 500}
    report = await store.check()
    assert report.balanced and report.issued == 500


async def test_a_group_is_all_or_nothing(store: RedisStore) -> None:
    await store.commit([Batch(transfers=[deposit("t1", "ann", 500)])])
    good = Batch(transfers=[deposit("t2", "bob", 300)])
    bad = Batch(transfers=[Transfer("t3", "wallet:ann", "cashier", 100, "withdraw")])
    bad.notes.append({"meta": "x", "value": "1"})
    # an encoding the script cannot read fails the whole group: nothing of it lands
    bad.transfers.append(Transfer("t4", "wallet:ann", "cashier", "oops", "withdraw"))  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailable):
        await store.commit([good, bad])
    loaded = await store.fetch()
    assert loaded.balances == {"cashier": -500, "wallet:ann": 500}
    assert "x" not in loaded.meta


async def test_load_gives_open_rounds_with_their_transfers(store: RedisStore) -> None:
    await store.commit([Batch(transfers=[deposit("d1", "ann", 1000), deposit("d2", "bob", 1000)])])
    r1 = Batch(
        transfers=[
            Transfer("w1", "wallet:ann", "table:t:box:1", 200, "wager", "r1"),
            Transfer("w2", "wallet:bob", "table:t:box:2", 300, "wager", "r1"),
        ],
        opened=[RoundOpened("r1", "t", "dead")],
    )
    r2 = Batch(
        transfers=[Transfer("w3", "wallet:ann", "table:t:box:1", 100, "wager", "r2")],
        opened=[RoundOpened("r2", "t", "dead")],
    )
    settle = Batch(
        transfers=[Transfer("s3", "table:t:box:1", "table:t:house", 100, "settle", "r2")],
        closed=[RoundClosed("r2", "settled")],
    )
    await store.commit([r1, r2, settle])
    loaded = await store.fetch()
    assert set(loaded.open_rounds) == {"r1"}
    table, owner, transfers = loaded.open_rounds["r1"]
    assert (table, owner) == ("t", "dead")
    assert [t.id for t in transfers] == ["w1", "w2"]
    assert transfers[1] == Transfer("w2", "wallet:bob", "table:t:box:2", 300, "wager", "r1")
    report = await store.check()
    assert report.rounds_settled == 1 and report.open_rounds == 1
    assert not report.balanced  # an open round nobody owns
    # crash recovery through the Ledger: the round is voided, wagers back, books balance
    ledger = Ledger(store)
    assert ledger.recover() == {"rounds_voided": 1, "stakes_returned": 0}
    async with trio.open_nursery() as nursery:
        await nursery.start(ledger.run)
        assert await ledger.drain(5)
        nursery.cancel_scope.cancel()
    report = await store.check()
    assert report.balanced and report.rounds_voided == 1, report.problems
    assert (await store.fetch()).balances["wallet:bob"] == 1000


async def test_check_finds_wrong_books(store: RedisStore) -> None:
    await store.commit([Batch(transfers=[deposit("d1", "ann", 1000)])])
    await store.client.hincrby(key("balances"), "wallet:ann", 5)
    report = await store.check()
    assert not report.balanced
    assert any("wallet:ann" in p for p in report.problems)


async def test_an_outage_is_unavailable_and_the_retry_lands_once(
    redis: RedisServer, store: RedisStore
) -> None:
    batch = Batch(transfers=[deposit("d1", "ann", 1000)])
    await store.commit([batch])
    redis.kill()
    with pytest.raises(StoreUnavailable):
        await store.commit([Batch(transfers=[deposit("d2", "ann", 1)])])
    redis.start()
    await commit(store, batch, Batch(transfers=[deposit("d2", "ann", 1)]))
    assert (await store.fetch()).balances["wallet:ann"] == 1001


async def test_a_store_restarted_empty_is_lost(redis: RedisServer, store: RedisStore) -> None:
    await store.commit([Batch(transfers=[deposit("d1", "ann", 1000)])])
    redis.kill()
    for path in redis.dir.iterdir():  # the AOF is gone: Redis comes back empty
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    redis.start()
    with pytest.raises(StoreLost, match="empty"):
        await commit(store, Batch(transfers=[deposit("d2", "ann", 1)]))
    assert await store.client.keys("*") == set()  # nothing written to the empty store


async def test_a_store_restored_from_an_older_snapshot_is_lost(
    tmp_path: Path, redis: RedisServer, store: RedisStore
) -> None:
    await store.commit([Batch(transfers=[deposit("d1", "ann", 1000)])])
    await store.client.bgrewriteaof()
    await trio.sleep(0.5)
    redis.kill()
    snapshot = tmp_path / "snapshot"
    shutil.copytree(redis.dir / "appendonlydir", snapshot)
    redis.start()
    await commit(store, Batch(transfers=[deposit("d2", "ann", 1)]))
    redis.kill()
    shutil.rmtree(redis.dir / "appendonlydir")
    shutil.copytree(snapshot, redis.dir / "appendonlydir")
    redis.start()
    with pytest.raises(StoreLost, match="older snapshot"):
        await commit(store, Batch(transfers=[deposit("d3", "ann", 1)]))
    # and a server starting on it with the witness of what it saw knows it at once
    witness = Witness(tmp_path / "w")
    witness.record(f"ledger@{store.id}", store.epoch, store.version)
    fresh = RedisStore(store.client, redis.url)
    await fresh.fetch()
    ledger = Ledger(fresh, witness=witness)
    assert ledger.lost is not None and "older snapshot" in ledger.lost
    assert not ledger.can_move


async def test_a_commit_no_replica_confirmed_is_retried_and_lands_once(
    redis: RedisServer, store: RedisStore
) -> None:
    """``--redis-wait 1`` without a replica: WAIT confirms none, the commit is unavailable
    (applied on the primary only); its retry moves nothing twice."""
    waiting = RedisStore(store.client, redis.url, op_timeout=1.0, replicas=1)
    await waiting.init()
    batch = Batch(transfers=[deposit("d1", "ann", 1000)])
    with pytest.raises(StoreUnavailable, match=r"(?i)replica"):
        await waiting.commit([batch])
    await store.fetch()
    await store.commit([batch])
    assert (await store.fetch()).balances["wallet:ann"] == 1000


def test_every_ledger_key_is_in_one_cluster_slot() -> None:
    """One hash tag, ``{ledger}``: a script touching them all runs on Redis Cluster too."""
    from coredis._utils import hash_slot

    slots = {hash_slot(k.encode()) for k in [*KEYS, key("alive")]}
    assert slots == {hash_slot(b"ledger")}


async def test_the_journal_is_kept_and_read_back_like_sqlites(store: RedisStore) -> None:
    """A round's records land once (a batch sent again adds nothing) and come back by table
    and by player, oldest first, with the round's ledger state."""
    from server.store.journal import JournalEntry, JournalQuery

    start = {"game": "holdem-act", "seats": {"1": {"account": "ann", "stake": 500}}}
    entries = [
        JournalEntry("t.1", 1, "t", "start", 1000.0, start),
        JournalEntry("t.1", 2, "t", "command", 1001.0, {"verb": "fold"}),
    ]
    batch = Batch(opened=[RoundOpened("t.1", "t", "p1")], journal=entries)
    await commit(store, batch)
    await commit(store, batch, Batch(closed=[RoundClosed("t.1", "settled")]))
    by_table = await store.journal_rounds(JournalQuery(table="t"))
    assert [r.ref for r in by_table] == ["t.1"] and by_table[0].state == "settled"
    assert [e.kind for e in by_table[0].entries] == ["start", "command"]
    by_player = await store.journal_rounds(JournalQuery(account="ann", limit=10))
    assert [r.ref for r in by_player] == ["t.1"]
    assert await store.journal_rounds(JournalQuery(account="bob")) == []
