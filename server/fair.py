"""Provably fair deals that open only what was shown (``croupier-fair/2``).

Theory of operation
-------------------
A **deal** is everything a round's randomness fixes, as a list of *items* in position
order: the cards of a poker deck in the order the engine draws them, the cards (or tiles) of
every shuffle a banked round makes followed by its outcomes (a die: ``"3/6"``, the value 3 of
a uniform draw below 6; a wheel), or one shuffled stack of a blackjack shoe.

1. **The server's secret, committed first.** Every table holds the secret of its *next*
   deal (32 bytes from the OS CSPRNG) and publishes ``server_hash = SHA-256("croupier-fair/2
   :secret:" || secret)`` (``secret_committed``, and in every snapshot) before it takes any
   player's seed for that deal.
2. **The players' seeds.** Each player may send a seed (``seed``: 1 to 64 printable ASCII
   characters) for the next deal (the next round; at blackjack the next shoe). When the
   deal is made the table takes the seeds of the players in it, sorted, and derives the
   deal's key ``HMAC-SHA256(secret, "croupier-fair/2:key" || "\\n" + seed for each seed)``.
   Every draw of the deal comes from :class:`SecretSource` keyed by that key (SHA-256 in
   counter mode, rejection sampling: ``randbelow`` is uniform), so the deal is a function of
   the secret and the seeds together: the server alone does not choose it (it committed to
   its secret before it saw the seeds) and no player alone does (it does not know the
   secret). The same secret and seeds give the same deal (the engines are deterministic).
3. **One commitment, before the first card.** Item ``i`` with value ``v`` is the leaf
   ``SHA-256(0x00 || salt_i || "i:v")`` with its own salt ``salt_i = HMAC-SHA256(secret,
   "croupier-fair/2:salt:" + stack + ":" + i)`` (``stack`` 0 for a round's deal; a shoe's
   stacks are numbered from 0). The leaves make a Merkle tree as RFC 6962 s2.1 builds it
   (node ``SHA-256(0x01 || left || right)``, the split at the largest power of two below
   the size); its root, with the size, the server hash and the seeds, is the ``commitment``
   published before the deal's first card is shown.
4. **Openings, card by card, to whom saw the card.** An opening of item ``i`` is ``{"i",
   "v", "salt", "path"}``: the value, its salt and the RFC 6962 audit path (RFC 9162
   s2.1.3.2 verifies it). A table puts the openings of the cards an event shows on that
   event, so an opening has exactly the visibility of its card: a player's own hole cards
   to that player, the board and the hands shown at a showdown to everyone. A card nobody
   was shown (folded, mucked, burnt, undealt) is never opened on the wire: its leaf is
   salted with a secret salt, so the hashes on other cards' paths say nothing about it.
5. **The operator's record** (the journal) keeps every opening and, after the round, the
   secret and the items (``secret``), so a regulator can recompute the root of the whole
   deal and derive the deal from the secret and the seeds. The secret is never sent: it
   would open every folded hand.

Nothing here knows a game; :class:`Opener` maps the cards of an event to positions of a
deal by their value (a single deck: exact; a multi-deck shoe: the first untaken position
holding the card, or, at blackjack, the positions the shoe itself reports).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from server.cards import Card, RandomSource, card_str

#: the scheme's name, and the prefix of every text it hashes (a seed's form, printable
#: ASCII with no line break, is the protocol's: ``protocol.messages.SeedText``)
SCHEME = "croupier-fair/2"


def new_secret(rng: RandomSource | None = None) -> bytes:
    """A secret: 32 bytes from the OS CSPRNG, or from ``rng`` (a seeded test table)."""
    if rng is None:
        return secrets.token_bytes(32)
    return bytes(rng.randbelow(256) for _ in range(32))


def server_hash(secret: bytes) -> str:
    """The hash of a secret published before the seeds are taken (hex)."""
    return hashlib.sha256(f"{SCHEME}:secret:".encode() + secret).hexdigest()


def deal_key(secret: bytes, seeds: Iterable[str]) -> bytes:
    """The key of a deal: the server's secret with the players' seeds (sorted)."""
    text = f"{SCHEME}:key" + "".join("\n" + s for s in sorted(seeds))
    return hmac.new(secret, text.encode(), hashlib.sha256).digest()


def salts(secret: bytes, stack: int, n: int) -> list[bytes]:
    """The salts of positions ``0 .. n-1``: ``HMAC-SHA256(secret, "croupier-fair/2:salt:" +
    stack + ":" + position)`` (the HMAC keyed once and copied per position)."""
    keyed = hmac.new(secret, digestmod=hashlib.sha256)
    out = []
    for pos in range(n):
        h = keyed.copy()
        h.update(f"{SCHEME}:salt:{stack}:{pos}".encode())
        out.append(h.digest())
    return out


def leaf_hash(pos: int, value: str, salt_bytes: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + salt_bytes + f"{pos}:{value}".encode()).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two below ``n`` (RFC 6962 s2.1's k)."""
    k = 1
    while k << 1 < n:
        k <<= 1
    return k


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962 s2.1 Merkle tree hash of ``leaves`` (the empty tree: SHA-256 of nothing)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return node_hash(merkle_root(leaves[:k]), merkle_root(leaves[k:]))


