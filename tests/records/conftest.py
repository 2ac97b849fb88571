"""Recorded hands for the export and verify tests: played once per test session by bots over
real sockets into a SQLite data directory (side pots, all-ins and commission included)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from tests.server.helpers import Bot, fast_config, play_hands, table
from tests.support import running_server

HANDS = 220
#: the recorded games: no-limit hold'em and pot-limit ("full-pot") Omaha, ACT rules, plus a
#: QLD limit hold'em and a Manila table
RECORDED = {"holdem-act": HANDS, "omaha-act": HANDS, "holdem-qld": 30, "manila-act": 30}


async def _record(data: Path) -> None:
    tables = [table(g, seats=6, seed=i + 1) for i, g in enumerate(RECORDED)]
    async with running_server(fast_config(*tables, data=data)) as server:
        bots = [
            Bot(server.url, f"{g}-t", s, seed=100 * i + s, buy_in=4000 + 1000 * s)
            for i, g in enumerate(RECORDED)
            for s in range(1, 7)
        ]
        await play_hands(server, bots, max(RECORDED.values()), timeout=240)


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("recorded")
    trio.run(_record, data)
    return data
