"""The embedded default store: SQLite from the standard library, in a data directory.

``croupier serve --data DIR`` (default ``./var``) keeps the ledger in ``DIR/ledger.sqlite3``:
WAL journal and ``synchronous=FULL`` (a committed batch survives a power cut). The trio
thread never calls sqlite3: the ledger's committer hands each group of batches to
:meth:`SqliteStore.commit` in a worker thread (one at a time, so the connection is used by
one thread at a time), and every batch that arrived during the previous fsync goes into the
next transaction: group commit, so 1,000 tables never wait on one fsync each.

One server owns a data directory at a time (an exclusive ``flock`` on ``DIR/lock``); a second
``croupier serve`` on it is refused. The store carries an ``epoch`` (drawn when it was
created) and a ``version`` (batches committed): a commit that finds either changed under it
raises :class:`~server.store.model.StoreLost`.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import sqlite3
import time
from pathlib import Path
from typing import IO, Any

from server.store.chain import SHA256, Entry, entry_hash, genesis, hasher, row_text
from server.store.chain import verify as verify_entries
from server.store.checkpoints import Checkpoint
from server.store.checkpoints import verify as verify_checkpoints
from server.store.journal import (
    JournalEntry,
    JournalQuery,
    JournalRound,
    players_of,
    record_text,
)
from server.store.model import (
    MAX_CENTS,
    Batch,
    CheckReport,
    Loaded,
    RoundState,
    StoreLost,
    StoreUnavailable,
    Transfer,
    check_books,
)

# MAX_CENTS (server/store/model.py): 2^53 - 1, far below SQLite's own limit, 2^63 - 1
# (beyond it a sum is stored as REAL); the CHECK constraints below hold every amount to it.

#: The tables that hold amounts, with the CHECK constraints that bound them (:data:`CHECKED`).
MONEY_TABLES = {
    "transfers": f"""CREATE TABLE IF NOT EXISTS transfers (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, target TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer' AND amount > 0
        AND amount <= {MAX_CENTS}),
    kind TEXT NOT NULL, round TEXT, at REAL NOT NULL
)""",
    "balances": f"""CREATE TABLE IF NOT EXISTS balances (
    account TEXT PRIMARY KEY,
    balance INTEGER NOT NULL CHECK (typeof(balance) = 'integer'
        AND balance BETWEEN -{MAX_CENTS} AND {MAX_CENTS})
)""",
}

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
{MONEY_TABLES["transfers"]};
CREATE INDEX IF NOT EXISTS transfers_round ON transfers (round);
{MONEY_TABLES["balances"]};
CREATE TABLE IF NOT EXISTS rounds (
    ref TEXT PRIMARY KEY, table_id TEXT NOT NULL, owner TEXT NOT NULL,
    state TEXT NOT NULL, opened REAL NOT NULL, closed REAL
);
CREATE TABLE IF NOT EXISTS notes (id TEXT PRIMARY KEY, at REAL NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS journal (
    round TEXT NOT NULL, seq INTEGER NOT NULL, table_id TEXT NOT NULL, kind TEXT NOT NULL,
    at REAL NOT NULL, body TEXT NOT NULL, PRIMARY KEY (round, seq)
);
CREATE TABLE IF NOT EXISTS journal_players (
    account TEXT NOT NULL, round TEXT NOT NULL, table_id TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (account, round)
);
CREATE INDEX IF NOT EXISTS journal_players_at ON journal_players (account, at);
CREATE TABLE IF NOT EXISTS journal_rounds (
    round TEXT PRIMARY KEY, table_id TEXT NOT NULL, game TEXT NOT NULL, at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_rounds_at ON journal_rounds (table_id, at);
-- the journal is append-only: nothing is ever edited or removed
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
-- the embedded jackpot pools (server/jackpots/memory.py), in the ledger's transactions: each
-- pool's latest totals, each round's coin-ins, each award, and the append-only audit trail
CREATE TABLE IF NOT EXISTS jackpot_pools (pool TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jackpot_rounds (
    pool TEXT NOT NULL, round TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (pool, round)
);
CREATE TABLE IF NOT EXISTS jackpot_awards (
    pool TEXT NOT NULL, round TEXT NOT NULL, award TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (pool, round, award)
);
CREATE TABLE IF NOT EXISTS jackpot_audit (
    pool TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (pool, version)
);
-- the chain over everything appended (server/store/chain.py), one entry per commit, and
-- the signed checkpoints of its head (server/store/checkpoints.py)
CREATE TABLE IF NOT EXISTS chain (
    n INTEGER PRIMARY KEY, prev TEXT NOT NULL, hash TEXT NOT NULL, at REAL NOT NULL,
    rows TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
    n INTEGER NOT NULL, body TEXT NOT NULL, signature TEXT NOT NULL
);
""" + "".join(
    f"""CREATE TRIGGER IF NOT EXISTS {t}_no_{op.lower()} BEFORE {op} ON {t}
BEGIN SELECT RAISE(ABORT, 'the {t} table is append-only'); END;
"""
    for t in ("transfers", "notes", "jackpot_audit", "chain", "checkpoints")
    for op in ("UPDATE", "DELETE")
)

