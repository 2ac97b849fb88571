"""The browser page plays a blackjack round with a split and a double, by clicking.

Seed 004, Schedule 2 (BJ): the server runs in-process on 127.0.0.1 in dev mode; a spectator
fixes the shoe with ``dev_force`` (8h to box 1, 6c to the dealer, 8d to box 1, then 3s, Kd,
2c, Tc, 9h). The player in Chromium wagers $10 on box 1, splits the 8s (s25), doubles the
first hand (8 3 = 11, s24; it draws the Kd), stands on the second (8 2), and sees the dealer
draw to 6 T 9 = 25 only after every hand (s17(5)). The decision row offers the legal verbs
and greys out the others. Screenshots go to artifacts/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio
from playwright.sync_api import expect, sync_playwright

from clients.client import Client
from server.config import TableConfig
from tests.clients.support import ARTIFACTS, CHROMIUM_ARGS, chromium_path, config
from tests.support import running_server

TABLE = "bj-test"
SHOE = ["8h", "6c", "8d", "3s", "Kd", "2c", "Tc", "9h"]


def row(page: Any, street: str) -> Any:
    return page.locator(f'#decisions .bj-decision[data-box="1"][data-street="{street}"]')


def play_split_and_double(http_url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"console_errors": []}
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("pageerror", lambda exc: seen["console_errors"].append(str(exc)))
            page.goto(http_url)
            page.fill("#login-name", "pat")
            page.click("#guest-btn")
            page.locator(f'tr[data-table="{TABLE}"] .join-player').click()
            expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=10_000)
            page.select_option("#wager-box", "1")
            page.select_option("#wager-name", "main")
            page.fill("#wager-amount", "10")
            page.click("#wager-btn")
            expect(page.locator('.seat.box[data-box="1"]')).to_contain_text("Main $10")
            first = row(page, "hand 1")
            split = first.locator('button[data-verb="split"]')
            expect(split).to_be_enabled(timeout=15_000)
            seen["enabled"] = sorted(
                b.get_attribute("data-verb") for b in first.locator("button:enabled").all()
            )
            seen["greyed"] = sorted(
                b.get_attribute("data-verb") for b in first.locator("button:disabled").all()
            )
            seen["total_before"] = page.locator('.seat.box[data-box="1"] .bj-total').inner_text()
            page.screenshot(path=str(ARTIFACTS / "web-blackjack-split.png"))
            split.click()
            double = row(page, "hand 1").locator('button[data-verb="double"]')
            expect(double).to_be_enabled(timeout=10_000)
            seen["hands_after_split"] = page.locator('.seat.box[data-box="1"] .bj-hand').count()
            seen["double_amount"] = row(page, "hand 1").locator(".bj-amount").input_value()
            page.screenshot(path=str(ARTIFACTS / "web-blackjack-double.png"))
            double.click()
            stand = row(page, "hand 2").locator('button[data-verb="stand"]')
            expect(stand).to_be_enabled(timeout=10_000)
            seen["dealer_before"] = page.locator(".dealer-spot .card").count()
            stand.click()
            result = page.locator("#result")
            expect(result).to_contain_text("Box 1 (pat)", timeout=15_000)
            seen["result"] = result.inner_text()
            seen["totals"] = page.locator('.seat.box[data-box="1"] .bj-total').all_inner_texts()
            seen["dealer_cards"] = page.locator(".dealer-spot .card").count()
            seen["settled"] = page.evaluate("() => state.table.result.boxes['1']")
            seen["wallet_end"] = page.locator("#balance").inner_text()
            page.screenshot(path=str(ARTIFACTS / "web-blackjack-result.png"))
        finally:
            browser.close()
    return seen


async def with_shoe(
    shoe: list[str], betting_seconds: float, drive: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    """A blackjack table dealing ``shoe`` first (dev_force), the page driven by ``drive``."""
    table = TableConfig(
        id=TABLE,
        game="blackjack",
        name="Blackjack test",
        options={"minimum": 500, "maximum": 50_000},
        betting_seconds=betting_seconds,
        decision_seconds=30.0,
        seed=3,
    )
    async with (
        running_server(config(table)) as server,
        Client.connect(server.url, name="shoe-fixer") as dealer,
    ):
        await dealer.join(TABLE, role="spectator")
        assert await dealer.dev_force(TABLE, shoe=shoe) == 1
        with trio.fail_after(90):
            return await trio.to_thread.run_sync(drive, server.http_url)


async def test_browser_plays_a_blackjack_round_with_a_split_and_a_double() -> None:
    seen = await with_shoe(SHOE, 5.0, play_split_and_double)
    assert seen["console_errors"] == []
    assert seen["enabled"] == ["hit", "split", "stand"]  # 8 8 = 16: no double (s24(1))
    assert {"double", "insurance", "cover"} <= set(seen["greyed"])
    assert seen["total_before"] == "16"
    assert seen["hands_after_split"] == 2
    assert seen["double_amount"] == "10.00"
    assert seen["dealer_before"] == 1  # no hole card: the second comes after every hand
    assert seen["totals"] == ["21 \u00b7 doubled", "10"]
    assert seen["dealer_cards"] == 3
    settled = seen["settled"]
    assert settled["bet"] == 3000 and settled["paid"] == 6000  # $10 x2 doubled, $10: all win
    assert seen["wallet_end"] == "Wallet $10,030.00"


def see_a_natural(http_url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"console_errors": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.on("pageerror", lambda exc: seen["console_errors"].append(str(exc)))
            page.goto(http_url)
            page.fill("#login-name", "nat")
            page.click("#guest-btn")
            page.locator(f'tr[data-table="{TABLE}"] .join-player').click()
            expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=10_000)
            page.select_option("#wager-box", "1")
            page.select_option("#wager-name", "main")
            page.fill("#wager-amount", "10")
            page.click("#wager-btn")
            total = page.locator('.seat.box[data-box="1"] .bj-total')
            expect(total).to_have_text("Blackjack", timeout=15_000)
            seen["total"] = total.inner_text()
            page.screenshot(path=str(ARTIFACTS / "web-blackjack-natural.png"))
        finally:
            browser.close()
    return seen


async def test_a_two_card_21_is_named_blackjack() -> None:
    """A + K on a box's only hand shows as "Blackjack", not "21" (BJ s6; issue 27, point 7)."""
    seen = await with_shoe(["Ah", "6c", "Kd", "Tc", "9h", "8s"], 4.0, see_a_natural)
    assert seen["console_errors"] == []
    assert seen["total"] == "Blackjack"
