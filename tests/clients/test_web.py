"""The browser page (clients/web/) driven by Debian's chromium through Playwright.

The server runs in-process on 127.0.0.1 (port 0) with two bot opponents in the same trio
run; Playwright's sync API runs in a worker thread (``trio.to_thread.run_sync``). The page is
served by the server itself and speaks only the documented protocol.
"""

from __future__ import annotations

import re
import time
from typing import Any

import trio
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect, sync_playwright

from clients.client import Client
from server.config import TableConfig
from tests.clients.support import (
    ARTIFACTS,
    CHROMIUM_ARGS,
    Bot,
    chromium_path,
    config,
    holdem_table,
    running_server,
)

TABLE = "holdem-test"


def _launch(p: Any) -> Any:
    return p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


def _enabled_action(page: Any) -> str | None:
    """The id of the first visible, enabled action button, preferring passive play."""
    for verb in ("check", "call", "raise", "bet", "allin", "fold"):
        button = page.locator(f"#act-{verb}")
        if button.is_visible() and button.is_enabled():
            return verb
    return None


def play_one_hand_in_browser(http_url: str) -> dict[str, Any]:
    """Log in as a guest, sit at the bot table, buy in, play a hand by clicking, read the result.

    Runs in a worker thread (Playwright's sync API); returns what the page showed.
    """
    seen: dict[str, Any] = {"clicked": [], "console_errors": []}
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("pageerror", lambda exc: seen["console_errors"].append(str(exc)))
            page.goto(http_url)

            # guest login (dev mode)
            expect(page.locator("#login")).to_be_visible()
            page.fill("#login-name", "alice")
            page.click("#guest-btn")

            # the lobby lists the table with the two bots seated
            row = page.locator(f'tr[data-table="{TABLE}"]')
            expect(row).to_be_visible(timeout=10_000)
            expect(row.locator(".seats-taken")).to_have_text("2", timeout=10_000)
            seen["lobby_row"] = row.inner_text()
            seen["balance_before"] = page.locator("#balance").inner_text()
            page.screenshot(path=str(ARTIFACTS / "web-lobby.png"))

            # sit down, then buy in with the pre-filled amount
            row.locator(".join-player").click()
            expect(page.locator("#table")).to_be_visible()
            mine = page.locator(".seat.mine")
            expect(mine).to_contain_text("alice (you)")
            expect(page.locator("#buyin")).to_be_visible()
            page.fill("#buyin-amount", "150")
            page.click("#buyin-btn")
            expect(page.locator("#log")).to_contain_text("alice buys in for $150", timeout=10_000)
            seen["balance_after"] = page.locator("#balance").inner_text()

            # play one hand by clicking the buttons the server's legal actions produced
            deadline = time.monotonic() + 60
            tried_bounds = False
            while time.monotonic() < deadline:
                if seen["clicked"] and page.locator("#result").is_visible():
                    break
                verb = _enabled_action(page)
                if verb is None:
                    page.wait_for_timeout(50)
                    continue
                if not tried_bounds and page.locator("#amount").is_visible():
                    tried_bounds = True
                    seen["amount_hint"] = page.locator("#amount-hint").inner_text()
                    seen["turn_info"] = page.locator("#turn-info").inner_text()
                    page.screenshot(path=str(ARTIFACTS / "web-turn.png"))
                    bounded = (
                        "#act-raise" if page.locator("#act-raise").is_visible() else "#act-bet"
                    )
                    page.fill("#amount", "99999")  # above the maximum: refused by the page
                    seen["over_max_disabled"] = page.locator(bounded).is_disabled()
                    page.fill("#amount", "0.01")  # below the minimum
                    seen["under_min_disabled"] = page.locator(bounded).is_disabled()
                    page.fill("#amount", "6")  # a legal raise to $6
                    seen["legal_enabled"] = page.locator(bounded).is_enabled()
                    verb = bounded.removeprefix("#act-")
                try:
                    page.click(f"#act-{verb}", timeout=5_000)
                except PlaywrightTimeout as exc:
                    page.screenshot(path=str(ARTIFACTS / "web-failure.png"))
                    raise AssertionError(verb + ": " + page.locator("#log").inner_text()) from exc
                seen["clicked"].append(verb)
            result = page.locator("#result")
            expect(result).to_be_visible(timeout=5_000)
            seen["result"] = result.inner_text()
            seen["log"] = page.locator("#log").inner_text()
            seen["my_cards"] = mine.locator(".card:not(.back)").count()
            page.screenshot(path=str(ARTIFACTS / "web-result.png"))

            # the connection drops: reconnect with the session token, resume the seat
            page.evaluate("state.ws.close()")
            expect(page.locator("#toast")).to_contain_text("Connection lost", timeout=5_000)
            page.locator("#toast button").click()
            expect(page.locator("#log")).to_contain_text("Reconnected", timeout=10_000)
            expect(page.locator("#conn-status")).to_have_text("online")
            expect(mine).to_contain_text("alice (you)")

            # leave: the stake goes back to the wallet and the lobby shows again
            page.click("#leave-btn")
            expect(page.locator("#lobby")).to_be_visible(timeout=15_000)
            seen["balance_end"] = page.locator("#balance").inner_text()
        finally:
            browser.close()
    return seen


