"""Stadium tables over real sockets (QLD Sch 19, electronic table games).

* 200 terminals on one roulette table for 20 rounds: every wager settled, money conserved
  (wallets + meters + layout + house == issued) after every round (s4, s7);
* a wager after "no more bets" is refused and changes nothing (s3(3));
* a dealer enters results, a no spin leaves the wagers standing (roulette s17), a correction
  re-settles the round exactly by adjustments (s10(2));
* a terminal that disconnects mid-window finds its wagers and meter on reconnect;
* a join beyond ``max_terminals`` is refused with ``game_full`` (s2(3)).
"""

from __future__ import annotations

import json
import random
import sqlite3
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from clients.stadium import (
    cash_out,
    correct_result,
    credit_in,
    enter_result,
    place,
    set_limits,
    until_event,
)
from server.config import ServerConfig, TableConfig
from server.net.app import RunningServer
from server.store.sqlite import LEDGER_FILE
from tests.integration.helpers import conserved
from tests.support import running_server

TABLE = "rou"
OUTSIDE = ["red", "black", "odd", "even", "low", "high", "dozen_1", "column_2"]


def config(**kw: Any) -> ServerConfig:
    table = TableConfig(
        id=TABLE,
        game="roulette",
        kind="stadium",
        seed=kw.pop("seed", 7),
        options={"minimum": 100, "maximum": 10_000, **kw.pop("options", {})},
        betting_seconds=kw.pop("betting_seconds", 0.6),
        max_terminals=kw.pop("max_terminals", 1000),
        result_source=kw.pop("result_source", "rng"),
    )
    return ServerConfig(
        port=0,
        tables=(table,),
        round_pause=kw.pop("round_pause", 0.05),
        starting_balance=100_000,
        close_timeout=1.0,
        outbound_queue=1024,
        **kw,
    )


def money(server: RunningServer) -> dict[str, int]:
    return server.croupier.money()


async def window(client: Client, server: RunningServer, table: str = TABLE) -> dict[str, Any]:
    """The ``betting_open`` of the window open now (older ones kept meanwhile are skipped)."""
    current = server.croupier.tables[table]
    return await until_event(
        client,
        table,
        "betting_open",
        where=lambda e: e["round"] == current.round_no and current.phase.value == "betting",
    )


@pytest.mark.slow
async def test_200_terminals_20_rounds_money_conserved(tmp_path: Path) -> None:
    """s4(2) credits, s5 wagers, s7 settlement on one shared spin, for 200 terminals; the
    ledger (SQLite) passes its books check after."""
    n_terms, rounds = 200, 20
    async with (
        running_server(replace(config(), data=tmp_path / "var"), deadline=60) as server,
        AsyncExitStack() as stack,
    ):
        clients = [
            await stack.enter_async_context(Client.connect(server.url, name=f"t{i}"))
            for i in range(n_terms)
        ]
        settled: list[int] = [0] * n_terms
        results: dict[int, Any] = {}

        async def terminal(i: int, c: Client) -> None:
            rng = random.Random(i)
            await c.join(TABLE)
            await credit_in(c, TABLE, 20_000)
            while settled[i] < rounds:
                opened = await until_event(c, TABLE, "betting_open")
                for position in rng.sample(OUTSIDE, rng.randint(0, 2)):
                    try:
                        await place(c, TABLE, position, 100 * rng.randint(1, 5))
                    except ServerError as exc:  # the window closed under us: allowed
                        assert exc.code in ("betting_closed", "insufficient_funds"), exc
                done = await until_event(
                    c, TABLE, "round_result", where=lambda e, r=opened["round"]: e["round"] == r
                )
                results.setdefault(done["round"], done["outcome"])
                assert results[done["round"]] == done["outcome"]  # one shared outcome
                settled[i] += 1

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for i, c in enumerate(clients):
                    nursery.start_soon(terminal, i, c)
        table = server.croupier.tables[TABLE]
        assert len(table.members) == n_terms
        assert conserved({"money": money(server)})
        assert table.books.totals.get("wager", 0) > 0 and table.books.totals.get("won", 0) > 0
        issued = money(server)["issued"]
        for c in clients:  # cash out: every cent back in a wallet or with the house
            await c.leave(TABLE)
        m = money(server)
        assert m["stakes"] == 0 and m["wallets"] + m["house"] == issued
    from server.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "var", lock=False, readonly=True)
    report = store.check()
    store.close()
    assert report.balanced, report.problems
    assert report.rounds_settled >= rounds


