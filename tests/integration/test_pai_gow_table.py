"""Pai gow tiles at a server table, over real sockets (QLD Sch 6; issue 25 point 1).

The house banks: its tiles sit on box 1, which nobody takes or wagers on (s18(13)); player
banking is off at the table, so a ``bank`` wager is refused before the deal (s18). Each box
sets its own tiles (``set`` with a ``setting``, s27) or asks for the house way (s29(1)); a bad
setting is refused with its code and the decision stays owed. At settlement the bank's hands
and every box's are shown (s36), the result accounts for every stake (Sch 19 s7) and money
is conserved.
"""

from __future__ import annotations

from typing import Any

import trio

from clients.client import Client, ServerError
from server.config import DEFAULT_TABLES, ServerConfig, TableConfig, load_tables
from server.games.banked.pai_gow import key, settings_of
from tests.integration.helpers import conserved
from tests.integration.test_banked_round import expect, running

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
    games = {t.id: t.game for t in load_tables(DEFAULT_TABLES)}
    assert games.get("pai-gow-1") == "pai-gow"


async def test_pai_gow_round_own_setting_and_house_way_over_websocket_sch6() -> None:
    async with (
        running(config()) as server,
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
        running(config()) as server,
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