async def test_browser_lobby_join_play_a_hand_and_see_the_result() -> None:
    cfg = config(holdem_table(TABLE, seats=6))
    async with running_server(cfg) as server, trio.open_nursery() as nursery:
        bots = [Bot(server.url, TABLE, seat) for seat in (2, 4)]
        for bot in bots:
            await nursery.start(bot.run)
        with trio.fail_after(120):
            seen = await trio.to_thread.run_sync(play_one_hand_in_browser, server.http_url)
        nursery.cancel_scope.cancel()

    assert seen["console_errors"] == []
    assert "Hold'em $1/$2 test table" in seen["lobby_row"]
    assert seen["balance_before"] == "Wallet $10,000"
    assert seen["balance_after"] == "Wallet $9,850"
    # the hand was played through the buttons, including a bounded raise/bet
    assert seen["clicked"], "no action button was ever offered"
    assert seen.get("over_max_disabled") is True
    assert seen.get("under_min_disabled") is True
    assert seen.get("legal_enabled") is True
    assert "Your turn" in seen["turn_info"]
    assert "Your cards:" in seen["log"]
    assert seen["my_cards"] == 2  # own hole cards face up
    assert "result" in seen["result"]
    assert "Main pot" in seen["result"]
    assert (ARTIFACTS / "web-result.png").stat().st_size > 10_000
    assert seen["balance_end"].startswith("Wallet $")
    assert not any(bot.errors for bot in bots)


def watch_a_slow_player(http_url: str, release: Any) -> dict[str, Any]:
    """Watch as a spectator while seat 1 thinks; then let it fold (``release``) and read."""
    seen: dict[str, Any] = {"console_errors": []}
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("pageerror", lambda exc: seen["console_errors"].append(str(exc)))
            page.goto(http_url)
            page.fill("#login-name", "sam")
            page.click("#guest-btn")
            page.locator(f'tr[data-table="{TABLE}"] .join-spectator').click()
            expect(page.locator("#table")).to_be_visible()
            acting = page.locator('.seat.acting[data-seat="1"]')
            expect(acting).to_be_visible(timeout=10_000)
            seen["face_up_hole_cards"] = page.locator(".seat .card:not(.back)").count()
            seen["face_down_hole_cards"] = page.locator(".seat .card.back").count()
            seen["timer_visible"] = acting.locator(".timer").is_visible()
            seen["no_action_buttons"] = all(
                not page.locator(f"#act-{v}").is_visible()
                for v in ("fold", "check", "call", "bet", "raise", "allin")
            )
            seen["no_buy_in"] = not page.locator("#buyin").is_visible()
            clock = page.locator("#turn-info .clock")
            first = int(clock.inner_text().rstrip("s"))
            page.wait_for_timeout(2_200)
            second = int(clock.inner_text().rstrip("s"))
            seen["clock"] = (first, second)
            seen["turn_info"] = page.locator("#turn-info").inner_text()
            page.screenshot(path=str(ARTIFACTS / "web-spectator.png"))
            release()
            expect(page.locator("#log")).to_contain_text("slowpoke folds", timeout=10_000)
            expect(page.locator("#result")).to_contain_text("Main pot", timeout=10_000)
            seen["result"] = page.locator("#result").inner_text()
            page.click("#leave-btn")  # "Stop watching"
            expect(page.locator("#lobby")).to_be_visible(timeout=10_000)
        finally:
            browser.close()
    return seen


