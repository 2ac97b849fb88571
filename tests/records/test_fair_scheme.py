"""The scheme of ``croupier-fair/2`` (``server/fair.py``; docs/rulings.md "Rounds on the
record"): the test vector the rulings publish, the Merkle tree and its audit paths against an
independent verifier written from RFC 6962 / RFC 9162, and the players' seeds: a seed changes
the deal, the same secret and seeds give the same deal, and a seed sent over the wire is in
the commitment and in the deal the operator's record derives."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from server import fair
from server.games.poker import PokerRound, rules_for
from server.records.verify import verify_round
from server.store.journal import JournalQuery
from server.store.sqlite import SqliteStore
from tests.server.helpers import Bot, fast_config, play_hands, table
from tests.support import running_server

VECTOR_SECRET = bytes(range(32))
VECTOR_SEEDS = ["bob-7", "alice's seed"]


def test_the_published_test_vector() -> None:
    """docs/rulings.md: an outside verifier's first check."""
    assert fair.server_hash(VECTOR_SECRET) == (
        "6ce391fa64f39331f4ee6e182b2c56c6ab1110124aa243533d37eb95af1f9b0f"
    )
    key = fair.deal_key(VECTOR_SECRET, VECTOR_SEEDS)
    assert key.hex() == "371242de1e17d0c62001177640c6fa63fad6bd219f797cb8b00b83c48a3fa2bf"
    source = fair.SecretSource(key)
    assert (source.randbelow(52), source.randbelow(6)) == (51, 5)
    deal = fair.Deal(VECTOR_SECRET, ["As", "Kd", "7h", "2c", "Td"])
    assert (deal.root, deal.size) == (
        "634c56bb103f9591ba6e0688c33d295d00692ae1904199c019aae5df7674ff22",
        5,
    )
    assert deal.opening(2) == {
        "i": 2,
        "v": "7h",
        "salt": "a4ede25d44cf71782b8e38971ed699d6400c4e9436589c32ba4662a4c9628c54",
        "path": [
            "c6dc7e24a5ef88161fe7971f0d71eeeb8063dd2206aeb5c1d3cccc9b4c813070",
            "3a1d8abeed6c6a5274668f770f27f4814c588065d2feb6d82e0dab68d2bab383",
            "2e42f4ad1d25dadb2821ddf62fc4fc6d4bda8588a8ee52cd49cf5d5cd0997b83",
        ],
    }
    rulings = (Path(__file__).resolve().parents[2] / "docs" / "rulings.md").read_text()
    assert deal.root in rulings and key.hex() in rulings


def _outside_root(leaves: list[bytes]) -> bytes:
    """RFC 6962 s2.1, written again from the RFC (not from server/fair.py)."""
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return leaves[0]
    k = 1 << ((n - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + _outside_root(leaves[:k]) + _outside_root(leaves[k:])).digest()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 32, 52, 312])
def test_every_opening_of_every_size_verifies_and_says_nothing_else(size: int) -> None:
    secret = hashlib.sha256(str(size).encode()).digest()
    items = [f"c{i % 52}" for i in range(size)]
    deal = fair.Deal(secret, items, stack=1 if size == 312 else None)
    stack = 1 if size == 312 else 0
    leaves = []
    for i, v in enumerate(items):
        salt = hmac.new(secret, f"croupier-fair/2:salt:{stack}:{i}".encode(), "sha256").digest()
        leaves.append(hashlib.sha256(b"\x00" + salt + f"{i}:{v}".encode()).digest())
    assert deal.root == _outside_root(leaves).hex()
    for i in range(size):
        opening = json.loads(json.dumps(deal.opening(i)))  # as on the wire
        assert fair.check_opening(opening, deal.root, size) is None
        assert fair.check_opening({**opening, "v": "zz"}, deal.root, size) is not None
        assert fair.check_opening({**opening, "i": (i + 1) % size}, deal.root, size) or size == 1
        assert len(opening["path"]) <= (size - 1).bit_length()
        # what one opening shows: its own leaf's value and salt, never another's
        others = {s.hex() for j, s in enumerate(deal.salts) if j != i}
        assert not others & set(opening["path"]) and opening["salt"] not in others


def _deal(seeds: list[str], secret: bytes = VECTOR_SECRET) -> list[int]:
    rules = rules_for("holdem-act", {"blinds": [100, 200], "min_table_stake": 4000})
    source = fair.SecretSource(fair.deal_key(secret, seeds))
    rnd = PokerRound(rules, {1: 10_000, 2: 10_000, 3: 10_000}, 1, source)
    rnd.start()
    return list(rnd.deck)


def test_a_seed_changes_the_deal_and_the_same_seeds_give_the_same_deal() -> None:
    base = _deal(["a", "b"])
    assert _deal(["b", "a"]) == base == _deal(["a", "b"])  # replayed: the same deal
    assert _deal(["a", "b", "c"]) != base  # a third player's seed
    assert _deal(["a", "B"]) != base  # a changed seed
    assert _deal(["a", "b"], bytes(32)) != base  # the server's secret
    assert sorted(base) == list(range(52))


class SeedOnce(Bot):
    """A bot that sends one seed of its own, for the next deal after it sits down."""

    SEED = "sam's lucky seed"

    async def on_message(self, client: Any, msg: dict[str, Any]) -> None:
        if not self.rounds_seen and not getattr(self, "sent", False):
            self.sent = True
            await client.send({"type": "seed", "table": self.table, "seed": self.SEED})
        await super().on_message(client, msg)


async def test_a_players_seed_is_in_the_commitment_and_in_the_deal(tmp_path: Path) -> None:
    """Over a socket: the seed a seated player sends for the next deal is acknowledged to
    it (``seed_taken``, with the server hash published before), listed in that deal's
    commitment, and the operator's record derives the deal from it (verify passes; without
    it the root differs)."""
    game = "holdem-act"
    cfg = fast_config(table(game, seats=4, seed=3), data=tmp_path)
    async with running_server(cfg) as server:
        bots = [Bot(server.url, f"{game}-t", s, seed=s) for s in (1, 2)]
        sam = SeedOnce(server.url, f"{game}-t", 3, seed=3)
        await play_hands(server, [*bots, sam], 4)
    frames = sam.frames
    published = frames[0]["view"]["fair"]["server_hash"]  # the snapshot: before any seed
    taken = next(f["event"] for f in frames if f.get("event", {}).get("type") == "seed_taken")
    assert taken["seed"] == SeedOnce.SEED and taken["for"] == "round"
    store = SqliteStore(tmp_path, lock=False, readonly=True)
    try:
        rounds = store.journal_rounds(JournalQuery())
    finally:
        store.close()
    mine = [r for r in rounds if SeedOnce.SEED in r.of("commit")[0]["seeds"]]
    assert len(mine) == 1, [r.of("commit") for r in rounds]
    rnd = mine[0]
    commit = rnd.of("commit")[0]
    assert commit["server_hash"] == taken["server_hash"]
    assert published in {r.of("commit")[0]["server_hash"] for r in rounds}
    assert verify_round(rnd).ok
    secret = bytes.fromhex(rnd.of("secret")[0]["secret"])
    without = [s for s in commit["seeds"] if s != SeedOnce.SEED]
    items = rnd.of("secret")[0]["items"]
    source = fair.SecretSource(fair.deal_key(secret, without))
    rules = rules_for(game, dict(rnd.start["options"]))
    stacks = {int(n): int(s["stake"]) for n, s in rnd.start["seats"].items()}
    other = PokerRound(rules, stacks, int(rnd.start["designated"]), source)
    other.start()
    assert fair.deck_items(other.deck) != items
