"""The browser page (clients/web/) driven by Debian's chromium through Playwright.

The server runs in-process on 127.0.0.1 (port 0) with bot opponents in the same trio run.
One chromium serves the whole module: Playwright's sync API is bound to the thread that
started it, so every page function runs on one worker thread (``Chromium.run`` hands it over
from trio through ``trio.to_thread.run_sync``); each test opens its own browser context. The
page is served by the server itself and speaks only the documented protocol.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import trio
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect, sync_playwright

from clients.client import Client
from server.config import TableConfig, load_tables
from server.net.app import RunningServer, serve
from tests.clients.support import ARTIFACTS, CHROMIUM_ARGS, Bot, chromium_path, config, holdem_table
from tests.support import running_server

TABLE = "holdem-test"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


class Chromium:
    """One browser for the module, used from its own thread only."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self.playwright = self.pool.submit(lambda: sync_playwright().start()).result()
        self.browser = self.pool.submit(
            lambda: self.playwright.chromium.launch(
                executable_path=chromium_path(), args=CHROMIUM_ARGS
            )
        ).result()

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(browser, *args)`` on the browser's thread; trio waits in a worker thread."""
        future = self.pool.submit(fn, self.browser, *args)
        return await trio.to_thread.run_sync(future.result)

    def close(self) -> None:
        self.pool.submit(self.browser.close).result()
        self.pool.submit(self.playwright.stop).result()
        self.pool.shutdown()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()


@contextlib.contextmanager
def new_page(browser: Any, viewport: dict[str, int], seen: dict[str, Any]) -> Iterator[Any]:
    """A page in a fresh context (own storage); page errors are collected in ``seen``."""
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        seen.setdefault("console_errors", [])
        page.on("pageerror", lambda exc: seen["console_errors"].append(str(exc)))
        yield page
    finally:
        context.close()


def _enabled_action(page: Any) -> str | None:
    """The id of the first visible, enabled action button, preferring passive play.

    Read in one evaluation, so in one frame: button by button, a turn that starts between
    two reads could offer only "fold" (seen once in CI, when the bar appeared after "allin"
    was read and before "fold" was).
    """
    verb: str | None = page.evaluate(
        """() => {
        for (const verb of ["check", "call", "raise", "bet", "allin", "fold"]) {
            const b = document.getElementById("act-" + verb);
            if (b && b.offsetParent !== null && !b.hidden && !b.disabled) return verb;
        }
        return null;
    }"""
    )
    return verb


def _login_guest(page: Any, url: str, name: str) -> None:
    page.goto(url)
    expect(page.locator("#login")).to_be_visible()
    page.fill("#login-name", name)
    page.click("#guest-btn")


