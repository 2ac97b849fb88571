"""Issue 9: a jackpot pool that lost data (Redis restarted empty, or from an older snapshot)
is detected from what the service saw of it (this run, or the witness file across restarts),
never written again, never silently re-opened; ``croupier jackpot check --data`` fails."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from server.cli import main
from server.jackpots.model import JackpotUnavailable, PoolConfig
from server.jackpots.redis_store import key, open_redis_service
from server.store.witness import Witness
from tests.jackpots.conftest import fresh_pool


async def test_a_pool_gone_is_lost_and_never_reopened(redis_url: str, tmp_path: Path) -> None:
    pool = fresh_pool("gone")
    witness = Witness(tmp_path)
    async with open_redis_service(redis_url, witness=witness) as svc:
        await svc.open_pool(pool, PoolConfig.profile("qld"), meter=1_000_000)
        await svc.contribute(pool, "r1", "w1", 1_000)
        await svc.snapshot(pool)
        witness.write()  # the service writes it at most every 0.2 s
        client = svc._client
        await client.delete([key(pool, "state"), key(pool, "audit")])  # "restarted empty"
    # a later server on the same data directory: the witness saw the pool
    async with open_redis_service(redis_url, witness=Witness(tmp_path)) as svc:
        with pytest.raises(JackpotUnavailable, match="empty"):
            await svc.snapshot(pool)
        assert pool in svc.lost and not svc.available
        with pytest.raises(JackpotUnavailable):
            await svc.open_pool(pool, PoolConfig.profile("qld"))
        assert await svc._client.exists([key(pool, "state")]) == 0


async def test_a_pool_gone_back_in_time_refuses_every_write(
    redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = fresh_pool("older")
    witness = Witness(tmp_path)
    async with open_redis_service(redis_url, witness=witness) as svc:
        await svc.open_pool(pool, PoolConfig.profile("qld"), meter=1_000_000)
        for n in range(3):
            await svc.contribute(pool, f"r{n}", "w1", 1_000)
        before = await svc.snapshot(pool)
        assert before is not None
        witness.write()
        # "restored from an older snapshot": the version goes back
        await svc._client.hset(key(pool, "state"), {"version": "1"})
        # the guarded call finds it: nothing applied (the wager waits in the outbox)
        result = await svc.contribute(pool, "r9", "w1", 1_000)
        assert result.status == "pending" and "older snapshot" in svc.lost[pool]
        assert not svc.available
        with pytest.raises(JackpotUnavailable):  # no jackpot wager is taken any more
            await svc.contribute(pool, "r10", "w1", 1_000)
    after = await _stored_version(redis_url, pool)
    assert after == 1  # the guarded script wrote nothing
    argv = ["jackpot", "--redis", redis_url, "--data", str(tmp_path), "check", pool]
    code = await trio.to_thread.run_sync(main, argv)  # the command runs its own trio.run
    out = capsys.readouterr().out
    assert code == 1 and "older snapshot" in out, out


async def _stored_version(url: str, pool: str) -> int:
    async with open_redis_service(url) as svc:
        return int(await svc._client.hget(key(pool, "state"), "version") or 0)