def root_from_path(index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> bytes | None:
    """The root an audit path leads to (RFC 9162 s2.1.3.2), or None for a malformed path."""
    if not 0 <= index < size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def check_opening(opening: Mapping[str, Any], root: str, size: int) -> str | None:
    """What is wrong with one opening against a published root and size (None: it opens)."""
    try:
        i, v = int(opening["i"]), str(opening["v"])
        salt_bytes = bytes.fromhex(str(opening["salt"]))
        path = [bytes.fromhex(str(h)) for h in opening["path"]]
    except (KeyError, TypeError, ValueError):
        return f"a malformed opening {opening!r}"
    got = root_from_path(i, size, leaf_hash(i, v, salt_bytes), path)
    if got is None or not hmac.compare_digest(got.hex(), root):
        return f"the opening of position {i} ({v}) does not lead to the root {root[:16]}..."
    return None


def item(value: object) -> str:
    """An item as the deal commits it: a card as its two characters, a tile as its name."""
    return card_str(value) if type(value) is int else str(value)


class Deal:
    """One committed deal: its items, their salts and the Merkle tree over them."""

    __slots__ = ("_nodes", "items", "root", "salts", "secret", "stack")

    def __init__(self, secret: bytes, items: Sequence[str], stack: int | None = None) -> None:
        self.secret = secret
        self.items = list(items)
        self.stack = stack
        self.salts = salts(secret, stack or 0, len(self.items))
        leaves = [leaf_hash(i, v, self.salts[i]) for i, v in enumerate(self.items)]
        self._nodes: dict[tuple[int, int], bytes] = {}
        self.root = self._hash(leaves, 0, len(leaves)).hex()

    def _hash(self, leaves: list[bytes], lo: int, hi: int) -> bytes:
        if hi - lo == 0:
            out = hashlib.sha256(b"").digest()
        elif hi - lo == 1:
            out = leaves[lo]
        else:
            k = _split(hi - lo)
            out = node_hash(self._hash(leaves, lo, lo + k), self._hash(leaves, lo + k, hi))
        self._nodes[lo, hi] = out
        return out

    @property
    def size(self) -> int:
        return len(self.items)

    def path(self, pos: int) -> list[bytes]:
        """The audit path of ``pos`` (RFC 6962 s2.1.1), leaf upwards."""
        out: list[bytes] = []
        lo, hi = 0, len(self.items)
        while hi - lo > 1:
            k = _split(hi - lo)
            if pos < lo + k:
                out.append(self._nodes[lo + k, hi])
                hi = lo + k
            else:
                out.append(self._nodes[lo, lo + k])
                lo = lo + k
        out.reverse()
        return out

    def opening(self, pos: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "i": pos,
            "v": self.items[pos],
            "salt": self.salts[pos].hex(),
            "path": [h.hex() for h in self.path(pos)],
        }
        if self.stack is not None:
            out["stack"] = self.stack
        return out


def commitment_body(
    deal: Deal, secret_hash: str, seeds: Sequence[str], **more: Any
) -> dict[str, Any]:
    """What a commitment publishes (and the journal's ``commit`` record holds)."""
    return {
        "scheme": SCHEME,
        "root": deal.root,
        "size": deal.size,
        "server_hash": secret_hash,
        "seeds": list(seeds),
        **more,
    }


#: card events whose cards were all shown before (to someone): they only ever re-open
RESHOW = frozenset({"hand_shown"})


class Opener:
    """Which positions of a deal the cards of an event show, and their openings on it.

    A card event (a wire dict with ``cards``; a poker ``board_dealt``'s ``board`` repeats
    cards already opened) shows each card either again (a card already taken that this
    audience has not been shown: a dealer's hole card turned up, a hand shown at the
    showdown) or for the first time (the next position holding that card that no event
    took yet: :meth:`fresh`). The openings go on the event as ``open``, so they reach
    exactly the event's audience."""

    def __init__(self) -> None:
        self._taken: dict[str, list[tuple[Deal, int]]] = {}
        self._seen: dict[tuple[int, int], set[object]] = {}

    def fresh(self, value: str) -> tuple[Deal, int] | None:
        raise NotImplementedError

    def attach(self, wire: dict[str, Any]) -> None:
        shown = wire.get("cards")
        if not shown:
            return
        audience = wire.get("visible_to", "everyone")
        reshow = wire.get("type") in RESHOW
        opened = []
        for value in shown:
            found = self._locate(str(value), audience, reshow)
            if found is not None:
                deal, pos = found
                opened.append(deal.opening(pos))
        if opened:
            wire["open"] = opened

    def _locate(self, value: str, audience: object, reshow: bool) -> tuple[Deal, int] | None:
        taken = self._taken.setdefault(value, [])
        for deal, pos in taken:
            seen = self._seen[id(deal), pos]
            if audience not in seen:
                seen.add(audience)
                return deal, pos
        found = None if reshow else self.fresh(value)
        if found is None:
            return taken[-1] if taken else None
        taken.append(found)
        self._seen[id(found[0]), found[1]] = {audience}
        return found


class DeckOpener(Opener):
    """A round's deal: a card's first showing takes the first untaken position holding it."""

    def __init__(self, deal: Deal) -> None:
        super().__init__()
        self.deal = deal
        self._free: dict[str, list[int]] = {}
        for pos in range(deal.size - 1, -1, -1):
            self._free.setdefault(deal.items[pos], []).append(pos)

    def fresh(self, value: str) -> tuple[Deal, int] | None:
        free = self._free.get(value)
        return (self.deal, free.pop()) if free else None


class ShoeOpener(Opener):
    """A blackjack shoe: a card's first showing takes a position the shoe reports it dealt
    in this step (:attr:`pending`, filled by the table), the first holding that card."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: list[tuple[Deal, int]] = []

    def fresh(self, value: str) -> tuple[Deal, int] | None:
        for k, (deal, pos) in enumerate(self.pending):
            if deal.items[pos] == value:
                return self.pending.pop(k)
        return None


class SecretSource:
    """A deterministic :class:`~server.cards.RandomSource` keyed by a deal's key.

    Blocks are ``SHA-256(key || counter)`` (8-byte big-endian counter from 0);
    ``randbelow(n)`` takes ``ceil(bits(n) / 8) + 8`` bytes, big-endian, and rejects values at
    or above the largest multiple of ``n`` below ``256 ** bytes`` (no modulo bias).

    It keeps the deal's items: :func:`server.cards.shuffle` reports every shuffle it makes
    with this source (:meth:`shuffled`: the shuffled items, its ``len - 1`` draws), and a
    draw outside a shuffle (a die, a wheel) is an item ``"value/n"``. :attr:`stacks` holds
    each shuffle apart (a blackjack shoe's stacks)."""

    __slots__ = ("_buf", "_counter", "_key", "_loose", "draws", "items", "outcomes", "stacks")

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._counter = 0
        self._buf = b""
        self.draws = 0
        self._loose: list[tuple[int, int]] = []
        self.items: list[str] = []
        self.outcomes: list[int] = []  # positions of items that are outcomes (dice, wheel)
        self.stacks: list[list[str]] = []

    def _bytes(self, k: int) -> bytes:
        while len(self._buf) < k:
            block = self._counter.to_bytes(8, "big")
            self._buf += hashlib.sha256(self._key + block).digest()
            self._counter += 1
        out, self._buf = self._buf[:k], self._buf[k:]
        return out

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        k = (n.bit_length() + 7) // 8 + 8
        space = 1 << (8 * k)
        limit = space - space % n
        while True:
            x = int.from_bytes(self._bytes(k), "big")
            if x < limit:
                value = x % n
                self.draws += 1
                self._loose.append((n, value))
                return value

    def _flush(self, keep: int = 0) -> None:
        loose = self._loose[: len(self._loose) - keep]
        for n, v in loose:
            self.outcomes.append(len(self.items))
            self.items.append(f"{v}/{n}")
        self._loose = []

    def shuffled(self, out: Sequence[object]) -> None:
        """A shuffle made with this source: its last ``len(out) - 1`` draws were its own."""
        self._flush(keep=max(0, len(out) - 1))
        stack = [item(x) for x in out]
        self.stacks.append(stack)
        self.items.extend(stack)

    def deal_items(self) -> list[str]:
        """Every item of the deal so far (draws outside a shuffle included)."""
        self._flush()
        return list(self.items)


def deck_items(deck: Iterable[Card]) -> list[str]:
    """A poker deal's items: the deck in the order the engine drew it."""
    return [card_str(c) for c in deck]
