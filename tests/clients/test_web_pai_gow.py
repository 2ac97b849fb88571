"""The browser page plays pai gow tiles by clicking (QLD Sch 6; issue 25 point 1).

The server runs in-process on 127.0.0.1; headless Chromium (Debian's) at 1280x800 and
390x844. The player wagers $10 on box 2 (box 1 is the bank's and is not offered, s18(13)),
sees its four tiles drawn, and sets them: at 1280x800 by clicking two tiles into the low hand
and "Set tiles" (s27), at 390x844 with "House way" (s29(1)). The result shows both hands of
the box and of the bank (s36). At the decision and at the result every element is on screen
and none overlaps another (test_web.GEOMETRY). Screenshots go to artifacts/.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import trio
from playwright.sync_api import expect

from clients.client import Client
from server.config import TableConfig
from server.games.banked.pai_gow import settings_of
from tests.clients.support import ARTIFACTS, config
from tests.clients.test_web import (
    DESKTOP,
    GEOMETRY,
    PHONE,
    Chromium,
    _login_guest,
    chromium,  # noqa: F401  (the module's browser fixture)
    new_page,
)
from tests.support import running_server


def play_pai_gow(
    browser: Any, http_url: str, viewport: dict[str, int], table: str, own: bool
) -> dict[str, Any]:
    size = f"{viewport['width']}x{viewport['height']}"
    seen: dict[str, Any] = {}
    ARTIFACTS.mkdir(exist_ok=True)
    with new_page(browser, viewport, seen) as page:
        _login_guest(page, http_url, "pat")
        page.locator(f'tr[data-table="{table}"] .join-player').click()
        expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=10_000)
        seen["box_options"] = page.locator("#wager-box option").evaluate_all(
            "(os) => os.map((o) => o.value)"
        )
        seen["bank_plate"] = page.locator('.seat.box[data-box="1"] .wagers').inner_text()
        page.select_option("#wager-box", "2")
        page.fill("#wager-amount", "10")
        page.click("#wager-btn")
        expect(page.locator('.seat.box[data-box="2"]')).to_contain_text("Bet $10.00")
        row = page.locator('#decisions .pg-decision[data-box="2"]')
        expect(row).to_be_visible(timeout=15_000)
        buttons = row.locator(".pg-tile-btn")
        expect(buttons).to_have_count(4)
        tiles = [b.get_attribute("data-tile") for b in buttons.all()]
        seen["tiles"] = tiles
        seen["drawn"] = page.locator('.seat.box[data-box="2"] .card.tile').count()
        seen["set_disabled_before"] = row.locator('button[data-verb="set"]').is_disabled()
        seen["decision_geometry"] = page.evaluate(GEOMETRY, "table")
        if own:
            good = settings_of(tiles)[0]
            low: list[int] = []
            for tile in good.low:
                low.append(next(i for i, t in enumerate(tiles) if t == tile and i not in low))
            for i in low:
                row.locator(f'.pg-high .pg-tile-btn[data-index="{i}"]').click()
            expect(row.locator(".pg-low .pg-tile-btn")).to_have_count(2)
            seen["low_chosen"] = [
                b.get_attribute("data-tile") for b in row.locator(".pg-low .pg-tile-btn").all()
            ]
            seen["expected_low"] = [tiles[i] for i in low]
            seen["expected_high"] = [t for i, t in enumerate(tiles) if i not in low]
            page.screenshot(path=str(ARTIFACTS / f"web-{size}-pai-gow-set.png"))
            row.locator('button[data-verb="set"]').click()
        else:
            page.screenshot(path=str(ARTIFACTS / f"web-{size}-pai-gow-set.png"))
            row.locator('button[data-verb="house_way"]').click()
        result = page.locator("#result")
        expect(result).to_contain_text("Box 2 (pat)", timeout=15_000)
        box = page.locator('.seat.box[data-box="2"]')
        expect(box.locator(".pg-hand")).to_have_count(2)
        seen["box_hands"] = box.locator(".pg-hand").evaluate_all(
            """(hs) => hs.map((h) => ({
                tiles: [...h.querySelectorAll('.card.tile')].map((c) => c.dataset.card),
                name: h.querySelector('.pg-name').textContent }))"""
        )
        seen["bank_hands"] = page.locator(".dealer-spot .pg-hand .pg-name").all_inner_texts()
        seen["log"] = page.locator("#log").inner_text()
        seen["settled"] = page.evaluate("() => state.table.result.boxes['2']")
        seen["result_geometry"] = page.evaluate(GEOMETRY, "table")
        page.screenshot(path=str(ARTIFACTS / f"web-{size}-pai-gow-result.png"))
    return seen


def pai_gow_table(table_id: str) -> TableConfig:
    return TableConfig(
        id=table_id,
        game="pai-gow",
        name="Pai gow test",
        options={"minimum": 500, "maximum": 50_000},
        betting_seconds=4.0,
        decision_seconds=30.0,
        seed=9,
    )


async def test_browser_sets_pai_gow_tiles_by_clicking_desktop_and_phone(
    chromium: Chromium,  # noqa: F811
) -> None:
    # a long pause after the round: the result stays on screen while the page is read
    tables = (pai_gow_table("pg-a"), pai_gow_table("pg-b"))
    async with running_server(config(*tables, round_pause=60.0)) as server:
        with trio.fail_after(120):
            desktop = await chromium.run(play_pai_gow, server.http_url, DESKTOP, "pg-a", True)
            phone = await chromium.run(play_pai_gow, server.http_url, PHONE, "pg-b", False)
        health = server.croupier.health()
    for seen in (desktop, phone):
        assert seen["console_errors"] == []
        assert "1" not in seen["box_options"] and "2" in seen["box_options"]
        assert seen["bank_plate"] == "the bank"
        assert seen["drawn"] == 4 and len(seen["tiles"]) == 4
        assert seen["set_disabled_before"] is True
        for key in ("decision_geometry", "result_geometry"):
            assert seen[key]["problems"] == [], "\n".join(seen[key]["problems"])
        names = [h["name"] for h in seen["box_hands"]]
        assert names[0].startswith("High:") and names[1].startswith("Low:"), names
        assert [n.split(":")[0] for n in seen["bank_hands"]] == ["Bank high", "Bank low"]
        assert seen["settled"]["bet"] == 1000
        assert seen["settled"]["wagers"]["bet"]["outcome"] in ("win", "lose", "stand off")
    # a hand's tiles in any order (the page may redraw the low hand in the tiles' order)
    assert sorted(desktop["low_chosen"]) == sorted(desktop["expected_low"])
    assert sorted(desktop["box_hands"][1]["tiles"]) == sorted(desktop["expected_low"])
    assert sorted(desktop["box_hands"][0]["tiles"]) == sorted(desktop["expected_high"])
    assert "box 2 (yours): set" in desktop["log"].lower()
    assert "box 2 (yours): house_way" in phone["log"].lower()
    money = health["money"]
    assert money["issued"] == money["wallets"] + money["stakes"] + money["house"]


def bank_in_browser(browser: Any, http_url: str, table: str) -> dict[str, Any]:
    """Round 1: a bet on box 2, the house way. Round 2: the bank on box 2 (s18(2)); the bank's
    tiles are clicked into high and low on the ``bank`` street (s28(8))."""
    seen: dict[str, Any] = {}
    with new_page(browser, DESKTOP, seen) as page:
        _login_guest(page, http_url, "pat")
        page.locator(f'tr[data-table="{table}"] .join-player').click()
        expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=10_000)
        seen["wagers"] = page.locator("#wager-name option").evaluate_all(
            "(os) => os.map((o) => o.value)"
        )
        page.select_option("#wager-box", "2")
        page.select_option("#wager-name", "bet")
        page.fill("#wager-amount", "10")
        page.click("#wager-btn")
        row = page.locator('#decisions .pg-decision[data-box="2"]')
        expect(row).to_be_visible(timeout=15_000)
        row.locator('button[data-verb="house_way"]').click()
        expect(page.locator("#result")).to_contain_text("Box 2 (pat)", timeout=15_000)
        expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=15_000)
        page.select_option("#wager-name", "bank")
        page.fill("#wager-amount", "100")
        page.click("#wager-btn")
        expect(page.locator('.seat.box[data-box="2"]')).to_contain_text("Bank $100.00")
        row = page.locator('#decisions .pg-decision[data-box="2"][data-street="bank"]')
        expect(row).to_be_visible(timeout=20_000)
        seen["label"] = row.locator(".decision-label").inner_text()
        tiles = [b.get_attribute("data-tile") for b in row.locator(".pg-tile-btn").all()]
        seen["bank_tiles"] = tiles
        good = settings_of(tiles)[0]
        low: list[int] = []
        for tile in good.low:
            low.append(next(i for i, t in enumerate(tiles) if t == tile and i not in low))
        for i in low:
            row.locator(f'.pg-high .pg-tile-btn[data-index="{i}"]').click()
        expect(row.locator(".pg-low .pg-tile-btn")).to_have_count(2)
        page.screenshot(path=str(ARTIFACTS / "web-pai-gow-bank-set.png"))
        row.locator('button[data-verb="set"]').click()
        result = page.locator("#result")
        expect(result).to_contain_text("Bank", timeout=15_000)
        expect(page.locator(".dealer-spot .pg-hand")).to_have_count(2)
        seen["bank_label"] = page.locator(".dealer-spot .dealer-label").inner_text()
        seen["expected_bank"] = [[t for i, t in enumerate(tiles) if i not in low], good.low]
        seen["bank_hands"] = page.locator(".dealer-spot .pg-hand").evaluate_all(
            "(hs) => hs.map((h) => [...h.querySelectorAll('.card.tile')]"
            ".map((c) => c.dataset.card))"
        )
        seen["settled"] = page.evaluate("() => state.table.result.boxes['2']")
        page.screenshot(path=str(ARTIFACTS / "web-pai-gow-bank-result.png"))
    return seen


async def test_browser_banks_and_sets_the_banks_tiles_s18(
    chromium: Chromium,  # noqa: F811
) -> None:
    table = dataclasses.replace(
        pai_gow_table("pg-bank"),
        options={"minimum": 500, "maximum": 50_000, "player_banking_enabled": True},
    )
    async with (
        running_server(config(table, round_pause=3.0)) as server,
        Client.connect(server.url, name="bob") as bob,
    ):
        await bob.join("pg-bank", seat=3)

        async def bob_plays() -> None:  # a $5 bet on box 3 each round, the house way
            async for message in bob:
                event = message.get("event") or {}
                if event.get("type") == "betting_open":
                    await bob.send(
                        {
                            "type": "wager",
                            "table": "pg-bank",
                            "box": 3,
                            "wager": "bet",
                            "amount": 500,
                        }
                    )
                elif event.get("type") == "decision" and event.get("box") == 3:
                    await bob.decide("pg-bank", 3, "house_way")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(bob_plays)
            with trio.fail_after(120):
                seen = await chromium.run(bank_in_browser, server.http_url, "pg-bank")
            nursery.cancel_scope.cancel()
    assert seen["console_errors"] == []
    assert seen["wagers"] == ["bet", "bank"]  # co-banking is off at this table
    assert seen["label"] == "Box 2 \u00b7 set the bank's tiles"
    assert len(seen["bank_tiles"]) == 4
    assert seen["bank_hands"] == [list(h) for h in seen["expected_bank"]]
    assert seen["bank_label"].lower() == "bank (box 2)"
    assert seen["settled"]["wagers"]["bank"]["stake"] == 10_000
