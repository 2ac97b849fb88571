"""A poker table without sockets, on the MockClock: seats, the turn timer, a shutdown.

The wire (frames, sockets, reconnects) is tested in ``tests/server/``; here only the table.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from protocol import messages as wire
from server.tables.poker import PokerTable
from tests.server.helpers import STAKES
from tests.tables.harness import Player, ledger, running, server_config, shutdown, table_config

BUY_IN = 10_000
START = 100_000


def poker(seats: int = 3, **config: Any) -> tuple[PokerTable, Any]:
    wallet = ledger()
    options = dict(STAKES["holdem-act"], max_seats=seats)
    table = PokerTable(table_config("holdem-act", options=options), server_config(**config), wallet)
    return table, wallet


async def seated(table: PokerTable, wallet: Any, n: int) -> dict[int, Player]:
    """``n`` players at seats 1..n, each with a stake of ``BUY_IN``."""
    players = {}
    for seat in range(1, n + 1):
        p = players[seat] = Player(table, wallet, f"p{seat}", START)
        p.send(wire.Join(table.id, seat=seat))
        await p.next("snapshot")
        p.send(wire.BuyIn(table.id, BUY_IN))
    return players


async def test_a_seat_is_taken_staked_and_left_with_its_stake_back(autojump_clock) -> None:
    """A join takes the seat (everyone is told), a buy-in moves wallet money to the stake,
    leaving between rounds returns it all."""
    table, wallet = poker(seats=3)
    async with running(table):
        ann = Player(table, wallet, "ann", START)
        ann.send(wire.Join(table.id, seat=2))
        snap = await ann.next("snapshot")
        assert snap["seat"] == 2 and snap["role"] == "player"
        ann.send(wire.BuyIn(table.id, BUY_IN))
        staked = await ann.next("stake")
        assert staked == {**staked, "seat": 2, "stake": BUY_IN, "added": BUY_IN}
        assert wallet.balance(ann.account) == START - BUY_IN
        ann.send(wire.Leave(table.id))
        left = await ann.next("left")
        assert left == {**left, "reason": "left", "returned": BUY_IN}
        assert wallet.balance(ann.account) == START
        assert table.seats == {}


async def test_the_turn_timer_checks_if_free_else_folds(autojump_clock) -> None:
    """The turn timer (turn time + time bank) acts for the seat: check when checking is
    legal, otherwise fold (issue 3 "Pace"; engine timeout), at the turn's deadline exactly."""
    table, wallet = poker(seats=2, turn_time=0.8, time_bank=0.4)
    async with running(table):
        players = await seated(table, wallet, 2)
        watcher = players[1]
        t = await players_turn(players)
        assert t["time_ms"] == 1200 and t["time_bank_ms"] == 400
        assert "check" not in verbs(t)  # facing the blind
        players[t["seat"]].send(wire.Act(table.id, "call"))
        t2 = await players_turn(players)
        # the blind's option to decline a further wager (ACT 7.1): time out -> check
        assert t2["seat"] != t["seat"] and "check" in verbs(t2)
        asked = trio.current_time()
        timed = await watcher.next("timed_out")
        assert trio.current_time() - asked == pytest.approx(1.2)
        assert without_seq(timed) == {
            "type": "timed_out",
            "seat": t2["seat"],
            "verb": "check",
        }
        t3 = await players_turn(players)
        (bet,) = (legal for legal in t3["legal"] if legal["verb"] == "bet")
        players[t3["seat"]].send(wire.Act(table.id, "bet", bet["min"]))
        t4 = await players_turn(players)
        assert "check" not in verbs(t4)  # facing a bet: time out -> fold
        timed = await watcher.next("timed_out")
        assert without_seq(timed) == {
            "type": "timed_out",
            "seat": t4["seat"],
            "verb": "fold",
        }


async def players_turn(players: dict[int, Player]) -> dict[str, Any]:
    """The next ``turn`` as the seat to act received it (with its legal actions)."""
    t = await players[1].next("turn")
    if t["legal"]:
        return t
    return await players[t["seat"]].next("turn", lambda m: m["seat"] == t["seat"] and m["legal"])


def without_seq(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "seq"}


def verbs(turn: dict[str, Any]) -> set[str]:
    return {legal["verb"] for legal in turn["legal"]}


async def test_shutdown_voids_the_hand_and_returns_every_stake(autojump_clock) -> None:
    """A shutdown mid-hand voids it (every wager back) and cashes every seat out."""
    table, wallet = poker(seats=3)
    async with running(table):
        players = await seated(table, wallet, 3)
        t = await players_turn(players)
        players[t["seat"]].send(wire.Act(table.id, "call"))
        await players_turn(players)  # the blinds and a call are in the pot
        await shutdown(table)
        voided = await players[1].next("round_voided")
        assert voided["reason"] == "shutdown"
        returned = {}
        for seat, p in players.items():
            gone = await p.next("left")
            assert gone["reason"] == "shutdown"
            returned[seat] = gone["returned"]
        assert returned == {1: BUY_IN, 2: BUY_IN, 3: BUY_IN}
        assert all(wallet.balance(p.account) == START for p in players.values())
