"""Full tables over real sockets: every game plays, money is conserved, nothing leaks.

A 9-seat table of scripted clients per game (all six at once, one server) plays at least 50
rounds each, so at least 300 rounds in all; every frame each client receives is recorded and
checked for hole cards of other seats before the showdown and for undealt cards.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import trio

from clients.client import Client
from server.games.poker import rules_for
from tests.server.helpers import GAMES, STAKES, Bot, fast_config, play_hands, table
from tests.support import running_server

CARD = re.compile(r"^[2-9TJQKA][shdc]$")
HANDS = 50


def _cards_in(obj: Any) -> set[str]:
    """Every string in a decoded frame that names a card."""
    if isinstance(obj, str):
        return {obj} if CARD.match(obj) else set()
    if isinstance(obj, dict):
        return set().union(*(_cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(_cards_in(v) for v in obj)) if obj else set()
    return set()


def check_no_leaks(frames: list[dict[str, Any]], seat: int | None, schedule: tuple[int, ...]):
    """Replay one recipient's frames: every card it is sent must be one it may know.

    A recipient may know its own hole cards (``hole_cards_dealt`` for its seat), the board
    cards dealt so far, and hands shown at the showdown (ACT r 9.2; QLD Sch 11 s27, Sch 5
    s25). Burn cards never reach anyone, and each board event carries exactly the cards the
    schedule has dealt by that betting round (no undealt card).
    """
    known: set[str] = set()
    board: list[str] = []
    rounds = 0
    for frame in frames:
        if frame["type"] == "snapshot":
            rnd = frame["view"]["round"] or {"board": [], "seats": {}, "complete": False}
            board = list(rnd["board"])
            known = set(board)
            for s, info in rnd["seats"].items():
                if "cards" in info:
                    assert int(s) == seat or rnd["complete"], f"snapshot shows seat {s}'s cards"
                    known |= set(info["cards"])
        if frame["type"] == "turn":
            assert (frame["seat"] == seat) or not frame["legal"], "legal actions to another seat"
        if frame["type"] != "event":
            assert not _cards_in(frame) - known, f"unexpected cards in {frame}"
            continue
        ev = frame["event"]
        kind = ev["type"]
        assert kind != "card_burned", "a burn card left the server"
        if kind == "round_starting":
            known, board = set(), []
            rounds += 1
        elif kind == "hole_cards_dealt":
            assert ev["seat"] == seat, f"seat {seat} was sent seat {ev['seat']}'s hole cards"
            known |= set(ev["cards"])
        elif kind == "board_dealt":
            assert ev["board"] == board + ev["cards"], "board out of order"
            assert len(ev["board"]) == sum(schedule[: ev["round"]]), "undealt board card"
            board = ev["board"]
            known |= set(ev["cards"])
        elif kind == "hand_shown":
            known |= set(ev["cards"])
        leaked = _cards_in(frame) - known
        assert not leaked, f"seat {seat} saw {leaked} in {ev}"
    return rounds


async def _spectate(url: str, table_id: str, frames: list[dict[str, Any]]) -> None:
    async with Client.connect(url, name="watcher") as client:
        view = await client.join(table_id, role="spectator")
        frames.append({"type": "snapshot", "view": copy.deepcopy(view.view), "seat": None})
        async for msg in client:
            frames.append(msg)


@pytest.mark.slow
async def test_six_games_full_tables_conserve_money_and_leak_nothing():
    """Six 9-seat tables (one per game) each play >= 50 rounds; wallets + stakes +
    commission equal the money issued, during play and after shutdown; no frame to any seat
    or spectator holds another seat's hole cards before the showdown, or an undealt card."""
    config = fast_config(*(table(g, seed=i) for i, g in enumerate(GAMES)))
    watched: dict[str, list[dict[str, Any]]] = {g: [] for g in GAMES}
    async with running_server(config) as server:
        croupier = server.croupier
        bots = [
            Bot(server.url, f"{g}-t", s, seed=100 * i + s)
            for i, g in enumerate(GAMES)
            for s in range(1, 10)
        ]
        async with trio.open_nursery() as nursery:
            for g in GAMES:
                nursery.start_soon(_spectate, server.url, f"{g}-t", watched[g])
            await play_hands(server, bots, HANDS, timeout=150)
            money = croupier.money()
            assert money["wallets"] + money["stakes"] + money["commission"] == money["issued"]
            assert money["commission"] > 0
            nursery.cancel_scope.cancel()
        for t in croupier.tables.values():
            assert t.hand >= HANDS
    money = croupier.money()
    assert money["stakes"] == 0
    assert money["wallets"] + money["commission"] == money["issued"] == 60 * 1_000_000  # 54 + 6

    total_rounds = 0
    for i, g in enumerate(GAMES):
        schedule = rules_for(g, STAKES[g]).board_schedule
        for bot in bots[9 * i : 9 * i + 9]:
            assert not [
                e for e in bot.errors if e["code"] not in ("round_in_progress", "buy_in_range")
            ], bot.errors[:3]
            rounds = check_no_leaks(bot.frames, bot.seat, schedule)
            total_rounds = max(total_rounds, rounds)
        check_no_leaks(watched[g], None, schedule)
        assert any(
            f["type"] == "event" and f["event"]["type"] == "hand_shown" for f in watched[g]
        ), f"{g}: no showdown was ever watched"
    assert total_rounds >= HANDS - 1