async def test_wager_after_no_more_bets_is_refused_and_changes_nothing() -> None:
    """s3(3): nothing is accepted after "no more bets", whenever the client sent it."""
    cfg = config(result_source="dealer")
    async with running_server(cfg, deadline=60) as server:
        token = server.croupier.accounts.issue("dealer-1", "Dealer", role="dealer")
        async with (
            Client.connect(server.url, name="ann") as ann,
            Client.connect(server.url, token=token) as dealer,
        ):
            await ann.join(TABLE)
            await dealer.join(TABLE, role="spectator")
            await credit_in(ann, TABLE, 5_000)
            opened = await window(ann, server)
            ack = await place(ann, TABLE, "straight_17", 500)
            assert ack["wagers"] == {"straight_17": 500} and ack["credits"] == 4_500
            await until_event(
                ann, TABLE, "no_more_bets", where=lambda e: e["round"] == opened["round"]
            )
            before = (money(server), ann.balance)
            for position, amount in (("red", 100), ("straight_17", 0), ("straight_17", 900)):
                with pytest.raises(ServerError) as refused:
                    await place(ann, TABLE, position, amount)
                assert refused.value.code == "betting_closed"
            assert (money(server), ann.balance) == before
            table = server.croupier.tables[TABLE]
            assert table.frozen == {1: {"straight_17": 500}}
            await enter_result(dealer, TABLE, {"number": 17})
            s = await until_event(ann, TABLE, "settlement")
            assert s["wagers"]["straight_17"]["net"] == 500 * 35
            assert s["credits"] == 4_500 + 500 * 35 and s["riding"] == {"straight_17": 500}
            assert conserved({"money": money(server)})


