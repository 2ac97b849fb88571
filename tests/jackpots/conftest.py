"""Fixtures: a jackpot service per backend, on a real ``redis-server`` for the Redis one.

``redis_proc`` (pytest-redis) starts Debian's ``redis-server`` on a free port once per
session; every test uses fresh pool ids, so tests never see each other's pools.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator

import pytest

from server.jackpots.service import JackpotService, open_jackpot_service

_ids = itertools.count()


@pytest.fixture
def redis_url(redis_proc) -> str:
    return f"redis://{redis_proc.host}:{redis_proc.port}"


@pytest.fixture(params=["memory", "redis"])
def backend_url(request: pytest.FixtureRequest) -> str | None:
    if request.param == "memory":
        return None
    return request.getfixturevalue("redis_url")


@pytest.fixture
async def service(backend_url: str | None) -> AsyncIterator[JackpotService]:
    async with open_jackpot_service(backend_url) as svc:
        yield svc


def fresh_pool(prefix: str = "t") -> str:
    """A pool id no other test (or earlier run on the same redis) uses."""
    return f"{prefix}-{os.getpid()}-{next(_ids)}"
