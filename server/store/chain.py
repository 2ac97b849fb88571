"""Records that prove themselves: one hash chain over everything a store appends.

Theory of operation
-------------------
Every commit of a store that appends anything adds one **entry** to the store's chain. The
entry lists what the commit wrote, row by row, as ``[stream, key, digest]``: the stream
(``transfer``, ``note``, ``journal``, ``round``, ``jackpot``), the row's key in it (a
transfer's id, a note's id, a journal row's ``round|seq``, a round's ``open|REF|TABLE|OWNER``
or ``close|REF|STATE``, a pool audit entry's ``POOL|VERSION``) and the digest of the row's
canonical text (:func:`row_text`: exactly what the store keeps). The entry's own hash is
``H(prev + "\\n" + "stream:key:digest" per row, one a line)``, ``prev`` being the hash of the
entry before (``0`` x the digest's length for the first). So each entry carries the hash of
the one before, and a row can change only if its digest, its entry's hash and every later
entry's hash change with it.

What a check finds (:func:`verify`, run by ``croupier ledger check``):

* an **edited** row: its digest no longer matches (named: the entry, the stream, the key);
* a **deleted** row: an entry names a row the store no longer has;
* an **inserted** row (a forged, balanced transfer, say): a row no entry names;
* a **rewritten** chain (every hash recomputed after an edit) or a **cut** tail: the signed
  checkpoints (:mod:`server.store.checkpoints`), made with a key the store does not hold,
  name a head the chain no longer has;
* a **dropped trigger** (SQLite): the append-only guards are part of the schema the check
  expects.

The hash is SHA-256 in SQLite. In Redis the chain is extended by the ledger's Lua script
itself (several servers may commit to one store, in an order only Redis knows), and Redis's
Lua offers SHA-1 only (``redis.sha1hex``): SHA-1's known attacks are collisions between two
messages an attacker makes up, not a second message matching one the server wrote, and every
checkpoint signs the head with Ed25519.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: The hash of each store's chain (see the module docstring).
SHA256 = "sha256"
SHA1 = "sha1"

Row = tuple[str, str, str]  # (stream, key, digest)


def hasher(algorithm: str) -> Callable[[bytes], str]:
    """The hex digest function of ``algorithm``."""
    fn = getattr(hashlib, algorithm)

    def digest(data: bytes) -> str:
        return str(fn(data).hexdigest())

    return digest


def genesis(algorithm: str) -> str:
    """The ``prev`` of a chain's first entry."""
    return "0" * len(hasher(algorithm)(b""))


def row_text(values: Sequence[Any]) -> str:
    """The canonical text of a stored row (SQLite): its columns in order, each a netstring
    tagged with its kind: ``s`` a text (as it is), ``v`` anything else (its ``repr``: an int,
    a float read back exactly, ``None``). Unambiguous, and about half the cost of JSON on a
    journal row, whose body is JSON already (the chain is on the commit's path)."""
    parts = []
    for v in values:
        if type(v) is str:
            parts.append(f"s{len(v)}:{v}")
        else:
            r = repr(v)
            parts.append(f"v{len(r)}:{r}")
    return "".join(parts)


def entry_hash(algorithm: str, prev: str, rows: Iterable[Row]) -> str:
    """The hash of an entry after ``prev`` listing ``rows``."""
    lines = [prev, *(f"{s}:{k}:{d}" for s, k, d in rows)]
    return hasher(algorithm)("\n".join(lines).encode())


@dataclass
class Entry:
    """One commit's entry of a chain."""

    n: int
    prev: str
    hash: str
    rows: list[Row]
    at: float = 0.0


@dataclass
class ChainReport:
    """What :func:`verify` found: ``length`` entries, ``head``, and the problems (the first
    broken link first)."""

    length: int = 0
    head: str = ""
    problems: list[str] = field(default_factory=list)


def verify(
    algorithm: str,
    entries: Iterable[Entry],
    current: Mapping[str, Mapping[str, str]],
) -> ChainReport:
    """Walk the chain: every link, every row's digest against ``current`` (stream -> key ->
    the digest of the row as the store holds it now: a key absent, the row is gone), and
    every row of ``current`` named by an entry. Rounds are events, not rows: a ``round`` key
    is its own content, checked against ``current["round"]`` when given."""
    report = ChainReport(head=genesis(algorithm))
    seen: dict[str, set[str]] = {}
    expect_n = 1
    for entry in entries:
        report.length = entry.n
        if entry.n != expect_n:
            report.problems.append(f"chain entry {expect_n} is missing (next is {entry.n})")
            expect_n = entry.n
        if entry.prev != report.head:
            report.problems.append(
                f"chain entry {entry.n}: its link to entry {entry.n - 1} is broken"
            )
        if entry_hash(algorithm, entry.prev, entry.rows) != entry.hash:
            report.problems.append(f"chain entry {entry.n}: its hash does not match its rows")
        for stream, key, digest in entry.rows:
            seen.setdefault(stream, set()).add(key)
            now = current.get(stream)
            if now is None:
                continue
            if key not in now:
                report.problems.append(f"chain entry {entry.n}: {stream} {key} was deleted")
            elif now[key] != digest:
                report.problems.append(f"chain entry {entry.n}: {stream} {key} was changed")
        report.head = entry.hash
        expect_n = entry.n + 1
    for stream, rows in sorted(current.items()):
        stray = sorted(set(rows) - seen.get(stream, set()))
        for key in stray[:5]:
            report.problems.append(f"{stream} {key} is on no chain entry: it was inserted")
        if len(stray) > 5:
            report.problems.append(f"... and {len(stray) - 5} more {stream} rows on no entry")
    return report
