"""The staff console (clients/web/staff/, served at /staff/; issue 28, point 1) in Debian's
chromium through Playwright, at desktop (1280x800) and tablet (1024x768) sizes.

Each test runs a server in-process (a secret: named tokens only), sets the scene with
ordinary protocol clients in the same trio run, and drives the console in a browser on a
worker thread: a supervisor voids a round and sees the refund, a dealer calls no more bets,
enters a stadium result and corrects it after reviewing the re-settlement, a manager
approves jackpot wagers, and a player's token gets no console. Every control used shows in
the audit log (the console's view of it, or the store's) under the staff member's name with
its outcome. Every wait is on a DOM condition or an event; timeouts are a safety net only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
from playwright.sync_api import expect, sync_playwright

from clients.client import Client
from clients.stadium import credit_in, place, until_event
from server.config import TableConfig
from server.room.accounts import Accounts
from tests.clients.support import ARTIFACTS, CHROMIUM_ARGS, chromium_path, config, holdem_table
from tests.support import running_server

SECRET = "console-secret"
ACCOUNTS = Accounts(SECRET)
SIZES = {"desktop": {"width": 1280, "height": 800}, "tablet": {"width": 1024, "height": 768}}
WAIT = 15_000  # ms: a safety net; every wait ends on its DOM condition
BJ, ROU, CP, HOLDEM = "bj-staff", "rou-staff", "cp-staff", "holdem-staff"


def in_browser(url: str, size: str, drive: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """Open ``url`` in a fresh chromium page at ``size``; ``drive(page)``'s findings, with
    the page's uncaught errors under ``errors``."""
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=SIZES[size])
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(url)
            seen = drive(page)
        finally:
            browser.close()
    return {**seen, "errors": errors}


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"staff-{name}.png"), full_page=True)


def audit_row(page: Any, action: str, who: str) -> str:
    """The console's audit view, filtered by person: the newest ``action`` row's text."""
    page.click('#nav button[data-view="audit"]')
    page.fill("#f-who", who)
    page.click("#f-go")
    row = page.locator(f'#audit-rows tr[data-action="{action}"]').first
    expect(row).to_be_visible(timeout=WAIT)
    return str(row.inner_text())


def staff_url(server: Any, token: str, path: str = "/staff/") -> str:
    return f"{server.http_url.rstrip('/')}{path}?token={token}"


def fast(*tables: TableConfig, data: Path) -> Any:
    return config(*tables, secret=SECRET, data=data)


# -- a player's token ---------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
async def test_a_players_token_gets_no_console(size: str, tmp_path: Path) -> None:
    async with running_server(fast(data=tmp_path / "var")) as server:
        token = ACCOUNTS.issue("ann", "Ann")

        def drive(page: Any) -> dict[str, Any]:
            expect(page.locator("#denied")).to_be_visible(timeout=WAIT)
            shot(page, f"denied-{size}")
            return {
                "nav": page.locator("#nav").is_visible(),
                "floor": page.locator("#view-floor").is_visible(),
                "rows": page.locator("#floor-rows tr").count(),
                "address": page.url,
            }

        # the address without its trailing slash serves the same page
        path = "/staff" if size == "tablet" else "/staff/"
        url = staff_url(server, token, path)
        seen = await trio.to_thread.run_sync(in_browser, url, size, drive)
    assert seen["errors"] == []
    assert not seen["nav"] and not seen["floor"] and seen["rows"] == 0
    assert "token=" not in seen["address"]  # the token is not left in the address bar


# -- a supervisor voids a round -----------------------------------------------------------------
def blackjack() -> TableConfig:
    """A round stays in play: a minute for each decision."""
    return TableConfig(
        id=BJ,
        game="blackjack",
        name="Blackjack",
        options={"minimum": 100, "maximum": 5_000},
        seed=7,
        betting_seconds=0.3,
        decision_seconds=60.0,
    )


