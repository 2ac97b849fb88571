"""Waiting lists: players queued for a full table, or for the first seat at any like table.

Theory of operation
-------------------
A waiting list spans tables ("first available" at every table with the same game and
stakes), so it lives here, beside the router, not in one table's task. It owns only the
queue; each table owns its seats and the offer's clock. The two talk one way each:

* the router calls :meth:`WaitingLists.add` / :meth:`WaitingLists.remove` for the ``wait`` /
  ``unwait`` messages, and :meth:`WaitingLists.forget` when a connection ends;
* a table calls :meth:`seat_free` when a seat frees (or an offer there ends), :meth:`no_seat`
  when it had none to offer, :meth:`lapsed` when an offer timed out and :meth:`seated` when
  an account sat down there (all synchronous, on the table's task);
* the lists answer a freed seat by *submitting* an :class:`OfferSeat` to that table's inbox
  for the first entry that waits for it and holds no other offer. The table holds a seat for
  that account for ``seat_offer_time`` seconds (protocol ``seat_offer``), then reports
  :meth:`lapsed`: the entry leaves the list and the seat goes to the next.

One offer is open per table at a time, in list order; the lists never touch a table's state.
Every change is told to the account (protocol ``waiting``: its place on each list).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from protocol.messages import TableInfo, Waiting

if TYPE_CHECKING:
    from server.tables.connection import Connection


class WaitingTable(Protocol):
    """What the lists need of a table: its id, its lobby row, and its inbox."""

    id: str

    def info(self) -> TableInfo: ...

    def submit(self, item: object) -> None: ...


@dataclass(frozen=True, slots=True)
class OfferSeat:
    """Inbox item for a table: hold a free seat for ``account`` and offer it on ``conn``."""

    account: str
    conn: Connection


@dataclass(frozen=True, slots=True)
class OfferWithdrawn:
    """Inbox item for a table: ``account`` left the list; release a seat held for it."""

    account: str


@dataclass(eq=False, slots=True)
class Entry:
    account: str
    conn: Connection
    tables: tuple[str, ...]
    offered: str | None = None  # the table holding a seat for this entry


def same_game(a: TableInfo, b: TableInfo) -> bool:
    """Tables a "first available" entry accepts alike: game, stakes and buy-in limits."""
    return (a.game, a.stakes, a.min_buy_in, a.max_buy_in) == (
        b.game,
        b.stakes,
        b.min_buy_in,
        b.max_buy_in,
    )


class WaitingLists:
    """Every table's waiting list, in order of joining."""

    def __init__(self, tables: Mapping[str, WaitingTable]) -> None:
        self.tables = tables
        self.entries: list[Entry] = []

    # -- the router's side --------------------------------------------------------------
    def add(self, conn: Connection, table_id: str, first_available: bool) -> None:
        account = conn.account or ""
        self.remove(account, table_id)  # joining again moves to the end
        ids = [table_id]
        if first_available:
            info = self.tables[table_id].info()
            ids += [
                tid
                for tid, t in self.tables.items()
                if tid != table_id and same_game(info, t.info())
            ]
        self.entries.append(Entry(account, conn, tuple(ids)))
        self._tell(account)
        for tid in ids:
            self.offer_next(tid)

    def remove(self, account: str, table_id: str) -> None:
        """The account leaves the list of ``table_id`` (with the tables joined with it)."""
        gone = [e for e in self.entries if e.account == account and table_id in e.tables]
        if not gone:
            return
        self.entries = [e for e in self.entries if e not in gone]
        for e in gone:
            if e.offered is not None:
                self.tables[e.offered].submit(OfferWithdrawn(account))
        self._tell(account, gone[0].conn)

    def forget(self, conn: Connection) -> None:
        """A connection ended: its entries leave every list (offers are withdrawn)."""
        for e in [e for e in self.entries if e.conn is conn]:
            self.remove(e.account, e.tables[0])

    def count(self, table_id: str) -> int:
        return sum(1 for e in self.entries if table_id in e.tables)

    def positions(self, account: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.entries:
            if e.account == account:
                for tid in e.tables:
                    out[tid] = self._queue(tid).index(e) + 1
        return out

    # -- the tables' side ---------------------------------------------------------------
    def seat_free(self, table_id: str) -> None:
        """A seat freed at ``table_id`` (or an offer there ended): offer the next."""
        self.offer_next(table_id)

    def no_seat(self, table_id: str, account: str) -> None:
        """The table had no seat to offer: the entry keeps its place, without an offer."""
        for e in self.entries:
            if e.account == account and e.offered == table_id:
                e.offered = None

    def lapsed(self, table_id: str, account: str) -> None:
        """The offer timed out: the entry leaves the lists; the seat goes to the next."""
        gone = [e for e in self.entries if e.account == account and e.offered == table_id]
        self.entries = [e for e in self.entries if e not in gone]
        if gone:
            self._tell(account, gone[0].conn)
        self.offer_next(table_id)

    def seated(self, table_id: str, account: str) -> None:
        """The account sat down at ``table_id``: its entries for that table are done."""
        gone = [e for e in self.entries if e.account == account and table_id in e.tables]
        if gone:
            self.entries = [e for e in self.entries if e not in gone]
            for e in gone:
                if e.offered is not None and e.offered != table_id:
                    self.tables[e.offered].submit(OfferWithdrawn(account))
            self._tell(account, gone[0].conn)
        self.offer_next(table_id)

    # -- offers -------------------------------------------------------------------------
    def offer_next(self, table_id: str) -> None:
        """Offer ``table_id``'s free seat, if any, to the first entry free to take it."""
        queue = self._queue(table_id)
        if any(e.offered == table_id for e in queue):
            return  # one open offer per table
        for e in queue:
            if e.offered is None:
                e.offered = table_id
                self.tables[table_id].submit(OfferSeat(e.account, e.conn))
                return

    def _queue(self, table_id: str) -> list[Entry]:
        return [e for e in self.entries if table_id in e.tables]

    def _tell(self, account: str, conn: Connection | None = None) -> None:
        """Tell ``account`` (on ``conn`` if it left every list) and everyone still waiting
        their places: one entry's change moves the others'."""
        told = {account}
        if conn is None:
            conn = next((e.conn for e in self.entries if e.account == account), None)
        if conn is not None:
            conn.send(Waiting(self.positions(account)))
        for e in self.entries:
            if e.account not in told:
                told.add(e.account)
                e.conn.send(Waiting(self.positions(e.account)))