async def test_dealer_result_no_spin_and_correction_resettle_exactly(tmp_path: Path) -> None:
    """ETG-05 entered results; roulette s17 no spin (wagers stand); s10(2) correction; every
    staff command in the audit log."""
    cfg = config(
        result_source="dealer",
        options={"winning_stake_policy": "auto_collect"},
        data=tmp_path / "var",
    )
    async with running_server(cfg, deadline=60) as server:
        roles = {"dealer-1": "dealer", "boss": "manager"}
        tokens = {a: server.croupier.accounts.issue(a, a, role=r) for a, r in roles.items()}
        async with (
            Client.connect(server.url, name="ann") as ann,
            Client.connect(server.url, name="bob") as bob,
            Client.connect(server.url, token=tokens["dealer-1"]) as dealer,
            Client.connect(server.url, token=tokens["boss"]) as boss,
        ):
            for c in (ann, bob):
                await c.join(TABLE)
                await credit_in(c, TABLE, 10_000)
            await dealer.join(TABLE, role="spectator")
            await boss.join(TABLE, role="spectator")
            # a player may not enter results (s6)
            with pytest.raises(ServerError) as not_staff:
                await ann.request(
                    {"type": "result", "table": TABLE, "outcome": {"number": 1}}, "never"
                )
            assert not_staff.value.code == "not_authorized"
            opened = await window(ann, server)
            await place(ann, TABLE, "red", 1_000)
            await place(ann, TABLE, "straight_3", 200)
            await place(bob, TABLE, "straight_1", 100)
            await until_event(
                ann, TABLE, "no_more_bets", where=lambda e: e["round"] == opened["round"]
            )
            await enter_result(dealer, TABLE, {"invalid": "ball left the wheel"})
            spin = await until_event(ann, TABLE, "no_spin")
            assert spin["round"] == opened["round"]
            await enter_result(dealer, TABLE, {"number": 38})
            bad = await dealer.request({"type": "ping", "nonce": 1}, "error")
            assert bad["code"] == "bad_result"
            await enter_result(dealer, TABLE, {"number": 1})  # wrong: the ball was on 3
            first = await until_event(ann, TABLE, "settlement")
            assert first["net"] == 1_000 - 200 and first["credits"] == 10_000 + 1_000 - 200
            await until_event(bob, TABLE, "settlement")
            house = money(server)["house"]
            # nor correct one (the operator channel: a player has no control)
            with pytest.raises(ServerError) as player_fix:
                await correct_result(ann, TABLE, first["round"], {"number": 3}, "ann says")
            assert player_fix.value.code == "not_authorized"
            fixed = await correct_result(boss, TABLE, first["round"], {"number": 3}, "on 3")
            assert fixed["old"] == {"number": 1} and fixed["new"] == {"number": 3}
            assert fixed["role"] == "manager"
            adj_ann = await until_event(ann, TABLE, "round_adjusted")
            adj_bob = await until_event(bob, TABLE, "round_adjusted")
            # on 3 (red): red wins 1,000, straight 3 wins 7,000; bob's straight 1 loses
            assert adj_ann["amount"] == (1_000 + 7_000) - (1_000 - 200)
            assert adj_ann["credits"] == 10_000 + 8_000
            assert adj_bob["amount"] == -100 - 3_500 and adj_bob["credits"] == 10_000 - 100
            assert money(server)["house"] == house - adj_ann["amount"] - adj_bob["amount"]
            recall = await ann.recall(TABLE)
            assert recall is not None and recall["result"] == {"number": 3}
            assert recall["won_total"] == 8_000 and recall["bet_total"] == 1_200
            assert conserved({"money": money(server)})
            assert (await cash_out(ann, TABLE))["amount"] == 18_000
    db = sqlite3.connect(tmp_path / "var" / LEDGER_FILE)
    notes = [json.loads(body) for (body,) in db.execute("SELECT body FROM notes ORDER BY at")]
    audit = [(n["who"], n["action"], n["outcome"], n["code"]) for n in notes if n.get("audit")]
    assert audit == [
        (ann.account, "result", "refused", "not_authorized"),
        ("dealer-1", "result", "done", None),  # the no spin
        ("dealer-1", "result", "refused", "bad_result"),
        ("dealer-1", "result", "done", None),
        (ann.account, "correct_result", "refused", "not_authorized"),
        ("boss", "correct_result", "done", None),  # written by the table, which decided it
    ]
    entries = [n for n in notes if n.get("audit")]
    assert "no spin (ball left the wheel)" in entries[1]["detail"]
    assert entries[2]["asked"] == {"outcome": {"number": 38}}
    assert entries[-1]["asked"]["result"] == {"round": first["round"], "number": 3}
    assert "re-settled" in entries[-1]["detail"] and entries[-1]["table"] == TABLE
    verify_journal(tmp_path / "var", {"roulette": 1})


async def test_disconnect_mid_window_finds_wagers_and_meter_on_reconnect() -> None:
    async with running_server(config(betting_seconds=1.5), deadline=60) as server:
        async with Client.connect(server.url, name="ann") as ann:
            token = ann.token
            await ann.join(TABLE)
            await credit_in(ann, TABLE, 3_000)
            await window(ann, server)
            await place(ann, TABLE, "dozen_2", 700)
        async with Client.connect(server.url, token=token) as again:
            view = await again.join(TABLE)
            snap = view.snapshot["view"] if hasattr(view, "snapshot") else None
            table = server.croupier.tables[TABLE]
            got = table.view_for(table.members[again.account or ""])
            assert got["wagers"] == {"dozen_2": 700} and got["credit_meter"] == 2_300
            assert snap is None or snap["wagers"] == {"dozen_2": 700}
            s = await until_event(again, TABLE, "settlement")
            assert s["bet_total"] == 700


