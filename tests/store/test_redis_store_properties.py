"""Hypothesis: random groups of batches (transfers with repeated ids, rounds opened, settled
and voided, in any interleaving) committed to the Redis store and to the memory double in
lockstep: after every group both hold the same balances and the same open rounds, and the
books check the same (every transfer id moved money once)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.store.memory import MemoryStore
from server.store.model import Batch, RoundClosed, RoundOpened, Transfer
from server.store.redis import RedisStore, connect
from tests.integration.helpers import RedisServer

ACCOUNTS = ["cashier", "wallet:a", "wallet:b", "table:t:box:1", "table:t:house"]
ROUNDS = ["r0", "r1", "r2", "r3"]


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    try:
        yield server
    finally:
        server.kill()


def transfer(n: int, round_: str | None) -> Transfer:
    """Transfer id ``n`` always means the same movement (an id is one movement)."""
    source = ACCOUNTS[n % len(ACCOUNTS)]
    target = ACCOUNTS[(n * 3 + 1) % len(ACCOUNTS)]
    if target == source:
        target = ACCOUNTS[(n + 1) % len(ACCOUNTS)]
    return Transfer(f"t{n}", source, target, 1 + n * 7 % 500, "move", round_)


@st.composite
def groups(draw: st.DrawFn) -> list[list[Batch]]:
    """Groups of batches; a transfer names a round only once that round was opened (as the
    ledger does: a round opens in the batch of its first movement or before)."""
    opened: dict[int, str | None] = {}  # transfer id -> its round (fixed once drawn)
    rounds: list[str] = []
    out: list[list[Batch]] = []
    for _ in range(draw(st.integers(1, 8))):
        group = []
        for _ in range(draw(st.integers(1, 4))):
            batch = Batch()
            for ref in draw(st.lists(st.sampled_from(ROUNDS), max_size=2)):
                batch.opened.append(RoundOpened(ref, "t", "dead"))
                rounds.append(ref)
            for n in draw(st.lists(st.integers(0, 15), max_size=6)):
                if n not in opened:
                    opened[n] = draw(st.sampled_from([None, *rounds])) if rounds else None
                batch.transfers.append(transfer(n, opened[n]))
            closing = draw(st.lists(st.sampled_from(rounds), max_size=1)) if rounds else []
            for ref in closing:  # a round closes once opened (repeats are no-ops)
                state = draw(st.sampled_from(["settled", "voided"]))
                batch.closed.append(RoundClosed(ref, state))  # type: ignore[arg-type]
            group.append(batch)
        out.append(group)
    return out


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plan=groups())
async def test_redis_store_and_memory_double_agree(
    redis: RedisServer, plan: list[list[Batch]]
) -> None:
    memory = MemoryStore()
    async with connect(redis.url) as client:
        await client.flushall()
        store = RedisStore(client, redis.url)
        await store.init()
        for group in plan:
            await store.commit(group)
            memory.commit(group)
            loaded, expected = await store.fetch(), memory.load()
            assert loaded.balances == {
                k: v for k, v in expected.balances.items() if v or k in loaded.balances
            }
            assert sum(loaded.balances.values()) == 0
            assert set(loaded.open_rounds) == set(expected.open_rounds)
            for ref, (_t, _o, moved) in loaded.open_rounds.items():
                assert sorted(t.id for t in moved) == sorted(
                    t.id for t in expected.open_rounds[ref][2]
                )
        mine, theirs = await store.check(), memory.check()
        assert mine.to_json() == theirs.to_json()
