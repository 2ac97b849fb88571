"""No folded, mucked or undealt card leaves the server; every card shown verifies (issue 23).

Over 200 hands at each of a hold'em, an Omaha and a Manila table (six bots each over real
sockets, and a spectator), every frame the spectator got, and every frame a player got in a
hand it folded, is decoded with every documented verification procedure (protocol/README.md
"Rounds on the record": the commitment, each opening against it, the cards the events show):
it yields every board card and every hand shown, each verified against the commitment
published before the first card, and not one card of a folded or mucked hand, not one burnt
or undealt card, and neither the round's secret nor its key. A brute force on the hashes the
audit paths carry (every card, under every salt the frames opened) finds nothing either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client
from server import fair
from server.records.verify import rounds_seen, verify_seen
from server.store.journal import JournalQuery, JournalRound
from server.store.sqlite import SqliteStore
from tests.server.helpers import Bot, fast_config, play_hands, table
from tests.support import running_server

HANDS = 205
GAMES = ("holdem-act", "omaha-act", "manila-act")
CARD = re.compile(r"^[2-9TJQKA][shdc]$")


class Spectator:
    def __init__(self, url: str, table_id: str) -> None:
        self.url, self.table = url, table_id
        self.frames: list[dict[str, Any]] = []

    async def run(self) -> None:
        async with Client.connect(self.url, name="rail") as client:
            await client.join(self.table, role="spectator")
            async for msg in client:
                self.frames.append(msg)


async def _play(data: Path, seen: dict[str, list[list[dict[str, Any]]]]) -> None:
    tables = [table(g, seats=6, seed=60 + i) for i, g in enumerate(GAMES)]
    async with running_server(fast_config(*tables, data=data)) as server:
        bots = [
            Bot(server.url, f"{g}-t", s, seed=10 * i + s, buy_in=6000)
            for i, g in enumerate(GAMES)
            for s in range(1, 7)
        ]
        rails = [Spectator(server.url, f"{g}-t") for g in GAMES]
        async with trio.open_nursery() as nursery:
            for rail in rails:
                nursery.start_soon(rail.run)
            await trio.sleep(0.2)  # the rail is there before the first hand
            await play_hands(server, bots, HANDS, timeout=300)
            nursery.cancel_scope.cancel()
    for rail in rails:
        seen[f"rail {rail.table}"] = [rail.frames]
    for bot in bots:
        seen.setdefault(f"seat {bot.table} {bot.seat}", []).append(bot.frames)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[JournalRound], dict[str, Any]]:
    data = tmp_path_factory.mktemp("privacy")
    seen: dict[str, list[list[dict[str, Any]]]] = {}
    trio.run(_play, data, seen)
    store = SqliteStore(data, lock=False, readonly=True)
    try:
        rounds = store.journal_rounds(JournalQuery())
    finally:
        store.close()
    return rounds, seen


def _strings(obj: object) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _strings(v)


def _shown(rnd: JournalRound) -> tuple[set[str], dict[int, set[str]], set[int]]:
    """A round's cards shown to everyone (board, hands shown), each seat's own hole cards,
    and the seats that folded."""
    public: set[str] = set()
    hole: dict[int, set[str]] = {}
    folded: set[int] = set()
    for ev in rnd.of("event"):
        if ev["type"] in ("board_dealt", "hand_shown"):
            public |= set(ev["cards"])
        elif ev["type"] == "hole_cards_dealt":
            hole[int(ev["seat"])] = set(ev["cards"])
        elif ev["type"] == "action_taken" and ev["verb"] == "fold":
            folded.add(int(ev["seat"]))
    return public, hole, folded


def _check(
    rnd: JournalRound, frames: list[dict[str, Any]], allowed: set[str], who: str
) -> tuple[int, list[dict[str, Any]]]:
    """One observer's frames of one round: nothing hidden in them, every card opened and
    verified; the openings it got (for the brute force)."""
    secret = rnd.of("secret")[0]
    items = set(secret["items"])
    hidden = items - allowed
    text = json.dumps(frames)
    key = fair.deal_key(bytes.fromhex(secret["secret"]), secret["seeds"]).hex()
    assert secret["secret"] not in text and key not in text, (who, rnd.ref)
    cards = {s for s in _strings(frames) if CARD.match(s)}
    assert not cards & hidden, (who, rnd.ref, sorted(cards & hidden))
    (round_seen,) = [r for r in rounds_seen(frames) if r["round"] == rnd.ref]
    root = rnd.of("commit")[0]["root"]
    verdict = verify_seen(round_seen, root=root)  # the documented procedure
    assert verdict.problems == [], (who, rnd.ref, verdict.problems)
    openings = [o for ev in round_seen["events"] for o in ev.get("open", ())]
    opened = {str(o["v"]) for o in openings}
    assert opened <= allowed and not opened & hidden, (who, rnd.ref)
    return len(opened), openings


def _by_round(frames: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """An observer's frames by round: from a round's commitment to the next round's."""
    out: dict[str, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    for f in frames:
        ev = f.get("event") if f.get("type") == "event" else None
        if ev is not None and ev.get("type") == "commitment":
            current = out.setdefault(ev["round"], [])
        if current is not None:
            current.append(f)
    return out


def _ended(frames: list[dict[str, Any]]) -> bool:
    return any(f.get("event", {}).get("type") == "round_ended" for f in frames)


def test_no_hidden_card_leaves_and_every_shown_card_verifies(
    played: tuple[list[JournalRound], dict[str, Any]],
) -> None:
    rounds, seen = played
    settled = [r for r in rounds if r.final_state == "settled" and r.of("secret")]
    by_table: dict[str, list[JournalRound]] = {}
    for rnd in settled:
        by_table.setdefault(rnd.table, []).append(rnd)
    assert {t: len(rs) >= 200 for t, rs in by_table.items()} == {f"{g}-t": True for g in GAMES}
    verified = folded_checks = mucked = checked = 0
    brute: list[tuple[JournalRound, list[dict[str, Any]]]] = []
    for table_id, rs in by_table.items():
        (rail,) = (_by_round(f) for f in seen[f"rail {table_id}"])
        bots = {n: _by_round(seen[f"seat {table_id} {n}"][0]) for n in range(1, 7)}
        for rnd in rs:
            public, hole, folded = _shown(rnd)
            frames = rail.get(rnd.ref, [])
            if not _ended(frames):
                continue  # still in play when the clients went (the test's end)
            checked += 1
            mucked += sum(1 for e in rnd.of("event") if e["type"] == "hand_mucked")
            n, openings = _check(rnd, frames, public, "spectator")
            assert n == len(public), (rnd.ref, n, public)  # every card shown came opened
            verified += n
            if len(brute) < 30 and openings:
                brute.append((rnd, openings))
            for seat in sorted(folded):
                allowed = public | hole.get(seat, set())
                mine = bots[seat].get(rnd.ref, [])
                if _ended(mine):
                    _check(rnd, mine, allowed, f"seat {seat}, folded")
                    folded_checks += 1
    assert checked >= 3 * 200 and verified > 3000 and folded_checks > 500 and mucked > 20, (
        checked,
        verified,
        folded_checks,
        mucked,
    )
    for rnd, openings in brute:  # the hashes on the paths: no hidden card under any salt seen
        salts = [bytes.fromhex(o["salt"]) for o in openings]
        path_hashes = {h for o in openings for h in o["path"]}
        items = rnd.of("secret")[0]["items"]
        opened = {int(o["i"]) for o in openings}
        hidden = set(items) - {str(o["v"]) for o in openings}
        for pos in set(range(len(items))) - opened:
            for value in hidden:
                for salt in salts:
                    assert fair.leaf_hash(pos, value, salt).hex() not in path_hashes