async def test_join_beyond_max_terminals_is_refused() -> None:
    async with running_server(config(max_terminals=2), deadline=60) as server:
        async with (
            Client.connect(server.url) as a,
            Client.connect(server.url) as b,
            Client.connect(server.url) as c,
        ):
            await a.join(TABLE)
            await b.join(TABLE)
            with pytest.raises(ServerError) as full:
                await c.join(TABLE)
            assert full.value.code == "game_full"


def verify_journal(data: Path, rounds: dict[str, int]) -> None:
    """Every entered result is on the record: each round replays to the same events and
    verifies against its commitment (issue 10; ETG-05)."""
    from tests.records.test_journal import check_round, rounds_in

    played = [r for r in rounds_in(data) if r.start["boxes"] and r.final_state == "settled"]
    for rnd in played:
        check_round(rnd)
        assert rnd.start["result_source"] == "dealer"
        assert [c["op"] for c in rnd.of("command")][-1] == "result"
    assert {g: sum(r.start["game"] == g for r in played) for g in rounds} == rounds


async def test_craps_line_odds_and_no_roll_with_a_stickperson(tmp_path: Path) -> None:
    """Sch 4: a win bet through its point with odds (s14), a place bet standing, a no roll
    (s23: every wager stands), each roll one betting window."""
    table = TableConfig(
        id="crp",
        game="craps",
        kind="stadium",
        options={"minimum": 500, "maximum": 10_000},
        betting_seconds=0.4,
        result_source="dealer",
    )
    cfg = ServerConfig(
        port=0,
        tables=(table,),
        round_pause=0.05,
        close_timeout=1.0,
        data=tmp_path,
    )
    async with running_server(cfg, deadline=60) as server:
        token = server.croupier.accounts.issue("stick", "Stick", role="stickperson")
        async with (
            Client.connect(server.url, name="ann") as ann,
            Client.connect(server.url, token=token) as stick,
        ):
            with trio.fail_after(20):
                await ann.join("crp")
                await stick.join("crp", role="spectator")
                await credit_in(ann, "crp", 10_000)

                async def roll(dice: Any) -> dict[str, Any]:
                    await until_event(stick, "crp", "awaiting_result")
                    await enter_result(stick, "crp", dice)
                    return await until_event(ann, "crp", "round_result")

                await window(ann, server, "crp")
                with pytest.raises(ServerError) as early:
                    await place(ann, "crp", "win_odds", 500)
                assert early.value.reason == "no_point"
                await place(ann, "crp", "win", 500)
                assert (await roll({"dice": [2, 4]}))["call"] == "6"
                await window(ann, server, "crp")
                view = server.croupier.tables["crp"].view_for(
                    server.croupier.tables["crp"].members[ann.account or ""]
                )
                assert view["puck"] == 6 and view["wagers"] == {"win": 500}
                await place(ann, "crp", "win_odds", 500)
                ack = await place(ann, "crp", "place_8", 600)
                assert ack["wagers"] == {"win": 500, "win_odds": 500, "place_8": 600}
                assert ack["credits"] == 10_000 - 1_600
                nr = await roll({"invalid": "off_table"})
                assert nr["outcome"] is None and nr["call"] == "no roll"
                await window(ann, server, "crp")
                hard = await roll({"dice": [3, 3]})
                assert hard["call"] == "6 the hard way"
                s = await until_event(
                    ann, "crp", "settlement", where=lambda e: e["round"] == hard["round"]
                )
                assert s["wagers"]["win"]["net"] == 500 and s["wagers"]["win_odds"]["net"] == 600
                assert s["riding"] == {"win": 500, "place_8": 600}  # the win bet stays up
                assert s["credits"] == 10_000 - 1_600 + 500 + 600 + 500
                assert conserved({"money": money(server)})
    verify_journal(tmp_path, {"craps": 3})


