"""The blackjack family at server tables, over real sockets on 127.0.0.1.

Seed 004: Schedules 2 (BJ), 9 (SP), 15 (SW), 17 (CH). A full table of each variant (seven
boxes; blackjack switch the digest's five) with backers (BJ s29, SP s30, CH s29; SW s28:
super match only) plays 50 rounds on fast clocks; every round's result accounts for every
stake (QLD Sch 19 s7) and money is conserved. A spectator's replay shows every card only
once the rules expose it: the dealer's second card only after every hand and offer
(s17(5)).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from server.config import ServerConfig, TableConfig
from server.records.verify import Shoes, verify_round
from server.tables.blackjack import BlackjackTable
from tests.integration.helpers import conserved
from tests.records.test_journal import check_round, rounds_in
from tests.support import running_server

VARIANTS = ("blackjack", "spanish-blackjack", "blackjack-switch", "blackjack-challenge")
ROUNDS = 50
RACES = ("betting_closed", "no_decision")


def table(game: str, **kw: Any) -> TableConfig:
    return TableConfig(
        id=game,
        game=game,
        options={"minimum": 100, "maximum": 5_000},
        seed=kw.pop("seed", 7),
        betting_seconds=kw.pop("betting_seconds", 0.25),
        decision_seconds=kw.pop("decision_seconds", 0.4),
        **kw,
    )


def cfg(*tables: TableConfig, **kw: Any) -> ServerConfig:
    return ServerConfig(
        port=0,
        tables=tables,
        round_pause=0.01,
        starting_balance=2_000_000,
        close_timeout=1.0,
        **kw,
    )


def amount_for(choice: dict[str, Any], rng: random.Random) -> int | None:
    """An amount the server's bounds allow (insurance: the smallest, always legal)."""
    if choice.get("amounts"):
        return int(rng.choice(choice["amounts"]))
    if "min" in choice:
        if choice["verb"] == "insurance":
            return int(choice["min"])
        return int(rng.choice([choice["min"], choice["max"]]))
    return None


class Seat:
    """A bot: holds a box (or backs one) and answers every decision it is prompted."""

    def __init__(self, game: str, box: int, *, behind: bool = False, seed: int = 0) -> None:
        self.game, self.box, self.behind = game, box, behind
        self.rng = random.Random(f"{game}-{box}-{behind}-{seed}")
        self.errors: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.verbs: Counter[str] = Counter()
        self.frames: list[dict[str, Any]] = []
        self.rounds = 0
        self.sent = 0  # wagers and decisions sent

    async def wagers(self, client: Client) -> None:
        g = self.game
        self.sent += 1
        try:
            if self.behind:
                if g == "blackjack-switch":  # SW s28: others bet super match only
                    await client.wager(g, self.box, "super_match", 100, behind=True)
                else:
                    await client.wager(g, self.box, "main", 200, behind=True)
                return
            await client.wager(g, self.box, "main", 100 * self.rng.randint(1, 5))
            if g == "blackjack-switch" and self.rng.random() < 0.3:
                await client.wager(g, self.box, "super_match", 100)
        except ServerError as exc:
            self.errors.append(exc.message)

    async def run(self, url: str, rounds: int) -> None:
        async with Client.connect(url, name=f"{'b' if self.behind else 'p'}{self.box}") as c:
            await c.join(self.game, seat=None if self.behind else self.box)
            async for message in c:
                self.frames.append(message)
                if message.get("type") == "error":
                    self.errors.append(message)
                if message.get("type") != "event":
                    continue
                event = message["event"]
                kind = event["type"]
                if kind == "betting_open":
                    if self.rounds >= rounds:
                        return
                    await self.wagers(c)
                elif kind == "decision":
                    if self.rng.random() < 0.01:
                        continue  # the clock decides (an offer declined, a hand played out)
                    choice = self.rng.choice(event["legal"])
                    self.verbs[choice["verb"]] += 1
                    self.sent += 1
                    await c.decide(
                        self.game, event["box"], choice["verb"], amount_for(choice, self.rng)
                    )
                elif kind == "round_result":
                    row = event["boxes"].get(str(self.box))
                    if row is None:
                        continue
                    if self.behind:
                        row = row.get("others", {}).get("P2")
                        if row is None:
                            continue
                    self.rounds += 1
                    self.results.append(row)


async def spectate(url: str, game: str, frames: list[dict[str, Any]], stop: trio.Event) -> None:
    async with Client.connect(url, name="watcher") as c:
        view = await c.join(game, role="spectator")
        frames.append({"type": "snapshot", "view": view.view})
        async for message in c:
            frames.append(message)
            if stop.is_set():
                return


def check_replay(frames: list[dict[str, Any]]) -> int:
    """Per round: the dealer's second card comes after every decision of the round (s17(5));
    no snapshot or event shows more dealer cards than have been dealt. Returns rounds seen."""
    rounds = 0
    dealer: list[str] = []
    for frame in frames:
        if frame.get("type") != "event":
            continue
        ev = frame["event"]
        kind = ev["type"]
        if kind == "betting_open":
            dealer = []
        elif kind == "cards_dealt" and ev["to"] == "dealer":
            dealer += ev["cards"]
        elif kind == "decision_made":
            assert len(dealer) == 1, f"a decision after the dealer's second card: {ev}"
        elif kind == "decision":
            raise AssertionError("a spectator received a decision prompt")
        elif kind == "round_result" and ev["state"] == "complete":
            assert ev["dealer"]["cards"] == dealer, (ev["dealer"], dealer)
            assert len(dealer) >= 2
            rounds += 1
    return rounds