async def test_browser_spectator_sees_hole_cards_face_down_and_the_turn_timer() -> None:
    """A spectator sees no hole cards before a showdown, a running turn clock, no controls."""
    cfg = config(holdem_table(TABLE, seats=6))
    go = trio.Event()

    async def slowpoke(
        url: str, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        async with Client.connect(url, name="slowpoke") as client:
            await client.join(TABLE, seat=1)
            await client.buy_in(TABLE, 20_000)
            task_status.started()
            async for msg in client:
                if msg["type"] == "turn" and msg["seat"] == 1 and msg["legal"]:
                    await go.wait()
                    await client.act(TABLE, "fold")

    async with running_server(cfg) as server, trio.open_nursery() as nursery:
        await nursery.start(slowpoke, server.url)
        await nursery.start(Bot(server.url, TABLE, 2).run)
        with trio.fail_after(90):
            seen = await trio.to_thread.run_sync(
                watch_a_slow_player, server.http_url, lambda: trio.from_thread.run_sync(go.set)
            )
        nursery.cancel_scope.cancel()

    assert seen["console_errors"] == []
    assert seen["face_up_hole_cards"] == 0
    assert seen["face_down_hole_cards"] == 4  # two seats, two cards each, face down
    assert seen["timer_visible"] and seen["no_action_buttons"] and seen["no_buy_in"]
    first, second = seen["clock"]
    assert 0 < first <= 30 and second < first  # the countdown runs
    assert "Waiting for slowpoke" in seen["turn_info"]
    assert "bot2" in seen["result"]


def evaluate_page_helpers(http_url: str) -> dict[str, Any]:
    """The page's own money parsing and pot arithmetic, evaluated in chromium."""
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page()
            page.goto(http_url)
            return page.evaluate("""() => ({
                cents: ["12.5", "$1,234.05", "400", "0.01", "4.123", "-5", "abc", ""]
                    .map(toCents),
                money: [0, 5, 150, 123405, -250].map(money),
                pots: sidePots({seats: {
                    1: {inPot: 1000, allin: true, folded: false},
                    2: {inPot: 3000, allin: false, folded: false},
                    3: {inPot: 500, allin: false, folded: true},
                    4: {inPot: 3000, allin: false, folded: false}}}),
            })""")
        finally:
            browser.close()


async def test_page_parses_dollars_to_integer_cents_and_splits_side_pots() -> None:
    async with running_server(config(holdem_table(TABLE))) as server:
        with trio.fail_after(60):
            got = await trio.to_thread.run_sync(evaluate_page_helpers, server.http_url)
    assert got["cents"] == [1250, 123405, 40000, 1, None, None, None, None]
    assert got["money"] == ["$0", "$0.05", "$1.50", "$1,234.05", "-$2.50"]
    # seat 1 all in for $10: main pot 3 x $10 + the folded $5; the rest is a side pot
    assert got["pots"] == [3500, 4000]


BANKED = "tcp-test"


def play_a_banked_round(http_url: str) -> dict[str, Any]:
    """Join a banked table, wager on a box in the betting window, decide, read the result."""
    seen: dict[str, Any] = {"console_errors": []}
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("pageerror", lambda exc: seen["console_errors"].append(str(exc)))
            page.goto(http_url)
            page.fill("#login-name", "pat")
            page.click("#guest-btn")
            row = page.locator(f'tr[data-table="{BANKED}"]')
            expect(row).to_contain_text("wager $5")
            row.locator(".join-player").click()
            expect(page.locator("#banked")).to_be_visible()
            expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=10_000)
            seen["boxes"] = page.locator(".seat.box").count()
            seen["wagers"] = page.locator("#wager-name option").all_inner_texts()
            page.select_option("#wager-box", "3")
            page.fill("#wager-amount", "10")
            page.click("#wager-btn")
            mine = page.locator('.seat.box[data-box="3"]')
            expect(mine).to_contain_text("Ante $10")
            expect(mine).to_have_class(re.compile(r"\bmine\b"))
            seen["wallet_after_wager"] = page.locator("#balance").inner_text()
            # no more bets, the deal, then this box's decision: play on
            bet = page.locator('#decisions .decision[data-box="3"] button[data-verb="bet"]')
            expect(bet).to_be_visible(timeout=15_000)
            seen["wager_row_disabled"] = page.locator("#wager-btn").is_disabled()
            seen["my_cards"] = mine.locator(".card").count()
            page.screenshot(path=str(ARTIFACTS / "web-banked-decision.png"))
            bet.click()
            result = page.locator("#result")
            expect(result).to_contain_text("Box 3 (pat)", timeout=15_000)
            seen["result"] = result.inner_text()
            seen["dealer_cards"] = page.locator(".dealer-spot .card").count()
            seen["settled"] = page.evaluate("() => state.table.result.boxes['3']")
            seen["wallet_end"] = page.locator("#balance").inner_text()
            page.screenshot(path=str(ARTIFACTS / "web-banked-result.png"))
            # recall (Sch 19 s3(2)): the previous round's bet, result and win
            page.click("#recall-btn")
            expect(page.locator("#log")).to_contain_text("Last round #1: box 3:", timeout=10_000)
            seen["recall"] = page.locator("#log li").last.inner_text()
        finally:
            browser.close()
    return seen


