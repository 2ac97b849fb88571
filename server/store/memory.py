"""An in-memory store: a test double for unit tests (a server started without ``--data``
in tests). Same semantics as the SQLite store: idempotent per transfer id, rounds, meta."""

from __future__ import annotations

import secrets
from typing import Any

from server.store.checkpoints import Checkpoint
from server.store.journal import JournalEntry, JournalQuery, JournalRound, players_of
from server.store.model import (
    Batch,
    CheckReport,
    Loaded,
    RoundState,
    StoreUnavailable,
    Transfer,
    check_books,
)


class MemoryStore:
    id = "memory"

    def __init__(self) -> None:
        self.epoch = secrets.token_hex(8)
        self.version = 0
        self.transfers: dict[str, Transfer] = {}
        self.balances: dict[str, int] = {}
        self.rounds: dict[str, tuple[str, str, RoundState]] = {}
        self.meta: dict[str, str] = {}
        self.down = False  # tests: the store cannot be reached
        self.journal: dict[str, list[JournalEntry]] = {}  # round -> records, append-only
        self.jackpot: list[dict[str, object]] = []  # the embedded pools' commits, in order
        self.checkpoints: list[tuple[int, Checkpoint]] = []
        self.audit: list[dict[str, Any]] = []  # the audit log's entries (server/room/operator.py)

    def load(self) -> Loaded:
        open_rounds = {
            ref: (table, owner, [t for t in self.transfers.values() if t.round == ref])
            for ref, (table, owner, state) in self.rounds.items()
            if state == "open"
        }
        return Loaded(self.epoch, self.version, dict(self.balances), open_rounds, dict(self.meta))

    def set_meta(self, key: str, value: str) -> None:
        self.meta[key] = value

    def commit(self, batches: list[Batch]) -> int:
        if self.down:
            raise StoreUnavailable("memory store is down (test)")
        for batch in batches:
            for r in batch.opened:
                self.rounds.setdefault(r.ref, (r.table, r.owner, "open"))
            for t in batch.transfers:
                if t.id in self.transfers:
                    continue
                self.transfers[t.id] = t
                self.balances[t.source] = self.balances.get(t.source, 0) - t.amount
                self.balances[t.target] = self.balances.get(t.target, 0) + t.amount
            for c in batch.closed:
                table, owner, state = self.rounds.get(c.ref, ("", "", "open"))
                if state == "open":
                    self.rounds[c.ref] = (table, owner, c.state)
            for note in batch.notes:
                if "meta" in note:
                    self.meta[str(note["meta"])] = str(note.get("value", "1"))
                elif note.get("audit"):
                    self.audit.append(dict(note))
            for e in batch.journal:
                records = self.journal.setdefault(e.round, [])
                if all(r.seq != e.seq for r in records):
                    records.append(e)
            self.jackpot.extend(batch.jackpot)
        self.version += len(batches)
        return self.version

    def journal_rounds(self, query: JournalQuery) -> list[JournalRound]:
        picked = []
        for ref, records in self.journal.items():
            start = next((r for r in records if r.kind == "start"), None)
            if start is None:
                continue
            q = query
            if (
                (q.table is not None and start.table != q.table)
                or (q.account is not None and q.account not in players_of(start.body))
                or (q.since is not None and start.at < q.since)
                or (q.game and start.body.get("game") not in q.game)
            ):
                continue
            picked.append((start.at, ref, start.table))
        picked.sort()
        if query.limit is not None:
            picked = picked[-query.limit :] if query.limit else []
        return [
            JournalRound(
                ref,
                table,
                self.rounds.get(ref, ("", "", "open"))[2],
                sorted(self.journal[ref], key=lambda r: r.seq),
            )
            for _at, ref, table in picked
        ]

    #: no chain (a unit-test double): checkpoints are kept as they come
    chain_n = 0
    chain_head = ""

    def add_checkpoint(self, point: Checkpoint, n: int) -> None:
        self.checkpoints.append((n, point))

    def audit_entries(self) -> list[dict[str, Any]]:
        """The audit log, in the order it was committed."""
        return [dict(e) for e in self.audit]

    def jackpot_records(self) -> list[dict[str, object]]:
        return list(self.jackpot)

    def check(self, owners_alive: bool = False) -> CheckReport:
        rounds = {ref: state for ref, (_t, _o, state) in self.rounds.items()}
        owners = {ref: owner for ref, (_t, owner, _s) in self.rounds.items()}
        return check_books(
            self.balances,
            self.transfers.values(),
            rounds,
            owners_alive,
            meta=self.meta,
            owners=owners,
        )

    def close(self) -> None:
        return None