def play_one_hand_in_browser(browser: Any, http_url: str) -> dict[str, Any]:
    """Log in as a guest, sit at the bot table, buy in, play a hand by clicking, read the result.

    Amounts are typed in dollars (``6``, ``6.5``, ``$6.50``; ``6.505`` is refused with a
    message); a preset fills the raise; the server's refusal of a buy-in shows in dollars.
    """
    seen: dict[str, Any] = {"clicked": []}
    ARTIFACTS.mkdir(exist_ok=True)
    with new_page(browser, DESKTOP, seen) as page:
        _login_guest(page, http_url, "alice")

        # the lobby lists the table with the two bots seated
        row = page.locator(f'tr[data-table="{TABLE}"]')
        expect(row).to_be_visible(timeout=10_000)
        expect(row.locator(".seats-taken")).to_have_text("2", timeout=10_000)
        seen["lobby_row"] = row.inner_text()
        seen["balance_before"] = page.locator("#balance").inner_text()
        page.screenshot(path=str(ARTIFACTS / "web-lobby.png"))

        # sit down; a buy-in below the table minimum: the server's refusal, in dollars
        row.locator(".join-player").click()
        expect(page.locator("#table")).to_be_visible()
        mine = page.locator(".seat.mine")
        expect(mine).to_contain_text("alice (you)")
        expect(page.locator("#buyin")).to_be_visible()
        page.fill("#buyin-amount", "150.005")
        seen["buyin_error"] = page.locator("#buyin-error").inner_text()
        page.fill("#buyin-amount", "10")
        page.click("#buyin-btn")
        expect(page.locator("#log")).to_contain_text("Refused", timeout=10_000)
        seen["refusal"] = page.locator("#log li.log-error").last.inner_text()
        page.fill("#buyin-amount", "$150")
        page.click("#buyin-btn")
        expect(page.locator("#log")).to_contain_text("alice buys in for $150.00", timeout=10_000)
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
                bounded = "#act-raise" if page.locator("#act-raise").is_visible() else "#act-bet"
                button = page.locator(bounded)
                page.fill("#amount", "99999")  # above the maximum: refused by the page
                seen["over_max"] = (
                    button.is_disabled(),
                    page.locator("#amount-error").inner_text(),
                )
                page.fill("#amount", "0.01")  # below the minimum
                seen["under_min_disabled"] = button.is_disabled()
                typed = {}
                for text in ("6", "6.5", "$6.50", "6.505"):
                    page.fill("#amount", text)
                    error = page.locator("#amount-error")
                    typed[text] = (
                        button.is_enabled(),
                        button.inner_text(),
                        error.inner_text() if error.is_visible() else "",
                    )
                seen["typed"] = typed
                presets = page.locator("#amount-presets .preset")
                seen["presets"] = presets.all_inner_texts()
                if presets.count():
                    presets.last.click()
                    seen["preset_click"] = (
                        presets.last.get_attribute("data-cents"),
                        page.locator("#amount").input_value(),
                        button.inner_text(),
                    )
                page.fill("#amount", "6")  # a legal raise to $6
                seen["legal_enabled"] = button.is_enabled()
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
        # the cards the page showed with the result, read in the same frame (the next hand
        # starts round_pause later, and clears them, however loaded the machine)
        seen["my_cards"] = (
            page.wait_for_function(
                """() => {
                const r = document.querySelector("#result");
                if (!r || r.offsetParent === null) return null;
                return document.querySelectorAll(".seat.mine .card:not(.back)").length + 1;
            }""",
                timeout=5_000,
            ).json_value()
            - 1
        )
        seen["marker"] = [
            (m.text_content(), m.get_attribute("title") or "")
            for m in page.locator("#felt .marker").all()
        ]
        page.screenshot(path=str(ARTIFACTS / "web-result.png"))

        # the connection drops: the page reconnects by itself with the session token and the
        # server answers the join on the held seat with a snapshot
        page.evaluate("state.ws.close()")
        expect(page.locator("#log")).to_contain_text("Reconnected", timeout=10_000)
        expect(page.locator("#conn-status")).to_have_text("online")
        expect(mine).to_contain_text("alice (you)")

        # leave: the stake goes back to the wallet and the lobby shows again
        page.click("#leave-btn")
        expect(page.locator("#lobby")).to_be_visible(timeout=15_000)
        seen["balance_end"] = page.locator("#balance").inner_text()
    return seen


