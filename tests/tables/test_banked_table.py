"""A banked table without sockets, on the MockClock: boxes, the betting window, a decision
timeout, a round voided at shutdown (QLD Sch 19 s3, s5; Caribbean stud, Sch 3 s16).

The wire (the same round over sockets, recall, reconnects) is tested in
tests/integration/test_banked_round.py.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from protocol import messages as wire
from server.tables.banked import BankedTable
from server.tables.phases import Phase
from tests.tables.harness import Player, ledger, running, server_config, shutdown, table_config

START = 100_000
WINDOW = 1.5
DECISION = 4.0


def caribbean_stud() -> tuple[BankedTable, Any]:
    wallet = ledger()
    config = table_config(
        "caribbean-stud",
        options={"minimum": 100, "maximum": 5_000, "num_boxes": 4},
        betting_seconds=WINDOW,
        decision_seconds=DECISION,
    )
    return BankedTable(config, server_config(round_pause=0.5), wallet), wallet


async def boxed(table: BankedTable, wallet: Any, name: str, box: int) -> Player:
    p = Player(table, wallet, name, START)
    p.send(wire.Join(table.id, seat=box))
    await p.next("snapshot")
    return p


async def test_a_box_is_taken_wagered_on_and_left_with_the_wager_back(autojump_clock) -> None:
    """A join with a box takes it; a wager in the window moves wallet money to the layout;
    leaving while the window is open gives the box up and the wager back (s5(2))."""
    table, wallet = caribbean_stud()
    async with running(table):
        ann = await boxed(table, wallet, "ann", 2)
        await ann.next("betting_open")
        ann.send(wire.Wager(table.id, 2, "ante", 800))
        placed = await ann.next("wager_placed")
        assert placed == {**placed, "box": 2, "wager": "ante", "amount": 800}
        assert wallet.balance(ann.account) == START - 800
        ann.send(wire.Leave(table.id))
        left = await ann.next("left")
        assert left["returned"] == 800
        assert wallet.balance(ann.account) == START
        assert table.members == {}


async def test_the_window_closes_on_the_clock_and_refuses_a_late_wager(autojump_clock) -> None:
    """``betting_open`` counts ``betting_seconds`` down (s5(4)); no more bets at the deadline
    freezes the layout (s3(2)(d)); a wager after it is refused (s3(3))."""
    table, wallet = caribbean_stud()
    async with running(table):
        ann = await boxed(table, wallet, "ann", 1)
        opened = await ann.next("betting_open")
        assert opened["closes_in_ms"] == WINDOW * 1000
        at = trio.current_time()
        ann.send(wire.Wager(table.id, 1, "ante", 500))
        closed = await ann.next("no_more_bets")
        assert trio.current_time() - at == pytest.approx(WINDOW)
        assert closed == {**closed, "round": opened["round"], "boxes": {"1": {"ante": 500}}}
        ann.send(wire.Wager(table.id, 1, "ante", 900))
        refused = await ann.next("error")
        assert refused["code"] == "betting_closed"


async def test_a_decision_not_made_in_time_is_the_engines_timeout(autojump_clock) -> None:
    """A box's decision waits ``decision_seconds``; then the engine's timeout decides it
    (Caribbean stud: the box folds, the ante is lost) and the round settles."""
    table, wallet = caribbean_stud()
    async with running(table):
        ann = await boxed(table, wallet, "ann", 3)
        opened = await ann.next("betting_open")
        ann.send(wire.Wager(table.id, 3, "ante", 500))
        decision = await ann.next("decision")
        assert decision["box"] == 3 and decision["time_ms"] == DECISION * 1000
        asked = trio.current_time()
        timed = await ann.next("timed_out")
        assert trio.current_time() - asked == pytest.approx(DECISION)
        assert timed == {**timed, "round": opened["round"], "box": 3}
        await ann.next("round_result", lambda e: e["round"] == opened["round"])
        assert wallet.balance(ann.account) == START - 500


async def test_shutdown_voids_the_round_in_play_and_returns_every_wager(autojump_clock) -> None:
    """A shutdown while a decision is owed voids the round: every wager back to its wallet."""
    table, wallet = caribbean_stud()
    async with running(table):
        ann = await boxed(table, wallet, "ann", 1)
        bob = await boxed(table, wallet, "bob", 2)
        await ann.next("betting_open")
        ann.send(wire.Wager(table.id, 1, "ante", 500))
        bob.send(wire.Wager(table.id, 2, "ante", 300))
        await ann.next("decision")
        assert table.phase is Phase.DECIDING
        await shutdown(table)
        voided = await ann.next("round_voided")
        assert voided["reason"] == "shutdown"
        await trio.testing.wait_all_tasks_blocked()
        assert wallet.balance(ann.account) == START
        assert wallet.balance(bob.account) == START
