"""A pool against the ledger: what the pool took in and paid out is what the books moved.

Digest jackpots.md 5.9 checks a pool against itself (``meter + reserve + paid = seed +
contributions + house``, :func:`~server.jackpots.model.verify`). This checks it against the
ledger (``server/store/``): every coin-in a linked table booked went to its jackpot account
(``table:TABLE:jackpot``), and every prize it paid and every coin-in the pool gave back left
it. So, over the pool's whole audit trail (every reconciliation epoch), the pool's
contributions less what it paid equal the sum of the jackpot accounts of the tables linked
to it (the ledger remembers each table's pool: :data:`~server.tables.jackpot_link.POOL_OF`).
A difference is a coin-in or a prize on one side only: a lost pool, a lost ledger, a crash
whose recovery did not run, or an edit. ``croupier jackpot check`` and ``croupier ledger
check`` both run it, on either store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from server.jackpots.memory import MemoryJackpotService, PoolRecord
from server.jackpots.model import JackpotError
from server.jackpots.service import JackpotService
from server.money import dollars
from server.store.accounts import Kind, LedgerAccount

#: A fact (``meta``) each linked table keeps in the ledger: ``jackpot_pool:TABLE`` = the pool
#: it links to (``server/tables/banked.py``, ``use_jackpots``).
POOL_OF = "jackpot_pool:"


class _Kept:
    """A store's pool records, read-only: what a check loads the embedded pools from."""

    def __init__(self, records: list[PoolRecord]) -> None:
        self.records = records

    def jackpot_records(self) -> list[PoolRecord]:
        return self.records

    def jackpot(self, record: PoolRecord) -> None:
        raise RuntimeError("a check does not write to the pools")


def embedded_pools(records: list[PoolRecord]) -> MemoryJackpotService:
    """The embedded pools as a store kept them (SQLite: ``SqliteStore.jackpot_records``)."""
    service = MemoryJackpotService()
    service.bind(_Kept(records))
    return service


def pool_net(entries: Sequence[Mapping[str, str]]) -> int:
    """Contributions less what the pool paid, over its audit trail (every epoch)."""
    net = 0
    for entry in entries:
        if entry.get("op") in ("open", "reset"):
            continue
        net += int(entry.get("dc", 0)) - int(entry.get("dp", 0))
    return net


def linked_tables(meta: Mapping[str, str]) -> dict[str, list[str]]:
    """Each pool's linked tables, from the ledger's facts."""
    out: dict[str, list[str]] = {}
    for fact, pool in sorted(meta.items()):
        if fact.startswith(POOL_OF) and pool:
            out.setdefault(pool, []).append(fact[len(POOL_OF) :])
    return out


#: a table's account of what went to its progressive pool (placed at each table)
JACKPOT = LedgerAccount.of_table(Kind.JACKPOT)


def reconcile(
    pool: str,
    entries: Sequence[Mapping[str, str]],
    tables: Iterable[str],
    balances: Mapping[str, int],
) -> tuple[int, int, list[str]]:
    """``(pool's net, ledger's net, problems)`` for one pool (see the module docstring)."""
    tables = list(tables)
    net = pool_net(entries)
    held = sum(balances.get(str(JACKPOT.at(t)), 0) for t in tables)
    problems = []
    if net != held:
        where = ", ".join(tables) or "no table"
        problems.append(
            f"pool {pool}: contributions less awards {dollars(net)}, but the jackpot accounts "
            f"of its tables ({where}) hold {dollars(held)}: {dollars(abs(net - held))} "
            f"{'more in the pool' if net > held else 'more in the ledger'}"
        )
    return net, held, problems


async def check_pools(
    service: JackpotService, balances: Mapping[str, int], meta: Mapping[str, str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every pool of ``service`` that a table of this ledger links to, reconciled: a row per
    pool (``pool``, ``pool_net``, ``ledger_net``, ``tables``) and the problems."""
    audits: dict[str, list[dict[str, str]]] = {}
    for pool in linked_tables(meta):
        try:
            audits[pool] = await service.audit(pool)
        except JackpotError as exc:
            if exc.code != "no_pool":
                raise
            audits[pool] = []  # never opened (or lost: the ledger's side shows what it held)
    return check_audits(audits, balances, meta)


def embedded_audits(records: list[PoolRecord]) -> dict[str, list[dict[str, str]]]:
    """Each embedded pool's audit trail, as a store kept it (no service, no event loop)."""
    audits: dict[str, list[dict[str, str]]] = {}
    for record in records:
        if record.get("audit") is not None:
            audits.setdefault(str(record["pool"]), []).append(dict(record["audit"]))
    return audits


def check_audits(
    audits: Mapping[str, list[dict[str, str]]],
    balances: Mapping[str, int],
    meta: Mapping[str, str],
) -> tuple[list[dict[str, Any]], list[str]]:
    """:func:`check_pools` on the pools' audit trails already read (a pool not in
    ``audits`` has none: never opened, or lost)."""
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for pool, tables in sorted(linked_tables(meta).items()):
        net, held, found = reconcile(pool, audits.get(pool, []), tables, balances)
        rows.append({"pool": pool, "pool_net": net, "ledger_net": held, "tables": tables})
        problems += found
    return rows, problems