async def test_browser_lobby_join_play_a_hand_and_see_the_result(chromium: Chromium) -> None:
    cfg = config(holdem_table(TABLE, seats=6))
    async with running_server(cfg) as server, trio.open_nursery() as nursery:
        bots = [Bot(server.url, TABLE, seat) for seat in (2, 4)]
        for bot in bots:
            await nursery.start(bot.run)
        with trio.fail_after(120):
            seen = await chromium.run(play_one_hand_in_browser, server.http_url)
        nursery.cancel_scope.cancel()

    assert seen["console_errors"] == []
    assert "Hold'em $1/$2 test table" in seen["lobby_row"]
    assert "blinds $1.00 / $2.00" in seen["lobby_row"]
    assert seen["balance_before"] == "Wallet $10,000.00"
    # typed dollars: a third decimal is refused by the page with a message
    assert "two decimals" in seen["buyin_error"]
    # the server refused a $10 buy-in (ACT table minimum $40): its amount shown in dollars
    assert "$40.00" in seen["refusal"] and "cents" not in seen["refusal"]
    assert seen["balance_after"] == "Wallet $9,850.00"
    # the hand was played through the buttons, including a bounded raise/bet
    assert seen["clicked"], "no action button was ever offered"
    disabled, message = seen["over_max"]
    assert disabled and message.startswith("The maximum is $")
    assert seen["under_min_disabled"] is True
    typed = seen["typed"]
    verb = "Raise to" if "Raise" in typed["6"][1] else "Bet"
    assert typed["6"] == (True, f"{verb} $6.00", "")
    assert typed["6.5"] == (True, f"{verb} $6.50", "")
    assert typed["$6.50"] == (True, f"{verb} $6.50", "")
    enabled, _, error = typed["6.505"]
    assert not enabled and "at most two decimals" in error
    # presets (1/2 pot, pot, all in) where legal; the last one is all in at no limit
    assert seen["presets"] and seen["presets"][-1] == "All in"
    cents, value, label = seen["preset_click"]
    assert value == f"{int(cents) // 100}.{int(cents) % 100:02d}"
    assert label == f"{verb} {_dollars(int(cents))}"
    assert seen.get("legal_enabled") is True
    assert "Your turn" in seen["turn_info"]
    assert "Your cards:" in seen["log"]
    assert "holds the buck" in seen["log"]
    assert seen["my_cards"] == 2  # own hole cards face up
    # the ACT buck, in the rulebook's word, with the rule in its tooltip
    assert [word for word, _ in seen["marker"]] == ["buck"]
    assert "ACT" in seen["marker"][0][1] and "6.2" in seen["marker"][0][1]
    assert "result" in seen["result"]
    assert "Main pot" in seen["result"]
    assert (ARTIFACTS / "web-result.png").stat().st_size > 10_000
    assert seen["balance_end"].startswith("Wallet $")
    assert not any(bot.errors for bot in bots)


def watch_a_slow_player(browser: Any, http_url: str, release: Any) -> dict[str, Any]:
    """Watch as a spectator while seat 1 thinks; then let it fold (``release``) and read."""
    seen: dict[str, Any] = {}
    with new_page(browser, DESKTOP, seen) as page:
        _login_guest(page, http_url, "sam")
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
    return seen


