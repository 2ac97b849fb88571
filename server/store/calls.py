"""How the ledger calls its store from trio: two kinds of store behind one async face.

A sync store (:class:`Store`: SQLite, memory) blocks, so each call runs in a worker thread,
one at a time (a capacity limiter of one: the store's write connection is not shared); an
async store (:class:`AsyncStore`: Redis) is awaited on the trio thread. :class:`StoreCalls`
makes either one awaitable the same way, so the ledger's committer (``Ledger.run``) and its
checkpoints (``Ledger.checkpoint``) do not ask which kind they hold.
"""

from __future__ import annotations

import inspect
from typing import Protocol, cast

import trio

from server.store import checkpoints
from server.store.journal import JournalQuery, JournalRound
from server.store.model import Batch, Loaded


class Store(Protocol):
    """What the ledger needs of a store (SQLite, memory; Redis: :class:`AsyncStore`)."""

    @property
    def id(self) -> str: ...

    def load(self) -> Loaded: ...

    def commit(self, batches: list[Batch]) -> int: ...

    def set_meta(self, key: str, value: str) -> None: ...

    # the chain over what it appended (server/store/chain.py): its length and head, and the
    # signed checkpoints of it (server/store/checkpoints.py)
    chain_n: int
    chain_head: str

    def add_checkpoint(self, point: checkpoints.Checkpoint, n: int) -> None: ...

    def close(self) -> None: ...

    # the journal (server/store/journal.py): a commit also appends ``Batch.journal``
    # append-only; this reads it back (a store opens its own read connection: any thread)
    def journal_rounds(self, query: JournalQuery) -> list[JournalRound]: ...


class AsyncStore(Protocol):
    """A store whose commit is awaited on the trio thread (Redis)."""

    @property
    def id(self) -> str: ...

    @property
    def instance(self) -> str: ...

    def load(self) -> Loaded: ...

    async def commit(self, batches: list[Batch]) -> int: ...

    def close(self) -> None: ...

    chain_n: int
    chain_head: str

    async def add_checkpoint(self, point: checkpoints.Checkpoint, n: int) -> None: ...

    async def journal_rounds(self, query: JournalQuery) -> list[JournalRound]: ...

    #: indexes of the batches the last commit refused (a stale owner's: ledger.lua)
    refused: list[int]

    async def wallet_balances(self, accounts: list[str]) -> dict[str, int]: ...


class StoreCalls:
    """A store's calls, awaited (see the module docstring)."""

    def __init__(self, store: Store | AsyncStore) -> None:
        self.store = store
        #: the store is awaited on the trio thread (Redis), not run in a worker thread
        self.is_async = inspect.iscoroutinefunction(store.commit)
        self._limiter: trio.CapacityLimiter | None = None

    def _one_at_a_time(self) -> trio.CapacityLimiter:
        """One worker-thread call at a time (made on first use: inside trio)."""
        if self._limiter is None:
            self._limiter = trio.CapacityLimiter(1)
        return self._limiter

    async def commit(self, batches: list[Batch]) -> int:
        """Commit ``batches`` in order, atomically; the store's version after."""
        if self.is_async:
            return await cast(AsyncStore, self.store).commit(batches)
        commit = cast(Store, self.store).commit
        return await trio.to_thread.run_sync(commit, batches, limiter=self._one_at_a_time())

    async def add_checkpoint(self, point: checkpoints.Checkpoint, n: int) -> None:
        """Keep a signed checkpoint of the store's chain (``server/store/checkpoints.py``)."""
        if self.is_async:
            await cast(AsyncStore, self.store).add_checkpoint(point, n)
        else:
            add = cast(Store, self.store).add_checkpoint
            await trio.to_thread.run_sync(add, point, n, limiter=self._one_at_a_time())

    async def journal_rounds(self, query: JournalQuery) -> list[JournalRound]:
        """Read the journal back (a sync store reads on its own connection: any thread)."""
        if self.is_async:
            return await cast(AsyncStore, self.store).journal_rounds(query)
        return await trio.to_thread.run_sync(cast(Store, self.store).journal_rounds, query)

    async def wallet_balances(self, accounts: list[str]) -> dict[str, int]:
        """The stored wallets of ``accounts`` (a shared store: a deployment's)."""
        return await cast(AsyncStore, self.store).wallet_balances(accounts)
