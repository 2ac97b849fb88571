"""Lost data in the Redis jackpot store (issue 9): what this server saw of each pool.

A pool carries the ``epoch`` it was opened with and its ``version``. :class:`PoolsSeen`
remembers what this server saw of each pool (from its snapshots and coin-ins, and from the
data directory's witness file, :mod:`server.store.witness`, across restarts); every script
call of :class:`~server.jackpots.redis_store.RedisJackpotService` carries it as a guard. A
pool that is gone, replaced or older than that (Redis restarted empty or from an older
snapshot) is judged lost (:meth:`PoolsSeen.judge`): it is never written again and never
silently re-opened.
"""

from __future__ import annotations

import time

from server.store.witness import Witness, pool_stream, verdict

#: seconds between two writes of the witness file (at most five times a second)
WITNESS_EVERY = 0.2


class PoolsSeen:
    """Each pool's ``(epoch, version)`` as this server saw it, and the pools lost."""

    def __init__(self, witness: Witness | None, store_id: str) -> None:
        self.witness = witness
        self.store_id = store_id
        #: pool -> (epoch, version) this server saw (the guard of every script call)
        self._seen: dict[str, tuple[str, int]] = {}
        #: pool -> why it is not to be trusted (empty, replaced or older than seen)
        self.lost: dict[str, str] = {}
        self._witnessed = 0.0

    def seen(self, pool: str) -> tuple[str, int] | None:
        """What this server saw of ``pool`` (this run, or the witness file)."""
        if pool not in self._seen and self.witness is not None:
            found = self.witness.seen(pool_stream(self.store_id, pool))
            if found is not None:
                self._seen[pool] = found
        return self._seen.get(pool)

    def saw(self, pool: str, epoch: str, version: int) -> None:
        """``pool`` is at ``epoch``/``version`` now (kept, and in the witness file)."""
        old = self._seen.get(pool)
        if old is not None and old[0] == epoch and old[1] >= version:
            return
        self._seen[pool] = (epoch, version)
        if self.witness is None:
            return
        self.witness.streams[pool_stream(self.store_id, pool)] = (epoch, version)
        now = time.monotonic()
        if now - self._witnessed >= WITNESS_EVERY:
            self._witnessed = now
            self.witness.write()

    def judge(self, pool: str, epoch: str, version: int) -> tuple[str | None, bool]:
        """Why ``pool`` at ``epoch``/``version`` lost data (``None``: it did not), and
        whether that is news (the pool is remembered as lost from now on)."""
        why = self.lost.get(pool) or verdict(
            f"jackpot pool {pool}", self.seen(pool), epoch, version
        )
        if why is None or pool in self.lost:
            return why, False
        self.lost[pool] = why
        return why, True
