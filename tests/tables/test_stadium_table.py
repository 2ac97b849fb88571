"""A stadium table without sockets, on the MockClock: terminals, the betting window, a round
voided at shutdown (QLD Sch 19; digest electronic-table-games.md).

The wire (many terminals over sockets, reconnects) is tested in tests/integration/test_stadium.py.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from protocol import messages as wire
from server.tables.phases import Phase
from server.tables.stadium import StadiumTable
from tests.tables.harness import Player, ledger, running, server_config, shutdown, table_config

START = 100_000
WINDOW = 2.0


def roulette(**kw: Any) -> tuple[StadiumTable, Any]:
    wallet = ledger()
    config = table_config(
        "roulette",
        "stadium",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=WINDOW,
        **kw,
    )
    return StadiumTable(config, server_config(round_pause=0.5), wallet), wallet


async def terminal(table: StadiumTable, wallet: Any, name: str, credits: int) -> Player:
    """A terminal joined with ``credits`` on its meter."""
    p = Player(table, wallet, name, START)
    p.send(wire.Join(table.id))
    await p.next("snapshot")
    p.send(wire.CreditIn(table.id, credits))
    assert (await p.next("credit_meter"))["credits"] == credits
    return p


async def test_a_terminal_credits_in_and_its_meter_goes_home_when_it_leaves(
    autojump_clock,
) -> None:
    """Credits come from the wallet onto the meter (s4(2)); leaving the last stadium table
    pays the meter back to the wallet (s9(3))."""
    table, wallet = roulette()
    async with running(table):
        ann = await terminal(table, wallet, "ann", 3_000)
        assert wallet.balance(ann.account) == START - 3_000
        ann.send(wire.Leave(table.id))
        left = await ann.next("left")
        assert left["reason"] == "left" and left["returned"] == 3_000
        assert wallet.balance(ann.account) == START
        assert table.members == {}


async def test_the_window_closes_on_the_clock_and_refuses_a_late_wager(autojump_clock) -> None:
    """``betting_open`` counts ``betting_seconds`` down (s5(4)); at the deadline no more bets
    (s3(2)(d)), a wager after it is refused (s3(3)); the round settles the frozen layout
    (an RNG result: settled in the step that closed the window, before the late wager)."""
    table, wallet = roulette()
    async with running(table):
        ann = await terminal(table, wallet, "ann", 3_000)
        opened = await ann.next("betting_open")
        assert opened["closes_in_ms"] == WINDOW * 1000
        at = trio.current_time()
        ann.send(wire.Place(table.id, "red", 500))
        ack = await ann.next("bet_ack")
        assert ack["wagers"] == {"red": 500} and ack["credits"] == 2_500
        closed = await ann.next("no_more_bets")
        assert closed["round"] == opened["round"]
        assert trio.current_time() - at == pytest.approx(WINDOW)
        ann.send(wire.Place(table.id, "black", 500))
        refused = await ann.next("error")
        assert refused["code"] == "betting_closed"
        (settled,) = (e for e in ann.saw("settlement") if e["round"] == opened["round"])
        assert settled["bet_total"] == 500 and ann.saw("no_more_bets")[-1] == closed


async def test_shutdown_voids_the_round_awaiting_its_result(autojump_clock) -> None:
    """A round whose result a dealer enters (ETG-05) waits after no more bets; a shutdown
    voids it: every wager back on its meter, the meters home to the wallets."""
    table, wallet = roulette(result_source="dealer")
    async with running(table):
        ann = await terminal(table, wallet, "ann", 3_000)
        bob = await terminal(table, wallet, "bob", 2_000)
        opened = await ann.next("betting_open")
        ann.send(wire.Place(table.id, "red", 700))
        bob.send(wire.Place(table.id, "dozen_2", 300))
        await ann.next("awaiting_result")
        await trio.sleep(60)  # however long the dealer takes, the round waits
        assert table.phase is Phase.NO_MORE_BETS
        await shutdown(table)
        voided = await ann.next("round_voided")
        assert voided == {**voided, "round": opened["round"], "reason": "shutdown"}
        assert wallet.balance(ann.account) == START
        assert wallet.balance(bob.account) == START
