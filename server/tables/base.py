"""The table layer: one trio task owns one table; everything reaches it through its inbox.

Theory of operation: the one path of a client command
-----------------------------------------------------
1. **Socket to router** (``server/net/connections.py``): websockets' reader task decodes a
   frame with the protocol's strict msgspec decoder (``protocol/codec.py``), rate-limits it,
   and hands the decoded message to the router (``server/net/router.py``), which answers session
   and lobby messages itself and submits a table message as ``TableCommand(conn, message)``
   to that table's inbox with :meth:`TableActor.submit` (never blocks).
2. **Inbox to handler**: the table is an actor (``server/actor.py``: the inbox, the typed
   handler maps, the deadline loop and the jobs): its task takes one item at a time and
   finds its handler in the kind's :attr:`TableActor.handlers`, a
   :class:`~server.actor.Handlers` map from the protocol message type (or the inbox item
   type) to a method, checked by mypy: ``Handlers[Kind, None](BASE_HANDLERS).command(BuyIn,
   Kind.on_buy_in)``. A handler runs synchronously: no await while the table's state is
   inconsistent. Background work (a jackpot coin-in, a void's reversal) runs in
   :meth:`~server.actor.Actor.spawn` jobs; a job never touches the table: it returns a
   typed result, which comes back through the inbox and is applied by its handler.
3. **Handler to engine**: the kind's handler checks the table's rules (phase, whose turn,
   funds) and calls the pure engine (``server/games``), which returns events.
4. **Money**: only :class:`~server.tables.books.Books` moves money, as named transfers; after
   each step the books are checked against where the table says every cent is.
5. **Events to every connection**: :meth:`TableActor.broadcast` offers each event to every
   recipient (seat holders and spectators); :meth:`TableActor.sees` (the view layer,
   ``server/tables/views.py``) decides who may see it; :meth:`TableActor.event` numbers it
   for that recipient and adds it to the recipient's open batch. At the end of the step
   :meth:`TableActor.flush` sends each recipient one ``events`` frame through its bounded
   outbound queue (``Connection.send``: written at once when the socket takes it, else
   drained by the connection's handler task): a slow client is dropped, never waited for.
6. **Timers**: the table wakes at :meth:`TableActor.next_deadline` (a turn clock, a betting
   window, a disconnect grace, the next round) and runs :meth:`TableActor.on_time`.

The table is composed of parts, each a module of one job: the seat lifecycle, written once
for every kind (``server/tables/seating.py``: join as a player or spectator, resume after a
reconnect, detach, the disconnect grace, vacate, the shutdown cash-out), the operator's
controls (``server/tables/controls.py``), the books (``books.py``), the phases
(``phases.py``) and the views (``views.py``).

Writing a table kind
--------------------
Subclass :class:`TableActor` with a :class:`Member` subclass for its seat holders, and write
only the game's behaviour:

* :meth:`~TableActor.info` (the lobby row) and :meth:`~TableActor.view_for` (a snapshot);
* :meth:`~TableActor.admit` (a new player joins: which seat or box, or a refusal);
* :meth:`~TableActor.in_round` and :meth:`~TableActor.release` (what a leaving member still
  has in play, and returning its money when it goes);
* :meth:`~TableActor.round_deadline` / :meth:`~TableActor.on_round_time` and
  :meth:`~TableActor.void_round` (its rounds' timers, and a round stopped by a shutdown);
* :attr:`~TableActor.handlers` for its own messages, merged with the base's.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import Error, Snapshot, TableInfo
from server import logs
from server.actor import Actor, Command, Handlers, JobDone
from server.cards import SeededRandomSource
from server.config import ServerConfig, TableConfig
from server.games.visibility import EVERYONE, Visibility
from server.refusals import for_player
from server.store.journal import RECALL_ROUNDS, Journal, JournalQuery, JournalRound, recall
from server.store.ledger import AsyncStore, Ledger
from server.store.ledger import Store as SyncStore
from server.tables import controls, seating
from server.tables.books import Books, BooksError
from server.tables.connection import Connection
from server.tables.controls import Refused as Refused  # (a kind raises it: stadium)
from server.tables.events import TableEvent
from server.tables.phases import Phase, PhaseMachine
from server.tables.seat_events import (
    ConnectionChanged,
    SecretCommitted,
    SeedTaken,
    StoreState,
)
from server.tables.seating import Member as Member
from server.tables.seating import Recipient as Recipient

log = logging.getLogger("croupier.tables")

M = TypeVar("M")


# -- the inbox ---------------------------------------------------------------------------------
#: a client's decoded protocol message for this table, with its connection (server/actor.py)
TableCommand = Command


@dataclass(frozen=True, slots=True)
class Detach:
    """The connection ended (or was replaced): hold its seat for the grace period."""

    conn: Connection


@dataclass(frozen=True, slots=True)
class Shutdown:
    """Stop starting rounds, void the running one, return every stake."""

    done: trio.Event


@dataclass(frozen=True, slots=True)
class Abandon:
    """A deployment (``server/room/directory.py``): the table's lease is lost. Stop at once and
    move no money: the new owner voids the round and sends the stakes home from the store."""

    reason: str


@dataclass(frozen=True, slots=True)
class Expel:
    """An account must leave (an operator suspended it): vacate its seat now, or when the
    round it plays in ends."""

    account: str
    reason: str


@dataclass(frozen=True, slots=True)
class StoreStatus:
    """The ledger's store went out or came back (``Ledger.on_status``)."""