async def test_browser_plays_a_banked_round_wager_decision_result() -> None:
    """QLD Sch 19 s5: a wager during the betting window; s7: every wager's result shown."""
    banked = TableConfig(
        id=BANKED,
        game="three-card-poker",
        name="Three card poker test",
        options={"minimum": 500, "maximum": 50_000},
        betting_seconds=6.0,
        decision_seconds=30.0,
        seed=11,
    )
    async with running_server(config(holdem_table(TABLE), banked)) as server:
        with trio.fail_after(90):
            seen = await trio.to_thread.run_sync(play_a_banked_round, server.http_url)
    assert seen["console_errors"] == []
    assert seen["boxes"] == 7
    assert seen["wagers"] == ["Ante (required)", "Pair plus"]
    assert seen["wallet_after_wager"] == "Wallet $9,990"
    assert seen["wager_row_disabled"]  # no more bets (s3(3))
    assert seen["my_cards"] == 3 and seen["dealer_cards"] == 3
    settled = seen["settled"]
    assert settled["bet"] == 2000  # ante $10 + bet $10
    assert set(settled["wagers"]) == {"ante", "bet"}
    paid = settled["paid"]
    assert seen["wallet_end"] == "Wallet " + _dollars(1_000_000 - 2000 + paid)
    assert "Dealer" in seen["result"]
    assert "bet $20" in seen["recall"] and f"paid {_dollars(paid)}" in seen["recall"]


def _dollars(cents: int) -> str:
    """The page's money format: $1,234 or $1,234.05."""
    whole, rest = divmod(cents, 100)
    return f"${whole:,}" + (f".{rest:02d}" if rest else "")
