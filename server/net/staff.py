"""The staff console's reads (issue 28): the floor, the audit log, an account, the books.

Theory of operation. A staff session (a token with a staff role) sends ``staff {query}``
on the same WebSocket as everything else (protocol/README.md, "The staff console"); the
router hands it to the :class:`StaffDesk`, which checks the role against
:data:`QUERY_ROLES` (``not_authorized`` otherwise, a player's included) and answers with
``staff {query, data}``:

* ``controls``: what the asker's role may use (the controls, the queries, whether it enters
  stadium results), so the console shows each control only to the roles that may use it;
* ``floor``: every table this server runs, each as its :meth:`TableActor.floor_row` (game,
  kind, phase, seated players, the round in play, the last result, the limits, the jackpot
  meter; a stadium's kept rounds); in a deployment also the tables the other servers run,
  as their lobby rows were last published, with each server's URL. With ``watch`` the
  connection is subscribed: the desk's task (:meth:`StaffDesk.run`) compares the floor
  every :data:`FLOOR_INTERVAL` seconds and sends it to every subscriber when it changed
  (live updates, no polling by the page);
* ``audit``: the audit log (server/room/operator.py) read from the ledger's store, filtered as
  ``croupier admin audit`` filters it (:class:`server.room.operator.AuditQuery`), newest first,
  at most ``limit`` entries;
* ``account``: the accounts whose id or name contains ``account``; for an exact account its
  wallet, whether it is suspended, its recent rounds (the journal) and cashier movements
  (the audit log's ``deposit`` and ``withdraw``);
* ``ledger_check``: the books' check of ``croupier ledger check`` on the live store;
* ``resettlement``: what a ``correct_result`` would do to a stadium table's kept round,
  computed by the table in its own task and not applied (the console shows it before the
  staff member confirms the correction).

Reads are not acts: they are not entries of the audit log (GLI-11 logs significant events:
the controls, which stay on ``operator``). The store reads run in a thread (SQLite: its own
read connection) or on the trio thread (Redis), as the game recall reads the journal.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Final, cast

import trio

from protocol import errors
from protocol.messages import Error, Staff, StaffAnswer
from server.room import operator
from server.room.accounts import CASHIER_ROLES, ROLES
from server.store.journal import JournalQuery
from server.store.ledger import AsyncStore
from server.store.ledger import Store as SyncStore
from server.store.memory import MemoryStore
from server.store.model import StoreError
from server.store.sqlite import SqliteStore
from server.tables.base import TableCommand

if TYPE_CHECKING:
    from server.net.router import Router
    from server.tables.connection import Connection

#: every staff role (every role of ``server/room/accounts.py`` but a player's): all see the floor
STAFF_ROLES: Final = frozenset(ROLES) - {"player"}
#: who may ask which query (the controls' roles are server/room/operator.py's ``ALLOWED``)
QUERY_ROLES: Final[dict[str, frozenset[str]]] = {
    "controls": STAFF_ROLES,
    "floor": STAFF_ROLES,
    "audit": frozenset({"supervisor", "manager"}),
    "account": frozenset({"cashier", "supervisor", "manager"}),
    "ledger_check": frozenset({"supervisor", "manager"}),
    #: a correction's figures before it is confirmed: whoever may correct a result
    "resettlement": operator.CorrectResult.ROLES,
}
#: how often a watched floor is compared and, when it changed, pushed (seconds)
FLOOR_INTERVAL: Final = 0.5
#: an account's recent rounds and cashier movements, at most
RECENT: Final = 10
#: accounts a search names, at most
FOUND: Final = 20
CASHIER_OPS: Final = frozenset({"deposit", "withdraw"})


class StaffDesk:
    """The staff reads of one server, and the subscribers of its floor."""

    def __init__(self, router: Router) -> None:
        self.router = router
        self.watchers: dict[int, Connection] = {}
        self._last: list[dict[str, Any]] | None = None

    # -- the queries -----------------------------------------------------------------------
    def query(self, conn: Connection, m: Staff) -> Awaitable[None] | None:
        """Answer ``m`` (or refuse it by role); a store read returns an awaitable."""
        if conn.role not in QUERY_ROLES[m.query]:
            text = f"a {conn.role} may not read the {m.query.replace('_', ' ')}"
            conn.send(Error(code=errors.NOT_AUTHORIZED, message=text, ref="staff"))
            return None
        if m.query == "controls":
            conn.send(StaffAnswer("controls", self.controls(conn.role)))
            return None
        if m.query == "floor":
            if m.watch:
                self.watchers[conn.id] = conn
            else:
                self.watchers.pop(conn.id, None)
            conn.send(StaffAnswer("floor", self.floor()))
            return None
        if m.query == "resettlement":  # the table computes it, in its own task
            table = self.router.tables.get(m.table or "")
            if table is None:
                text = f"no table {m.table!r}"
                conn.send(Error(code=errors.UNKNOWN_TABLE, message=text, ref="staff"))
            else:
                table.submit(TableCommand(conn, m))
            return None
        if m.query == "audit":
            return self._read(conn, m, self._audit)
        if m.query == "account":
            return self._read(conn, m, self._account)
        return self._read(conn, m, self._ledger_check)

    @staticmethod
    def controls(role: str) -> dict[str, Any]:
        """What a role may use, declared once (server/room/operator.py ``ALLOWED``, the stadium's
        ``ENTRY_ROLES``, :data:`QUERY_ROLES`, the accounts' ``CASHIER_ROLES``): the console
        shows only those controls."""
        from server.tables.stadium import ENTRY_ROLES

        return {
            "role": role,
            "controls": sorted(operator.ALLOWED.get(role, frozenset())),
            "queries": sorted(q for q, roles in QUERY_ROLES.items() if role in roles),
            "enter_result": role in ENTRY_ROLES,
            "cashier": role in CASHIER_ROLES,  # deposit and withdraw (the ``cashier`` call)
        }

    def floor(self) -> list[dict[str, Any]]:
        """Every table of this server, in lobby order, each with ``url`` nil; in a
        deployment (server/room/directory.py) then every table another server runs, as its
        lobby row was last published, with that server's ``url`` (its console has the rest)."""
        order = self.router.table_order
        tables = sorted(
            self.router.tables.values(), key=lambda t: (order.get(t.id, math.inf), t.id)
        )
        rows = [{**t.floor_row(), "url": None} for t in tables]
        directory = self.router.directory
        if directory is not None:
            for info in directory.lobby({}):
                if info.id in self.router.tables:
                    continue
                entry = directory.entries.get(info.id)
                rows.append(
                    {
                        "id": info.id,
                        "name": info.name,
                        "game": info.game,
                        "kind": entry.config.kind if entry is not None else None,
                        "phase": "elsewhere",
                        "seated": [],
                        "spectators": info.spectators,
                        "round": None,
                        "last": None,
                        "limits": dict(info.stakes),
                        "jackpot": None,
                        "url": info.url,
                    }
                )
        return rows

    async def _read(self, conn: Connection, m: Staff, read: Any) -> None:
        try:
            data = await read(m)
        except (StoreError, OSError) as exc:
            text = f"the store cannot be read: {exc}"
            conn.send(Error(code=errors.STORE_UNAVAILABLE, message=text, ref="staff"))
            return
        conn.send(StaffAnswer(m.query, data))

    async def _audit(self, m: Staff) -> dict[str, Any]:
        query = operator.AuditQuery(
            who=m.who,
            action=m.action,
            table=m.table,
            outcome=m.outcome,
            since=m.since,
            until=m.until,
        )
        picked = query.select(await self.audit_entries())
        return {"entries": picked[::-1][: m.limit], "matched": len(picked)}

    async def _account(self, m: Staff) -> dict[str, Any]:
        ledger, router = self.router.ledger, self.router
        needle = (m.account or "").casefold()
        names = {c.account: c.name for c in router.by_account.values() if c.account}
        accounts = sorted(
            {
                k[len("wallet:") :]
                for k in ledger.balances
                if k.startswith("wallet:") and "/" not in k
            }
            | set(names)
        )
        found = [
            {"account": a, "name": names.get(a), "balance": ledger.balance(a)}
            for a in accounts
            if needle in a.casefold() or needle in (names.get(a) or "").casefold()
        ][:FOUND]
        out: dict[str, Any] = {"found": found, "account": None}
        exact: str | None = m.account if m.account in accounts else None
        if exact is None and len(found) == 1:
            exact = str(found[0]["account"])
        if exact is None:
            return out
        rounds = await self.journal_rounds(JournalQuery(account=exact, limit=RECENT))
        moves = [
            e
            for e in await self.audit_entries()
            if e.get("action") in CASHIER_OPS and e.get("account") == exact
        ]
        out["account"] = {
            "account": exact,
            "name": names.get(exact),
            "balance": ledger.balance(exact),
            "suspended": exact in router.accounts.suspended,
            "online": exact in router.by_account,
            "seated": router.seated_tables(exact),
            "rounds": [
                {
                    "round": r.ref,
                    "table": r.table,
                    "game": r.start.get("game"),
                    "at": r.entries[0].at if r.entries else None,
                    "state": r.state,
                }
                for r in reversed(rounds)
            ],
            "cashier": [
                {
                    "at": e.get("at"),
                    "op": e.get("action"),
                    "amount": (e.get("asked") or {}).get("amount"),
                    "by": e.get("name"),
                    "outcome": e.get("outcome"),
                    "balance": (e.get("effect") or {}).get("balance"),
                }
                for e in moves[::-1][:RECENT]
            ],
        }
        return out

    async def _ledger_check(self, m: Staff) -> dict[str, Any]:
        from server.store.cli import check_sqlite

        store = self.router.ledger.store
        if self.router.ledger.is_async:
            report = await cast(Any, store).check()
        elif isinstance(store, SqliteStore):
            report, lost = await trio.to_thread.run_sync(check_sqlite, store.dir, None)
            if report is None:
                raise StoreError(lost or "no ledger")
            if lost is not None:
                report.balanced = False
                report.problems.insert(0, lost)
        else:
            report = cast(Any, store).check(True)
        return dict(report.to_json())

    # -- reading the store -----------------------------------------------------------------
    async def audit_entries(self) -> list[dict[str, Any]]:
        """The audit log as the store holds it (what is committed), oldest first."""
        store = self.router.ledger.store
        if self.router.ledger.is_async:
            entries: list[dict[str, Any]] = await cast(Any, store).audit_entries()
        elif isinstance(store, SqliteStore):
            entries = await trio.to_thread.run_sync(store.audit_entries)
        elif isinstance(store, MemoryStore):
            entries = store.audit_entries()
        else:
            entries = []
        return entries

    async def journal_rounds(self, query: JournalQuery) -> list[Any]:
        ledger = self.router.ledger
        if ledger.is_async:
            return list(await cast(AsyncStore, ledger.store).journal_rounds(query))
        read = cast(SyncStore, ledger.store).journal_rounds
        return list(await trio.to_thread.run_sync(read, query))

    # -- the live floor --------------------------------------------------------------------
    def forget(self, conn: Connection) -> None:
        self.watchers.pop(conn.id, None)

    async def run(self) -> None:
        """Push the floor to its subscribers whenever it changed (checked every
        :data:`FLOOR_INTERVAL` s while anyone watches)."""
        while True:
            await trio.sleep(FLOOR_INTERVAL)
            if not self.watchers:
                self._last = None
                continue
            rows = self.floor()
            if rows == self._last:
                continue
            self._last = rows
            for conn in list(self.watchers.values()):
                conn.send(StaffAnswer("floor", rows))