async def test_browser_spectator_sees_hole_cards_face_down_and_the_turn_timer(
    chromium: Chromium,
) -> None:
    """A spectator sees no hole cards before a showdown, a running turn clock, no controls."""
    cfg = config(holdem_table(TABLE, seats=6))
    go = trio.Event()
    token = trio.lowlevel.current_trio_token()

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
            seen = await chromium.run(
                watch_a_slow_player,
                server.http_url,
                lambda: trio.from_thread.run_sync(go.set, trio_token=token),
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


def evaluate_page_helpers(browser: Any, http_url: str) -> dict[str, Any]:
    """The page's own money parsing, error text and pot arithmetic, evaluated in chromium."""
    seen: dict[str, Any] = {}
    with new_page(browser, DESKTOP, seen) as page:
        page.goto(http_url)
        return dict(
            page.evaluate("""() => ({
            cents: ["6", "6.5", "$6.50", "12.5", "$1,234.05", "400", "0.01", "6.505",
                "4.123", "-5", "abc", "", "$"].map(toCents),
            errors: ["6.505", "abc", ""].map((x) => parseDollars(x).error),
            money: [0, 5, 150, 600, 123405, -250].map(money),
            refusals: [
                {code: "buy_in_range", message: "x", min: 4000, max: 40000},
                {code: "buy_in_range",
                    message: "the stake after a buy-in must be 4000 to 40000 cents"},
                {code: "insufficient_funds", message: "x", balance: 1250, amount: 5000},
                {code: "illegal_action", reason: "amount_too_small", min: 400,
                    message: "the minimum raise is to 400"},
                {code: "some_error", message: "not now", amount: 250},
            ].map(errorText),
            pots: sidePots({seats: {
                1: {inPot: 1000, allin: true, folded: false},
                2: {inPot: 3000, allin: false, folded: false},
                3: {inPot: 500, allin: false, folded: true},
                4: {inPot: 3000, allin: false, folded: false}}}),
            markers: ["holdem-act", "omaha-act", "manila-act", "holdem-qld", "omaha-qld",
                "manila-qld", "caribbean-stud"].map((g) => (marker(g) || {word: null}).word),
        })"""),
            console_errors=seen["console_errors"],
        )


async def test_page_parses_dollars_to_integer_cents_and_splits_side_pots(
    chromium: Chromium,
) -> None:
    async with running_server(config(holdem_table(TABLE))) as server:
        with trio.fail_after(60):
            got = await chromium.run(evaluate_page_helpers, server.http_url)
    assert got["console_errors"] == []
    assert got["cents"] == [600, 650, 650, 1250, 123405, 40000, 1] + [None] * 6
    refused, bad, empty = got["errors"]
    assert "at most two decimals" in refused and "dollars" in bad and "dollars" in empty
    assert got["money"] == ["$0.00", "$0.05", "$1.50", "$6.00", "$1,234.05", "-$2.50"]
    assert got["refusals"] == [
        "The stake after a buy-in must be between $40.00 and $400.00.",
        "The stake after a buy-in must be $40.00 to $400.00",
        "Your wallet holds $12.50, not enough for $50.00.",
        "The minimum is $4.00.",
        "Not now (amount $2.50)",
    ]
    # seat 1 all in for $10: main pot 3 x $10 + the folded $5; the rest is a side pot
    assert got["pots"] == [3500, 4000]
    # the rulebooks' words: ACT buck, QLD hold'em/Omaha button, QLD Manila buck, none banked
    assert got["markers"] == ["buck", "buck", "buck", "button", "button", "buck", None]


BANKED = "tcp-test"


def play_a_banked_round(browser: Any, http_url: str) -> dict[str, Any]:
    """Join a banked table, wager on a box in the betting window, decide, read the result."""
    seen: dict[str, Any] = {}
    with new_page(browser, DESKTOP, seen) as page:
        _login_guest(page, http_url, "pat")
        row = page.locator(f'tr[data-table="{BANKED}"]')
        expect(row).to_contain_text("wager $5.00")
        row.locator(".join-player").click()
        expect(page.locator("#banked")).to_be_visible()
        expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=10_000)
        seen["boxes"] = page.locator(".seat.box").count()
        seen["wagers"] = page.locator("#wager-name option").all_inner_texts()
        seen["markers"] = page.locator("#felt .marker").count()
        page.select_option("#wager-box", "3")
        page.fill("#wager-amount", "10.001")
        page.click("#wager-btn")
        seen["wager_error"] = page.locator("#wager-error").inner_text()
        page.fill("#wager-amount", "$10")
        page.click("#wager-btn")
        mine = page.locator('.seat.box[data-box="3"]')
        expect(mine).to_contain_text("Ante $10.00")
        expect(mine).to_have_class(re.compile(r"\bmine\b"))
        seen["wager_error_after"] = page.locator("#wager-error").is_visible()
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
    return seen


async def test_browser_plays_a_banked_round_wager_decision_result(chromium: Chromium) -> None:
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
            seen = await chromium.run(play_a_banked_round, server.http_url)
    assert seen["console_errors"] == []
    assert seen["boxes"] == 7
    assert seen["markers"] == 0  # banked games have no buck or button
    assert seen["wagers"] == ["Ante (required)", "Pair plus"]
    assert "at most two decimals" in seen["wager_error"]
    assert seen["wager_error_after"] is False
    assert seen["wallet_after_wager"] == "Wallet $9,990.00"
    assert seen["wager_row_disabled"]  # no more bets (s3(3))
    assert seen["my_cards"] == 3 and seen["dealer_cards"] == 3
    settled = seen["settled"]
    assert settled["bet"] == 2000  # ante $10 + bet $10
    assert set(settled["wagers"]) == {"ante", "bet"}
    paid = settled["paid"]
    assert seen["wallet_end"] == "Wallet " + _dollars(1_000_000 - 2000 + paid)
    assert "Dealer" in seen["result"]
    assert "bet $20.00" in seen["recall"] and f"paid {_dollars(paid)}" in seen["recall"]


