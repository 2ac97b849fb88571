"""Records nobody can quietly rewrite (issue 23, "Tamper-evident records"), on both stores.

A server (its own process, with a signing key: ``croupier ledger keygen``) plays poker and
Caribbean stud rounds, then stops (a last signed checkpoint). ``croupier ledger check
--verify-key-file`` passes. Then each tampering below is made straight in the store, and the
check must fail, naming what was touched:

* a transfer edited, a transfer deleted, a forged balanced $1,000 transfer inserted (from a
  table's commission to a wallet, balances adjusted so the books still balance);
* an audit/cashier note edited, a note deleted; a journal record edited;
* the chain itself rewritten after an edit (every hash recomputed: only the signed
  checkpoint tells), the chain's tail cut, a forged checkpoint;
* SQLite: an append-only trigger dropped.

On SQLite each tampering gets its own copy of the data directory; on Redis each is undone
after its check.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from server.store.chain import SHA256, entry_hash, hasher, row_text
from server.store.redis import connect, key
from tests.integration.helpers import (
    RedisServer,
    ServerProcess,
    croupier,
    csp_table,
    write_tables,
)
from tests.integration.test_jackpot_durable import play as play_stud

pytestmark = pytest.mark.slow


class Played:
    """A store after a short session of a server with a signing key."""

    def __init__(self, tmp_path: Path, redis: RedisServer | None) -> None:
        self.tmp = tmp_path
        self.data = tmp_path / "data"
        self.redis = redis
        self.key = tmp_path / "signing.key"
        made = croupier("ledger", "keygen", "--out", str(self.key))
        assert made.returncode == 0, made.stderr
        public = made.stdout.split("verify key:")[1].strip()
        self.verify = tmp_path / "verify.key"
        self.verify.write_text(public + "\n")

    def check(self, data: Path | None = None) -> dict[str, Any]:
        where = ["--data", str(data or self.data)]
        if self.redis is not None:
            where += ["--redis", self.redis.url]
        done = croupier("ledger", "check", *where, "--verify-key-file", str(self.verify), "--json")
        report: dict[str, Any] = json.loads(done.stdout)
        assert done.returncode == (0 if report["balanced"] else 1), done.stderr
        return report


@pytest.fixture(params=["sqlite", "redis"])
async def played(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Played]:
    redis = None
    if request.param == "redis":
        (tmp_path / "redis").mkdir()
        redis = RedisServer(tmp_path / "redis")
        redis.start()
    try:
        p = Played(tmp_path, redis)
        tables = write_tables(
            tmp_path / "t.toml",
            [
                {"id": "p", "game": "holdem-act", "options": {"blinds": [100, 200]}},
                csp_table("csp-j", "chain-pool", betting_seconds=0.3),
            ],
        )
        extra = ["--data", str(p.data), "--signing-key-file", str(p.key)]
        server = ServerProcess(
            tables, redis.url if redis else None, *extra, ledger_on_redis=bool(redis)
        )
        try:
            await server.started()
            await play_stud(server.url, 2)
            async with (
                Client.connect(server.url, name="ann") as ann,
                Client.connect(server.url, name="bob") as bob,
            ):
                for c, seat in ((ann, 1), (bob, 2)):
                    await c.join("p", seat=seat)
                    await c.buy_in("p", 5_000)
        finally:
            server.stop()
        assert server.proc.returncode == 0
        yield p
    finally:
        if redis is not None:
            redis.kill()


def first_problem(report: dict[str, Any]) -> str:
    assert not report["balanced"], report
    return "; ".join(report["problems"])


# -- SQLite: each tampering on its own copy of the data directory -----------------------------
def sqlite_copy(played: Played, name: str) -> tuple[Path, sqlite3.Connection]:
    copy = played.tmp / f"copy-{name}"
    shutil.copytree(played.data, copy)
    db = sqlite3.connect(copy / "ledger.sqlite3", isolation_level=None)
    return copy, db


def one_transfer(db: sqlite3.Connection, kind: str = "buy_in") -> tuple[Any, ...]:
    row: tuple[Any, ...] = db.execute(
        "SELECT * FROM transfers WHERE kind = ? LIMIT 1", (kind,)
    ).fetchone()
    return row


def unguarded(db: sqlite3.Connection, table: str, sql: str, args: tuple[Any, ...] = ()) -> None:
    """Run ``sql`` past ``table``'s append-only guards, then put them back (as someone with
    write access to the file would: the guards alone prove nothing)."""
    db.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
    db.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
    db.execute(sql, args)
    for op in ("UPDATE", "DELETE"):
        db.execute(
            f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, 'the {table} table is append-only'); END"
        )


def edit_transfer(db: sqlite3.Connection) -> str:
    t = one_transfer(db)
    unguarded(db, "transfers", "UPDATE transfers SET amount = amount + 100 WHERE id = ?", (t[0],))
    db.execute("UPDATE balances SET balance = balance + 100 WHERE account = ?", (t[2],))
    db.execute("UPDATE balances SET balance = balance - 100 WHERE account = ?", (t[1],))
    return f"transfer {t[0]} was changed"


def delete_transfer(db: sqlite3.Connection) -> str:
    t = one_transfer(db)
    unguarded(db, "transfers", "DELETE FROM transfers WHERE id = ?", (t[0],))
    db.execute("UPDATE balances SET balance = balance - ? WHERE account = ?", (t[3], t[2]))
    db.execute("UPDATE balances SET balance = balance + ? WHERE account = ?", (t[3], t[1]))
    return f"transfer {t[0]} was deleted"


def insert_transfer(db: sqlite3.Connection) -> str:
    commission, wallet = "table:p:commission", "wallet:ann"
    db.execute(
        "INSERT INTO transfers VALUES ('forged-1', ?, ?, 100000, 'cash_out', NULL, 0)",
        (commission, wallet),
    )
    db.execute("INSERT OR IGNORE INTO balances VALUES (?, 0)", (commission,))
    db.execute("UPDATE balances SET balance = balance - 100000 WHERE account = ?", (commission,))
    db.execute("UPDATE balances SET balance = balance + 100000 WHERE account = ?", (wallet,))
    return "transfer forged-1 is on no chain entry: it was inserted"


def edit_note(db: sqlite3.Connection) -> str:
    note_id, body = db.execute("SELECT id, body FROM notes LIMIT 1").fetchone()
    changed = json.dumps({**json.loads(body), "by": "someone-else"})
    unguarded(db, "notes", "UPDATE notes SET body = ? WHERE id = ?", (changed, note_id))
    return f"note {note_id} was changed"


def delete_note(db: sqlite3.Connection) -> str:
    (note_id,) = db.execute("SELECT id FROM notes LIMIT 1").fetchone()
    unguarded(db, "notes", "DELETE FROM notes WHERE id = ?", (note_id,))
    return f"note {note_id} was deleted"


def edit_journal(db: sqlite3.Connection) -> str:
    ref, seq = db.execute("SELECT round, seq FROM journal LIMIT 1").fetchone()
    db.execute("DROP TRIGGER journal_no_update")
    db.execute("UPDATE journal SET at = at + 1 WHERE round = ? AND seq = ?", (ref, seq))
    db.execute(
        "CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal "
        "BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END"
    )
    return f"journal {ref}|{seq} was changed"


def rewrite_chain(db: sqlite3.Connection) -> str:
    """Edit a transfer and recompute every hash after it: the chain holds, the checkpoint
    does not."""
    edit_transfer(db)
    digest = hasher(SHA256)
    current = {}
    for row in db.execute("SELECT * FROM transfers"):
        current[("transfer", row[0])] = digest(row_text(row).encode())
    db.execute("DROP TRIGGER chain_no_update")
    prev = "0" * 64
    for n, _prev, _h, rows in db.execute(
        "SELECT n, prev, hash, rows FROM chain ORDER BY n"
    ).fetchall():
        listed = [(s, k, current.get((s, k), d)) for s, k, d in json.loads(rows)]
        h = entry_hash(SHA256, prev, listed)
        db.execute(
            "UPDATE chain SET prev = ?, hash = ?, rows = ? WHERE n = ?",
            (prev, h, json.dumps(listed), n),
        )
        prev = h
    db.execute(
        "CREATE TRIGGER chain_no_update BEFORE UPDATE ON chain "
        "BEGIN SELECT RAISE(ABORT, 'the chain table is append-only'); END"
    )
    return "the chain was rewritten"


def cut_tail(db: sqlite3.Connection) -> str:
    (last,) = db.execute("SELECT MAX(n) FROM chain").fetchone()
    unguarded(db, "chain", "DELETE FROM chain WHERE n = ?", (last,))
    return "entries were cut"


def forge_checkpoint(db: sqlite3.Connection) -> str:
    n, body, signature = db.execute("SELECT * FROM checkpoints LIMIT 1").fetchone()
    forged = json.dumps({**json.loads(body), "at": 0}, sort_keys=True, separators=(",", ":"))
    db.execute("INSERT INTO checkpoints VALUES (?, ?, ?)", (n, forged, signature))
    return "not signed by the verify key"


def drop_trigger(db: sqlite3.Connection) -> str:
    db.execute("DROP TRIGGER transfers_no_delete")
    return "the append-only guard transfers_no_delete was dropped"


SQLITE: dict[str, Callable[[sqlite3.Connection], str]] = {
    f.__name__: f
    for f in (
        edit_transfer,
        delete_transfer,
        insert_transfer,
        edit_note,
        delete_note,
        edit_journal,
        rewrite_chain,
        cut_tail,
        forge_checkpoint,
        drop_trigger,
    )
}


async def test_every_tampering_is_detected(played: Played) -> None:
    clean = played.check()
    assert clean["balanced"], clean
    if played.redis is None:
        for name, tamper in SQLITE.items():
            copy, db = sqlite_copy(played, name)
            try:
                expected = tamper(db)
            finally:
                db.close()
            assert expected in first_problem(played.check(copy)), name
        return
    async with connect(played.redis.url) as r:
        for name, (tamper, expected) in redis_tamperings().items():
            undo = await tamper(r)
            try:
                assert expected in first_problem(played.check()), name
            finally:
                await undo()
            assert played.check()["balanced"], f"{name} was not undone"


Undo = Callable[[], Any]


def redis_tamperings() -> dict[str, tuple[Callable[[Any], Any], str]]:
    async def edit_transfer(r: Any) -> Undo:
        ident, text = await one(r, "transfers", lambda t: json.loads(t)[4] == "buy_in")
        row = json.loads(text)
        await r.hset(
            key("transfers"), {ident: json.dumps([*row[:3], str(int(row[3]) + 100), *row[4:]])}
        )
        return lambda: r.hset(key("transfers"), {ident: text})

    async def delete_transfer(r: Any) -> Undo:
        ident, text = await one(r, "transfers", lambda t: json.loads(t)[4] == "buy_in")
        await r.hdel(key("transfers"), [ident])
        return lambda: r.hset(key("transfers"), {ident: text})

    async def insert_transfer(r: Any) -> Undo:
        row = json.dumps(["forged-1", "table:p:commission", "wallet:ann", "100000", "x", None])
        await r.hset(key("transfers"), {"forged-1": row})
        await r.hincrby(key("balances"), "table:p:commission", -100000)
        await r.hincrby(key("balances"), "wallet:ann", 100000)

        async def undo() -> None:
            await r.hdel(key("transfers"), ["forged-1"])
            await r.hincrby(key("balances"), "table:p:commission", 100000)
            await r.hincrby(key("balances"), "wallet:ann", -100000)

        return undo

    async def edit_note(r: Any) -> Undo:
        ident, text = await one(r, "notes", lambda t: True)
        await r.hset(key("notes"), {ident: json.dumps({**json.loads(text), "by": "x"})})
        return lambda: r.hset(key("notes"), {ident: text})

    async def delete_note(r: Any) -> Undo:
        ident, text = await one(r, "notes", lambda t: True)
        await r.hdel(key("notes"), [ident])
        return lambda: r.hset(key("notes"), {ident: text})

    async def cut_tail(r: Any) -> Undo:
        last = await r.rpop(key("chain"))
        return lambda: r.rpush(key("chain"), [last])

    async def forge_checkpoint(r: Any) -> Undo:
        (first,) = await r.lrange(key("checkpoints"), 0, 0)
        n, text, signature = json.loads(first)
        forged = json.dumps({**json.loads(text), "at": 0}, sort_keys=True, separators=(",", ":"))
        await r.rpush(key("checkpoints"), [json.dumps([n, forged, signature])])
        return lambda: r.rpop(key("checkpoints"))

    return {
        "edit_transfer": (edit_transfer, "was changed"),
        "delete_transfer": (delete_transfer, "was deleted"),
        "insert_transfer": (insert_transfer, "transfer forged-1 is on no chain entry"),
        "edit_note": (edit_note, "was changed"),
        "delete_note": (delete_note, "was deleted"),
        "cut_tail": (cut_tail, "entries were cut"),
        "forge_checkpoint": (forge_checkpoint, "not signed by the verify key"),
    }


async def one(r: Any, name: str, where: Callable[[str], bool]) -> tuple[str, str]:
    found = await r.hgetall(key(name))
    for ident, text in sorted(found.items()):
        if where(text):
            return str(ident), str(text)
    raise AssertionError(f"no {name} row to tamper with")
