"""The browser page shows each deal's commitment in its round log, sends its player's seed
for every deal (a random one, or the one typed in the Seed box: issue 23), and shows a
player's recalled rounds (``history``) from the History button (clients/web/history.js)."""

from __future__ import annotations

import time
from typing import Any

import trio
from playwright.sync_api import expect

from tests.clients.support import Bot, config, holdem_table
from tests.clients.test_web import (  # noqa: F401  (the module's chromium fixture)
    DESKTOP,
    Chromium,
    _enabled_action,
    _login_guest,
    chromium,
    new_page,
)
from tests.support import running_server

TABLE = "holdem-history"


SEED = "carol's own seed"


def _next_deal_after_own_cards(text: str) -> bool:
    cards = text.find("Your cards:")
    return cards >= 0 and "your seed included" in text[cards:]


def play_and_recall(browser: Any, http_url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with new_page(browser, DESKTOP, seen) as page:
        _login_guest(page, http_url, "carol")
        row = page.locator(f'tr[data-table="{TABLE}"]')
        expect(row.locator(".seats-taken")).to_have_text("2", timeout=10_000)
        row.locator(".join-player").click()
        expect(page.locator("#table")).to_be_visible()
        # her seed for every deal she is dealt into, typed before she buys in: typed after, a
        # slow page let the bots' quick hands commit two deals first (1 run in 4 under load)
        page.fill("#seed-input", SEED)
        page.fill("#buyin-amount", "$150")
        page.click("#buyin-btn")
        log = page.locator("#log")
        deadline = time.monotonic() + 60
        # until a deal after her first hand took her seed (she may sit down during a hand
        # of the bots)
        while time.monotonic() < deadline and not _next_deal_after_own_cards(log.inner_text()):
            verb = _enabled_action(page)
            if verb is None:
                page.wait_for_timeout(50)
                continue
            page.click(f"#act-{verb}", timeout=5_000)
        seen["log"] = log.inner_text()
        seen["included"] = page.evaluate("() => window.Fair.included")
        page.click("#history-btn")
        expect(log).to_contain_text("Your last", timeout=20_000)
        seen["recalled"] = page.locator("#log li.log-mine").all_inner_texts()
    return seen


async def test_browser_shows_the_commitment_seeds_and_history(chromium: Chromium) -> None:  # noqa: F811
    cfg = config(holdem_table(TABLE, seats=6))
    async with running_server(cfg) as server, trio.open_nursery() as nursery:
        for seat in (2, 4):
            await nursery.start(Bot(server.url, TABLE, seat).run)
        with trio.fail_after(120):
            seen = await chromium.run(play_and_recall, server.http_url)
        nursery.cancel_scope.cancel()
    assert seen["console_errors"] == []
    text = seen["log"]
    cards = text.index("Your cards:")  # carol's hand: committed (with her seed) before her cards
    assert "Deal committed" in text[:cards]
    assert "your seed included" in text[:cards][text[:cards].rindex("Deal committed") :]
    assert "your seed included" in text[cards:]  # a later deal: the seed she typed
    assert SEED in seen["included"]  # a deal the server committed took the seed she typed
    recalled = [line for line in seen["recalled"] if "holdem" in line]
    assert recalled and "your cards" in recalled[-1] and "seat" in recalled[-1]
