"""``croupier loadtest --tournament FILE --players N``: the bots register and play it to the
end (loadtest/tournament.py), and the server's money is conserved (``/health``: the fees
held by tournaments are counted)."""

from __future__ import annotations

import pytest

from loadtest.tournament import run_players
from tests.support import running_server
from tests.tournaments.helpers import holdem, server_config


@pytest.mark.trio
async def test_bots_register_and_play_a_sit_and_go_to_the_end() -> None:
    conditions = holdem(18, id="lt", sit_and_go=18, tables=2, min_players=3)
    async with running_server(server_config(conditions)) as server:
        outcome = await run_players(server.url, "lt", 18, seed=3, timeout=60)
        summary = outcome.summary()
        assert summary["finished"] and summary["phases"] == ["complete"]
        assert summary["players"] == summary["placed"] == 18 and len(summary["winners"]) == 1
        assert summary["prizes"] == 18 * 1000 and not summary["refused"]
        money = server.croupier.money()
        assert money["tournaments"] == 18 * 100  # the commission kept; the pool paid out
        assert money["issued"] == money["wallets"] + money["stakes"] + money["tournaments"]
