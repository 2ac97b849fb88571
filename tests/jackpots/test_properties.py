"""Hypothesis: random operation sequences (with repeated ids) on both backends in lockstep.

After every step both pools are balanced (digest 5.9) and identical; at the end both pass
``check`` (stored totals AND audit replay) and their audit trails are the same.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.jackpots.model import JackpotError, PoolConfig, Prize
from server.jackpots.service import JackpotService, open_jackpot_service
from tests.jackpots.conftest import fresh_pool

ids = st.sampled_from(["a", "b", "c"])
cents = st.integers(min_value=1, max_value=5_000)
prize = st.builds(
    Prize,
    ids,
    st.integers(min_value=0, max_value=3_000_000),
    st.sampled_from(["progressive", "fixed", "house"]),
)
operation = st.one_of(
    st.tuples(st.just("contribute"), ids, ids, cents),
    st.tuples(st.just("coin_in"), ids, st.dictionaries(ids, cents, min_size=1)),
    st.tuples(st.just("award"), ids, ids, st.lists(prize, max_size=4)),
    st.tuples(st.just("refund"), ids, ids),
    st.tuples(st.just("void"), ids),
    st.tuples(
        st.just("reset"),
        st.sampled_from(["n1", "n2"]),
        st.integers(0, 2_000_000),
        st.integers(0, 50_000),
    ),
)
configs = st.builds(
    PoolConfig.profile,
    st.sampled_from(["qld", "act2004", "act2017"]),
    seed=st.integers(0, 1_500_000),
)


async def apply(service: JackpotService, pool: str, op: tuple[Any, ...]) -> Any:
    kind, *args = op
    try:
        if kind == "contribute":
            return await service.contribute(pool, args[0], args[1], args[2])
        if kind == "coin_in":
            return await service.contribute_round(pool, args[0], args[1])
        if kind == "award":
            return await service.award(pool, args[0], args[1], args[2])
        if kind == "refund":
            return await service.refund(pool, args[0], args[1])
        if kind == "void":
            return await service.void_round(pool, args[0])
        snap = await service.reset(pool, args[0], meter=args[1], reserve=args[2])
        return replace(snap, pool="")
    except JackpotError as exc:
        return exc.code


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    config=configs,
    meter=st.integers(0, 3_000_000),
    reserve=st.integers(0, 200_000),
    ops=st.lists(operation, max_size=25),
)
async def test_random_sequences_keep_invariant_and_backends_agree_5_9(
    redis_url: str, config: PoolConfig, meter: int, reserve: int, ops: list[tuple[Any, ...]]
) -> None:
    pool = fresh_pool("prop")
    async with open_jackpot_service(None) as memory, open_jackpot_service(redis_url) as redis:
        for service in (memory, redis):
            await service.open_pool(pool, config, meter=meter, reserve=reserve)
        for op in ops:
            results = [await apply(service, pool, op) for service in (memory, redis)]
            assert results[0] == results[1], op
            snaps = [await service.snapshot(pool) for service in (memory, redis)]
            assert snaps[0] == snaps[1], op
            assert snaps[0] is not None and snaps[0].balanced
            assert snaps[0].meter >= 0 and snaps[0].reserve >= 0
        for service in (memory, redis):
            report = await service.check(pool)
            assert report.ok, report.problems
        assert await memory.audit(pool) == await redis.audit(pool)
