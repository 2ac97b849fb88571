"""Pai gow tiles at a server table, over real sockets (QLD Sch 6; issue 25 point 1).

The house banks: its tiles sit on box 1, which nobody takes or wagers on (s18(13)); player
banking is off at the table, so a ``bank`` wager is refused before the deal (s18). Each box
sets its own tiles (``set`` with a ``setting``, s27) or asks for the house way (s29(1)); a bad
setting is refused with its code and the decision stays owed. At settlement the bank's hands
and every box's are shown (s36), the result accounts for every stake (Sch 19 s7) and money
is conserved.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from clients.client import Client, ServerError
from server.config import DEFAULT_TABLES, ServerConfig, TableConfig, load_tables
from server.games.banked.pai_gow import banker_commission, key, settings_of
from server.records.verify import verify_seen
from server.store.journal import players_of, recall
from tests.integration.helpers import conserved
from tests.integration.test_banked_round import expect
from tests.records.test_journal import check_round, rounds_in
from tests.support import running_server

TABLE = "pg"


def config() -> ServerConfig:
    table = TableConfig(
        id=TABLE,
        game="pai-gow",
        seed=5,
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=0.6,
        decision_seconds=20.0,
    )
    return ServerConfig(
        port=0, tables=(table,), round_pause=0.1, starting_balance=100_000, close_timeout=1.0
    )


async def error_for(client: Client, log: list[dict], ref: str) -> dict[str, Any]:
    """The next ``error`` answering ``ref``."""
    with trio.fail_after(8):
        while True:
            message = await client.recv()
            log.append(message)
            if message.get("type") == "error" and message.get("ref") == ref:
                return message


def test_pai_gow_is_in_the_default_lobby() -> None:
    tables = {t.id: t for t in load_tables(DEFAULT_TABLES)}
    assert tables["pai-gow-1"].game == tables["pai-gow-2"].game == "pai-gow"
    assert tables["pai-gow-2"].options["player_banking_enabled"] is True  # s18


async def test_pai_gow_round_own_setting_and_house_way_over_websocket_sch6() -> None:
    async with (
        running_server(config()) as server,
        Client.connect(server.url, name="ann") as ann,
        Client.connect(server.url, name="bob") as bob,
    ):
        log: list[dict] = []
        row = next(t for t in await ann.lobby() if t["id"] == TABLE)
        assert row["bank_box"] == 1 and row["seats"] == 7
        try:
            await ann.join(TABLE, seat=1)
            raise AssertionError("box 1 is the bank's")
        except ServerError as exc:
            assert exc.code == "bad_box"
        await ann.join(TABLE, seat=2)
        await bob.join(TABLE, seat=3)
        offered = [w["name"] for w in ann.tables[TABLE].view["table"]["wagers"]]
        assert offered == ["bet"]  # player banking and co-banking are off here (s18)
        await expect(ann, "betting_open", log)
        for wager, box, reason in (("bet", 1, "box_1_is_bank"), ("bank", 4, None)):
            try:
                await ann.wager(TABLE, box, wager, 500)
                raise AssertionError(f"{wager} on box {box} accepted")
            except ServerError as exc:
                assert exc.code == "wager_refused"
                assert exc.reason == (reason or "player_banking_disabled")
        await ann.wager(TABLE, 2, "bet", 1_000)
        await bob.wager(TABLE, 3, "bet", 2_000)

        tiles = await expect(ann, "cards_dealt", log, lambda e: e["box"] == 2)
        mine = list(tiles["cards"])
        assert len(mine) == 4
        decision = await expect(ann, "decision", log, lambda e: e["box"] == 2)
        verbs = {c["verb"]: c for c in decision["legal"]}
        assert set(verbs) == {"set", "house_way"} and verbs["set"].get("setting") is True

        # refused settings leave the decision owed (s2, s27)
        await ann.decide(TABLE, 2, "set")
        assert (await error_for(ann, log, "decide"))["reason"] == "setting_required"
        await ann.decide(TABLE, 2, "house_way", setting={"high": mine[:2], "low": mine[2:]})
        assert (await error_for(ann, log, "decide"))["reason"] == "unexpected_setting"
        other = "6-6" if "6-6" not in mine else "1-1"
        await ann.decide(TABLE, 2, "set", setting={"high": [other, mine[1]], "low": mine[2:]})
        assert (await error_for(ann, log, "decide"))["reason"] == "not_your_tiles"
        ways = settings_of(mine)
        lopsided = next((s for s in ways if key(s.high) > key(s.low)), None)
        if lopsided is not None:  # the high hand set below the low hand (s2)
            await ann.decide(
                TABLE, 2, "set", setting={"high": list(lopsided.low), "low": list(lopsided.high)}
            )
            assert (await error_for(ann, log, "decide"))["reason"] == "high_below_low"

        chosen = ways[-1]
        await ann.decide(TABLE, 2, "set", setting=chosen.wire())
        await expect(bob, "decision", [], lambda e: e["box"] == 3)
        await bob.decide(TABLE, 3, "house_way")

        shown: list[dict] = []
        with trio.fail_after(10):
            while True:
                message = await ann.recv()
                if message.get("type") != "event":
                    continue
                event = message["event"]
                if event["type"] == "hand_shown":
                    shown.append(event)
                if event["type"] == "round_result":
                    result = event
                    break
        bank = [e for e in shown if e["box"] is None]
        assert [e["hand"].split(":")[0] for e in bank] == ["bank high", "bank low"]
        ann_hands = {e["hand"].split(":")[0]: e["cards"] for e in shown if e["box"] == 2}
        assert ann_hands == {"high": list(chosen.high), "low": list(chosen.low)}
        assert {e["box"] for e in shown if e["box"] is not None} == {2, 3}
        boxes = result["boxes"]
        assert set(boxes) == {"2", "3"}
        for r in boxes.values():
            assert r["bet"] == sum(w["stake"] for w in r["wagers"].values())
            assert r["paid"] == sum(w["stake"] + w["net"] for w in r["wagers"].values())
            bet = r["wagers"]["bet"]
            assert bet["outcome"] in ("win", "lose", "stand off")
            if bet["outcome"] == "win":  # even money less 5%, up to 50c (s19(1),(2))
                cents = -(-bet["stake"] * 5 // 100)
                assert bet["net"] == bet["stake"] - -(-cents // 50) * 50
        assert conserved(server.croupier.health())


async def test_priority_box_sets_before_the_others_see_their_tiles_s14_4() -> None:
    """s14(4),(5): a box whose wagers reach half the table maximum is a priority box: its
    tiles come first and it sets (street ``priority``) before the other boxes get theirs."""
    async with (
        running_server(config()) as server,
        Client.connect(server.url, name="ann") as ann,
        Client.connect(server.url, name="bob") as bob,
    ):
        log: list[dict] = []
        bob_log: list[dict] = []
        await ann.join(TABLE, seat=2)
        await bob.join(TABLE, seat=3)
        await expect(ann, "betting_open", log)
        await ann.wager(TABLE, 2, "bet", 5_000)  # half of the 10_000 maximum
        await bob.wager(TABLE, 3, "bet", 1_000)
        first = await expect(ann, "decision", log, lambda e: e["box"] == 2)
        assert first["street"] == "priority"
        await expect(bob, "street_opened", bob_log, lambda e: e["street"] == "priority")
        assert not [
            m
            for m in bob_log
            if m.get("type") == "event"
            and m["event"]["type"] in ("cards_dealt", "decision")
            and m["event"].get("box") == 3
        ]
        await ann.decide(TABLE, 2, "house_way")
        tiles = await expect(bob, "cards_dealt", bob_log, lambda e: e.get("box") == 3)
        assert len(tiles["cards"]) == 4
        second = await expect(bob, "decision", bob_log, lambda e: e["box"] == 3)
        assert second["street"] == "set"
        await bob.decide(TABLE, 3, "house_way")
        result = await expect(ann, "round_result", log)
        assert set(result["boxes"]) == {"2", "3"}
        assert conserved(server.croupier.health())


def banking_config(data: Path | None = None) -> ServerConfig:
    table = TableConfig(
        id=TABLE,
        game="pai-gow",
        seed=6,
        options={
            "minimum": 100,
            "maximum": 10_000,
            "player_banking_enabled": True,
            "co_banking_enabled": True,
        },
        betting_seconds=1.5,
        decision_seconds=20.0,
    )
    return ServerConfig(
        port=0,
        tables=(table,),
        round_pause=0.1,
        starting_balance=100_000,
        close_timeout=1.0,
        data=data,
    )


async def refused(client: Client, box: int, wager: str, amount: int) -> str | None:
    """The refusal reason of a wager (its ``code`` when it has none)."""
    try:
        await client.wager(TABLE, box, wager, amount)
    except ServerError as exc:
        return exc.reason or exc.code
    raise AssertionError(f"{wager} {amount} on box {box} was accepted")


async def seen_or_expect(
    client: Client, kind: str, log: list[dict], where: Callable[[dict], bool]
) -> dict:
    """An event of ``kind`` already received (in ``log``) or the next one."""
    for m in log:
        if m.get("type") == "event" and m["event"]["type"] == kind and where(m["event"]):
            return dict(m["event"])
    return await expect(client, kind, log, where)


async def house_way(client: Client, box: int, log: list[dict]) -> None:
    await expect(client, "decision", log, lambda e: e["box"] == box)
    await client.decide(TABLE, box, "house_way")


async def test_player_banking_rotation_and_commission_s18_s19(tmp_path: Path) -> None:
    """s18(8) the house banks first; s18(2) the banker played the box the round before;
    s18(4) the bank covers every wager; s18(13) box 1 is open while a player banks; s18(7)(b)
    the banker wagers on no other hand; s28(8) the banker sets the bank's tiles last; s19(3),
    (4) 5% of the banker's profit; s18(10) not more than 2 consecutive rounds."""
    async with (
        running_server(banking_config(tmp_path)) as server,
        Client.connect(server.url, name="ann") as ann,
        Client.connect(server.url, name="bob") as bob,
        Client.connect(server.url, name="cat") as cat,
    ):
        logs: dict[str, list[dict]] = {"ann": [], "bob": [], "cat": []}
        await ann.join(TABLE, seat=2)
        await bob.join(TABLE, seat=3)
        await cat.join(TABLE)
        offered = [w["name"] for w in ann.tables[TABLE].view["table"]["wagers"]]
        assert offered == ["bet", "bank", "co_bank"]

        # round 1: the house banks the first round (s18(8))
        await expect(ann, "betting_open", logs["ann"])
        assert await refused(ann, 2, "bank", 5_000) == "house_banks_first"
        await ann.wager(TABLE, 2, "bet", 1_000)
        await bob.wager(TABLE, 3, "bet", 1_000)
        await house_way(ann, 2, logs["ann"])
        await house_way(bob, 3, logs["bob"])
        await expect(ann, "round_result", logs["ann"])

        # round 2: ann, who played box 2, banks there; box 1 is open to players now
        await expect(ann, "betting_open", logs["ann"], lambda e: e["round"] == 2)
        assert await refused(bob, 4, "bank", 5_000) == "not_played_box"
        await ann.wager(TABLE, 2, "bank", 5_000)
        assert await refused(ann, 5, "bet", 1_000) == "banker_may_not_bet"
        assert await refused(bob, 3, "bank", 5_000) == "one_bank"
        await bob.wager(TABLE, 3, "bet", 1_000)
        await cat.wager(TABLE, 1, "bet", 1_000)
        assert await refused(bob, 3, "bet", 5_000) == "bank_cannot_cover"  # 6_000 > 5_000
        await house_way(bob, 3, logs["bob"])
        await house_way(cat, 1, logs["cat"])
        dealt = await seen_or_expect(ann, "cards_dealt", logs["ann"], lambda e: e["to"] == "dealer")
        bank_tiles = list(dealt["cards"])
        assert len(bank_tiles) == 4  # the bank's tiles, to the player/banker only
        decision = await expect(ann, "decision", logs["ann"], lambda e: e["box"] == 2)
        assert decision["street"] == "bank"
        await ann.decide(TABLE, 2, "set", setting=settings_of(bank_tiles)[0].wire())
        result = await expect(ann, "round_result", logs["ann"])
        boxes = result["boxes"]
        assert set(boxes) == {"1", "2", "3"}
        bank_result = 0
        for b in ("1", "3"):
            bet = boxes[b]["wagers"]["bet"]
            bank_result += {"win": -bet["stake"], "lose": bet["stake"]}.get(bet["outcome"], 0)
        bank = boxes["2"]["wagers"]["bank"]
        assert bank["stake"] == 5_000
        options = {"banker_commission_round_down_50c": True}
        assert bank["net"] == bank_result - banker_commission(bank_result, options)
        assert not [
            m
            for m in logs["bob"]
            if m.get("type") == "event"
            and m["event"]["type"] == "cards_dealt"
            and m["event"]["to"] == "dealer"
        ]

        # round 3: ann banks a second round; round 4: not a third (s18(10)), bob may
        await expect(ann, "betting_open", logs["ann"], lambda e: e["round"] == 3)
        await ann.wager(TABLE, 2, "bank", 5_000)
        await bob.wager(TABLE, 3, "bet", 1_000)
        await house_way(bob, 3, logs["bob"])
        await house_way(ann, 2, logs["ann"])
        await expect(ann, "round_result", logs["ann"])
        await expect(ann, "betting_open", logs["ann"], lambda e: e["round"] == 4)
        assert await refused(ann, 2, "bank", 5_000) == "banked_two_rounds"
        await bob.wager(TABLE, 3, "co_bank", 2_000)
        await ann.wager(TABLE, 2, "bet", 1_000)
        await house_way(ann, 2, logs["ann"])  # the co-bank's tiles: the house way (s29(3))
        result = await expect(ann, "round_result", logs["ann"])
        assert result["boxes"]["3"]["wagers"]["co_bank"]["stake"] == 2_000
        assert conserved(server.croupier.health())
    # every round is on the record and replays, the player-banked ones too, and each
    # player's own record (the banker's with the bank's tiles) verifies
    rounds = rounds_in(tmp_path)
    banked = [r for r in rounds if any("bank" in b["wagers"] for b in r.start["boxes"].values())]
    assert len(rounds) >= 4 and len(banked) == 2
    for rnd in rounds:
        check_round(rnd)
        for owner in players_of(rnd.start):
            verdict = verify_seen(recall(rnd, owner), seed=None)
            assert verdict.ok and verdict.pending is None, (rnd.ref, owner, verdict)