@pytest.mark.parametrize("size", SIZES)
async def test_a_supervisor_voids_a_round_and_sees_the_refund(size: str, tmp_path: Path) -> None:
    async with running_server(fast(blackjack(), data=tmp_path / "var")) as server:
        sue = ACCOUNTS.issue("sue", "Sue Park", role="supervisor")
        async with Client.connect(server.url, token=ACCOUNTS.issue("ann", "Ann")) as ann:
            server.croupier.ledger.deposit("ann", 50_000)
            await ann.join(BJ)
            wager = {"type": "wager", "table": BJ, "box": 1, "wager": "main", "amount": 500}
            await ann.request(wager, "balance")

            def drive(page: Any) -> dict[str, Any]:
                row = page.locator(f'#floor-rows tr[data-table="{BJ}"]')
                expect(row).to_contain_text("Ann", timeout=WAIT)
                expect(row.locator(".phase")).to_have_text("deciding", timeout=WAIT)
                shot(page, f"floor-{size}")
                row.locator(".open-table").click()
                expect(page.locator("#view-table")).to_be_visible(timeout=WAIT)
                # the round in play, as a spectator sees it (a minute's decision pending)
                expect(page.locator("#t-round")).not_to_have_text("no round in play")
                page.click("#c-void")  # no reason: refused by the page itself
                expect(page.locator("#notice")).to_contain_text("reason is required")
                page.fill("#t-reason", "dealer misdealt")
                page.click("#c-void")
                refund = page.locator("#t-outcome")
                expect(refund).to_contain_text("returned $5.00", timeout=WAIT)
                expect(page.locator('#t-log li[data-event="round_voided"]')).to_be_visible(
                    timeout=WAIT
                )
                shot(page, f"void-{size}")
                return {
                    "refund": refund.inner_text(),
                    "audit": audit_row(page, "void_round", "Sue Park"),
                    "hidden_for_supervisor": page.locator("#c-approve-t").is_visible(),
                }

            url = staff_url(server, sue)
            seen = await trio.to_thread.run_sync(in_browser, url, size, drive)
            assert server.croupier.ledger.balance("ann") == 50_000  # the wager came home
    assert seen["errors"] == []
    assert "void round" in seen["refund"]
    assert "Sue Park (supervisor)" in seen["audit"] and "done" in seen["audit"]
    assert "dealer misdealt" in seen["audit"]
    assert not seen["hidden_for_supervisor"]  # a manager's control is not shown


# -- a dealer enters and corrects a stadium result ----------------------------------------------
def roulette() -> TableConfig:
    return TableConfig(
        id=ROU,
        game="roulette",
        kind="stadium",
        name="Roulette terminals",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=120.0,  # the dealer calls no more bets from the console
        result_source="dealer",
    )


@pytest.mark.parametrize("size", SIZES)
async def test_a_dealer_enters_and_corrects_a_stadium_result(size: str, tmp_path: Path) -> None:
    async with running_server(fast(roulette(), data=tmp_path / "var")) as server:
        dan = ACCOUNTS.issue("dan", "Dan Wu", role="dealer")
        async with Client.connect(server.url, token=ACCOUNTS.issue("bob", "Bob")) as bob:
            server.croupier.ledger.deposit("bob", 50_000)
            await bob.join(ROU)
            await credit_in(bob, ROU, 5_000)
            await until_event(bob, ROU, "betting_open")
            await place(bob, ROU, "red", 1_000)

            def drive(page: Any) -> dict[str, Any]:
                row = page.locator(f'#floor-rows tr[data-table="{ROU}"]')
                expect(row.locator(".phase")).to_have_text("betting", timeout=WAIT)
                row.locator(".open-table").click()
                phase = page.locator('#t-facts dd[data-fact="Phase"]')
                expect(phase).to_have_text("betting", timeout=WAIT)
                page.click("#c-no-more")
                expect(phase).to_have_text("coin_in", timeout=WAIT)
                page.fill("#r-outcome", "17")
                page.click("#c-enter")
                expect(page.locator("#r-round option")).to_have_count(1, timeout=WAIT)
                result = page.locator('#t-log li[data-event="round_result"]')
                expect(result).to_contain_text('outcome {"number":17}', timeout=WAIT)
                expect(page.locator("#r-round")).to_contain_text("number 17")
                page.fill("#t-reason", "the ball dropped in 3")
                page.fill("#r-outcome", "3")
                page.click("#c-review")
                review = page.locator("#r-confirm")
                expect(review).to_be_visible(timeout=WAIT)
                expect(review).to_contain_text("recorded as number 17")
                expect(review).to_contain_text("re-settled on number 3")
                # the re-settlement, before it is confirmed: red pays even money
                terminal = review.locator("#r-terminals tbody tr")
                expect(terminal).to_have_count(1)
                expect(terminal).to_contain_text("bob")
                expect(terminal).to_contain_text("-$10.00")  # paid net: the red lost on 17
                expect(terminal.locator("td").last).to_have_text("$20.00")
                shot(page, f"correct-{size}")
                page.click("#c-confirm")
                done = page.locator("#t-outcome")
                expect(done).to_contain_text("correct result", timeout=WAIT)
                expect(page.locator("#r-round")).to_contain_text("corrected 1", timeout=WAIT)
                return {
                    "done": done.inner_text(),
                    "void_shown": page.locator("#c-void").is_visible(),
                    "audit_shown": page.locator('#nav button[data-view="audit"]').is_visible(),
                }

            url = staff_url(server, dan)
            seen = await trio.to_thread.run_sync(in_browser, url, size, drive)
        entries = await server.croupier.router.staff.audit_entries()
    assert seen["errors"] == []
    assert not seen["void_shown"] and not seen["audit_shown"]  # a dealer's console
    mine = [(e["action"], e["name"], e["outcome"]) for e in entries if e["who"] == "dan"]
    assert mine == [
        ("close_betting", "Dan Wu", "done"),
        ("result", "Dan Wu", "done"),
        ("correct_result", "Dan Wu", "done"),
    ]


