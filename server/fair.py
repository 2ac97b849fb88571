"""Provably fair rounds: a commitment before the first card, a reveal after the round.

Theory of operation
-------------------
At the start of each round the table draws a fresh 32-byte **round secret** from the
operating system's CSPRNG (a table with a configured ``seed``, for tests, draws it from its
seeded source instead). Every random choice of the round (the shuffle of the deck, a shoe, a
wheel or the dice) comes from :class:`SecretSource`, a deterministic random source keyed by
that secret: SHA-256 in counter mode, with rejection sampling so that ``randbelow`` is
uniform. The card order, or the outcome, is therefore fixed the moment the secret is drawn,
before any wager is settled or card dealt, and is a public function of the secret (the
shuffle is ``server/cards.py``'s Fisher-Yates; each engine's deal is in ``server/games``).

Before the first card the table publishes the **commitment**
``SHA-256("croupier-fair/1:" + round + ":" + secret_hex)``; nothing else derived from the
secret leaves the server while the round runs. After the round it publishes the **reveal**:
the secret and the card order it produced. ``croupier verify ROUND.json`` (a round exported
from the journal) recomputes the hash, rebuilds the round from the journal with a source
keyed by the revealed secret, replays the journalled commands and checks that every card
dealt, and every engine event, is what the secret produces (:func:`verify_round`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from server.cards import RandomSource

PREFIX = "croupier-fair/1"


def new_secret(rng: RandomSource | None = None) -> bytes:
    """A round secret: 32 bytes from the OS CSPRNG, or from ``rng`` (a seeded test table)."""
    if rng is None:
        return secrets.token_bytes(32)
    return bytes(rng.randbelow(256) for _ in range(32))


def commitment(round_ref: str, secret: bytes) -> str:
    """The hash published before the first card (hex)."""
    return hashlib.sha256(f"{PREFIX}:{round_ref}:{secret.hex()}".encode()).hexdigest()


def matches(round_ref: str, secret_hex: str, published: str) -> bool:
    """Whether a revealed secret matches the published commitment."""
    try:
        secret = bytes.fromhex(secret_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commitment(round_ref, secret), published)


class SecretSource:
    """A deterministic :class:`~server.cards.RandomSource` keyed by a round secret.

    Blocks are ``SHA-256(secret || counter)``; ``randbelow(n)`` takes as many bytes as ``n``
    needs plus 8 and rejects values above the largest multiple of ``n`` (no modulo bias).
    Every call is recorded in :attr:`draws` as ``(n, value)``: the round's outcome."""

    __slots__ = ("_buf", "_counter", "_secret", "draws")

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        self._counter = 0
        self._buf = b""
        self.draws: list[tuple[int, int]] = []

    def _bytes(self, k: int) -> bytes:
        while len(self._buf) < k:
            block = self._counter.to_bytes(8, "big")
            self._buf += hashlib.sha256(self._secret + block).digest()
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
                self.draws.append((n, value))
                return value


def reveal(round_ref: str, secret: bytes, source: SecretSource) -> dict[str, Any]:
    """The body published after the round: the secret, the commitment, the draws (each
    ``[n, value]`` of ``randbelow(n)`` as decimal strings: a whole-deck draw exceeds 64
    bits)."""
    return {
        "round": round_ref,
        "secret": secret.hex(),
        "commitment": commitment(round_ref, secret),
        "draws": draws_json(source),
    }


def draws_json(source: SecretSource) -> list[list[str]]:
    return [[str(n), str(v)] for n, v in source.draws]