async def test_a_backer_on_a_box_wins_loses_or_stands_off_with_it_s15() -> None:
    """Sch 6 s15: up to three players a box: a backer wagers ``behind`` a box another player
    holds, takes its next place (``P2``), and is settled on the box's hands with the
    commission worked on his own winning wager (s19); the bank's box takes no backers."""
    async with (
        running_server(config()) as server,
        Client.connect(server.url, name="ann") as ann,
        Client.connect(server.url, name="bob") as bob,
    ):
        log: list[dict] = []
        await ann.join(TABLE, seat=2)
        await bob.join(TABLE, seat=3)
        await expect(ann, "betting_open", log)
        await ann.wager(TABLE, 2, "bet", 1_000)
        try:
            await bob.wager(TABLE, 1, "bet", 500, behind=True)
            raise AssertionError("a backer on the bank's box accepted")
        except ServerError as exc:
            assert exc.code == "wager_refused"
        await bob.wager(TABLE, 2, "bet", 500, behind=True)
        decision = await expect(ann, "decision", log, lambda e: e["box"] == 2)
        assert decision["box"] == 2
        await ann.decide(TABLE, 2, "house_way")
        with trio.fail_after(10):
            while True:
                message = await bob.recv()
                if message.get("type") == "event" and message["event"]["type"] == "round_result":
                    result = message["event"]
                    break
        box = result["boxes"]["2"]
        backer = box["others"]["P2"]  # SCENARIOS.md: a box's other players
        assert backer["player"] == "bob"
        ann_bet, bob_bet = box["wagers"]["bet"], backer["wagers"]["bet"]
        assert bob_bet["stake"] == 500 and bob_bet["outcome"] == ann_bet["outcome"]
        if bob_bet["outcome"] == "win":  # even money less 5% of his own wager, up to 50c
            assert bob_bet["net"] == 500 - 50
        elif bob_bet["outcome"] == "lose":
            assert bob_bet["net"] == -500
        else:
            assert bob_bet["net"] == 0
        assert conserved(server.croupier.health())
