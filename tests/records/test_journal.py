"""The journal (issue 10 item 1) and provably fair deals (item 4; issue 23), over real sockets.

Every round of every game kind goes on the record in the ledger's SQLite store; replaying a
journalled round through its engine on the deal its secret and seeds make gives the same
events (every card dealt included), and ``verify_round`` passes on every round and fails on
a tampered one. (Issue 23: the secret is the operator's record, ``secret``, never a frame;
the old public ``reveal`` is gone.)
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from pathlib import Path
from typing import Any

import trio

from server import fair
from server.config import ServerConfig
from server.games.registry import tabled
from server.records.verify import Shoes, verify_round, verify_seen
from server.store.journal import JournalQuery, JournalRound, players_of, recall
from server.store.memory import MemoryStore
from server.store.model import Batch
from server.store.sqlite import SqliteStore
from tests.integration.test_all_banked_games import bot, player_boxes, tables
from tests.server.helpers import GAMES, Bot, fast_config, play_hands, table
from tests.support import running_server


def rounds_in(data: Path) -> list[JournalRound]:
    store = SqliteStore(data, lock=False, readonly=True)
    try:
        return store.journal_rounds(JournalQuery())
    finally:
        store.close()


def check_round(rnd: JournalRound, shoes: Shoes | None = None) -> None:
    verdict = verify_round(rnd, shoes)
    assert verdict.ok and verdict.pending is None, (rnd.ref, verdict)
    kinds = [e.kind for e in rnd.entries]
    assert kinds[0] == "start" and kinds[-1] == "end", kinds
    assert "commit" in kinds and kinds.index("commit") < min(
        (i for i, e in enumerate(rnd.entries) if e.body.get("cards")), default=len(kinds)
    )
    if rnd.start.get("shoe") is None:
        assert kinds[-2] == "secret", kinds
    assert [e.seq for e in rnd.entries] == list(range(1, len(kinds) + 1))
    assert "settlement" in kinds
    for body in rnd.of("event"):
        assert "visible_to" in body
    for body in rnd.of("command"):
        assert "op" in body
    assert all(e.at > 0 for e in rnd.entries)


def tamper(rnd: JournalRound) -> None:
    """A changed secret, and a changed card, are both caught."""
    data = rnd.to_json()
    bad = copy.deepcopy(data)
    secret = next(e for e in bad["entries"] if e["kind"] == "secret")
    secret["body"]["secret"] = "00" * 32
    assert verify_round(JournalRound.from_json(bad)).problems
    bad = copy.deepcopy(data)
    dealt = next(e for e in bad["entries"] if e["kind"] == "event" and e["body"].get("cards"))
    cards = dealt["body"]["cards"]
    cards[0] = "2c" if cards[0] != "2c" else "3c"
    assert verify_round(JournalRound.from_json(bad)).problems


async def test_every_poker_game_is_journalled_and_replays(tmp_path: Path) -> None:
    for game in GAMES:
        data = tmp_path / game
        cfg = fast_config(table(game, seats=4, seed=7), data=data)
        async with running_server(cfg) as server:
            bots = [Bot(server.url, f"{game}-t", s, seed=s) for s in (1, 2, 3)]
            await play_hands(server, bots, 6)
        rounds = [r for r in rounds_in(data) if r.final_state == "settled"]
        assert len(rounds) >= 5, game
        for rnd in rounds:
            check_round(rnd)
            start = rnd.start
            assert start["game"] == game and start["rules"]["game"] == game
            assert {s["stake"] for s in start["seats"].values()} and start["designated"]
            for owner in players_of(start):  # each player's record replays on what it saw
                verdict = verify_seen(recall(rnd, owner))
                assert verdict.ok and verdict.pending is None, (rnd.ref, owner, verdict)
        tamper(rounds[0])


async def test_every_banked_game_is_journalled_and_replays(tmp_path: Path) -> None:
    cfg = ServerConfig(
        port=0,
        tables=tables(),
        round_pause=0.05,
        starting_balance=200_000,
        close_timeout=1.0,
        data=tmp_path,
    )
    async with running_server(cfg) as server:
        seen: Counter[str] = Counter()
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for game in tabled("banked"):
                    for box in player_boxes(game):
                        nursery.start_soon(functools.partial(bot, server.url, game, box, seen, []))
        with trio.fail_after(10):
            while server.croupier.health()["money"]["stakes"]:
                await trio.sleep(0.05)
    rounds = rounds_in(tmp_path)
    by_game = Counter(r.start["game"] for r in rounds)
    assert set(by_game) == set(tabled("banked")), by_game
    ops = Counter(c["op"] for r in rounds for c in r.of("command"))
    assert ops["decide"] and ops["timeout"] and ops["wager"], ops
    for rnd in rounds:
        check_round(rnd)
        assert rnd.start["boxes"]
        for owner in players_of(rnd.start):  # issue 23: each player's record verifies too
            seen = recall(rnd, owner)
            verdict = verify_seen(seen, seed=None)
            assert verdict.ok and verdict.pending is None, (rnd.ref, owner, verdict)
    tamper(next(r for r in rounds if any("cards" in e for e in r.of("event"))))


STADIUM_WAGER = {
    "roulette": "red",
    "sic-bo": "big",
    "wheel-of-fortune": "a",
    "craps": "field",
    "baccarat": "banker",
}


def same_round(opened: dict[str, Any], event: dict[str, Any]) -> bool:
    return bool(event["round"] == opened["round"])


async def test_every_stadium_game_is_journalled_and_replays(tmp_path: Path) -> None:
    """A stadium round is on the record from no more bets: its frozen layout, the window's
    commands with their times, the commitment to the secret its draws come from, the
    engine's events and the settlement; it replays and verifies (QLD Sch 19 s3(2), ETG-05)."""
    from clients.client import Client
    from clients.stadium import credit_in, place, until_event
    from server.config import TableConfig

    games = tabled("stadium")
    assert set(games) == set(STADIUM_WAGER)
    cfg = ServerConfig(
        port=0,
        tables=tuple(
            TableConfig(
                id=f"st-{g}",
                game=g,
                kind="stadium",
                seed=i + 3,
                options={"minimum": 100, "maximum": 10_000},
                betting_seconds=0.25,
            )
            for i, g in enumerate(games)
        ),
        round_pause=0.02,
        close_timeout=1.0,
        data=tmp_path,
    )

    async def terminal(url: str, game: str) -> None:
        table_id = f"st-{game}"
        async with Client.connect(url, name=f"t-{game}") as c:
            await c.join(table_id)
            await credit_in(c, table_id, 5_000)
            for _ in range(3):
                opened = await until_event(c, table_id, "betting_open")
                await place(c, table_id, STADIUM_WAGER[game], 100)
                await until_event(
                    c, table_id, "settlement", where=functools.partial(same_round, opened)
                )

    async with running_server(cfg, deadline=60) as server, trio.open_nursery() as nursery:
        for game in games:
            nursery.start_soon(terminal, server.url, game)
    rounds = [r for r in rounds_in(tmp_path) if r.start["kind"] == "stadium" and r.start["boxes"]]
    assert Counter(r.start["game"] for r in rounds) == Counter({g: 3 for g in games})
    for rnd in rounds:
        check_round(rnd)
        assert len(rnd.start["boxes"]) == 1
        assert [c["op"] for c in rnd.of("command")][:1] == ["place"]
        (owner,) = players_of(rnd.start)
        recalled = recall(rnd, owner)  # what ``history`` shows the terminal (ETG recall)
        (n,) = rnd.start["boxes"]
        assert recalled["boxes"][n] == {STADIUM_WAGER[rnd.start["game"]]: 100}
        assert recalled["net"] == recalled["results"][n]["paid"] - 100
        assert recalled["state"] == "settled" and recalled["commitments"]
        assert verify_seen(recalled).problems == [], rnd.ref
    tamper(next(r for r in rounds if r.start["game"] == "baccarat"))