@dataclass(frozen=True, slots=True)
class HistoryRead:
    """A player's recalled rounds, read from the journal by a job."""

    conn: Connection
    account: str
    rounds: list[JournalRound]


InboxItem = TableCommand[Any] | Detach | Shutdown | JobDone | object
Handler = Callable[[Any, Any], None]


class TableActor(Actor, ABC):
    """Base of every table: inbox, handlers, phases, seats, books, delivery."""

    kind: ClassVar[str] = "table"
    #: what a player's seed is for: the next ``round``'s deal (a blackjack table: ``shoe``)
    fair_unit: ClassVar[str] = "round"
    #: message or inbox item type -> handler; a kind merges its own into the base's
    handlers: ClassVar[Mapping[type, Handler]] = {}

    def __init__(self, table: TableConfig, config: ServerConfig, ledger: Ledger) -> None:
        super().__init__(ledger.gate, table.id)
        self.table = table
        self.id = table.id
        self.config = config
        self.ledger = ledger
        self.metrics = ledger.metrics  # what /metrics reads (server/metrics.py)
        self.books = Books(table.id, ledger)
        #: every round on the record (server/store/journal.py); a seeded table (tests) draws
        #: its round secrets from its seed
        self.journal = Journal(
            table.id, ledger, SeededRandomSource(table.seed) if table.seed is not None else None
        )
        self.phases = PhaseMachine()
        self.members: dict[str, Member] = {}  # by account
        self.spectators: dict[int, Recipient] = {}  # by connection id
        self.closing = False
        self.closed_by_operator = False  # an operator closed the table (it may reopen)
        self.closed = trio.Event()
        self._unflushed: list[Connection] = []  # connections with an open events batch
        ledger.on_status.append(lambda: self.submit(StoreStatus()))
        #: account -> ids of the tables where it holds a seat; the server shares one dict
        #: among its tables so that ``hello`` finds an account's seats without a scan
        self.seat_index: dict[str, set[str]] = {}

    @property
    def phase(self) -> Phase:
        return self.phases.phase

    # -- the actor's hooks (server/actor.py runs the inbox, the loop and the jobs) -----------
    @property
    def finished(self) -> bool:
        return self.closed.is_set()

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        logs.TABLE.set(self.id)  # this task's log lines name the table (server/logs.py)
        await super().run(task_status)

    def refuse_closed(self, item: object) -> None:
        if isinstance(item, TableCommand):
            self.error(item.conn, errors.SHUTTING_DOWN, "the table is closed", "join")
        elif isinstance(item, Shutdown):
            item.done.set()

    def failed(self, item: object) -> None:
        if isinstance(item, TableCommand):
            self.error(item.conn, errors.INTERNAL, "server error", None)

    def stepped(self, item: object) -> None:
        if type(item) is TableCommand:
            metrics = self.metrics
            metrics.actions[self.kind] += 1
            metrics.action_seconds.observe(time.perf_counter() - item.at)

    def end_step(self) -> None:
        self._end_step()

    def _end_step(self) -> None:
        journal = self.journal
        if journal.round is not None and self.books.round != journal.round:
            state = self.books.closed
            self.metrics.round_closed(self.table.game, state)
            log.info("round %s", state)
            for opened in journal.close(state):  # the books closed the round
                self.broadcast(opened, engine=True)  # on the record already
            logs.ROUND.set(None)
        if journal.announce:  # a deal took the secret: the next one's hash, before any seed
            journal.announce = False
            self.broadcast(self.secret_event())
        self.flush()
        if not self.books.moved:
            return  # most steps (a poker action, a join) move no money: nothing to check
        self.books.moved = False
        try:
            self.books.check(self.where_money_is())
        except BooksError:
            log.exception("table %s: the books do not balance", self.id)

    def open_journal(
        self, ref: str, start: dict[str, Any], items: list[str] | None = None, deal: bool = True
    ) -> None:
        """Put a round on the record and publish the commitment to its deal before any card
        is shown (``server/fair.py``; ``items``: the deal's, when the source does not keep
        them: a poker deck); the round's engine was built on :meth:`Journal.begin`. A round
        dealt from a blackjack shoe (``deal`` false) publishes the shoe's instead."""
        self.journal.open(ref, {"kind": self.kind, "game": self.table.game, **start})
        logs.ROUND.set(ref)  # this table's task's log lines name the round (server/logs.py)
        self.metrics.round_started(self.table.game)
        log.info("round started")
        if deal:
            self.broadcast(self.journal.commit(items), engine=True)  # recorded as ``commit``

    def secret_event(self) -> SecretCommitted:
        """The hash of the next deal's secret (``secret_committed``): seeds sent from now on
        join that deal (the next round; at blackjack the next shoe)."""
        return SecretCommitted(server_hash=self.journal.server_hash, for_=self.fair_unit)

    def fair_view(self, member: Member | None) -> dict[str, Any]:
        """A snapshot's ``fair``: the next deal's hash, and the member's own seed for it."""
        mine = self.journal.seed_of(member.account) if member is not None else None
        return {"server_hash": self.journal.server_hash, "for": self.fair_unit, "seed": mine}

    def on_seed(self, cmd: TableCommand[wire.Seed]) -> None:
        """A player's seed for the next deal (``server/fair.py``): mixed with the server's
        committed secret, so that neither chooses the deal alone; acknowledged to it alone."""
        member = self.member_for(cmd.conn, "seed")
        if member is None:
            return
        seed = cmd.message.seed
        digest = self.journal.seed(member.account, seed)
        taken = SeedTaken(seed=seed, server_hash=digest, for_=self.fair_unit)
        self.event(member, taken.to_wire())

    # -- delivery ---------------------------------------------------------------------------
    def deliver(self, to: Recipient, build: Callable[[int], Any]) -> None:
        """Number the next message for ``to`` and queue it (nothing if disconnected).

        For messages other than events (snapshot, left): the recipient's open batch of
        events goes first, so the order is kept."""
        to.seq += 1
        if to.conn is not None:
            to.conn.send(build(to.seq))

    def event(self, to: Recipient, event: dict[str, Any]) -> None:
        """Number an event for ``to`` and add it to this step's batch for its connection."""
        to.seq += 1
        conn = to.conn
        if conn is not None and conn.add_event(self.id, to.seq, event):
            self._unflushed.append(conn)

    def flush(self) -> None:
        """End of a step: each recipient's events of the step go out as one frame."""
        if self._unflushed:
            conns, self._unflushed = self._unflushed, []
            for conn in conns:
                conn.flush()

    def broadcast(
        self,
        event: dict[str, Any] | TableEvent,
        visible_to: Visibility | None = EVERYONE,
        skip: Any = None,
        engine: bool = False,
    ) -> None:
        """Offer a table or engine event to every recipient allowed to see it. A table event
        of a round in play is journalled here (``engine``: the kind journalled it already).

        A typed :class:`TableEvent` carries its own visibility and audience (a ``"quiet"``
        one is never journalled); the dict form is the older one, being retired."""
        if isinstance(event, TableEvent):
            audience, visible_to = event.AUDIENCE, event.visible_to
            wire_event = event.to_wire()
            if audience == "staff":
                for s in self.spectators.values():
                    self.event(s, wire_event)
                return
            engine = engine or audience == "quiet"
            event = wire_event
        if not engine and self.journal.round is not None:
            self.journal.table_event(event, visible_to)
        public = visible_to == EVERYONE
        for m in self.members.values():
            if m is not skip and (public or self.sees(m, visible_to)):
                self.event(m, event)
        if public:
            for s in self.spectators.values():
                if s is not skip:
                    self.event(s, event)

    def recipients(self) -> Iterator[Recipient]:
        yield from self.members.values()
        yield from self.spectators.values()

    def send_to(self, account: str, message: Any) -> None:
        """A private message (a balance) to a member's connection, if it is connected."""
        m = self.members.get(account)
        if m is not None and m.conn is not None:
            m.conn.send(message)

    def snapshot(self, to: Recipient, role: str, member: Member | None) -> None:
        view = self.view_for(member)
        view["fair"] = self.fair_view(member)
        seat = self.seat_of(member) if member is not None else None
        self.deliver(to, lambda seq: Snapshot(self.id, seq, role, seat, view))

    def error(
        self,
        conn: Connection,
        code: str,
        message: str,
        ref: str | None,
        reason: str | None = None,
        amounts: dict[str, int] | None = None,
    ) -> None:
        text, rule = for_player(message, reason, code)  # the rule stays in ``rule``, the log
        if rule is not None:
            log.info("%s: refused %s (%s): %s", self.id, ref, rule, message)
        conn.send(
            Error(
                code=code,
                message=text,
                ref=ref,
                reason=reason,
                table=self.id,
                amounts=amounts,
                rule=rule,
            )
        )

    def seat_minimum(self) -> int:
        """What a player needs in the wallet to take a seat (the table's minimum buy-in or
        wager, cents; 0: nothing)."""
        return 0

    # -- the seat lifecycle (server/tables/seating.py, every kind) ------------------------------
    on_join = seating.on_join
    may_sit = seating.may_sit
    on_leave = seating.on_leave
    on_detach = seating.on_detach
    on_shutdown = seating.on_shutdown
    on_abandon = seating.on_abandon
    on_expel = seating.on_expel
    expire_grace = seating.expire_grace
    vacate = seating.vacate

    # -- the operator channel's hooks (server/tables/controls.py applies the controls) ----
    def books_moved(self, step: Callable[[], object]) -> dict[str, int]:
        """Run ``step``; the cents it moved on this table's books, by transfer kind (what a
        void returned: ``wager_returned``, ``void``...)."""
        before = dict(self.books.totals)
        step()
        after = self.books.totals
        return {k: v - before.get(k, 0) for k, v in sorted(after.items()) if v != before.get(k, 0)}

    def reopen(self) -> None:
        """An operator reopened the table: rounds may start again."""
        return None

    def stage_limits(self, limits: dict[str, int]) -> str | None:
        """New limits from the next round on; the reason they are refused, or None."""
        return f"a {self.kind} table has no limits to change"

    def limits_detail(self) -> str:
        """When limits staged by :meth:`stage_limits` take effect (the operator's reply)."""
        return "new limits from the next round"

    def limits_from(self) -> dict[str, Any]:
        """When limits staged by :meth:`stage_limits` take effect, in figures for the audit
        entry (``from_round``: the number of the first round they apply to)."""
        return {}

    def approve_jackpot(self) -> str | None:
        """Reopen jackpot wagers after an outage (ACT 2017 r 14.5); None: nothing awaits."""
        return None

    def correct_result(self, result: dict[str, Any], by: tuple[str, str]) -> str | None:
        """Re-settle a round with a corrected result (ETG s9) for ``by`` (account, role):
        what was done, or None when this kind has no result to correct; :class:`Refused`
        when this correction cannot be made."""
        return None

    def close_if_due(self) -> None:
        """An operator closed the table: once no round is in play, everyone leaves."""
        if self.closed_by_operator and not self.phases.in_round and self.members:
            for member in list(self.members.values()):
                self.vacate(member, "table_closed")

    def on_store_status(self, item: StoreStatus) -> None:
        """Tell everyone why no round starts (or that play resumes)."""
        ok = self.books.can_move
        self.broadcast(StoreState(ok=ok, status="ok" if ok else self.books.why_not()))

    def on_history(self, cmd: TableCommand[wire.History]) -> None:
        """Game recall: the player's last rounds here, read from the journal in a job (the
        store's read runs in a thread; rounds still being committed are waited for)."""
        account = cmd.conn.account or ""
        self.spawn(self._history_job, self.ledger, cmd.conn, account, self.id)

    @staticmethod
    async def _history_job(ledger: Ledger, conn: Connection, account: str, table: str) -> object:
        target = ledger.committed + ledger.backlog  # the rounds recorded so far: committed
        with trio.move_on_after(2.0):
            while ledger.committed < target and ledger.can_move:
                ledger.commit_soon()
                await trio.sleep(0.01)
        query = JournalQuery(table=table, account=account, limit=RECALL_ROUNDS)
        if ledger.is_async:  # a shared store (Redis) is read on the trio thread
            rounds = await cast(AsyncStore, ledger.store).journal_rounds(query)
        else:  # SQLite: its own read connection, off the loop
            read = cast(SyncStore, ledger.store).journal_rounds
            rounds = await trio.to_thread.run_sync(read, query)
        return HistoryRead(conn, account, rounds)

    def on_history_read(self, item: HistoryRead) -> None:
        rounds = [recall(r, item.account) for r in item.rounds]
        item.conn.send(wire.HistoryRounds(self.id, rounds))

    def on_unhandled(self, cmd: TableCommand[Any]) -> None:
        kind = type(cmd.message).__struct_config__.tag
        self.error(cmd.conn, errors.WRONG_GAME, f"a {self.kind} table does not take {kind!r}", kind)

    def member_for(self, conn: Connection, ref: str) -> Member | None:
        """The member talking on ``conn``, or an error to it (``not_seated``/``not_at_table``)."""
        m = self.members.get(conn.account or "")
        if m is not None and m.conn is conn:
            return m
        code = errors.NOT_SEATED if conn.id in self.spectators else errors.NOT_AT_TABLE
        self.error(conn, code, "you do not play at this table", ref)
        return None

    def leave_reason(self, member: Member) -> str:
        """Why a member flagged ``leaving`` goes at the end of its round."""
        return "left" if member.grace_until is None and member.connected else "grace_expired"

    def holds_seat(self, conn: Connection) -> bool:
        m = self.members.get(conn.account or "")
        return m is not None and m.conn is conn

    def seat_of_account(self, account: str) -> int | None:
        m = self.members.get(account)
        return None if m is None else self.seat_of(m)

    # -- time -------------------------------------------------------------------------------
    def next_deadline(self) -> float:
        deadline = self.round_deadline()
        for m in self.members.values():
            if m.grace_until is not None and m.grace_until < deadline:
                deadline = m.grace_until
        return deadline

    def on_time(self, now: float) -> None:
        self.expire_grace(now)
        self.on_round_time(now)
        self.close_if_due()

    # -- what each table kind implements ----------------------------------------------------
    @abstractmethod
    def info(self) -> TableInfo:
        """The table's lobby row."""

    def lobby_row(
        self, description: str, stakes: dict[str, int], seats: int, taken: int, **more: Any
    ) -> TableInfo:
        """A lobby row with the fields every kind fills alike; ``more``: buy-in limits and
        the like (default: no buy-in)."""
        return TableInfo(
            id=self.id,
            name=self.table.name or self.id,
            game=self.table.game,
            description=description,
            stakes=stakes,
            seats=seats,
            taken=taken,
            spectators=len(self.spectators),
            **{"min_buy_in": 0, "max_buy_in": None, **more},
        )

    @abstractmethod
    def view_for(self, member: Member | None) -> dict[str, Any]:
        """The full table view for ``member`` (``None``: a spectator)."""

    @abstractmethod
    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        """A new player: its seat or box, or an error sent to ``conn`` and ``None``."""

    def after_admit(self, member: Member) -> None:
        """The new member is seated and has its snapshot (announce it, start a round...)."""
        return None

    @abstractmethod
    def seat_of(self, member: Member) -> int | None:
        """The seat number the member views from (its snapshot's ``seat``)."""

    @abstractmethod
    def sees(self, member: Member, visible_to: Visibility | None) -> bool:
        """Whether ``member`` may see an event visible to ``visible_to``."""

    @abstractmethod
    def in_round(self, member: Member) -> bool:
        """Whether the member has money or a hand in the round in play."""

    def on_leaving(self, member: Member) -> None:
        """A member in a round asked to leave: it goes when the round ends."""
        return None

    @abstractmethod
    def release(self, member: Member) -> int:
        """Return the member's stake or layout to its wallet and free its places; the
        amount returned."""

    @abstractmethod
    def vacated_event(
        self, member: Member, reason: str, returned: int
    ) -> dict[str, Any] | TableEvent:
        """The event that tells the table the member is gone."""

    def connection_event(self, member: Member, connected: bool) -> TableEvent:
        """The event that tells the table a member's connection dropped or came back."""
        return ConnectionChanged(seat=self.seat_of(member), connected=connected)

    @abstractmethod
    def round_deadline(self) -> float:
        """When the round's next timer fires (``math.inf``: none)."""

    @abstractmethod
    def on_round_time(self, now: float) -> None:
        """Run the round's timers that are due."""

    @abstractmethod
    def void_round(self, reason: str) -> None:
        """Stop the round in play, if any, returning every wager (a shutdown)."""

    def where_money_is(self) -> dict[str, int] | None:
        """The table's own idea of each player account (``stake:N``, ``box:N``), checked
        against the books after every step; ``None`` skips the comparison."""
        return None

    def table_view(self, info: TableInfo, **more: Any) -> dict[str, Any]:
        """The ``table`` part of a snapshot: the lobby row's identity and stakes, and
        ``more`` of the kind's own."""
        return {
            "id": info.id,
            "name": info.name,
            "game": info.game,
            "description": info.description,
            "stakes": info.stakes,
            "store": None if self.books.can_move else self.books.why_not(),
            **more,
        }

    def money(self) -> dict[str, int]:
        """Cents held by this table, for ``/health`` and the conservation tests."""
        return self.books.money()

    def floor_row(self) -> dict[str, Any]:
        """This table on the staff console's floor (server/net/staff.py; protocol/README.md
        "The staff console"): its game and kind, phase, who is seated, the round in play,
        the last result and the limits; a kind adds its own (:meth:`floor_more`)."""
        info = self.info()
        phase = (
            "closed"
            if self.closed_by_operator
            else "closing"
            if self.closing
            else self.phase.value
            if self.phase is not Phase.IDLE
            else "playing"
            if self.books.round is not None
            else "idle"
        )
        return {
            "id": self.id,
            "name": info.name,
            "game": info.game,
            "kind": self.kind,
            "phase": phase,
            "seated": sorted(m.name for m in self.members.values()),
            "spectators": len(self.spectators),
            "round": self.journal.round,
            "last": self.journal.last,
            "limits": dict(info.stakes),
            "jackpot": None,
            **self.floor_more(),
        }

    def floor_more(self) -> dict[str, Any]:
        """A kind's own facts on the floor (a jackpot meter, a stadium's kept rounds)."""
        return {}


#: The base's handlers: the seat lifecycle and the server's own inbox items (a kind extends
#: them: ``Handlers[Kind, None](BASE_HANDLERS).command(...)``; server/actor.py).
BASE_HANDLERS: Handlers[TableActor, None] = (
    Handlers[TableActor, None]()
    .command(wire.Join, TableActor.on_join)
    .command(wire.Leave, TableActor.on_leave)
    .command(wire.Operator, controls.on_operator)
    .command(wire.History, TableActor.on_history)
    .command(wire.Seed, TableActor.on_seed)
    .item(Detach, TableActor.on_detach)
    .item(Shutdown, TableActor.on_shutdown)
    .item(Abandon, TableActor.on_abandon)
    .item(StoreStatus, TableActor.on_store_status)
    .item(Expel, TableActor.on_expel)
    .item(HistoryRead, TableActor.on_history_read)
)
TableActor.handlers = BASE_HANDLERS
