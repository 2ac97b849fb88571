"""Tournaments in the browser (clients/web/tournaments.js) driven by Debian's chromium, at a
desktop (1280x800) and a phone (360x740) size in the same sit-and-go.

A four-player hold'em sit-and-go (ACT r 19) on two tables of three, with short levels: the
two pages find it in the lobby with its published conditions (2017 r 17.2(b)), register (one
withdraws and registers again: refunded in full), two bots fill it, and the tournament seats
everyone. Each page shows the bar over its table (level, blinds, the level's clock, players
left) with the table's amounts in chips and the wallet in dollars; the Tournament Director
moves the desktop player to the other table and the page follows ("you were moved to table
N"), then pauses the tournament ("Paused" on both) and resumes it; at the end each page shows
its place (and prize). Screenshots go to artifacts/.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import msgspec
import trio
from playwright.sync_api import expect

from clients.client import Client
from loadtest.tournament import TournamentBot as PokerBot
from server.tournaments.conditions import Conditions
from tests.clients.support import ARTIFACTS, config, holdem_table
from tests.clients.test_web import DESKTOP, GEOMETRY, Chromium, _login_guest, chromium, new_page
from tests.support import running_server
from tests.tournaments.helpers import holdem

__all__ = ["chromium"]  # the module's browser (a fixture of tests/clients/test_web.py)

PHONE = {"width": 360, "height": 740}
SNG = "sng-web"

# The tournament's own elements: inside the viewport's width (the lobby scrolls down on a
# phone), none overlapping another, and the bar clear of the table's seats and controls.
TOURNEY_GEOMETRY = """() => {
    const sel = ["#tourneys button", "#tourneys .tr-phase", "#tourneys .tr-name",
      "#tourney-bar", "#felt .seat", "#controls button"];
    const items = [];
    for (const el of document.querySelectorAll(sel.join(","))) {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || el.closest("[hidden]")) continue;
      items.push({ el, r, name: el.id || el.className });
    }
    const problems = [];
    for (const { r, name } of items) {
      if (r.left < -0.5 || r.right > innerWidth + 0.5) problems.push(`off the screen: ${name}`);
    }
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const a = items[i], b = items[j];
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (w > 1 && h > 1) problems.push(`overlap: ${a.name} / ${b.name}`);
      }
    }
    return problems;
}"""


def conditions(tournament: str = SNG) -> Conditions:
    """Four players on two tables of three, one-"minute" levels (the test's minute is short)."""
    c = holdem(4, sit_and_go=4, tables=2, id=tournament, min_players=3)
    session = msgspec.structs.replace(c.sessions[0], players_per_table=3)
    return msgspec.structs.replace(c, sessions=[session])


def settled(page: Any) -> dict[str, Any]:
    """The table screen's geometry once the layout has settled: seats are laid out again a
    frame after the felt changes size (a bar, the pre-action row), so a check may catch the
    frame between; up to 3 s for a layout with no problem."""
    for _ in range(15):
        table: dict[str, Any] = page.evaluate(GEOMETRY, "table")
        tourney: list[str] = page.evaluate(TOURNEY_GEOMETRY)
        if not table["problems"] and not tourney:
            break
        page.wait_for_timeout(200)
    return {"table": table["problems"], "tourney": tourney}


def card(page: Any) -> Any:
    return page.locator(f'#tourney-list .tourney[data-tournament="{SNG}"]')


def register(page: Any) -> None:
    card(page).locator(".tr-register").click()
    me = card(page).locator(".tr-me")  # (the last entry may start it at once: seated)
    expect(me).to_contain_text(re.compile("You are registered|You play at"), timeout=10_000)


def two_pages(browser: Any, http_url: str, paused: threading.Event) -> dict[str, Any]:
    """The desktop page (alice) and the phone page (pia), side by side in one browser;
    ``paused`` is set once both show the director's pause."""
    seen: dict[str, Any] = {"console_errors": []}
    ARTIFACTS.mkdir(exist_ok=True)
    with new_page(browser, DESKTOP, seen) as desk, new_page(browser, PHONE, seen) as phone:
        _login_guest(desk, http_url, "alice")
        _login_guest(phone, http_url, "pia")
        for page in (desk, phone):
            expect(card(page)).to_be_visible(timeout=10_000)
            expect(card(page).locator(".tr-phase")).to_have_text("Registering")
        seen["card"] = card(desk).inner_text()
        card(desk).locator("summary").click()
        seen["conditions"] = card(desk).locator(".tr-conditions").inner_text()
        desk.screenshot(path=str(ARTIFACTS / "tournament-lobby-1280x800.png"), full_page=True)

        # register, withdraw (the fee back less the commission, ACT r 19.4), register again;
        # the wallet is dollars
        register(desk)
        expect(desk.locator("#balance")).to_have_text("Wallet $9,989.00", timeout=10_000)
        card(desk).locator(".tr-unregister").click()
        expect(card(desk).locator(".tr-register")).to_be_visible(timeout=10_000)
        expect(desk.locator("#balance")).to_have_text("Wallet $9,999.00", timeout=10_000)
        register(desk)
        register(phone)
        seen["phone_lobby"] = phone.evaluate(TOURNEY_GEOMETRY)
        phone.screenshot(path=str(ARTIFACTS / "tournament-lobby-360x740.png"), full_page=True)

        # the bots fill it: the tournament seats each page at a table of its own accord
        for page in (desk, phone):
            bar = page.locator("#tourney-bar")
            expect(bar).to_be_visible(timeout=30_000)
            expect(bar.locator(".tb-clock")).to_contain_text(re.compile(r"\d:\d\d"))
            mine = page.locator(".seat.mine .stack")
            expect(mine).to_have_text(re.compile(r"^[1-9][\d,]*$"), timeout=10_000)
        seen["bar"] = desk.locator("#tourney-bar").inner_text()
        seen["stack"] = desk.locator(".seat.mine .stack").inner_text()
        seen["wallet_playing"] = desk.locator("#balance").inner_text()
        seen["log"] = desk.locator("#log").inner_text()
        seen["phone_table"] = settled(phone)
        seen["desk_table"] = settled(desk)
        phone.screenshot(path=str(ARTIFACTS / "tournament-table-360x740.png"))
        desk.screenshot(path=str(ARTIFACTS / "tournament-table-1280x800.png"))

        # the director moves alice: the notice, and the page follows to the new table
        notice = desk.locator("#tourney-bar .tb-notice")
        expect(notice).to_contain_text("You were moved to table", timeout=30_000)
        seen["notice"] = notice.inner_text()
        expect(desk.locator("#log")).to_contain_text("You were moved to table", timeout=10_000)
        seen["moved_table"] = desk.locator("#crumb-table").inner_text()
        seen["moved_log"] = desk.locator("#log").inner_text()
        desk.screenshot(path=str(ARTIFACTS / "tournament-moved-1280x800.png"))

        # the director pauses the tournament (every table between hands), then resumes it
        for page in (desk, phone):
            expect(page.locator("#tourney-bar .tb-clock")).to_have_text("Paused", timeout=30_000)
        seen["paused"] = phone.locator("#tourney-bar").inner_text()
        paused.set()
        expect(desk.locator("#tourney-bar .tb-clock")).to_contain_text("Level ends in")

        # to the end: out or the winner, each page is back in the lobby with its place (and
        # its prize once the tournament is complete)
        places: dict[str, str] = {}
        for name, page in (("desk", desk), ("phone", phone)):
            expect(card(page).locator(".tr-phase")).to_have_text("Complete", timeout=60_000)
            expect(card(page).locator(".tr-me")).to_contain_text("finished in place")
            places[name] = card(page).locator(".tr-me").inner_text()
        seen["places"] = places
        desk.screenshot(path=str(ARTIFACTS / "tournament-place-1280x800.png"))
        phone.screenshot(path=str(ARTIFACTS / "tournament-place-360x740.png"))
    return seen


async def test_browser_lists_registers_shows_the_clock_follows_a_move_and_the_place(
    chromium: Chromium,
) -> None:
    cfg = config(
        holdem_table(),
        tournaments=(conditions(),),
        tournament_minute=1.5,
        turn_time=1.0,
        round_pause=0.2,
    )
    async with running_server(cfg) as server:
        runner = server.croupier.tournaments[SNG]
        t = runner.tournament
        director = server.croupier.accounts.issue("tina", "Tina", role="tournament_director")
        bots = [PokerBot(server.url, f"bot{i}", SNG, seed=i) for i in range(2)]
        moved: dict[str, Any] = {}
        paused = threading.Event()

        async def director_moves_alice() -> None:
            while len(t.entries) < 2 or len(t.status) < 2:  # both pages registered
                await trio.sleep(0.1)
            for bot in bots:
                nursery.start_soon(bot.run)
            while runner.tournament.phase.value != "running":
                await trio.sleep(0.1)
            alice = next(a for a, n in runner.names.items() if n == "alice")
            here = runner.at[alice]
            there = next(tb for tb in t.tables if tb.number != here)
            seat = min(set(range(1, there.seats + 1)) - set(there.players))
            async with Client.connect(server.url, token=director) as td:
                moved["done"] = await td.request(
                    {
                        "type": "operator",
                        "action": "move_player",
                        "tournament": SNG,
                        "account": alice,
                        "limits": {"table": there.number, "seat": seat},
                        "reason": "balance the test tables",
                    },
                    "operator",
                )
                moved["from"], moved["to"] = here, there.number
                for action in ("pause_tournament", "resume_tournament"):
                    await td.request(
                        {"type": "operator", "action": action, "tournament": SNG, "reason": "test"},
                        "operator",
                    )
                    while not paused.is_set():  # both pages saw the pause
                        await trio.sleep(0.1)

        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(director_moves_alice)
                seen = await chromium.run(two_pages, server.http_url, paused)
                nursery.cancel_scope.cancel()
    assert seen["console_errors"] == []
    # the lobby: the published conditions, money in dollars, chips as chips
    assert "Entry $11.00" in seen["card"] and "1,000 chips" in seen["card"]
    assert "Sit & go: starts when 4 have entered" in seen["card"]
    assert "$1.00 commission" in seen["conditions"] and "10/20 \u00b7 1 min" in seen["conditions"]
    assert "1st 50%, 2nd 30%, 3rd 20% of the pool" in seen["conditions"]
    assert seen["phone_lobby"] == [], "\n".join(seen["phone_lobby"])
    # the table: level, blinds in chips, the clock, players left; stacks are chips
    assert re.search(r"Level \d+ \u00b7 blinds [\d,]+/[\d,]+", seen["bar"]), seen["bar"]
    assert "of 4 left" in seen["bar"] and "chips" in seen["bar"]
    assert "$" not in seen["stack"] and re.fullmatch(r"[\d,]+", seen["stack"].strip())
    assert seen["wallet_playing"] == "Wallet $9,988.00"
    assert re.search(r"alice sits down with [\d,]+ chips\.", seen["log"]), seen["log"]
    assert "$" not in seen["log"]
    for layout in ("phone_table", "desk_table"):
        assert seen[layout] == {"table": [], "tourney": []}, seen[layout]
    # the move (the director's, or a balancing move right after it): announced, and the page
    # is at the table it names
    assert moved.get("done") and moved["from"] != moved["to"]
    number = seen["moved_table"].rsplit(" ", 1)[1]
    assert f"You were moved to table {number}, seat " in seen["moved_log"], seen["moved_log"]
    assert "Paused" in seen["paused"] and "of 4 left" in seen["paused"]
    # the end: both pages show their places
    assert t.phase.value == "complete"
    assert set(seen["places"]) == {"desk", "phone"}, seen["places"]
    for text in seen["places"].values():
        place = int(re.search(r"place (\d)", text).group(1))  # type: ignore[union-attr]
        assert (" and won $" in text) == (place <= 3), text
