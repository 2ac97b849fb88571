"""The process's ledger: every balance cached in memory, every movement durable in the store.

Theory of operation
-------------------
Tables are synchronous: a table step never awaits. So the ledger keeps every account's
balance in memory (loaded from the store at start) and :meth:`Ledger.move` applies a
transfer at once, refusing a debit a wallet or stake cannot cover
(:class:`~server.store.model.InsufficientFunds`, nothing moved). Each movement is also
appended to the open :class:`~server.store.model.Batch`. A table step has no checkpoint, so
everything one step moved (a whole round's settlement, say) sits in the same batch.

One trio task, :meth:`Ledger.run`, takes the open batch whenever money moved and commits it
to the store: in a worker thread (SQLite), or awaited on the trio thread when the store's
``commit`` is a coroutine function (Redis, :class:`AsyncStore`; such a store is also probed
with an empty commit when idle, so an outage ends and a loss is seen without a movement);
whatever arrives during that commit goes into the next (group commit). A round's record
(:meth:`Ledger.journal`) does not wake the committer: it rides with the next movement, in
order, or is committed on its own within :data:`JOURNAL_DELAY` s (a player's action moves no
money, so it costs no commit of its own). Commits are
idempotent per transfer id, so a commit whose answer was lost is simply retried. If the
store cannot be reached (:class:`StoreUnavailable`) the batches are kept and retried with
back-off; :attr:`Ledger.available` turns false, tables start no round and move no money
until it is true again. If the store turns out to have lost data (:class:`StoreLost`: empty,
or older than what this server saw) :attr:`Ledger.lost` is set and money never moves on it
again.

The witness (:mod:`server.store.witness`, optional): at start the store's epoch and version
are compared with what this server's data directory last saw of it; a store that is empty
or older is lost from the start (nothing is recovered, nothing committed). After commits the
witness is brought forward (at most every :data:`WITNESS_EVERY` seconds, and at the end).

A deployment (``croupier serve --redis URL --directory``, ``server/room/directory.py``): several
processes share the store, each owning some tables (a lease with a fencing token) and the
wallets of the players connected to it (a wallet token). Then :attr:`Ledger.shared` is set
and the ledger keeps one batch per table (in step order), each carrying its table's token
and the tokens of the wallets it debits; :meth:`Ledger.move` refuses to debit a wallet this
process does not hold (:class:`WalletElsewhere`). The store refuses a stale batch whole
(``ledger.lua``); the ledger then drops the table (:attr:`Ledger.on_fenced`) and re-reads the
wallets it holds. A table's accounts are cached only while its process owns it
(:meth:`Ledger.adopt_table` reads them, :meth:`Ledger.drop_table` forgets them).

Jobs beside the ledger: :mod:`server.store.calls` calls the store from trio (a sync store
in a worker thread, an async one awaited), :mod:`server.store.recovery` voids what a dead
process left open (:meth:`Ledger.recover`, before any table runs), and
:mod:`server.store.accounts` reads account names.
"""

from __future__ import annotations

import itertools
import logging
import math
import secrets
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from server.metrics import Metrics
from server.money import dollars
from server.store import checkpoints, recovery
from server.store.accounts import ledger_account
from server.store.calls import AsyncStore as AsyncStore  # re-exported (callers import it here)
from server.store.calls import Store as Store  # re-exported
from server.store.calls import StoreCalls
from server.store.gate import CommitGate
from server.store.journal import JournalEntry
from server.store.model import (
    CASHIER,
    MAX_CENTS,
    Batch,
    InsufficientFunds,
    OverLimit,
    RoundClosed,
    RoundOpened,
    RoundState,
    StoreLost,
    StoreUnavailable,
    Transfer,
    wallet,
)
from server.store.recovery import POOL_VOID as POOL_VOID  # re-exported
from server.store.recovery import pool_voids as pool_voids  # re-exported
from server.store.witness import Witness, ledger_stream

log = logging.getLogger("croupier.ledger")

#: How long the committer waits after the first movement before it commits: every table
#: step in that window joins the same commit (one fsync), at the cost of that much delay
#: before a movement is durable. Measured in docs/perf.md ("Ledger").
GROUP_WINDOW = 0.005

#: How long a round's record may wait for the next movement of money before it is committed
#: on its own. A player's action in a round moves no money (poker settles at the end, a
#: banked wager is taken when placed), so committing its record at once would cost a commit
#: (a transaction, an fsync, a thread hand-off) per action. A crash loses at most this much
#: of an interrupted round's record, and that round is voided (its money goes back from the
#: transfers, which are never delayed); a settled round's record is always whole, because
#: the settlement moves money and commits everything before it in order. docs/perf.md
#: ("Cost per action against the raw floor") measures it.
JOURNAL_DELAY = 0.5