#: The append-only guards a check expects (a dropped one is a problem: ``check``).
GUARDS = frozenset(
    f"{t}_no_{op}"
    for t in ("journal", "transfers", "notes", "jackpot_audit", "chain", "checkpoints")
    for op in ("update", "delete")
)


LEDGER_FILE = "ledger.sqlite3"


class DataDirInUse(StoreUnavailable):
    """Another server owns this data directory."""


class SqliteStore:
    """The ledger in one SQLite file (see the module docstring)."""

    id = "sqlite"  # the store's name in the witness file

    def __init__(self, directory: Path | str, *, lock: bool = True, readonly: bool = False):
        self.dir = Path(directory)
        self._lock: IO[str] | None = None
        if not readonly:
            self.dir.mkdir(parents=True, exist_ok=True)
        if lock:
            self._lock = open(self.dir / "lock", "w")
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                self._lock.close()
                raise DataDirInUse(
                    f"{self.dir} is in use by another croupier server (one server per --data)"
                ) from None
        path = self.dir / LEDGER_FILE
        if readonly and not path.exists():
            raise StoreUnavailable(f"no ledger at {path}")
        uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
        self.db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        if not readonly:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self._add_checks()
            self.db.executescript(SCHEMA)
            if self._meta("epoch") is None:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute(
                    "INSERT INTO meta VALUES ('epoch', ?), ('version', '0')",
                    (secrets.token_hex(8),),
                )
                self.db.execute("COMMIT")
        self.epoch = self._meta("epoch") or ""
        self.version = int(self._meta("version") or 0)
        self._written: list[tuple[str, str, str]] = []  # rows of the open transaction
        self.chain_n, self.chain_head = 0, genesis(SHA256)
        last = self.db.execute("SELECT n, hash FROM chain ORDER BY n DESC LIMIT 1").fetchone()
        if last is not None:
            self.chain_n, self.chain_head = int(last[0]), str(last[1])
        elif not readonly:
            self._adopt()

    def _adopt(self) -> None:
        """A store made before the chain: its first entry lists every row it holds."""
        written = self._rows()
        if not written:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            link = self._link(written, time.time())
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        if link is not None:
            self.chain_n, self.chain_head = link

    def _rows(self) -> list[tuple[str, str, str]]:
        """Every appended row as the chain lists it: ``(stream, key, canonical text)``; a
        round as its events (the key is the text)."""
        db = self.db
        out: list[tuple[str, str, str]] = []
        for row in db.execute("SELECT * FROM transfers ORDER BY rowid"):
            out.append(("transfer", str(row[0]), row_text(row)))
        for row in db.execute("SELECT * FROM notes ORDER BY rowid"):
            out.append(("note", str(row[0]), row_text(row)))
        for row in db.execute("SELECT * FROM journal ORDER BY rowid"):
            out.append(("journal", f"{row[0]}|{row[1]}", row_text(row)))
        for row in db.execute("SELECT * FROM jackpot_audit ORDER BY rowid"):
            out.append(("jackpot", f"{row[0]}|{row[1]}", row_text(row)))
        for ref, table, owner, state in db.execute(
            "SELECT ref, table_id, owner, state FROM rounds ORDER BY rowid"
        ):
            key = f"open|{ref}|{table}|{owner}"
            out.append(("round", key, key))
            if state != "open":
                key = f"close|{ref}|{state}"
                out.append(("round", key, key))
        return out

    def verify_chain(self, key: Any = None) -> list[str]:
        """The chain, the append-only guards and the signed checkpoints (``key``: the verify
        key, an Ed25519 public key; None: only the heads are compared): the problems, the
        first broken link first (``server/store/chain.py``)."""
        db = self.db
        digest = hasher(SHA256)
        current: dict[str, dict[str, str]] = {
            s: {} for s in ("transfer", "note", "journal", "jackpot", "round")
        }
        for stream, row_key, text in self._rows():
            current[stream][row_key] = digest(text.encode())
        entries = [
            Entry(int(n), str(prev), str(h), [tuple(r) for r in json.loads(rows)], float(at))
            for n, prev, h, at, rows in db.execute(
                "SELECT n, prev, hash, at, rows FROM chain ORDER BY n"
            )
        ]
        report = verify_entries(SHA256, entries, current)
        problems = list(report.problems)
        present = {
            str(name)
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        }
        for guard in sorted(GUARDS - present):
            problems.append(f"the append-only guard {guard} was dropped")
        points = [
            Checkpoint(str(body), str(sig))
            for body, sig in db.execute("SELECT body, signature FROM checkpoints ORDER BY rowid")
        ]
        hashes = {e.n: e.hash for e in entries}
        problems += verify_checkpoints(key, points, hashes, report.length, self.epoch)
        return problems

    def add_checkpoint(self, point: Checkpoint, n: int) -> None:
        """Keep a signed checkpoint (its own small transaction; append-only)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(
                "INSERT INTO checkpoints VALUES (?, ?, ?)", (n, point.text, point.signature)
            )
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _add_checks(self) -> None:
        """Rebuild a table of an older data directory made before the CHECK constraints of
        :data:`MONEY_TABLES` (SQLite cannot add one to a table): the same rows, now held to
        :data:`MAX_CENTS`, in one transaction."""
        db = self.db
        old = [
            name
            for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type='table'")
            if name in MONEY_TABLES and "typeof" not in sql
        ]
        if not old:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            for name in old:
                db.execute(f"ALTER TABLE {name} RENAME TO old_{name}")
                db.execute(MONEY_TABLES[name])
                db.execute(f"INSERT INTO {name} SELECT * FROM old_{name}")
                db.execute(f"DROP TABLE old_{name}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # -- start --------------------------------------------------------------------------------
    def load(self) -> Loaded:
        balances = {a: b for a, b in self.db.execute("SELECT account, balance FROM balances")}
        open_rounds: dict[str, tuple[str, str, list[Transfer]]] = {}
        for ref, table, owner in self.db.execute(
            "SELECT ref, table_id, owner FROM rounds WHERE state = 'open'"
        ).fetchall():
            rows = self.db.execute(
                "SELECT id, source, target, amount, kind, round FROM transfers WHERE round = ?",
                (ref,),
            ).fetchall()
            open_rounds[ref] = (table, owner, [Transfer(*r) for r in rows])
        meta = {k: v for k, v in self.db.execute("SELECT key, value FROM meta")}
        return Loaded(self.epoch, self.version, balances, open_rounds, meta)

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- commit -------------------------------------------------------------------------------
    def commit(self, batches: list[Batch]) -> int:
        """Commit ``batches`` in one transaction (group commit); the new version.

        Idempotent: a transfer whose id is already in the store moves nothing again."""
        db = self.db
        now = time.time()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                epoch, version = self._meta("epoch"), int(self._meta("version") or -1)
                if epoch != self.epoch or version != self.version:
                    raise StoreLost(
                        f"ledger epoch/version {epoch}/{version}, expected "
                        f"{self.epoch}/{self.version}: the store changed under this server"
                    )
                self._written = []
                for batch in batches:
                    self._apply(batch, now)
                link = self._link(self._written, now)
                version = self.version + len(batches)
                db.execute("UPDATE meta SET value = ? WHERE key = 'version'", (str(version),))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:  # disk full, I/O error, locked
            raise StoreUnavailable(f"ledger store: {exc}") from exc
        self.version = version
        if link is not None:
            self.chain_n, self.chain_head = link
        return self.version

    def _link(self, written: list[tuple[str, str, str]], now: float) -> tuple[int, str] | None:
        """The chain's entry for what this transaction wrote (``(stream, key, text)``), in
        the transaction; the new length and head (None: nothing appended)."""
        if not written:
            return None
        digest = hasher(SHA256)
        rows = [(stream, key, digest(text.encode())) for stream, key, text in written]
        n = self.chain_n + 1
        head = entry_hash(SHA256, self.chain_head, rows)
        self.db.execute(
            "INSERT INTO chain VALUES (?, ?, ?, ?, ?)",
            (n, self.chain_head, head, now, json.dumps(rows)),
        )
        return n, head

    def _apply(self, batch: Batch, now: float) -> None:
        db = self.db
        written = self._written
        for r in batch.opened:
            cur = db.execute(
                "INSERT OR IGNORE INTO rounds VALUES (?, ?, ?, 'open', ?, NULL)",
                (r.ref, r.table, r.owner, now),
            )
            if cur.rowcount:
                key = f"open|{r.ref}|{r.table}|{r.owner}"
                written.append(("round", key, key))
        for t in batch.transfers:
            row = (t.id, t.source, t.target, t.amount, t.kind, t.round, now)
            cur = db.execute("INSERT OR IGNORE INTO transfers VALUES (?, ?, ?, ?, ?, ?, ?)", row)
            if cur.rowcount:
                written.append(("transfer", t.id, row_text(row)))
                for account, delta in ((t.source, -t.amount), (t.target, t.amount)):
                    db.execute(
                        "INSERT INTO balances VALUES (?, ?) ON CONFLICT(account) "
                        "DO UPDATE SET balance = balance + excluded.balance",
                        (account, delta),
                    )
        for c in batch.closed:
            cur = db.execute(
                "UPDATE rounds SET state = ?, closed = ? WHERE ref = ? AND state = 'open'",
                (c.state, now, c.ref),
            )
            if cur.rowcount:
                key = f"close|{c.ref}|{c.state}"
                written.append(("round", key, key))
        for note in batch.notes:
            if "meta" in note:  # a fact the server keeps across restarts
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    (str(note["meta"]), str(note.get("value", "1"))),
                )
            kept = (str(note.get("id", note.get("meta"))), now, json.dumps(note, default=str))
            if db.execute("INSERT OR IGNORE INTO notes VALUES (?, ?, ?)", kept).rowcount:
                written.append(("note", kept[0], row_text(kept)))

        for record in batch.jackpot:
            self._apply_pool(record)
        if not batch.journal:
            return
        # one statement for every row (the loop runs in SQLite, not here); a row already
        # there is left as it is (a retried batch is grouped the same way: see journal_rows)
        rows = journal_rows(batch.journal)
        cur = db.executemany("INSERT OR IGNORE INTO journal VALUES (?, ?, ?, ?, ?, ?)", rows)
        if cur.rowcount == len(rows):  # a batch is written whole or (a retry) not at all
            written += [("journal", f"{r[0]}|{r[1]}", row_text(r)) for r in rows]
        for e in batch.journal:
            if e.kind == "start":  # the round's index rows (kept as they are if there)
                db.execute(
                    "INSERT OR IGNORE INTO journal_rounds VALUES (?, ?, ?, ?)",
                    (e.round, e.table, str(e.body.get("game", "")), e.at),
                )
                db.executemany(
                    "INSERT OR IGNORE INTO journal_players VALUES (?, ?, ?, ?)",
                    [(a, e.round, e.table, e.at) for a in players_of(e.body)],
                )

    def _apply_pool(self, record: dict[str, Any]) -> None:
        """One commit of an embedded jackpot pool (``PoolRecord``)."""
        db, pool = self.db, str(record["pool"])
        if record.get("state") is not None:
            db.execute(
                "INSERT OR REPLACE INTO jackpot_pools VALUES (?, ?)",
                (pool, json.dumps(record["state"])),
            )
        if record.get("round") is not None:
            ref, body = record["round"]
            db.execute(
                "INSERT OR REPLACE INTO jackpot_rounds VALUES (?, ?, ?)",
                (pool, ref, json.dumps(body)),
            )
        if record.get("award") is not None:
            ref, award, body = record["award"]
            db.execute(
                "INSERT OR IGNORE INTO jackpot_awards VALUES (?, ?, ?, ?)",
                (pool, ref, award, json.dumps(body)),
            )
        if record.get("audit") is not None:
            row = (pool, int(record["audit"]["ver"]), json.dumps(record["audit"]))
            if db.execute("INSERT OR IGNORE INTO jackpot_audit VALUES (?, ?, ?)", row).rowcount:
                self._written.append(("jackpot", f"{pool}|{row[1]}", row_text(row)))

    def jackpot_records(self) -> list[dict[str, Any]]:
        """The embedded pools as kept (``PoolRecord`` form): each pool's totals, then its
        rounds, awards and audit trail in order (``MemoryJackpotService.bind`` loads them)."""
        db = self.db
        out: list[dict[str, Any]] = []
        for pool, body in db.execute("SELECT pool, body FROM jackpot_pools ORDER BY pool"):
            out.append({"pool": pool, "state": json.loads(body)})
        for pool, ref, body in db.execute("SELECT pool, round, body FROM jackpot_rounds"):
            out.append({"pool": pool, "round": [ref, json.loads(body)]})
        for pool, ref, award, body in db.execute(
            "SELECT pool, round, award, body FROM jackpot_awards"
        ):
            out.append({"pool": pool, "award": [ref, award, json.loads(body)]})
        for pool, body in db.execute("SELECT pool, body FROM jackpot_audit ORDER BY pool, version"):
            out.append({"pool": pool, "audit": json.loads(body)})
        return out

    # -- the journal (read on any thread: its own connection) ------------------------------------
    def journal_rounds(self, query: JournalQuery) -> list[JournalRound]:
        path = self.dir / LEDGER_FILE
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return read_journal(db, query)
        finally:
            db.close()

    def audit_entries(self) -> list[dict[str, Any]]:
        """The audit log (``server/room/operator.py``): every note whose id starts ``audit:``,
        in the order they were committed (read on any thread: its own connection)."""
        db = sqlite3.connect(f"file:{self.dir / LEDGER_FILE}?mode=ro", uri=True)
        try:
            rows = db.execute(
                "SELECT body FROM notes WHERE substr(id, 1, 6) = 'audit:' ORDER BY at, rowid"
            ).fetchall()
        finally:
            db.close()
        return [json.loads(body) for (body,) in rows]

    # -- check ----------------------------------------------------------------------------------
    def books(self) -> tuple[dict[str, int], dict[str, str]]:
        """Every balance and every fact (what a pool is reconciled with)."""
        balances = {a: b for a, b in self.db.execute("SELECT account, balance FROM balances")}
        meta = {k: v for k, v in self.db.execute("SELECT key, value FROM meta")}
        return balances, meta

    def check(self, owners_alive: bool = False) -> CheckReport:
        balances = {a: b for a, b in self.db.execute("SELECT account, balance FROM balances")}
        transfers = (
            Transfer(*r)
            for r in self.db.execute(
                "SELECT id, source, target, amount, kind, round FROM transfers"
            )
        )
        rounds: dict[str, RoundState] = {
            ref: state for ref, state in self.db.execute("SELECT ref, state FROM rounds")
        }
        meta = {k: v for k, v in self.db.execute("SELECT key, value FROM meta")}
        owners = {
            ref: owner
            for ref, owner in self.db.execute("SELECT ref, owner FROM rounds WHERE state = 'open'")
        }
        return check_books(balances, transfers, rounds, owners_alive, meta=meta, owners=owners)

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def read_journal(db: sqlite3.Connection, q: JournalQuery) -> list[JournalRound]:
    """The rounds ``q`` asks for, oldest first, each with its records and ledger state."""
    if q.account is not None:
        sql = "SELECT p.round, p.table_id, p.at FROM journal_players p"
        sql += " JOIN journal_rounds r ON r.round = p.round WHERE p.account = ?"
        args: list[object] = [q.account]
        col = "p"
    else:
        sql = "SELECT r.round, r.table_id, r.at FROM journal_rounds r WHERE 1"
        args = []
        col = "r"
    if q.table is not None:
        sql += f" AND {col}.table_id = ?"
        args.append(q.table)
    if q.since is not None:
        sql += f" AND {col}.at >= ?"
        args.append(q.since)
    if q.game:
        sql += f" AND r.game IN ({','.join('?' * len(q.game))})"
        args.extend(q.game)
    sql += f" ORDER BY {col}.at DESC, {col}.round DESC"
    if q.limit is not None:
        sql += " LIMIT ?"
        args.append(q.limit)
    picked = db.execute(sql, args).fetchall()
    out: list[JournalRound] = []
    for ref, table, _at in reversed(picked):
        row = db.execute("SELECT state FROM rounds WHERE ref = ?", (ref,)).fetchone()
        rnd = JournalRound(ref, table, "open" if row is None else str(row[0]))
        rows = db.execute(
            "SELECT seq, kind, at, body FROM journal WHERE round = ? ORDER BY rowid", (ref,)
        ).fetchall()
        rnd.entries = journal_entries(ref, table, rows)
        out.append(rnd)
    return out


#: The kind of a row that holds several records of one round (see :func:`journal_rows`).
RECORDS = "records"


def journal_rows(
    entries: list[JournalEntry],
) -> list[tuple[str, int, str, str, float, str]]:
    """The ``journal`` rows of one batch's records: a round's records in the batch share
    one row (kind :data:`RECORDS`, keyed by the first record's seq, the body a JSON list of
    ``[seq, kind, at, body]``); a round with one record in the batch gets a plain row.

    Each row costs an entry in the ``(round, seq)`` index, and a busy server's live rounds
    put those entries on as many different pages, each written whole at every commit: a row
    per record cost 1.6-1.9 times the commit CPU of a row per round and commit in a bench of
    the journal alone (docs/perf.md, issue 16, fourth pass). A batch is never changed once
    the ledger takes it, so a retried commit makes the same rows, and ``INSERT OR IGNORE``
    adds nothing."""
    rounds: dict[str, list[JournalEntry]] = {}
    for e in entries:
        rounds.setdefault(e.round, []).append(e)
    rows = []
    for group in rounds.values():
        e = group[0]
        if len(group) == 1:
            rows.append((e.round, e.seq, e.table, e.kind, e.at, record_text(e.body)))
        else:
            packed = [[r.seq, r.kind, r.at, r.body] for r in group]
            rows.append((e.round, e.seq, e.table, RECORDS, e.at, record_text(packed)))
    return rows


def journal_entries(
    ref: str, table: str, rows: list[tuple[int, str, float, str]]
) -> list[JournalEntry]:
    """A round's records from its ``journal`` rows (plain rows and :data:`RECORDS` rows
    alike, in the order they were written), in order of seq; of a record written twice the
    first is kept, as ``INSERT OR IGNORE`` keeps a plain row."""
    entries: dict[int, JournalEntry] = {}
    for seq, kind, at, body in rows:
        if kind == RECORDS:
            for s, k, a, b in json.loads(body):
                entries.setdefault(s, JournalEntry(ref, s, table, k, a, b))
        else:
            entries.setdefault(seq, JournalEntry(ref, seq, table, kind, at, json.loads(body)))
    return [entries[s] for s in sorted(entries)]


def default_data_dir() -> Path:
    return Path(os.environ.get("CROUPIER_DATA", "var"))
