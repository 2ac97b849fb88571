"""What many test modules need, declared once: an in-process server and waiting on a condition.

Tests wait on conditions, never for a time (common brief: a test must not depend on machine
speed): ``until`` waits for a condition on the server's state, ``next_message`` for a message a
client receives; their timeouts are only a safety net.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio

from clients.client import Client
from server.config import ServerConfig
from server.net.app import RunningServer, serve


@asynccontextmanager
async def running_server(
    config: ServerConfig, *, deadline: float | None = None
) -> AsyncIterator[RunningServer]:
    """Start a server in-process on 127.0.0.1 (port 0); shut it down gracefully on exit.

    ``deadline`` (seconds) fails a body that waits for longer, e.g. for a frame never sent.
    """
    async with trio.open_nursery() as nursery:
        server: RunningServer = await nursery.start(functools.partial(serve, config))
        try:
            with trio.fail_after(deadline if deadline is not None else float("inf")):
                yield server
        finally:
            with trio.CancelScope(shield=True):
                await server.aclose()
            nursery.cancel_scope.cancel()


async def until(predicate: Callable[[], object], timeout: float = 30.0) -> None:
    """Return as soon as ``predicate()`` holds (checked every 5 ms); fail after ``timeout`` s."""
    with trio.fail_after(timeout):
        while not predicate():
            await trio.sleep(0.005)


async def next_message(
    client: Client, pred: Callable[[dict[str, Any]], object], timeout: float = 10.0
) -> dict[str, Any]:
    """Read ``client``'s messages until one satisfies ``pred``; return it (fail after
    ``timeout`` s)."""
    with trio.fail_after(timeout):
        while True:
            msg = await client.recv()
            if pred(msg):
                return msg