@pytest.mark.slow
@pytest.mark.parametrize("game", VARIANTS)
async def test_full_table_plays_50_rounds_money_conserved_sch19_s7(
    game: str, tmp_path: Path
) -> None:
    boxes = 5 if game == "blackjack-switch" else 7
    async with running_server(cfg(table(game), data=tmp_path)) as server:
        actor = server.croupier.tables[game]
        assert isinstance(actor, BlackjackTable)
        assert actor.num_boxes == boxes
        seats = [Seat(game, b) for b in range(1, boxes + 1)]
        backers = [Seat(game, 1, behind=True), Seat(game, 3, behind=True, seed=1)]
        watched: list[dict[str, Any]] = []
        stop = trio.Event()
        with trio.fail_after(40):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(spectate, server.url, game, watched, stop)
                await trio.sleep(0.05)
                for s in seats:
                    nursery.start_soon(s.run, server.url, ROUNDS)
                await trio.sleep(0.05)
                for s in backers:
                    nursery.start_soon(s.run, server.url, ROUNDS)
                while any(s.rounds < ROUNDS for s in seats):
                    await trio.sleep(0.05)
                stop.set()
                nursery.cancel_scope.cancel()
        every = seats + backers
        errors = [e for s in every for e in s.errors]
        # only honest races with the fast clocks on a loaded machine: a wager arriving just
        # after no more bets, a decision just after its clock ran out
        assert all(e.get("code") in RACES for e in errors), errors
        sent = sum(s.sent for s in every)
        assert len(errors) <= max(5, sent // 20), errors  # at most 5% of what the bots sent
        for s in every:
            for row in s.results:
                assert row["bet"] == sum(w["stake"] for w in row["wagers"].values())
                assert row["paid"] == sum(w["stake"] + w["net"] for w in row["wagers"].values())
        assert sum(len(s.results) for s in backers) >= ROUNDS  # backers played
        verbs = sum((s.verbs for s in every), Counter())
        assert verbs["hit"] and verbs["stand"] and verbs["double"] and verbs["split"], verbs
        if game == "blackjack-switch":
            assert verbs["switch"]
        else:  # backers answered their offers (insurance, double, cover or follow)
            assert sum(sum(s.verbs.values()) for s in backers) > 0
        if game != "blackjack-challenge":
            assert verbs["insurance"] or verbs["even_money"], verbs
        assert check_replay(watched) >= ROUNDS - 2
        with trio.fail_after(10):
            while server.croupier.health()["money"]["stakes"]:
                await trio.sleep(0.05)
        health = server.croupier.health()
        assert conserved(health), health
        assert actor.shoes >= 2  # one shoe across rounds, until a reshuffle retired it
    check_shoes_on_the_record(tmp_path, game)


def check_shoes_on_the_record(data: Path, game: str) -> None:
    """Every round dealt from a retired shoe replays and verifies against its stacks'
    commitments and the shoe's secret and seeds (its record, in the round that starts the
    shoe); a shoe is retired in its last round; a round of a shoe still in play has its
    openings checked and its derivation not yet verifiable (issue 23: the shoe's secret is
    never on the wire, so no round holds a reveal; server/tables/blackjack.py)."""
    rounds = [r for r in rounds_in(data) if r.final_state == "settled"]
    shoes = Shoes.of(rounds)
    assert shoes.retired, "a reshuffle retired a shoe"
    last_round_of: dict[str, int] = {}
    for i, rnd in enumerate(rounds):
        last_round_of[rnd.start["shoe"]["id"]] = i
        assert not rnd.of("secret")
    verified = 0
    for i, rnd in enumerate(rounds):
        for retired in rnd.of("shoe_retired"):
            assert last_round_of[retired["id"]] == i
        if rnd.start["shoe"]["id"] in shoes.retired:
            check_round(rnd, shoes)
            verified += 1
        else:  # the shoe still in play: its cards are opened, its derivation waits
            verdict = verify_round(rnd, shoes)
            assert verdict.ok and verdict.pending is not None, verdict
            assert verdict.pending.endswith("is still in play"), verdict
    assert verified >= 10, (game, verified)


LEAK_SHOE = ["9h", "6c", "7d", "Qs", "5h"]  # box 1: 9 7 = 16, stands; dealer 6 Q 5 = 21


async def collect_until_result(client: Client, frames: list[dict[str, Any]]) -> None:
    async for message in client:
        frames.append(message)
        event = message.get("event") or {}
        if event.get("type") == "round_result":
            return


async def test_no_card_before_the_rules_expose_it_dealer_second_card_s17_5() -> None:
    """A replay of what a player, a spectator and a late joiner received: the dealer's second
    card (Qs, in no other place this round) appears in nothing before its ``cards_dealt``,
    which comes after the box's last decision (BJ s17(5): no hole card)."""
    game = "blackjack"
    async with (
        running_server(cfg(table(game, betting_seconds=0.5, decision_seconds=5.0))) as server,
        Client.connect(server.url, name="spec") as spec,
        Client.connect(server.url, name="pat") as pat,
        Client.connect(server.url, name="late") as late,
    ):
        watched: list[dict[str, Any]] = []
        played: list[dict[str, Any]] = []
        joined: list[dict[str, Any]] = []
        view = await spec.join(game, role="spectator")
        watched.append({"type": "snapshot", "view": view.view})
        assert await spec.dev_force(game, shoe=LEAK_SHOE) == 1
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(collect_until_result, spec, watched)
                mine = await pat.join(game, seat=1)
                played.append({"type": "snapshot", "view": mine.view})
                async for message in pat:
                    played.append(message)
                    event = message.get("event") or {}
                    if event.get("type") == "betting_open":
                        await pat.wager(game, 1, "main", 500)
                    elif event.get("type") == "decision":
                        assert event["street"] == "hand 1"
                        snap = await late.join(game, role="spectator")  # mid-round snapshot
                        joined.append({"type": "snapshot", "view": snap.view})
                        dealt = [
                            e
                            for e in snap.view["round_events"]
                            if e["type"] == "cards_dealt" and e["to"] == "dealer"
                        ]
                        assert [c for e in dealt for c in e["cards"]] == ["6c"]
                        assert "cards" not in str(snap.view["shoe"])
                        await pat.decide(game, 1, "stand")
                        nursery.start_soon(collect_until_result, late, joined)
                    elif event.get("type") == "round_result":
                        break
        for frames in (watched, played, joined):
            second = next(
                i
                for i, f in enumerate(frames)
                if (f.get("event") or {}).get("type") == "cards_dealt"
                and f["event"]["to"] == "dealer"
                and f["event"]["cards"] == ["Qs"]
            )
            assert all("Qs" not in repr(f) for f in frames[:second])
            decisions = [
                i
                for i, f in enumerate(frames)
                if (f.get("event") or {}).get("type") == "decision_made"
            ]
            assert decisions and max(decisions) < second
        result = next(
            f["event"] for f in played if (f.get("event") or {}).get("type") == "round_result"
        )
        assert result["dealer"]["cards"] == ["6c", "Qs", "5h"]
        assert result["boxes"]["1"]["paid"] == 0  # 16 against 21


async def back(client: Client, game: str, box: int) -> str:
    """Back ``box`` with a $5 main wager: the place given, or the refusal's reason."""
    await client.send(
        {"type": "wager", "table": game, "box": box, "wager": "main", "amount": 500, "behind": True}
    )
    with trio.fail_after(10):
        while True:
            message = await client.recv()
            if message.get("type") == "error" and message.get("ref") == "wager":
                return str(message.get("reason"))
            event = message.get("event") or {}
            if event.get("type") == "wager_placed" and event.get("name") == client.welcome["name"]:
                return str(event["place"])


async def test_backers_join_a_box_in_turn_bj_s29() -> None:
    """BJ s29(1): up to three players a box, places P2 and P3 in order; a player does not
    back his own box or a free one; a backer whose box has no wager gets his money back at
    no more bets; a backer's stake and result are his own (``others`` in the result)."""
    game = "blackjack"
    async with running_server(
        cfg(table(game, betting_seconds=1.0, decision_seconds=5.0))
    ) as server:
        async with (
            Client.connect(server.url, name="ann") as ann,
            Client.connect(server.url, name="bo") as bo,
            Client.connect(server.url, name="cy") as cy,
            Client.connect(server.url, name="di") as di,
        ):
            await ann.join(game, seat=1)
            for c in (bo, cy, di):
                await c.join(game)
            with trio.fail_after(10):
                while True:
                    message = await ann.recv()
                    if (message.get("event") or {}).get("type") == "betting_open":
                        break
            outcomes = [await back(c, game, box) for c, box in ((ann, 1), (bo, 2))]
            assert outcomes == ["no_box_to_back", "no_box_to_back"]  # his own; a free box
            assert [await back(c, game, 1) for c in (bo, cy, di)] == [
                "P2",
                "P3",
                "too_many_players",
            ]
            actor = server.croupier.tables[game]
            assert isinstance(actor, BlackjackTable)
            assert actor.backing == {(1, "P2"): bo.account, (1, "P3"): cy.account}
            assert server.croupier.ledger.balance(bo.account or "") == 2_000_000 - 500
            # ann withdraws: the box has no wager at no more bets, the backers get it back
            await ann.wager(game, 1, "main", 0)
            with trio.fail_after(10):
                returned = []
                while len(returned) < 2:
                    message = await bo.recv()
                    event = message.get("event") or {}
                    if event.get("type") == "backer_returned":
                        returned.append(event["place"])
            assert returned == ["P2", "P3"]
            assert server.croupier.ledger.balance(bo.account or "") == 2_000_000
            assert conserved(server.croupier.health())
