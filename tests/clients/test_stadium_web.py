"""The browser as an electronic player terminal at stadium tables (QLD Sch 19), in Debian's
chromium through Playwright, at desktop (1280x800) and phone (390x844) sizes.

The page draws each layout from the server's ``game_config`` (ETG-10); the test clicks a
roulette number, a split and a dozen, and a craps pass line and its odds once a stickperson
(an in-process staff client) has rolled a point; the server's own state shows the wagers it
accepted. Screenshots go to artifacts/.
"""

from __future__ import annotations

from typing import Any

import trio
from playwright.sync_api import expect, sync_playwright

from clients.client import Client
from clients.stadium import enter_result, until_event
from server.config import TableConfig
from tests.clients.support import ARTIFACTS, CHROMIUM_ARGS, chromium_path, config
from tests.support import running_server

ROU, CRP = "rou-web", "crp-web"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def tables() -> tuple[TableConfig, ...]:
    return (
        TableConfig(
            id=ROU,
            game="roulette",
            kind="stadium",
            name="Roulette terminals",
            options={"minimum": 100, "maximum": 10_000},
            betting_seconds=4.0,
        ),
        TableConfig(
            id=CRP,
            game="craps",
            kind="stadium",
            name="Craps terminals",
            options={"minimum": 500, "maximum": 10_000},
            betting_seconds=4.0,
            result_source="dealer",
        ),
    )


def click_when_open(page: Any, selector: str) -> None:
    """Click a layout position while the window is open (the terminal locks it otherwise)."""
    expect(page.locator("#st-clock.open")).to_be_visible(timeout=15_000)
    page.locator(selector).first.click()


def play_terminal(http_url: str, size: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"console_errors": []}
    ARTIFACTS.mkdir(exist_ok=True)
    width, height = SIZES[size]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.on("pageerror", lambda exc: seen["console_errors"].append(str(exc)))
            page.goto(http_url)
            page.fill("#login-name", f"web-{size}")
            page.click("#guest-btn")
            row = page.locator(f'tr[data-table="{ROU}"]')
            expect(row).to_be_visible(timeout=10_000)
            row.locator(".join-player").click()
            expect(page.locator("#stadium")).to_be_visible(timeout=10_000)
            page.fill("#st-credit-amount", "50")
            page.click("#st-credit-btn")
            # a loaded machine (CI runs everything on 2 cores) may take more than 5 s here
            expect(page.locator("#st-credits")).to_contain_text("50", timeout=15_000)
            for position in ("straight_17", "split_17_20", "dozen_2"):
                click_when_open(page, f'[data-position="{position}"]')
                expect(page.locator(f'.st-wager[data-position="{position}"]')).to_be_visible(
                    timeout=5_000
                )
            seen["roulette_clock"] = page.locator("#st-clock").inner_text()
            page.screenshot(path=str(ARTIFACTS / f"stadium-roulette-{size}.png"), full_page=True)
            expect(page.locator("#st-clock.closed")).to_have_text("no more bets", timeout=10_000)
            expect(page.locator(".st-last")).to_contain_text("credits bet", timeout=10_000)
            seen["recall"] = page.locator(".st-last").inner_text()

            page.click("#to-lobby")
            row = page.locator(f'tr[data-table="{CRP}"]')
            expect(row).to_be_visible(timeout=10_000)
            row.locator(".join-player").click()
            expect(page.locator(".st-puck")).to_be_visible(timeout=10_000)
            click_when_open(page, '[data-position="win"]')
            expect(page.locator('.st-wager[data-position="win"]')).to_be_visible(timeout=5_000)
            expect(page.locator(".st-puck")).to_contain_text("Point: 6", timeout=15_000)
            # with the point on, don't pass is greyed (CR s4); come is offered
            expect(page.locator('.st-line [data-position="dont_win"]')).to_be_disabled()
            seen["dont_pass_title"] = page.locator(
                '.st-line [data-position="dont_win"]'
            ).get_attribute("title")
            seen["come_title"] = page.locator('.st-line [data-position="come"]').get_attribute(
                "title"
            )
            click_when_open(page, '[data-position="win_odds"]')
            expect(page.locator('.st-wager[data-position="win_odds"]')).to_be_visible(timeout=5_000)
            page.screenshot(path=str(ARTIFACTS / f"stadium-craps-{size}.png"), full_page=True)
            seen["craps_wagers"] = page.locator(".st-mine").inner_text()
        finally:
            browser.close()
    return seen


async def stickperson(url: str, token: str) -> None:
    """Rolls a 6 (the point), then 3s (the point stays ON)."""
    async with Client.connect(url, token=token) as stick:
        await stick.join(CRP, role="spectator")
        rolls = 0
        while True:
            await until_event(stick, CRP, "awaiting_result")
            await enter_result(stick, CRP, {"dice": [2, 4]} if rolls == 0 else {"dice": [1, 2]})
            rolls += 1


async def test_browser_terminal_places_roulette_and_craps_wagers_at_both_sizes() -> None:
    cfg = config(*tables(), round_pause=1.5)
    for size in SIZES:
        async with running_server(cfg) as server, trio.open_nursery() as nursery:
            token = server.croupier.accounts.issue("stick", "Stick", role="stickperson")
            nursery.start_soon(stickperson, server.url, token)
            with trio.fail_after(120):
                seen = await trio.to_thread.run_sync(play_terminal, server.http_url, size)
            rou, crp = server.croupier.tables[ROU], server.croupier.tables[CRP]
            accepted = {w for r in rou.records for ws in r.frozen.values() for w in ws}
            assert {"straight_17", "split_17_20", "dozen_2"} <= accepted, accepted
            assert any("win_odds" in ws for ws in crp.play.layout().values())
            nursery.cancel_scope.cancel()
        assert seen["console_errors"] == []
        assert "Place your bets" in seen["roulette_clock"]
        assert "credits bet" in seen["recall"]
        assert "Pass line odds" in seen["craps_wagers"]
        assert seen["dont_pass_title"] == "only on a come-out roll"
        assert seen["come_title"] is None  # offered: not greyed by the point