def _dollars(cents: int) -> str:
    """The page's money format: dollars and cents, $1,234.05."""
    whole, rest = divmod(cents, 100)
    return f"${whole:,}.{rest:02d}"


# Every seat, box, card, chip and control of the table screen (and the lobby's buttons), by
# element geometry: inside the viewport, and no two overlapping (an element and what it
# contains are one thing; the fanned hole cards of one Omaha hand are one thing too). What is
# measured is what shows: an element cut to its scrolling ancestors (test_web_layout checks
# that every control can be scrolled to and reached).
GEOMETRY = """(scope) => {
    const sel = scope === "lobby" ? ["#lobby button", ".topbar .balance", ".topbar .status"]
      : ["#felt .seat", "#felt .card", "#felt .chip", "#felt .category", "#felt .marker",
         "#felt .dealer-spot", "#felt .center > *", "#controls button", "#controls input",
         "#controls select", "#controls .turn-info", ".topbar button", ".topbar .balance",
         ".topbar .status"];
    // what shows of an element: its box cut to every scrolling ancestor's (the boxes of a
    // banked felt scroll inside it: one scrolled out of sight overlaps nothing on screen)
    const shown = (el) => {
      const r = el.getBoundingClientRect();
      let [l, t, rt, b] = [r.left, r.top, r.right, r.bottom];
      for (let p = el.parentElement; p; p = p.parentElement) {
        const st = getComputedStyle(p);
        if (!/auto|scroll|hidden/.test(st.overflowX + st.overflowY)) continue;
        const q = p.getBoundingClientRect();
        [l, t, rt, b] = [Math.max(l, q.left), Math.max(t, q.top), Math.min(rt, q.right),
          Math.min(b, q.bottom)];
      }
      return { left: l, top: t, right: rt, bottom: b, width: rt - l, height: b - t };
    };
    const items = [];
    for (const el of document.querySelectorAll(sel.join(","))) {
      const r = shown(el);
      const style = getComputedStyle(el);
      if (r.width < 1 || r.height < 1 || style.visibility === "hidden") continue;
      if (el.closest("[hidden]")) continue;
      const name = el.id ? "#" + el.id : el.className + (el.dataset.seat ? " seat " +
        el.dataset.seat : "") + (el.dataset.box ? " box " + el.dataset.box : "") +
        (el.dataset.card ? " " + el.dataset.card : "") + (el.textContent ? " '" +
        el.textContent.trim().slice(0, 20) + "'" : "");
      items.push({ el, name, r });
    }
    const W = innerWidth, H = innerHeight, problems = [];
    for (const { name, r } of items) {
      if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
        problems.push(`outside ${W}x${H}: ${name} ` +
          `[${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.right)},${Math.round(r.bottom)}]`);
      }
    }
    const hand = (x) => x.closest(".hole.many");
    const sameHand = (a, b) => hand(a) && hand(a) === hand(b);
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const a = items[i], b = items[j];
        if (a.el.contains(b.el) || b.el.contains(a.el) || sameHand(a.el, b.el)) continue;
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (w > 1 && h > 1) problems.push(`overlap: ${a.name} / ${b.name}`);
      }
    }
    const count = (s) => items.filter((x) => x.el.matches(s)).length;
    return { problems, seats: count("#felt .seat:not(.box)"), boxes: count("#felt .seat.box"),
      cards: count("#felt .card"), buttons: count("#controls button, #lobby button") };
}"""


