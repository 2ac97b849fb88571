"""Fixtures of the integration tests: a real ``redis-server`` of the test's own, and the
server processes a test starts (killed at its end, even when the test fails midway)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.helpers import RedisServer, ServerProcess


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A ``redis-server`` (AOF, fsync always) in the test's directory."""
    (tmp_path / "redis").mkdir()
    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """The server processes a test starts: any still running at its end is killed."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait(10)