#: seconds between two writes of the witness file while commits go on
WITNESS_EVERY = 0.2
#: seconds between two signed checkpoints of the store's chain while it grows
SIGN_EVERY = checkpoints.EVERY
#: an async (shared) store is probed (an empty commit) after this many idle seconds
PROBE_EVERY = 1.0


class WalletElsewhere(InsufficientFunds):
    """A deployment: the wallet is held by another process (the player's connection is
    there); this process may credit it but not debit it."""


class Ledger:
    """Balances in memory, movements to the store (see the module docstring)."""

    def __init__(
        self,
        store: Store | AsyncStore,
        *,
        instance: str | None = None,
        witness: Witness | None = None,
        signer: Ed25519PrivateKey | None = None,
    ) -> None:
        self.store = store
        #: the store's calls, awaited the same way whatever its kind (server/store/calls.py)
        self.calls = StoreCalls(store)
        #: signs a checkpoint of the store's chain now and then (server/store/checkpoints.py)
        self.signer = signer
        self._signed_n = 0
        self._signed_at = -math.inf
        self.instance = instance or secrets.token_hex(4)
        self.is_async = self.calls.is_async  # the store is awaited on the trio thread (Redis)
        loaded = store.load()
        self.epoch, self.version = loaded.epoch, loaded.version
        self.witness = witness
        self._stream = ledger_stream(store.id)
        self._witnessed = 0.0
        self.meta = dict(loaded.meta)
        self.balances: dict[str, int] = dict(loaded.balances)
        self.open_rounds = loaded.open_rounds
        self._ids = itertools.count(1)
        self._open: list[Batch] = []  # this moment's batches, in step order
        self._pending: list[Batch] = []
        #: a deployment (server/room/directory.py): table -> the fencing token held, account ->
        #: the wallet token held; callbacks told of a table whose batch the store refused
        self.shared = False
        self.fences: dict[str, int] = {}
        self.wallet_tokens: dict[str, int] = {}
        self.on_fenced: list[Callable[[str], None]] = []
        self.refused = 0  # batches the store refused (stale tokens)
        self._round_tables: dict[str, str] = {}
        #: held while a commit is in flight: a wallet is taken (a new token) between commits
        self.committing = trio.Lock()
        self._reread = False
        self._reread_at = 0.0
        self._wake = trio.Event()
        self._contact = time.monotonic()  # the store last answered a commit or a probe
        self.available = True
        self.lost: str | None = None
        self.committed = 0  # batches committed by this process
        self.on_status: list[Callable[[], None]] = []
        #: commit, then speak (server/store/gate.py): every write below is numbered there,
        #: and a frame that reports one waits for the commit that holds it
        self.gate = CommitGate()
        #: what the hot paths count for ``/metrics`` (server/metrics.py); the tables too
        self.metrics = Metrics()
        self._taken = 0  # the gate's number of the last write the pending batches hold
        if witness is not None:
            # a store lost from the start: the server refuses it in one line (server/net/app.py)
            self.lost = witness.check(self._stream, "the ledger store", self.epoch, self.version)
            if self.lost is None:
                witness.record(self._stream, self.epoch, self.version)

    # -- moving money (sync, on the trio thread) -------------------------------------------
    def move(self, source: str, target: str, amount: int, kind: str, round_: str | None) -> None:
        """Move ``amount`` cents; :class:`InsufficientFunds` (nothing moved) if ``source`` is
        a player's wallet or stake that does not cover it."""
        if type(amount) is not int or amount < 0:
            raise ValueError(f"amount must be a non-negative int of cents, not {amount!r}")
        if amount == 0:
            return
        balances = self.balances
        have = balances.get(source, 0)
        src, dst = ledger_account(source), ledger_account(target)
        # a wallet's or a meter's holder: whose wallet token the debit needs, whose
        # balance a reply reports (commit, then speak)
        payer = src.owner if src.is_wallet_side else None
        payee = dst.owner if dst.is_wallet_side else None
        token = None
        if self.shared and payer is not None:
            token = self.wallet_tokens.get(payer)
            if token is None:
                raise WalletElsewhere(
                    "this wallet is in use on another server: play where you are connected",
                    0,
                    amount,
                )
        if have < amount and src.is_player:
            raise InsufficientFunds(
                f"the balance {dollars(max(have, 0))} does not cover {dollars(amount)}",
                max(have, 0),
                amount,
            )
        if balances.get(target, 0) + amount > MAX_CENTS or have - amount < -MAX_CENTS:
            raise OverLimit(
                f"{dollars(amount)} would take an account beyond {dollars(MAX_CENTS)}",
                max(have, 0),
                amount,
            )
        balances[source] = have - amount
        balances[target] = balances.get(target, 0) + amount
        ident = f"{self.instance}:{next(self._ids)}"
        batch = self._batch_for((src.on_table or dst.on_table) if self.shared else None)
        batch.transfers.append(Transfer(ident, source, target, amount, kind, round_))
        if token is not None and payer is not None:
            batch.wallets[payer] = token
        self.gate.wrote(dst.on_table or src.on_table, payer, payee)
        self._dirty()

    def open_round(self, ref: str, table: str) -> None:
        if self.shared:
            self._round_tables[ref] = table
        self._batch_for(table).opened.append(RoundOpened(ref, table, self.instance))
        self.gate.wrote(table)
        self._dirty()

    def close_round(self, ref: str, state: RoundState, table: str | None = None) -> None:
        """Close ``ref`` (``table``: the round's table when this process did not open it,
        crash recovery). In a deployment a round of a table this process no longer owns is
        not closed here: its new owner voids it."""
        if self.shared:
            table = self._round_tables.pop(ref, None) or table
            if table is None:
                return
        self._batch_for(table).closed.append(RoundClosed(ref, state))
        self.gate.wrote(table)
        self._dirty()

    def note(self, entry: dict[str, object], table: str | None = None) -> None:
        """A fact or a log entry (the audit log's), durable with the batch; ``table``: in a
        deployment, the batch of that table's step (a table's audit entry is committed, or
        refused as stale, with the effect it reports)."""
        self._batch_for(table).notes.append(entry)
        self.gate.wrote()
        self._dirty()

    def journal(self, entry: JournalEntry) -> None:
        """A round's record (``server/store/journal.py``), committed in order with the money:
        with the next step that moves any (the round's settlement at the latest), or within
        :data:`JOURNAL_DELAY` s (a step that moved nothing does not wake the committer)."""
        self._batch_for(entry.table).journal.append(entry)

    def jackpot(self, record: dict[str, Any]) -> None:
        """A commit of an embedded jackpot pool (``server/jackpots/memory.py``): durable with
        this batch, in order with the money around it (the same SQLite transaction)."""
        self._batch_for(None).jackpot.append(record)
        self.gate.wrote()
        self._dirty()

    def jackpot_records(self) -> list[dict[str, Any]]:
        """What the store kept of the embedded pools (read at start, before any commit)."""
        read = getattr(self.store, "jackpot_records", None)
        return [] if read is None else list(read())

    def commit_soon(self) -> None:
        """Commit what is queued now, the records included (a recall waits for them)."""
        self._dirty()

    def _batch_for(self, table: str | None) -> Batch:
        """The open batch for a step of ``table``: one batch for everything, or in a
        deployment one per table (a new one when another table's step came in between, so
        the store applies them in the order they were made)."""
        if not self.shared:
            table = None
        if self._open and self._open[-1].table == table:
            return self._open[-1]
        batch = Batch(table=table, guarded=self.shared)
        self._open.append(batch)
        return batch

    # -- a deployment: tables and wallets owned by this process (server/room/directory.py) ---
    def adopt_table(
        self,
        table: str,
        token: int,
        balances: dict[str, int],
        open_rounds: dict[str, tuple[str, str, list[Transfer]]],
        pools: Mapping[str, str] | None = None,
    ) -> dict[str, int]:
        """This process now owns ``table`` with fencing ``token``: its accounts are read
        from the store (``balances``) and the rounds it had open are voided, its stakes
        sent home (:meth:`recover`, the crash-recovery ruling). Returns recover's counts."""
        self.drop_table(table)
        self.fences[table] = token
        self.balances.update(balances)
        self.open_rounds = open_rounds
        return self.recover({table}, pools)

    def drop_table(self, table: str) -> None:
        """Forget ``table``: its uncommitted batches (nothing of them may be written now),
        its token and its accounts' cached balances. The wallets are read again."""
        self.fences.pop(table, None)
        kept = [b for b in self._open if b.table != table]
        dropped = len(self._open) - len(kept) + sum(b.table == table for b in self._pending)
        self._open = kept
        self._pending = [b for b in self._pending if b.table != table]
        for name in [n for n in self.balances if ledger_account(n).on_table == table]:
            del self.balances[name]
        for ref in [r for r, t in self._round_tables.items() if t == table]:
            del self._round_tables[ref]
        if dropped:
            self._reread = True
            self._dirty()

    def adopt_wallet(self, account: str, token: int, balance: int, opened: bool) -> None:
        """This process now holds ``account``'s wallet (its player connected here): the
        stored balance plus what this process moved that is not committed yet. Taken while
        no commit is in flight (:attr:`committing`); this process's own uncommitted debits
        of the wallet are carried forward under the new token (the store still refuses
        them below zero)."""
        self.wallet_tokens[account] = token
        for batch in (*self._pending, *self._open):
            if account in batch.wallets:
                batch.wallets[account] = token
        name = wallet(account)
        self.balances[name] = balance + self._uncommitted(name)
        if opened:
            self.meta["opened:" + account] = "1"

    def release_wallet(self, account: str) -> None:
        self.wallet_tokens.pop(account, None)

    def _uncommitted(self, name: str) -> int:
        net = 0
        for batch in (*self._pending, *self._open):
            for t in batch.transfers:
                net += (t.target == name) * t.amount - (t.source == name) * t.amount
        return net

    async def _reread_wallets(self) -> None:
        """Bring the wallets this process holds up to the store (credits other processes
        made, batches the store refused): the stored balance plus what is not committed."""
        self._reread = False
        self._reread_at = time.monotonic()
        accounts = sorted(self.wallet_tokens)
        stored = await self.calls.wallet_balances(accounts)
        for account, balance in stored.items():
            if account in self.wallet_tokens:
                self.balances[wallet(account)] = balance + self._uncommitted(wallet(account))

    def _dirty(self) -> None:
        if not self._wake.is_set():
            self._wake.set()

    @property
    def can_move(self) -> bool:
        """Whether money may move now (the store answers and has lost nothing)."""
        return self.available and self.lost is None

    def why_not(self) -> str:
        if self.lost is not None:
            return f"the ledger store lost data: {self.lost}"
        return "the ledger store cannot be reached: play resumes when it is back"

    # -- wallets ------------------------------------------------------------------------------
    def balance(self, account: str) -> int:
        """``account``'s wallet; what the caller says of it waits for its writes in flight
        (commit, then speak: :meth:`CommitGate.read`)."""
        self.gate.read(account)
        return self.balances.get(wallet(account), 0)

    def deposit(self, account: str, amount: int, kind: str = "deposit") -> int:
        self.move(CASHIER, wallet(account), amount, kind, None)
        return self.balance(account)

    def withdraw(self, account: str, amount: int) -> int:
        self.move(wallet(account), CASHIER, amount, "withdraw", None)
        return self.balance(account)

    def open(self, account: str, amount: int) -> int:
        """Dev mode: a new account gets ``amount`` from the cashier, once ever."""
        key = "opened:" + account
        if key not in self.meta:
            self.remember(key, "1")
            self.deposit(account, amount, "starting_balance")
        return self.balance(account)

    def remember(self, key: str, value: str) -> None:
        """A fact kept in the store with the next batch (idempotency keys, the dev secret)."""
        self.meta[key] = value
        self.note({"meta": key, "value": value})

    @property
    def issued(self) -> int:
        return -self.balances.get(CASHIER, 0)

    def total(self) -> int:
        """Cents in every wallet."""
        return sum(v for k, v in self.balances.items() if ledger_account(k).is_wallet_side)

    # -- durability ---------------------------------------------------------------------------
    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Commit the batches as they come (group commit), retrying through outages."""
        task_status.started()
        if self.lost is not None:
            return  # a store that lost data gets nothing more from this server
        delay = 0.05
        while True:
            if not self._pending:  # nothing to retry: wait for money, or the record's turn
                with trio.move_on_after(JOURNAL_DELAY if self.available else delay) as idle:
                    await self._wake.wait()
                if not idle.cancelled_caught:  # let the other tables' steps join the commit
                    await trio.sleep(GROUP_WINDOW)
            self._wake = trio.Event()  # what moves during the commit wakes the next one
            self._take()
            # nothing to write: an async (shared) store is probed now and then (an empty
            # commit: the store's checks), so an outage ends and a loss is seen without a
            # movement
            probe = not self._pending
            if probe and not (
                self.is_async
                and (not self.available or time.monotonic() - self._contact >= PROBE_EVERY)
            ):
                continue
            batches = list(self._pending)
            taken = self._taken
            started = time.perf_counter()
            try:
                async with self.committing:  # no wallet is taken meanwhile (adopt_wallet)
                    version = await self.calls.commit(batches)
            except StoreLost as exc:
                self._status(lost=str(exc))
                log.error("ledger: %s; money stops moving", exc)
                return
            except StoreUnavailable as exc:
                if self.available:
                    log.error("ledger: %s; retrying", exc)
                self._status(available=False)
                await trio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            self._contact = time.monotonic()
            if batches:
                self.metrics.commit_seconds.observe(time.perf_counter() - started)
                self.metrics.commit_batches.observe(len(batches))
            self.gate.committed(taken)  # commit, then speak: their frames may leave now
            fenced = self._refused(batches)
            if self.shared:  # drop_table may have taken some out meanwhile: by identity
                sent = {id(b) for b in batches}
                self._pending = [b for b in self._pending if id(b) not in sent]
            else:
                del self._pending[: len(batches)]
            self.committed += len(batches)
            for table in fenced:
                for notify in self.on_fenced:
                    notify(table)
            if self.shared and (self._reread or time.monotonic() - self._reread_at > PROBE_EVERY):
                try:
                    await self._reread_wallets()
                except StoreUnavailable:
                    self._reread = True
            self._witness(version)
            delay = 0.05
            if not self.available:
                self._status(available=True)
            if self.signer is not None and time.monotonic() - self._signed_at >= SIGN_EVERY:
                await self.checkpoint()

    def _refused(self, batches: list[Batch]) -> set[str]:
        """The tables whose batches the store just refused (a stale token); counted."""
        indexes = getattr(self.store, "refused", None) or []
        fenced = set()
        for i in indexes:
            self.refused += 1
            self._reread = True
            table = batches[i].table
            log.error("ledger: the store refused a batch of table %s (a stale owner)", table)
            if table is not None:
                fenced.add(table)
        return fenced

    def _take(self) -> None:
        self._taken = self.gate.written  # the pending batches hold every write so far
        for batch in self._open:
            if not batch:
                continue
            if self.shared and batch.table is not None:
                batch.fence = self.fences.get(batch.table)
                if batch.fence is None:
                    continue  # a table this process no longer owns: nothing written
            self._pending.append(batch)
        self._open = []

    def _status(self, *, available: bool | None = None, lost: str | None = None) -> None:
        if available is not None:
            if self.available and not available:
                self.metrics.store_outages += 1
            self.available = available
        if lost is not None:
            self.lost = lost
        for notify in self.on_status:
            notify()

    def _witness(self, version: int, *, now: bool = False) -> None:
        """Bring the witness forward to ``version`` (throttled unless ``now``)."""
        self.version = max(self.version, version)
        if self.witness is None or self.lost is not None:
            return
        clock = time.monotonic()
        if now or clock - self._witnessed >= WITNESS_EVERY:
            self._witnessed = clock
            self.witness.record(self._stream, self.epoch, self.version)

    def flush_now(self) -> None:
        """Commit everything queued, synchronously (start-up and shutdown only). An async
        store's commit cannot run here: its batches wait, in order, for :meth:`run`."""
        self._take()
        self._wake = trio.Event()  # taken: nothing for the committer to do now
        if self._pending and not self.is_async and self.lost is None:
            version = self.store.commit(self._pending)
            assert isinstance(version, int)  # a sync store's commit (not a coroutine)
            self.committed += len(self._pending)
            self._pending = []
            self.gate.committed(self._taken)
            self._witness(version, now=True)

    @property
    def backlog(self) -> int:
        return len(self._pending) + sum(1 for b in self._open if b)

    async def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every movement so far is committed (shutdown), and sign the chain's
        head as it stands."""
        with trio.move_on_after(timeout):
            while self.backlog and self.lost is None:
                self._dirty()
                await trio.sleep(0.01)
        self._witness(self.version, now=True)
        if self.signer is not None and self.lost is None:
            with trio.move_on_after(timeout):
                await self.checkpoint()
        return not self.backlog

    async def checkpoint(self) -> None:
        """Sign the store's chain head, if it grew since the last checkpoint, and keep the
        checkpoint in the store (``server/store/checkpoints.py``); an outage skips it."""
        store, signer = self.store, self.signer
        n = store.chain_n
        if signer is None or n <= self._signed_n:
            return
        point = checkpoints.make(signer, store.id, self.epoch, n, store.chain_head)
        try:
            await self.calls.add_checkpoint(point, n)
        except StoreUnavailable:
            return
        self._signed_n, self._signed_at = n, time.monotonic()

    # -- crash recovery (server/store/recovery.py) ---------------------------------------
    def recover(
        self, tables: Collection[str] | None = None, pools: Mapping[str, str] | None = None
    ) -> dict[str, int]:
        """Void every round a dead process left open, send every table stake home, and
        commit, before any table runs (:func:`server.store.recovery.recover`)."""
        return recovery.recover(self, tables, pools)


def no_deadline() -> float:
    return math.inf
