"""The process's ledger: every balance cached in memory, every movement durable in the store.

Theory of operation
-------------------
Tables are synchronous: a table step never awaits. So the ledger keeps every account's
balance in memory (loaded from the store at start) and :meth:`Ledger.move` applies a
transfer at once, refusing a debit a wallet or stake cannot cover
(:class:`~server.store.model.InsufficientFunds`, nothing moved). Each movement is also
appended to the open :class:`~server.store.model.Batch`. A table step has no checkpoint, so
everything one step moved (a whole round's settlement, say) sits in the same batch.

One trio task, :meth:`Ledger.run`, takes the open batch whenever there is one and commits it
to the store in a worker thread; whatever arrives during that commit goes into the next
(group commit). Commits are idempotent per transfer id, so a commit whose answer was lost is
simply retried. If the store cannot be reached (:class:`StoreUnavailable`) the batches are
kept and retried with back-off; :attr:`Ledger.available` turns false, tables start no round
and move no money until it is true again. If the store turns out to have lost data
(:class:`StoreLost`: empty, or older than what this server saw) :attr:`Ledger.lost` is set
and money never moves on it again.

Crash recovery (:meth:`Ledger.recover`, before any table runs): every round a dead process
left open is voided: its transfers are reversed (every wager back, poker contributions back
to the stakes); then every seat's table stake goes back to its owner's wallet. The rounds
are closed as ``voided`` in the same batch, so recovery itself is atomic and idempotent.
"""

from __future__ import annotations

import itertools
import logging
import math
import secrets
from collections.abc import Callable
from typing import Protocol

import trio

from server.money import dollars
from server.store.journal import JournalEntry, JournalQuery, JournalRound
from server.store.model import (
    CASHIER,
    Batch,
    InsufficientFunds,
    Loaded,
    RoundClosed,
    RoundOpened,
    RoundState,
    StoreLost,
    StoreUnavailable,
    Transfer,
    is_player,
    reversal,
    wallet,
)

log = logging.getLogger("croupier.ledger")


class Store(Protocol):
    """What the ledger needs of a store (SQLite, Redis, memory)."""

    def load(self) -> Loaded: ...

    def commit(self, batches: list[Batch]) -> int: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def close(self) -> None: ...

    # the journal (server/store/journal.py): a commit also appends ``Batch.journal``
    # append-only; this reads it back (a store opens its own read connection: any thread)
    def journal_rounds(self, query: JournalQuery) -> list[JournalRound]: ...


class Ledger:
    """Balances in memory, movements to the store (see the module docstring)."""

    def __init__(self, store: Store, *, instance: str | None = None) -> None:
        self.store = store
        self.instance = instance or secrets.token_hex(4)
        loaded = store.load()
        self.meta = dict(loaded.meta)
        self.balances: dict[str, int] = dict(loaded.balances)
        self.open_rounds = loaded.open_rounds
        self._ids = itertools.count(1)
        self._batch = Batch()
        self._pending: list[Batch] = []
        self._wake = trio.Event()
        self.available = True
        self.lost: str | None = None
        self.committed = 0  # batches committed by this process
        self.on_status: list[Callable[[], None]] = []

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
        if have < amount and is_player(source):
            raise InsufficientFunds(
                f"the balance {dollars(max(have, 0))} does not cover {dollars(amount)}",
                max(have, 0),
                amount,
            )
        balances[source] = have - amount
        balances[target] = balances.get(target, 0) + amount
        ident = f"{self.instance}:{next(self._ids)}"
        self._batch.transfers.append(Transfer(ident, source, target, amount, kind, round_))
        self._dirty()

    def open_round(self, ref: str, table: str) -> None:
        self._batch.opened.append(RoundOpened(ref, table, self.instance))
        self._dirty()

    def close_round(self, ref: str, state: RoundState) -> None:
        self._batch.closed.append(RoundClosed(ref, state))
        self._dirty()

    def note(self, entry: dict[str, object]) -> None:
        self._batch.notes.append(entry)
        self._dirty()

    def journal(self, entry: JournalEntry) -> None:
        """A round's record (``server/store/journal.py``), committed with the step's money."""
        self._batch.journal.append(entry)
        self._dirty()

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
        return sum(v for k, v in self.balances.items() if k.startswith("wallet:"))

    # -- durability ---------------------------------------------------------------------------
    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Commit the batches as they come (group commit), retrying through outages."""
        limiter = trio.CapacityLimiter(1)
        task_status.started()
        delay = 0.05
        while True:
            await self._wake.wait()
            self._take()
            if not self._pending:
                self._wake = trio.Event()
                continue
            batches = list(self._pending)
            try:
                await trio.to_thread.run_sync(self.store.commit, batches, limiter=limiter)
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
            del self._pending[: len(batches)]
            self.committed += len(batches)
            delay = 0.05
            if not self.available:
                self._status(available=True)
            if not self._batch and not self._pending:
                self._wake = trio.Event()

    def _take(self) -> None:
        if self._batch:
            self._pending.append(self._batch)
            self._batch = Batch()

    def _status(self, *, available: bool | None = None, lost: str | None = None) -> None:
        if available is not None:
            self.available = available
        if lost is not None:
            self.lost = lost
        for notify in self.on_status:
            notify()

    def flush_now(self) -> None:
        """Commit everything queued, synchronously (start-up and shutdown only)."""
        self._take()
        if self._pending:
            self.store.commit(self._pending)
            self.committed += len(self._pending)
            self._pending = []

    @property
    def backlog(self) -> int:
        return len(self._pending) + bool(self._batch)

    async def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every movement so far is committed (shutdown)."""
        with trio.move_on_after(timeout):
            while self.backlog:
                self._dirty()
                await trio.sleep(0.01)
        return not self.backlog

    # -- crash recovery -----------------------------------------------------------------------
    def recover(self) -> dict[str, int]:
        """Void every round a dead process left open, then return every table stake to its
        owner's wallet (docs/rulings.md, "Crash recovery"). Committed before any table runs.
        Returns counts for the log."""
        voided = 0
        for ref, (_table, _owner, transfers) in sorted(self.open_rounds.items()):
            for source, target, amount in reversal(transfers):
                self.move(source, target, amount, "void_recovery", ref)
            self.close_round(ref, "voided")
            voided += 1
        self.open_rounds = {}
        cashed = 0
        for name, amount in sorted(self.balances.items()):
            if ":stake:" in name and amount > 0:
                owner = name.split(":", 4)[4]  # table:TABLE:stake:SEAT:ACCOUNT
                self.move(name, wallet(owner), amount, "cash_out_recovery", None)
                cashed += 1
        self.flush_now()
        return {"rounds_voided": voided, "stakes_returned": cashed}


def no_deadline() -> float:
    return math.inf