# -- a manager approves jackpot wagers ----------------------------------------------------------
def canberra_poker() -> TableConfig:
    return TableConfig(
        id=CP,
        game="canberra-poker-2017",
        name="Canberra Poker",
        options={"minimum": 500, "maximum": 50_000, "jackpot_wager": 100},
        jackpot_pool="cp-staff-pool",
    )


@pytest.mark.parametrize("size", SIZES)
async def test_a_manager_approves_jackpot_wagers(size: str, tmp_path: Path) -> None:
    from server.tables.banked import JackpotAvailability

    async with running_server(fast(canberra_poker(), data=tmp_path / "var")) as server:
        mia = ACCOUNTS.issue("mia", "Mia Chen", role="manager")
        tbl = server.croupier.tables[CP]
        async with Client.connect(server.url, token=ACCOUNTS.issue("viv", "Viv")) as viv:
            await viv.join(CP, role="spectator")
            tbl.submit(JackpotAvailability(False))  # the jackpot system goes down...
            await until_event(viv, CP, "jackpot_status", where=lambda e: not e["open"])
            tbl.submit(JackpotAvailability(True))  # ...and answers again: a manager approves
            await until_event(viv, CP, "jackpot_status", where=lambda e: "approves" in e["status"])

        def drive(page: Any) -> dict[str, Any]:
            page.click('#nav button[data-view="jackpots"]')
            row = page.locator(f'#jackpot-rows tr[data-table="{CP}"]')
            expect(row).to_contain_text("awaits approval", timeout=WAIT)
            expect(row.locator(".jp-open")).to_have_text("closed")
            page.fill("#j-reason", "jackpot system checked")
            row.locator(".approve").click()
            expect(row.locator(".jp-open")).to_have_text("open", timeout=WAIT)
            expect(page.locator("#notice")).to_contain_text("approve jackpot")
            shot(page, f"jackpot-{size}")
            return {"audit": audit_row(page, "approve_jackpot", "Mia Chen")}

        seen = await trio.to_thread.run_sync(in_browser, staff_url(server, mia), size, drive)
        assert tbl.jackpot_open
    assert seen["errors"] == []
    assert "Mia Chen (manager)" in seen["audit"] and "done" in seen["audit"]
    assert "jackpot system checked" in seen["audit"]


# -- a manager's table, account and audit controls ----------------------------------------------
MANAGER_CONTROLS = [  # (control, outcome) in the order the manager uses them
    ("set_limits", "done"),
    ("void_round", "refused"),
    ("close_table", "done"),
    ("open_table", "done"),
    ("suspend", "done"),
    ("unsuspend", "done"),
]