async def test_one_credit_meter_for_two_games_and_limits_with_notice() -> None:
    """s4(3): one meter, reserved atomically by wagers at two tables; s8 + Part 2 s12(1):
    a terminal's lower maximum takes effect after three rounds' notice; s12(2): a higher
    minimum at once, the terminal already playing keeps the old one."""
    rou = TableConfig(
        id="rou2",
        game="roulette",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=0.3,
    )
    sic = TableConfig(
        id="sic2",
        game="sic-bo",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000, "min_increase_mode": "immediate_grandfathered"},
        betting_seconds=0.3,
    )
    cfg = ServerConfig(port=0, tables=(rou, sic), round_pause=0.02, close_timeout=1.0)
    async with running_server(cfg, deadline=60) as server:
        token = server.croupier.accounts.issue("sup", "Sup", role="supervisor")
        async with (
            Client.connect(server.url, name="ann") as ann,
            Client.connect(server.url, token=token) as sup,
        ):
            await ann.join("rou2")
            await ann.join("sic2")
            assert await credit_in(ann, "rou2", 1_000) == 1_000
            await window(ann, server, "sic2")
            ack = await place(ann, "sic2", "big", 600)
            assert ack["credits"] == 400  # the same meter, seen from the other table
            await window(ann, server, "rou2")
            with pytest.raises(ServerError) as short:
                await place(ann, "rou2", "red", 500)
            assert short.value.code == "insufficient_funds"
            # limits: a lower maximum for terminal 1 at the roulette table, with notice
            rou_table = server.croupier.tables["rou2"]
            await sup.join("rou2", role="spectator")
            limits = {"minimum": 100, "maximum": 300, "terminal": 1}
            staged = await set_limits(sup, "rou2", limits, "terminal 1: lower maximum")
            notice = await until_event(ann, "rou2", "limits_notice")
            assert notice["from_round"] == rou_table.round_no + 4
            assert staged["detail"].startswith(f"new limits from round {notice['from_round']}")
            changed = await until_event(ann, "rou2", "limits_changed")
            assert changed == {  # to terminal 1 alone
                "type": "limits_changed",
                "minimum": 100,
                "maximum": 300,
            }
            assert rou_table.round_no == notice["from_round"]
            # sic-bo: a higher minimum at once; ann keeps the old one (s12(2))
            await set_limits(sup, "sic2", {"minimum": 500, "maximum": 10_000}, "evening")
            await until_event(ann, "sic2", "limits_changed")
            sic_table = server.croupier.tables["sic2"]
            assert sic_table.limits == (500, 10_000)
            term = sic_table.members[ann.account or ""]
            assert sic_table.limits_of(term) == (100, 10_000)
            assert conserved({"money": money(server)})


async def test_baccarat_coup_entered_by_the_dealer(tmp_path: Path) -> None:
    """ETG-05 a live table feeding terminals (baccarat Sch 1 s3(3)): the coup's cards."""
    table = TableConfig(
        id="bac",
        game="baccarat",
        kind="stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=0.3,
        result_source="dealer",
    )
    cfg = ServerConfig(port=0, tables=(table,), round_pause=0.02, close_timeout=1.0, data=tmp_path)
    async with running_server(cfg, deadline=60) as server:
        token = server.croupier.accounts.issue("d", "D", role="dealer")
        async with (
            Client.connect(server.url, name="ann") as ann,
            Client.connect(server.url, token=token) as dealer,
        ):
            await ann.join("bac")
            await dealer.join("bac", role="spectator")
            await credit_in(ann, "bac", 5_000)
            opened = await window(ann, server, "bac")
            await place(ann, "bac", "banker", 2_000)
            await until_event(
                dealer, "bac", "awaiting_result", where=lambda e: e["round"] == opened["round"]
            )
            # player 9h 9d = 8, banker Kd 9c = 9: naturals, nobody draws; 3 cards are too few
            await enter_result(dealer, "bac", {"cards": ["9h", "Kd", "9d"]})
            bad = await dealer.request({"type": "ping", "nonce": 2}, "error")
            assert bad["code"] == "bad_result"
            await enter_result(dealer, "bac", {"cards": ["9h", "Kd", "9d", "9c"]})
            s = await until_event(ann, "bac", "settlement")
            assert s["result"]["winner"] == "banker" and s["call"].startswith("banker wins 9")
            assert s["wagers"]["banker"]["net"] == 1_900 - 1_900 % 50  # 19:20, 50c round down
    verify_journal(tmp_path, {"baccarat": 1})