def test_journal_is_append_only_and_idempotent(tmp_path: Path) -> None:
    from server.store.journal import JournalEntry

    entries = [
        JournalEntry("r1", 1, "t", "start", 1.0, {"game": "g", "seats": {"1": {"account": "a"}}}),
        JournalEntry("r1", 2, "t", "end", 2.0, {"state": "settled"}),
    ]
    for store in (MemoryStore(), SqliteStore(tmp_path, lock=False)):
        store.commit([Batch(journal=list(entries))])
        store.commit([Batch(journal=[JournalEntry("r1", 2, "t", "end", 3.0, {"x": 1})])])
        (rnd,) = store.journal_rounds(JournalQuery(account="a"))
        assert [e.body for e in rnd.entries] == [e.body for e in entries]
        assert store.journal_rounds(JournalQuery(account="b")) == []
        store.close()
    import sqlite3

    import pytest

    db = sqlite3.connect(tmp_path / "ledger.sqlite3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE journal SET body = '{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM journal")


def test_a_batchs_records_of_a_round_share_one_row_and_read_back_whole(tmp_path: Path) -> None:
    """SQLite keeps a batch's records of one round in one row (``journal_rows``: one entry
    in the ``(round, seq)`` index per round and commit, not per record); they read back as
    the records they were, in order, as the memory store keeps them; a retried batch adds
    nothing; a round with one record in a batch gets a plain row."""
    import sqlite3

    from server.store.journal import JournalEntry
    from server.store.sqlite import RECORDS

    def rec(rnd: str, seq: int, kind: str, **body: object) -> JournalEntry:
        return JournalEntry(rnd, seq, "t" + rnd[1], kind, 1000.0 + seq / 8, dict(body))

    start = {"game": "g", "seats": {"1": {"account": "a"}}}
    first = [  # two tables' steps interleaved, as one batch holds them
        rec("r1", 1, "start", **start),
        rec("r2", 1, "start", **start),
        rec("r1", 2, "command", op="act", verb="call", amount=None),
        rec("r1", 3, "event", type="action_taken", seat=1, visible_to=None),
        rec("r2", 2, "command", op="act", verb="fold", amount=None),
        rec("r1", 4, "event", type="turn", seat=2, legal=[{"verb": "check"}]),
    ]
    second = [rec("r2", 3, "end", state="voided"), rec("r1", 5, "end", state="settled")]
    stores = (MemoryStore(), SqliteStore(tmp_path, lock=False))
    for store in stores:
        store.commit([Batch(journal=list(first))])
        store.commit([Batch(journal=list(second))])
        store.commit([Batch(journal=list(first))])  # retried: nothing new
    memory, sqlite = ([r.entries for r in s.journal_rounds(JournalQuery())] for s in stores)
    assert memory == sqlite
    by_key = lambda e: (e.round, e.seq)  # noqa: E731
    assert sorted((e for rnd in sqlite for e in rnd), key=by_key) == sorted(
        first + second, key=by_key
    )
    stores[1].close()
    db = sqlite3.connect(tmp_path / "ledger.sqlite3")
    rows = db.execute("SELECT round, seq, kind FROM journal ORDER BY rowid").fetchall()
    assert rows == [
        ("r1", 1, RECORDS),
        ("r2", 1, RECORDS),
        ("r2", 3, "end"),
        ("r1", 5, "end"),
    ]