@pytest.mark.parametrize("size", SIZES)
async def test_a_manager_uses_the_table_and_account_controls(size: str, tmp_path: Path) -> None:
    poker = holdem_table(HOLDEM)
    async with running_server(fast(poker, data=tmp_path / "var")) as server:
        mia = ACCOUNTS.issue("mia", "Mia Chen", role="manager")
        tom = ACCOUNTS.issue("tom", "Tom Till", role="cashier")
        async with Client.connect(server.url, token=tom) as cashier:
            deposit = {"type": "cashier", "op": "deposit", "account": "ann", "request": "a-1"}
            await cashier.request({**deposit, "amount": 25_000}, "cashier")

        def drive(page: Any) -> dict[str, Any]:
            row = page.locator(f'#floor-rows tr[data-table="{HOLDEM}"]')
            expect(row.locator(".phase")).to_have_text("idle", timeout=WAIT)
            row.locator(".open-table").click()
            expect(page.locator('#limits-fields input[data-limit="blind_2"]')).to_have_value("2.00")
            page.fill("#t-reason", "evening limits")
            page.fill('#limits-fields input[data-limit="blind_1"]', "2")
            page.fill('#limits-fields input[data-limit="blind_2"]', "4.00")
            page.click("#c-limits")
            expect(page.locator("#t-outcome")).to_contain_text("set limits", timeout=WAIT)
            page.click("#c-void")  # no round in play: refused, and said so
            expect(page.locator("#t-outcome")).to_contain_text("no_round", timeout=WAIT)
            page.click("#c-close")
            expect(page.locator('#t-facts dd[data-fact="Phase"]')).to_have_text(
                "closed", timeout=WAIT
            )
            page.click("#c-open")
            expect(page.locator("#t-outcome")).to_contain_text("open table", timeout=WAIT)
            expect(page.locator('#t-facts dd[data-fact="Phase"]')).to_have_text(
                "idle", timeout=WAIT
            )
            page.click('#nav button[data-view="accounts"]')
            page.fill("#a-find", "an")
            page.click("#a-find-btn")
            suspended = page.locator('#a-facts dd[data-fact="Suspended"]')
            expect(suspended).to_have_text("no", timeout=WAIT)
            expect(page.locator("#a-cashier")).to_contain_text("Tom Till")
            expect(page.locator("#a-cashier")).to_contain_text("$250.00")
            page.fill("#a-reason", "self-exclusion request")
            page.click("#a-suspend")
            expect(suspended).to_have_text("yes", timeout=WAIT)
            page.click("#a-lift")
            expect(suspended).to_have_text("no", timeout=WAIT)
            shot(page, f"account-{size}")
            rows = {}
            for control, _ in MANAGER_CONTROLS:
                rows[control] = audit_row(page, control, "Mia Chen")
            shot(page, f"audit-{size}")
            page.click("#ledger-btn")
            expect(page.locator("#ledger-state")).to_have_text("The books balance.", timeout=WAIT)
            return {"rows": rows}

        seen = await trio.to_thread.run_sync(in_browser, staff_url(server, mia), size, drive)
    assert seen["errors"] == []
    for control, outcome in MANAGER_CONTROLS:
        text = seen["rows"][control]
        assert "Mia Chen (manager)" in text and outcome in text, (control, text)
    assert "no_round" in seen["rows"]["void_round"]


@pytest.mark.parametrize("size", SIZES)
async def test_a_cashier_deposits_and_withdraws_from_the_console(size: str, tmp_path: Path) -> None:
    """The cashier's call (``cashier``) from an account's page: dollars typed, cents on the
    wire, the balance after each call shown, both movements in the account's cashier list
    and in the audit log under the cashier's own name; a supervisor is not offered it."""
    async with running_server(fast(holdem_table(HOLDEM), data=tmp_path / "var")) as server:
        server.croupier.ledger.deposit("ann", 1_000)  # an account to find
        tom = ACCOUNTS.issue("tom", "Tom Till", role="cashier")

        def drive(page: Any) -> dict[str, Any]:
            page.click('#nav button[data-view="accounts"]')
            page.fill("#a-find", "ann")
            page.click("#a-find-btn")
            balance = page.locator('#a-facts dd[data-fact="Balance"]')
            expect(balance).to_have_text("$10.00", timeout=WAIT)
            page.fill("#a-amount", "25.50")
            page.click("#a-deposit")
            expect(balance).to_have_text("$35.50", timeout=WAIT)
            page.fill("#a-amount", "$5")
            page.click("#a-withdraw")
            expect(balance).to_have_text("$30.50", timeout=WAIT)
            expect(page.locator("#a-cashier")).to_contain_text("$25.50", timeout=WAIT)
            shot(page, f"cashier-{size}")
            return {"notice": page.locator("#notice").inner_text()}

        seen = await trio.to_thread.run_sync(in_browser, staff_url(server, tom), size, drive)
        entries = await server.croupier.router.staff.audit_entries()  # what is committed
    assert seen["errors"] == [] and "balance $30.50" in seen["notice"]
    moved = [(e["action"], e["asked"]["amount"], e["name"], e["outcome"]) for e in entries]
    assert ("deposit", 2550, "Tom Till", "done") in moved
    assert ("withdraw", 500, "Tom Till", "done") in moved


# -- the Tournament Director --------------------------------------------------------------------
TD = "td-staff"


