"""Live jackpot meters from Redis (QLD s9(2)(c), s9(3)): a pool's audit stream, followed.

:class:`MeterFeed` follows a pool's audit stream (``jp:{pool}:audit``) with a blocking
XREAD and turns each entry into a :class:`~server.jackpots.model.MeterUpdate`: a table sees
another table's commit as soon as Redis has it, and after a reconnection the feed resumes
from the last entry it saw, so no update is skipped (the first read is the stream's tail:
the meter as it stands). A reader too far behind loses intermediate updates only: each
carries the absolute meter. :meth:`RedisJackpotService.watch
<server.jackpots.redis_store.RedisJackpotService.watch>` runs one feed per watcher.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from server.jackpots.model import JackpotUnavailable, MeterUpdate
from server.redis_client import RedisClient

log = logging.getLogger(__name__)


class MeterFeed:
    """Follows audit streams on ``client`` (see the module docstring). ``read``: one read
    call under the service's timeout and availability (``JackpotUnavailable`` when down);
    ``wait_available``: until Redis answers again."""

    def __init__(
        self,
        client: RedisClient,
        read: Callable[[Awaitable[Any]], Awaitable[Any]],
        wait_available: Callable[[], Awaitable[None]],
        errors: tuple[type[BaseException], ...],
        *,
        op_timeout: float,
        ping_interval: float,
        block_ms: int,
    ) -> None:
        self._client = client
        self._read = read
        self._wait_available = wait_available
        #: what makes the feed back off and wait for Redis (a connection lost, a timeout)
        self._errors: tuple[type[BaseException], ...] = (*errors, JackpotUnavailable)
        self.op_timeout = op_timeout
        self.ping_interval = ping_interval
        self.block_ms = block_ms

    async def follow(
        self, pool: str, stream: str, send: trio.MemorySendChannel[MeterUpdate]
    ) -> None:
        """Send ``pool``'s updates from its audit ``stream`` until cancelled."""
        # coredis types a stream entry id as str | bytes (str here: decode_responses=True).
        last_id: str | bytes | None = None
        while True:
            try:
                if last_id is None:
                    await self._wait_available()
                    tail = await self._read(self._client.xrevrange(stream, "+", "-", count=1))
                    last_id = tail[0].identifier if tail else "0-0"
                    if tail:
                        emit(pool, send, tail[0].field_values, "snapshot")
                    continue
                with trio.fail_after(self.block_ms / 1000 + self.op_timeout):
                    found = await self._client.xread(
                        {stream: last_id}, count=100, block=self.block_ms
                    )
            except self._errors:
                await trio.sleep(self.ping_interval)
                await self._wait_available()
                continue
            except Exception:  # never take the server down; retry later
                log.exception("jackpot meter watch of %s failed", pool)
                await trio.sleep(1)
                continue
            for entry in (found or {}).get(stream, ()):
                last_id = entry.identifier
                emit(pool, send, entry.field_values, None)


def emit(pool: str, send: trio.MemorySendChannel[MeterUpdate], fields: Any, op: str | None) -> None:
    """One audit entry's update to a watcher (``op``: the snapshot at the start)."""
    update = MeterUpdate(
        pool,
        int(fields["meter"]),
        int(fields["reserve"]),
        int(fields["ver"]),
        op or fields["op"],
        "" if op else fields["round"],
    )
    try:
        send.send_nowait(update)
    except trio.WouldBlock:
        pass  # a reader this far behind sees the next update's absolute meter