def test_the_server_hash_and_the_key_bind_the_secret_and_the_seeds() -> None:
    secret = bytes(range(32))
    assert fair.server_hash(secret) != fair.server_hash(bytes(32))
    key = fair.deal_key(secret, ["b", "a"])
    assert key == fair.deal_key(secret, ["a", "b"])  # the seeds sorted: their order is none
    assert key != fair.deal_key(secret, ["a"]) != fair.deal_key(bytes(32), ["a", "b"])


async def test_no_frame_carries_the_secret_and_every_card_comes_opened(tmp_path: Path) -> None:
    """Issue 23 (it replaces item 4's reveal): no frame carries a round's secret or the
    key its deal comes from; the commitment comes before the first card, and every card a
    player is sent comes with its opening, which leads to the committed root."""
    import json

    from server.records.verify import rounds_seen, verify_seen

    game = "holdem-act"
    cfg = fast_config(table(game, seats=4, seed=11), data=tmp_path)
    async with running_server(cfg) as server:
        bots = [Bot(server.url, f"{game}-t", s, seed=s) for s in (1, 2, 3)]
        await play_hands(server, bots, 8)
    rounds = {r.ref: r for r in rounds_in(tmp_path)}
    secrets = [r.of("secret")[0]["secret"] for r in rounds.values() if r.of("secret")]
    keys = [
        fair.deal_key(bytes.fromhex(r.of("secret")[0]["secret"]), r.of("secret")[0]["seeds"]).hex()
        for r in rounds.values()
        if r.of("secret")
    ]
    assert len(secrets) >= 8
    dealt = 0
    for b in bots:
        text = json.dumps(b.frames)
        assert not any(s in text for s in secrets + keys)
        events = [f for f in b.frames if f.get("type") == "event"]
        for seen in rounds_seen(events):
            rnd = rounds[seen["round"]]
            assert seen["events"][0]["root"] == rnd.of("commit")[0]["root"]
            assert verify_seen(seen).problems == [], seen["round"]
            for ev in seen["events"]:
                if ev["type"] == "hole_cards_dealt":
                    assert ev["seat"] == b.seat and len(ev["open"]) == len(ev["cards"])
                    dealt += 1
                assert ev["type"] != "card_burned"  # a burnt card is never shown
    assert dealt >= 8


class PreActingBot(Bot):
    """A bot that queues a pre-action whenever it has cards and it is not its turn."""

    async def on_message(self, client: Any, msg: dict[str, Any]) -> None:
        event = msg.get("event") if msg["type"] == "event" else None
        if event is not None and event["type"] in ("hole_cards_dealt", "action_taken"):
            verb = self.rng.choice(["check_fold", "check", "call_any", "fold_any"])
            await client.send({"type": "pre_action", "table": self.table, "verb": verb})
        await super().on_message(client, msg)


async def test_pre_actions_are_journalled_and_replay(tmp_path: Path) -> None:
    """Issue 23: a pre-action applied at a seat's turn is the ordinary action on the record
    (``act``, with ``pre``), so verify's replay follows it (the first build lost them)."""
    game = "holdem-act"
    cfg = fast_config(table(game, seats=4, seed=13), data=tmp_path)
    async with running_server(cfg) as server:
        bots = [PreActingBot(server.url, f"{game}-t", s, seed=s) for s in (1, 2, 3)]
        await play_hands(server, bots, 12)
    rounds = [r for r in rounds_in(tmp_path) if r.final_state == "settled"]
    assert sum(1 for r in rounds for c in r.of("command") if "pre" in c) >= 5
    for rnd in rounds:
        check_round(rnd)
    # without them (the first build's record), the replay does not follow the round
    rnd = next(r for r in rounds if any("pre" in c for c in r.of("command")))
    data = rnd.to_json()
    data["entries"] = [e for e in data["entries"] if "pre" not in e["body"]]
    for i, e in enumerate(data["entries"]):
        e["seq"] = i + 1
    assert verify_round(JournalRound.from_json(data)).problems
