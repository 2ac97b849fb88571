"""The witness: what a server last saw committed in each store, kept in a local file.

A store that lost data does not know it: Redis restarted empty looks like a new Redis, and
one restarted from an older RDB or AOF snapshot is consistent with itself. So every server
writes, in its data directory (``--data DIR``, default ``./var``, also in Redis mode), a
small ``witness.json``: per stream (the ledger of one store, each jackpot pool), the
``epoch`` it was created with and the last ``version`` the server saw committed. The file
lags the store (it is written after the commit), never leads it, so:

* the store's epoch differs from the witness's, or the stream is gone: the store was
  replaced or emptied;
* the store's version is below the witness's: the store went back in time;

and either way the server stops moving money on it and ``croupier ledger check`` /
``croupier jackpot check`` exit non-zero (:func:`verdict`). An operator who replaced a store
on purpose removes the stream from the file (or the file) after checking the books.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import IO, Any

from server.store.model import StoreUnavailable

WITNESS_FILE = "witness.json"


def verdict(what: str, seen: tuple[str, int] | None, epoch: str, version: int) -> str | None:
    """Why the stream ``what`` (now at ``epoch``/``version``; epoch ``""``: it is gone) is
    not to be trusted, given what the witness ``seen``; None if it may be."""
    if seen is None:
        return None
    seen_epoch, seen_version = seen
    if not epoch:
        return (
            f"{what} is empty, but this server saw it at epoch {seen_epoch} version "
            f"{seen_version} (restarted without its data?)"
        )
    if epoch != seen_epoch:
        return f"{what} has epoch {epoch}, but this server saw epoch {seen_epoch} (replaced?)"
    if version < seen_version:
        return (
            f"{what} is at version {version}, but this server saw version {seen_version} "
            "(restored from an older snapshot?)"
        )
    return None


class Witness:
    """``DIR/witness.json``: ``{"instance": ..., "streams": {stream: [epoch, version]}}``,
    written atomically. ``instance``: the id of the last server on this directory (on a
    shared store its rounds are known orphaned once this directory's next server runs)."""

    def __init__(self, directory: Path | str, *, lock: bool = False) -> None:
        self.path = Path(directory) / WITNESS_FILE
        self.streams: dict[str, tuple[str, int]] = {}
        self.instance: str | None = None
        self._lock: IO[str] | None = None
        if lock:  # one server per directory (the SQLite store takes the same lock)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = open(self.path.parent / "lock", "w")
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                self._lock.close()
                raise StoreUnavailable(
                    f"{self.path.parent} is in use by another croupier server (one server "
                    "per --data)"
                ) from None
        try:
            raw: Any = json.loads(self.path.read_text())
        except FileNotFoundError:
            raw = {}
        self.instance = raw.get("instance")
        for name, (epoch, version) in dict(raw.get("streams", {})).items():
            self.streams[str(name)] = (str(epoch), int(version))

    def seen(self, stream: str) -> tuple[str, int] | None:
        return self.streams.get(stream)

    def check(self, stream: str, what: str, epoch: str, version: int) -> str | None:
        return verdict(what, self.seen(stream), epoch, version)

    def record(self, stream: str, epoch: str, version: int) -> None:
        """Remember ``stream`` at ``epoch``/``version`` (never lowers a version of the same
        epoch) and write the file."""
        old = self.streams.get(stream)
        if old is not None and old[0] == epoch and old[1] >= version:
            return
        self.streams[stream] = (epoch, version)
        self.write()

    def close(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        streams = {k: list(v) for k, v in sorted(self.streams.items())}
        tmp.write_text(json.dumps({"instance": self.instance, "streams": streams}))
        os.replace(tmp, self.path)


def witnessed_pools(witness: Witness, store_id: str) -> list[str]:
    """The jackpot pools of ``store_id`` the witness saw."""
    suffix = "@" + store_id
    return sorted(
        name[len("jackpot:") : -len(suffix)]
        for name in witness.streams
        if name.startswith("jackpot:") and name.endswith(suffix)
    )


def ledger_stream(store_id: str) -> str:
    """The witness's stream name for the ledger of one store (``sqlite``, a Redis URL)."""
    return "ledger@" + store_id


def pool_stream(store_id: str, pool: str) -> str:
    return f"jackpot:{pool}@{store_id}"
