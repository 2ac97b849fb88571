"""A banked round over real sockets: Caribbean stud at a table linked to the in-memory pool.

QLD Sch 19 (electronic table games): s5(2) make/change/withdraw until "no more bets", s3(3)
nothing accepted after it, s5(4) a countdown; decisions on a clock (timeout: the engine's
fold, caribbean-stud.md A9); s7 every wager's result shown; s3(2)(f)-(h) recall of the
previous round's bet, result and win. Money is conserved (wallets + layout + house + pool).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from server.config import ServerConfig, TableConfig
from server.net.app import RunningServer, serve
from tests.integration.helpers import DEALER_NO_QUALIFY, ROYAL, conserved
from tests.support import running_server

TABLE = "csp"


def config(game: str = "caribbean-stud", **kw: Any) -> ServerConfig:
    table = TableConfig(
        id=TABLE,
        game=game,
        jackpot_pool="mem",
        seed=11,
        options={"minimum": 100, "maximum": 10_000, "jackpot_wager": 100},
        betting_seconds=kw.pop("betting_seconds", 1.0),
        decision_seconds=kw.pop("decision_seconds", 1.0),
    )
    return ServerConfig(
        port=0, tables=(table,), round_pause=0.1, starting_balance=100_000, close_timeout=1.0, **kw
    )


async def expect(
    client: Client,
    kind: str,
    log: list[dict],
    where: Callable[[dict], bool] = lambda e: True,
    timeout: float = 8,
) -> dict:
    """The next table event of ``kind`` matching ``where``; everything received is logged."""
    with trio.fail_after(timeout):
        while True:
            message = await client.recv()
            log.append(message)
            if message.get("type") == "event":
                event = message["event"]
                if event["type"] == kind and where(event):
                    return event


async def test_betting_window_decisions_timeout_settlement_recall_sch19() -> None:
    """Sch 19 s3(3), s5(2), s5(4), s7, s3(2)(f)-(h); Sch 3 s16 decisions, A9 timeout."""
    async with (
        running_server(config()) as server,
        Client.connect(server.url, name="ann") as ann,
        Client.connect(server.url, name="bob") as bob,
    ):
        logs: dict[str, list[dict]] = {"ann": [], "bob": []}
        await ann.join(TABLE, seat=1)
        opened = await expect(ann, "betting_open", logs["ann"])
        assert 0 < opened["closes_in_ms"] <= 1000 and opened["closes_at"] > opened["server_time"]
        await bob.join(TABLE)
        # s5(2): make, change, withdraw
        await ann.wager(TABLE, 1, "ante", 500)
        await ann.wager(TABLE, 1, "ante", 700)
        await ann.wager(TABLE, 2, "ante", 300)
        withdrawn = await ann.wager(TABLE, 2, "ante", 0)
        assert withdrawn["box_wagers"] == {}
        await bob.wager(TABLE, 3, "ante", 400)
        await bob.wager(TABLE, 3, "jackpot", 100)
        refusals = [
            (bob, (1, "ante", 500), "box_taken", None),
            (ann, (9, "ante", 500), "bad_box", None),
            (ann, (1, "jackpot", 50), "wager_refused", "jackpot_denomination"),
            (ann, (4, "ante", 50), "wager_refused", "below_minimum"),
            (ann, (4, "jackpot", 100), "wager_refused", "needs_ante"),
            (ann, (4, "bet", 200), "wager_refused", "unknown_wager"),
        ]
        for client, args, code, reason in refusals:
            with pytest.raises(ServerError) as info:
                await client.wager(TABLE, *args)
            assert (info.value.code, info.value.reason) == (code, reason)
        closed = await expect(ann, "no_more_bets", logs["ann"])
        assert closed["boxes"] == {"1": {"ante": 700}, "3": {"ante": 400, "jackpot": 100}}
        with pytest.raises(ServerError) as info:  # s3(3): nothing after "no more bets"
            await ann.wager(TABLE, 1, "ante", 800)
        assert info.value.code == "betting_closed"

        prompt = await expect(ann, "decision", logs["ann"], lambda e: e["box"] == 1)
        assert {c["verb"] for c in prompt["legal"]} == {"bet", "fold"} and prompt["time_ms"] == 1000
        with pytest.raises(ServerError):  # box 3 is bob's
            await ann.request({"type": "decide", "table": TABLE, "box": 3, "verb": "bet"}, "never")
        await ann.decide(TABLE, 1, "bet")
        timed = await expect(bob, "timed_out", logs["bob"], lambda e: e["box"] == 3)
        assert timed["round"] == prompt["round"]
        result_ann = await expect(ann, "round_result", logs["ann"])
        result_bob = await expect(bob, "round_result", logs["bob"])
        assert result_ann == result_bob  # s7: every wager's result, to everyone
        box1, box3 = result_ann["boxes"]["1"], result_ann["boxes"]["3"]
        assert box1["wagers"]["ante"]["stake"] == 700 and box1["wagers"]["bet"]["stake"] == 1400
        assert box3["wagers"]["ante"] == {
            "stake": 400,
            "net": -400,
            "outcome": "lose",
            "detail": "folded (s16(5))",
        }
        assert box3["wagers"]["jackpot"] == {"stake": 100, "net": -100, "outcome": "lose"}
        made = [
            m["event"]
            for m in logs["bob"]
            if m.get("type") == "event" and m["event"]["type"] == "decision_made"
        ]
        assert any(e["box"] == 3 and e["cause"] == "timeout" and e["verb"] == "fold" for e in made)
        # bob never saw ann's cards before the showdown, nor the dealer's hole cards
        for m in logs["bob"]:
            e = m.get("event") or {}
            assert not (e.get("type") == "cards_dealt" and e.get("box") == 1)
            assert not (
                e.get("type") == "cards_dealt"
                and e.get("to") == "dealer"
                and len(e.get("cards", ())) > 1
            )

        recall_ann, recall_bob = await ann.recall(TABLE), await bob.recall(TABLE)
        assert recall_ann["round"] == prompt["round"] and recall_ann["bet_total"] == 2100
        assert recall_ann["paid_total"] == box1["paid"] and recall_ann["dealer"]["cards"]
        assert recall_bob["bet_total"] == 500 and recall_bob["net"] == -500
        health = server.croupier.health()
        assert conserved(health), health
        assert health["money"]["jackpot_contributed"] == 30  # QLD 25% + 5% of the 100 wager
        balance = server.croupier.ledger.balance(ann.account or "")
        assert balance == 100_000 + recall_ann["net"]


@pytest.mark.parametrize(
    ("game", "hand", "prize", "contributed"),
    [
        ("caribbean-stud", "royal flush", 1_000_025, 30),  # QLD: 25% prize + 5% reserve
        ("canberra-poker-2017", "royal_flush", 1_000_030, 100),  # ACT 2017 r 10.6: 30% / 70%
    ],
)
async def test_forced_royal_flush_pays_the_live_pool_and_conserves_money_s24(
    game: str, hand: str, prize: int, contributed: int
) -> None:
    """QLD Sch 3 s23(3) (jackpot after ante and bet), s24 / ACT 2017 r 11.1(a) (RF: the
    greater of 10,000 and the pool, this round's coin-in included, jackpots.md A-J9), top-up
    to seed (5.4); recall shows the win (Sch 19 s3(2)(h))."""
    async with running_server(config(game)) as server, Client.connect(server.url, name="cy") as cy:
        logs: list[dict] = []
        await cy.join(TABLE, seat=2)
        await cy.dev_force(TABLE, boxes={"2": ROYAL}, dealer=DEALER_NO_QUALIFY)
        await expect(cy, "betting_open", logs)
        await cy.wager(TABLE, 2, "ante", 1000)
        await cy.wager(TABLE, 2, "jackpot", 100)
        await expect(cy, "decision", logs)
        await cy.decide(TABLE, 2, "bet")
        result = await expect(cy, "round_result", logs)
        assert result["jackpot_pending"] == [2]
        assert result["boxes"]["2"]["wagers"]["ante"]["net"] == 1000  # dealer does not qualify
        paid = await expect(cy, "jackpot_paid", logs)
        assert (paid["box"], paid["hand"], paid["amount"]) == (2, hand, prize)
        meter = await expect(cy, "meter", logs, lambda e: e["op"] == "award")
        assert meter["meter"] == 1_000_000
        recall = await cy.recall(TABLE)
        assert recall["boxes"]["2"]["wagers"]["jackpot"]["outcome"] == "win"
        assert recall["net"] == 1000 + prize - 100
        health = server.croupier.health()
        assert conserved(health), health
        link = server.croupier.tables[TABLE].link  # type: ignore[attr-defined]
        snap = await link.service.snapshot("mem")
        report = await link.service.check("mem")
        assert report.ok and snap.paid == prize and snap.contributions == contributed


async def test_forced_cards_are_dev_only() -> None:
    """The forced outcome is a dev/test tool: a server with a secret refuses it."""
    async with running_server(config(secret="s3cret")) as server:
        token = server.croupier.accounts.issue("acct-1", "dee")
        server.croupier.ledger.deposit("acct-1", 10_000)  # a seat needs the table minimum
        async with Client.connect(server.url, token=token) as dee:
            await dee.join(TABLE)
            with pytest.raises(ServerError) as info:
                await dee.dev_force(TABLE, boxes={"1": ROYAL})
            assert info.value.code == "dev_only"


async def test_reconnect_mid_decision_resumes_the_box() -> None:
    """A terminal that drops during a decision gets its box back on reconnecting: the
    snapshot shows the decision owed, with the time left, and the decision is accepted."""
    async with running_server(config(decision_seconds=4.0)) as server:
        async with Client.connect(server.url, name="eve") as eve:
            token = eve.token
            await eve.join(TABLE, seat=4)
            await expect(eve, "betting_open", [])
            await eve.wager(TABLE, 4, "ante", 300)
            await expect(eve, "decision", [])
        async with Client.connect(server.url, token=token) as again:
            view = (await again.join(TABLE)).view
            assert view["my_boxes"] == [4] and view["status"] == "deciding"
            (owed,) = view["pending"]
            assert owed["box"] == 4 and 0 < owed["time_ms"] <= 4000
            assert any(
                e["type"] == "cards_dealt" and e.get("box") == 4 for e in view["round_events"]
            )
            await again.decide(TABLE, 4, "fold")
            result = await expect(again, "round_result", [])
            assert result["boxes"]["4"]["wagers"]["ante"]["net"] == -300
        assert conserved(server.croupier.health())


async def test_shutdown_mid_round_voids_it_and_reverses_the_coin_in() -> None:
    """A round stopped by shutdown is void: every wager is returned, the jackpot coin-in is
    reversed in the pool (jackpots.md 5.6), and money is conserved."""
    cfg = config(decision_seconds=10.0)
    async with trio.open_nursery() as nursery:
        server: RunningServer = await nursery.start(functools.partial(serve, cfg))
        link = server.croupier.tables[TABLE].link  # type: ignore[attr-defined]
        async with Client.connect(server.url, name="fay") as fay:
            await fay.join(TABLE, seat=1)
            await expect(fay, "betting_open", [])
            await fay.wager(TABLE, 1, "ante", 800)
            await fay.wager(TABLE, 1, "jackpot", 100)
            await expect(fay, "decision", [])
            assert (await link.service.snapshot("mem")).contributions == 30
            await server.croupier.shutdown()
            result = await expect(fay, "round_result", [])
            assert result["state"] == "void"
            assert {w["outcome"] for w in result["boxes"]["1"]["wagers"].values()} == {"returned"}
        with trio.fail_after(5):
            while (await link.service.snapshot("mem")).contributions:
                await trio.sleep(0.01)
        health = server.croupier.health()
        assert conserved(health), health
        assert server.croupier.ledger.balance(fay.account or "") == 100_000
        assert (await link.service.check("mem")).ok
        await server.aclose()