def check_layouts(
    browser: Any, http_url: str, viewport: dict[str, int], banked: str, wager: str
) -> dict[str, Any]:
    """The lobby, a poker table at this player's turn and a banked table (``banked``, wagers
    of ``wager`` dollars) at its decisions, at one screen size: element geometry, and a
    screenshot of each."""
    size = f"{viewport['width']}x{viewport['height']}"
    seen: dict[str, Any] = {}
    ARTIFACTS.mkdir(exist_ok=True)
    with new_page(browser, viewport, seen) as page:
        _login_guest(page, http_url, "Maximiliana" if viewport["width"] < 500 else "dana")
        row = page.locator('tr[data-table="holdem-act-1"]')
        expect(row.locator(".seats-taken")).to_have_text("5", timeout=10_000)
        seen["lobby"] = page.evaluate(GEOMETRY, "lobby")
        page.screenshot(path=str(ARTIFACTS / f"web-{size}-lobby.png"), full_page=True)

        # a poker table: sit down, buy in, wait for this seat's turn (raise and presets shown)
        row.locator(".join-player").click()
        expect(page.locator("#buyin")).to_be_visible()
        seen["buy_in"] = page.evaluate(GEOMETRY, "table")
        page.fill("#buyin-amount", "200")
        page.click("#buyin-btn")
        expect(page.locator("#act-raise")).to_be_visible(timeout=20_000)
        expect(page.locator("#amount-presets .preset").first).to_be_visible()
        seen["poker"] = page.evaluate(GEOMETRY, "table")
        seen["marker"] = page.locator("#felt .marker").text_content()
        page.screenshot(path=str(ARTIFACTS / f"web-{size}-poker.png"))
        page.click("#act-fold")
        page.click("#leave-btn")
        expect(page.locator("#lobby")).to_be_visible(timeout=15_000)

        # a banked table (5 cards a box): wagers on two boxes, then their decisions
        page.locator(f'tr[data-table="{banked}"] .join-player').click()
        expect(page.locator("#bet-clock")).to_contain_text("Betting closes", timeout=10_000)
        for box in ("2", "6"):
            page.select_option("#wager-box", box)
            page.fill("#wager-amount", wager)
            page.click("#wager-btn")
            expect(page.locator(f'.seat.box[data-box="{box}"]')).to_contain_text(
                f"Ante ${wager}.00"
            )
        expect(page.locator("#decisions .decision")).to_have_count(2, timeout=15_000)
        seen["banked"] = page.evaluate(GEOMETRY, "table")
        page.screenshot(path=str(ARTIFACTS / f"web-{size}-banked.png"))
    return seen


async def test_layout_fits_phone_and_desktop_screens(chromium: Chromium) -> None:
    """At 390x844 and 1280x800: the lobby, a poker table and a banked table with its action
    bar, all on screen and nothing overlapping (the default lobby's tables)."""
    tables = [
        dataclasses.replace(t, seed=5, betting_seconds=5.0, decision_seconds=30.0)
        for t in load_tables()
        if t.id in ("holdem-act-1", "caribbean-stud-1", "caribbean-stud-2")
    ]
    async with running_server(config(*tables)) as server, trio.open_nursery() as nursery:
        for seat in (2, 4, 5, 7, 9):
            await nursery.start(Bot(server.url, "holdem-act-1", seat, seed=seat).run)
        with trio.fail_after(80):
            # each size at its own caribbean stud table: the other's boxes are held (grace)
            phone = await chromium.run(
                check_layouts, server.http_url, PHONE, "caribbean-stud-1", "5"
            )
            desktop = await chromium.run(
                check_layouts, server.http_url, DESKTOP, "caribbean-stud-2", "10"
            )
        nursery.cancel_scope.cancel()
    for seen in (phone, desktop):
        assert seen["console_errors"] == []
        for screen in ("lobby", "buy_in", "poker", "banked"):
            assert seen[screen]["problems"] == [], "\n".join(seen[screen]["problems"])
        assert seen["poker"]["seats"] == 9 and seen["poker"]["cards"] >= 12
        assert seen["banked"]["boxes"] == 7 and seen["banked"]["cards"] >= 10
        assert seen["marker"] == "buck"


