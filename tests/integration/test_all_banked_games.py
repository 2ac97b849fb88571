"""Every banked game at a server table, over real sockets, with random bots.

Two bots per table place the required wager and, at random, the optional ones (the jackpot
wager where the table is linked to a pool), then decide at random among the legal choices the
server prompted, or let the clock run out. Each round's result must account for every stake
(Sch 19 s7), and money is conserved across wallets, layouts, the house and the pools.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from typing import Any

import trio

from clients.client import Client, ServerError
from server.config import ServerConfig, TableConfig
from server.games.banked.pai_gow import settings_of
from server.games.banked.scenario import round_class
from server.games.registry import tabled
from tests.integration.helpers import conserved
from tests.support import running_server

ROUNDS = 3
LINKED = {"caribbean-stud": "pool-csp", "canberra-poker-2017": "pool-act"}


def tables() -> tuple[TableConfig, ...]:
    out = []
    for game in tabled("banked"):
        options: dict[str, Any] = {"minimum": 100, "maximum": 5_000}
        pool = LINKED.get(game)
        if pool:
            options["jackpot_wager"] = 100
        out.append(
            TableConfig(
                id=game,
                game=game,
                options=options,
                jackpot_pool=pool,
                seed=len(out) + 1,
                betting_seconds=1.0,
                decision_seconds=0.5,
            )
        )
    return tuple(out)


def player_boxes(game: str) -> list[int]:
    """Two boxes a player may take: not the house's bank box (pai gow, Sch 6 s18(13))."""
    bank = round_class(game).spec.bank_box
    return [b for b in (1, 2, 3) if b != bank][:2]


async def bot(url: str, game: str, box: int, seen: Counter[str], results: list[dict]) -> None:
    rng = random.Random(f"{game}-{box}")
    spec = round_class(game).spec
    rounds = 0
    tiles: list[str] = []
    async with Client.connect(url, name=f"b{box}") as client:
        await client.join(game, seat=box)
        async for message in client:
            if message.get("type") != "event":
                continue
            event = message["event"]
            kind = event["type"]
            if kind == "betting_open":
                if rounds >= ROUNDS:
                    return
                for w in spec.wagers:
                    if not w.initial or (not w.required and rng.random() < 0.5):
                        continue
                    if w.limits == "jackpot" and game not in LINKED:
                        continue
                    amount = 100 if w.limits == "jackpot" else 100 * rng.randint(1, 3)
                    try:
                        await client.wager(game, box, w.name, amount)
                    except ServerError as exc:
                        seen[exc.reason or exc.code] += 1
                if game == "four-card-poker":  # neither wager is required: hold an ante
                    try:
                        await client.wager(game, box, "ante", 200)
                    except ServerError as exc:  # the window closed first (a slow machine)
                        seen[exc.reason or exc.code] += 1
            elif kind == "cards_dealt" and event["to"] == "box" and event["box"] == box:
                tiles = list(event["cards"])
            elif kind == "decision" and event["box"] == box:
                if rng.random() < 0.15:
                    continue  # the clock decides (the engine's timeout)
                choice = rng.choice(event["legal"])
                amount = rng.choice(choice["amounts"]) if choice.get("amounts") else None
                setting = None
                if choice.get("setting"):  # pai gow: one of the three ways to set the tiles
                    setting = rng.choice(settings_of(tiles)).wire()
                    seen["own_setting"] += 1
                await client.decide(game, box, choice["verb"], amount, setting)
                seen["decided"] += 1
            elif kind == "timed_out" and event["box"] == box:
                seen["timed_out"] += 1
            elif kind == "round_result" and str(box) in event["boxes"]:
                rounds += 1
                results.append(event["boxes"][str(box)])


async def test_every_banked_game_plays_and_conserves_money_sch19_s7() -> None:
    cfg = ServerConfig(
        port=0, tables=tables(), round_pause=0.05, starting_balance=200_000, close_timeout=1.0
    )
    async with running_server(cfg) as server:
        seen: Counter[str] = Counter()
        results: dict[str, list[dict]] = {g: [] for g in tabled("banked")}
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for game in tabled("banked"):
                    for box in player_boxes(game):
                        nursery.start_soon(
                            functools.partial(bot, server.url, game, box, seen, results[game])
                        )
        for game, rows in results.items():
            assert len(rows) == 2 * ROUNDS, game
            for row in rows:
                settled = [w for w in row["wagers"].values() if w["outcome"] != "pending"]
                assert row["bet"] == sum(w["stake"] for w in row["wagers"].values())
                assert row["paid"] == sum(w["stake"] + w["net"] for w in settled)
        assert seen["decided"] > 0 and seen["timed_out"] > 0 and seen["own_setting"] > 0
        with trio.fail_after(10):
            while server.croupier.health()["money"]["stakes"]:
                await trio.sleep(0.05)  # the last rounds of bots that left settle on the clock
        health = server.croupier.health()
        assert conserved(health), health
        for game, pool in LINKED.items():
            link = server.croupier.tables[game].link  # type: ignore[attr-defined]
            report = await link.service.check(pool)
            snap = report.snapshot
            assert report.ok and snap is not None, report.problems
            info = next(j for j in health["jackpots"] if j["table"] == game)
            assert snap.contributions == info["contributed"] and snap.paid == info["paid"]
