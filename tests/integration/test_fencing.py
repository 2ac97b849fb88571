"""Fencing in Redis itself (``ledger.lua`` and ``directory.lua``, a real ``redis-server``).

The directory's claim gives each new owner a higher token; a ledger batch carrying an older
token for its table, or an older wallet token for a wallet it debits, or taking a player
below zero, is refused whole by the store: no transfer, no round, no journal record of it.
A batch at the current tokens commits. A renewal with a stale token reports the lease lost.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.config import TableConfig
from server.room.directory import Directory
from server.store.journal import JournalEntry
from server.store.model import Batch, RoundOpened, Transfer
from server.store.redis import RedisStore, key, open_redis_store
from tests.integration.helpers import RedisServer

pytestmark = pytest.mark.slow


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[RedisStore]:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    try:
        async with open_redis_store(redis.url) as opened:
            yield opened
    finally:
        redis.kill()


def _wager(n: int, table: str, token: int | None, wallets: dict[str, int]) -> Batch:
    ref = f"{table}.r{n}"
    return Batch(
        transfers=[Transfer(f"x:{n}", "wallet:ann", f"table:{table}:box:1", 500, "wager", ref)],
        opened=[RoundOpened(ref, table, "x")],
        journal=[JournalEntry(ref, 1, table, "start", 0.0, {"game": "caribbean-stud"})],
        table=table,
        fence=token,
        wallets=wallets,
        guarded=True,
    )


async def test_stale_tokens_and_overdrafts_are_refused_whole(store: RedisStore) -> None:
    deposit = Batch(transfers=[Transfer("c:1", "cashier", "wallet:ann", 1000, "deposit")])
    await store.commit([deposit])
    old = Directory(store, "ws://old/ws", lease=5.0)
    token = await old.claim("t1", TableConfig("t1", "caribbean-stud"))
    assert token == 1
    wallet_token, balance, _ = await store.wallet("ann")
    assert (wallet_token, balance) == (1, 1000)

    await store.commit([_wager(1, "t1", token, {"ann": wallet_token})])  # current: commits
    assert store.refused == []

    # another process takes the table over (the old lease released, as if it expired)
    await old.release({"t1": token})
    new = Directory(store, "ws://new/ws", lease=5.0)
    assert await new.claim("t1") == 2
    assert await old.renew({"t1": token}) == ["t1"]  # the old owner's renewal: lost
    stale = _wager(2, "t1", token, {"ann": wallet_token})
    current = _wager(3, "t1", 2, {"ann": wallet_token})
    await store.commit([stale, current])
    assert store.refused == [0]  # the stale batch only

    # the wallet is taken by a newer connection: the older holder's debit is refused
    await store.wallet("ann")
    await store.commit([_wager(4, "t1", 2, {"ann": wallet_token})])
    assert store.refused == [0]
    # a debit below zero is refused (1000 - 2 x 500 = 0 left)
    await store.commit([_wager(5, "t1", 2, {"ann": wallet_token + 1})])
    assert store.refused == [0]

    c = store.client
    assert await c.hget(key("balances"), "wallet:ann") == "0"
    assert await c.hget(key("balances"), "table:t1:box:1") == "1000"
    assert set(await c.hkeys(key("transfers"))) == {"c:1", "x:1", "x:3"}
    assert set(await c.hkeys(key("rounds"))) == {"t1.r1", "t1.r3"}
    for refused in ("t1.r2", "t1.r4", "t1.r5"):  # no journal record of a refused batch
        assert not await c.exists([key(f"journal:{refused}")])
