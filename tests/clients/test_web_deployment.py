"""The browser page in a deployment of two servers (clients/web/deployment.js), driven by
Debian's chromium: the page is loaded from one server, its lobby lists the other server's
table too, and "Play" there is answered ``table_elsewhere``: the page reconnects to that
server on its own (its CSP names the deployment's servers) and sits at the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from playwright.sync_api import expect

from tests.clients.test_web import DESKTOP, Chromium, _login_guest, chromium, new_page
from tests.integration.helpers import RedisServer, ServerProcess, write_tables

__all__ = ["chromium"]  # the module's browser (a fixture of tests/clients/test_web.py)

pytestmark = pytest.mark.slow


def follow(browser: Any, http_url: str, table: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with new_page(browser, DESKTOP, seen) as page:
        _login_guest(page, http_url, "dora")
        row = page.locator(f'tr[data-table="{table}"]')
        expect(row).to_be_visible(timeout=15_000)
        row.locator(".join-player").click()
        expect(page.locator("#table")).to_be_visible(timeout=20_000)
        seen["server"] = page.evaluate("state.serverUrl")
        seen["table"] = page.evaluate("state.table && state.table.id")
    return seen


async def test_the_page_follows_a_redirect_to_the_server_of_the_table(
    chromium: Chromium, tmp_path: Path
) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    servers: list[ServerProcess] = []
    try:
        for i in range(2):
            path = write_tables(
                tmp_path / f"tables-{i}.toml",
                [
                    {
                        "id": f"stud-{i}",
                        "game": "caribbean-stud",
                        "options": {"minimum": 100, "maximum": 10000},
                    }
                ],
            )
            server = ServerProcess(path, redis.url, "--directory", ledger_on_redis=True)
            servers.append(await server.started())
        for server in servers:  # each knows the other (its first directory round)
            while (await server.health())["directory"]["known"] < 2:
                await trio.sleep(0.2)
        seen = await chromium.run(follow, servers[0].http, "stud-1")
        assert seen["server"] == servers[1].url and seen["table"] == "stud-1", seen
        assert not seen["console_errors"], seen["console_errors"]
        assert (await servers[1].health())["directory"]["owned"] == ["stud-1"]
    finally:
        for server in servers:
            server.stop()
        redis.kill()