@pytest.mark.parametrize("size", SIZES)
async def test_a_tournament_director_uses_the_directors_controls(size: str, tmp_path: Path) -> None:
    from tests.tournaments.helpers import holdem

    cfg = replace(
        fast(data=tmp_path / "var"),
        tables=(),
        tournaments=(holdem(4, id=TD, min_players=2, prizes=["100"]),),
        tournament_minute=60.0,
        turn_time=1.0,  # nobody acts: each hand ends on a timeout, and a pause begins
    )
    async with running_server(cfg) as server:
        tina = ACCOUNTS.issue("tina", "Tina Diaz", role="tournament_director")
        players = {a: ACCOUNTS.issue(a, a.title()) for a in ("ann", "bob", "cy")}
        for account in players:
            server.croupier.ledger.deposit(account, 10_000)
        async with (
            Client.connect(server.url, token=players["ann"]) as ann,
            Client.connect(server.url, token=players["bob"]) as bob,
            Client.connect(server.url, token=players["cy"]) as cy,
        ):
            for p in (ann, bob, cy):
                await p.request({"type": "register", "tournament": TD}, "tournament")

            def drive(page: Any) -> dict[str, Any]:
                page.click('#nav button[data-view="tournaments"]')
                row = page.locator(f'#tournament-rows tr[data-tournament="{TD}"]')
                expect(row).to_contain_text("registering", timeout=WAIT)
                page.fill("#d-reason", "three players: start now")
                row.locator('button[data-action="start_tournament"]').click()
                expect(page.locator("#notice")).to_contain_text("started", timeout=WAIT)
                expect(row).to_contain_text("running", timeout=WAIT)
                row.locator('button[data-action="pause_tournament"]').click()
                expect(page.locator("#notice")).to_contain_text("paused", timeout=WAIT)
                expect(row).to_contain_text("on_break", timeout=WAIT)  # after the hand
                row.locator('button[data-action="resume_tournament"]').click()
                expect(page.locator("#notice")).to_contain_text("resumes", timeout=WAIT)
                expect(row).to_contain_text("running", timeout=WAIT)
                page.fill("#d-account", "bob")
                row.locator('button[data-action="disqualify"]').click()
                expect(page.locator("#notice")).to_contain_text("disqualified", timeout=WAIT)
                page.fill("#d-reason", "power failure")
                row.locator('button[data-action="cancel_tournament"]').click()
                expect(page.locator("#notice")).to_contain_text("refunded", timeout=WAIT)
                shot(page, f"tournament-{size}")
                return {
                    "floor_shown": page.locator('#nav button[data-view="floor"]').is_visible(),
                    "void_control": page.locator("#c-void").count(),
                }

            url = staff_url(server, tina)
            seen = await trio.to_thread.run_sync(in_browser, url, size, drive)
        entries = await server.croupier.router.staff.audit_entries()
    assert seen["errors"] == []
    mine = [(e["action"], e["name"], e["outcome"]) for e in entries if e["who"] == "tina"]
    assert mine == [
        (action, "Tina Diaz", "done")
        for action in (
            "start_tournament",
            "pause_tournament",
            "resume_tournament",
            "disqualify",
            "cancel_tournament",
        )
    ]


# -- each role sees its own controls ------------------------------------------------------------
ROLE_VIEWS = {  # role: (the views in its menu, the table controls it is shown)
    "cashier": ({"floor", "jackpots", "accounts"}, set()),
    "dealer": ({"floor", "jackpots"}, set()),
    "supervisor": (
        {"floor", "jackpots", "accounts", "audit"},
        {"void_round", "close_table", "set_limits"},
    ),
    "manager": (
        {"floor", "jackpots", "accounts", "audit", "tournaments"},
        {"void_round", "close_table", "set_limits"},
    ),
    "tournament_director": ({"floor", "jackpots", "tournaments"}, set()),
}


async def test_each_role_is_shown_only_the_controls_it_may_use(tmp_path: Path) -> None:
    async with running_server(fast(blackjack(), data=tmp_path / "var")) as server:
        for role, (views, controls) in ROLE_VIEWS.items():
            token = ACCOUNTS.issue(f"{role}-1", role.title(), role=role)

            def drive(page: Any) -> dict[str, Any]:
                row = page.locator(f'#floor-rows tr[data-table="{BJ}"]')
                expect(row).to_be_visible(timeout=WAIT)
                menu = {
                    str(b.get_attribute("data-view"))
                    for b in page.locator("#nav button").all()
                    if b.is_visible()
                }
                row.locator(".open-table").click()
                expect(page.locator("#view-table")).to_be_visible(timeout=WAIT)
                shown = {
                    str(c.get_attribute("data-control"))
                    for c in page.locator("#t-controls [data-control]").all()
                    if c.is_visible()
                }
                return {"menu": menu, "shown": shown}

            url = staff_url(server, token)
            seen = await trio.to_thread.run_sync(in_browser, url, "tablet", drive)
            assert seen["errors"] == [], role
            assert seen["menu"] == views, role
            assert seen["shown"] == controls, role
