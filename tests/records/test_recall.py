"""Game recall (issue 10 item 2): a player's last 10 rounds at a table, as the player was
allowed to see them, over real sockets, after a restart."""

from __future__ import annotations

from pathlib import Path

from clients.client import Client
from server.records.verify import verify_seen
from tests.server.helpers import Bot, fast_config, play_hands, table
from tests.support import running_server

GAME = "holdem-act"
T = f"{GAME}-t"


async def test_a_player_recalls_its_last_ten_rounds_after_a_restart(tmp_path: Path) -> None:
    cfg = fast_config(table(GAME, seats=4, seed=5), data=tmp_path)
    async with running_server(cfg) as server:
        bots = [Bot(server.url, T, s, seed=s) for s in (1, 2, 3)]
        await play_hands(server, bots, 14)
        hands = server.croupier.tables[T].hand  # type: ignore[attr-defined]
        assert bots[0].client is not None
        token = bots[0].client.token
        assert token is not None
        async with Client.connect(server.url, token=token) as again:
            assert len(await again.history(T)) == 10
    async with running_server(fast_config(table(GAME, seats=4), data=tmp_path)) as server:
        async with Client.connect(server.url, token=token) as me:
            rounds = await me.history(T)
            async with Client.connect(server.url, name="stranger") as stranger:
                assert await stranger.history(T) == []
    assert len(rounds) == 10
    numbers = [int(r["round"].rsplit(".", 1)[1]) for r in rounds]
    assert numbers == sorted(numbers) and hands - 3 <= numbers[-1] <= hands  # the latest
    assert [r["at"] for r in rounds] == sorted(r["at"] for r in rounds)
    own = shown = 0
    for r in rounds:
        assert r["seat"] == 1 and r["table"] == T and r["game"] == GAME
        # the round in play when the first server shut down was voided (every wager back)
        assert r["state"] == "settled" or (r is rounds[-1] and r["state"] == "voided")
        assert r["state"] == "settled" or r["net"] == 0
        assert r["net"] == r["stake_after"] - r["stake"]
        # issue 23: no reveal; the commitment first, the cards it saw opened, and the hand
        # replays on them (its own, the board, the hands shown) as a player's verify does
        assert r["events"][0]["type"] == "commitment" and r["commitments"]
        verdict = verify_seen(r)
        assert verdict.ok and verdict.pending is None, verdict
        showing = {e["seat"] for e in r["events"] if e["type"] == "hand_shown"}
        for e in r["events"]:
            assert e["visible_to"] in ("everyone", 1), e
            if e["type"] == "hole_cards_dealt":
                assert e["seat"] == 1
                own += 1
            if e["type"] == "hand_shown":
                shown += e["seat"] != 1
        assert showing <= {int(s) for s in ("1", "2", "3")}
    assert own == 10 and shown > 0