def drop_and_resume(
    browser: Any, http_url: str, token: str, stop: Any, restart: Any
) -> dict[str, Any]:
    """At this player's turn the server stops: the clock stops and the buttons are disabled;
    the server comes back: the page reconnects by itself."""
    seen: dict[str, Any] = {}
    with new_page(browser, PHONE, seen) as page:
        page.goto(http_url)
        page.locator("#login summary").click()
        page.fill("#login-token", token)
        page.click("#token-btn")
        page.locator(f'tr[data-table="{TABLE}"] .join-player').click()
        page.fill("#buyin-amount", "100")
        page.click("#buyin-btn")
        fold = page.locator("#act-fold")
        expect(fold).to_be_enabled(timeout=20_000)
        clock = page.locator("#turn-info .clock")
        seen["clock_live"] = clock.inner_text()
        stop()
        expect(page.locator("#conn-status")).to_have_text("offline", timeout=10_000)
        live = [
            v
            for v in ("fold", "check", "call", "raise", "allin")
            if page.locator(f"#act-{v}").is_visible()
        ]
        seen["disabled"] = {v: page.locator(f"#act-{v}").is_disabled() for v in live}
        seen["leave_disabled"] = page.locator("#leave-btn").is_disabled()
        first = clock.inner_text()
        page.wait_for_timeout(1_300)
        seen["clock_stopped"] = (first, clock.inner_text(), clock.get_attribute("class"))
        seen["toast"] = page.locator("#toast").inner_text()
        page.screenshot(path=str(ARTIFACTS / "web-offline.png"))
        restart()
        expect(page.locator("#conn-status")).to_have_text("online", timeout=15_000)
        # a new server process holds no seat for this account: back to the lobby, live again
        expect(page.locator("#lobby")).to_be_visible(timeout=5_000)
        row = page.locator(f'tr[data-table="{TABLE}"] .join-player')
        expect(row).to_be_enabled(timeout=5_000)
        seen["account"] = page.locator("#account-name").inner_text()
    return seen


async def test_connection_drop_stops_clocks_disables_buttons_and_reconnects(
    chromium: Chromium,
) -> None:
    """The server dies (its task cancelled: no goodbye, the page sees an abrupt close) at
    this player's turn; a new server process on the same port (same secret) comes back."""
    cfg = config(holdem_table(TABLE), secret="test-secret", turn_time=60.0)
    token = trio.lowlevel.current_trio_token()

    async def run_server(
        port: int, scope: trio.CancelScope, task_status: trio.TaskStatus[RunningServer]
    ) -> None:
        with scope:
            await serve(cfg, port=port, task_status=task_status)

    async def quiet_bot(
        url: str, token: str, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        with contextlib.suppress(Exception):  # the server dies under it
            await Bot(url, TABLE, 2, token=token).run(task_status=task_status)

    async with trio.open_nursery() as nursery:
        first = trio.CancelScope()
        server = await nursery.start(run_server, 0, first)
        accounts = server.croupier.accounts
        for account in ("acct-bot", "acct-ann"):  # production accounts start at zero: a deposit
            server.croupier.ledger.deposit(account, 1_000_000)
        await nursery.start(quiet_bot, server.url, accounts.issue("acct-bot", "bot2"))
        servers: list[RunningServer] = []

        async def restart() -> None:
            # the same port: the page knows no other address
            servers.append(await nursery.start(run_server, server.port, trio.CancelScope()))

        with trio.fail_after(60):
            seen = await chromium.run(
                drop_and_resume,
                server.http_url,
                accounts.issue("acct-ann", "ann"),
                lambda: trio.from_thread.run_sync(first.cancel, trio_token=token),
                lambda: trio.from_thread.run(restart, trio_token=token),
            )
        await servers[-1].aclose()
        nursery.cancel_scope.cancel()

    assert seen["console_errors"] == []
    assert seen["clock_live"].endswith("s")
    assert seen["disabled"] and all(seen["disabled"].values()), seen["disabled"]
    assert seen["leave_disabled"]
    first, later, classes = seen["clock_stopped"]
    assert first == later and "paused" in (classes or "")
    assert "Connection lost" in seen["toast"]
    assert "Reconnecting" in seen["toast"]
    assert seen["account"] == "ann"
