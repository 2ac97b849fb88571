"""Crash recovery (docs/rulings.md, "Crash recovery"): what a dead process left on the books.

Before any table runs (:meth:`server.store.ledger.Ledger.recover` calls :func:`recover`),
every round a dead process left open is voided: its transfers are reversed (every wager
back, poker contributions back to the stakes); then every seat's table stake goes back to
its owner's wallet, a stadium wager left riding on a layout goes home to its terminal's
owner, and (on a store of its own) every terminal's credit meter is paid out. The rounds
are closed as ``voided`` in the same batch, so recovery itself is atomic and idempotent.

A voided round of a table linked to a jackpot pool is written down as owed a void in its
pool too (:data:`POOL_VOID` facts, in the same commit as the round's void), which the server
carries out before the table runs (:func:`pool_voids`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from server.store.accounts import Kind, ledger_account, owner_key
from server.store.model import reversal, wallet

if TYPE_CHECKING:
    from server.store.ledger import Ledger

#: A fact (``meta``) kept by crash recovery: ``jackpot_void:POOL|ROUND`` = "1" while the
#: pool still owes the void of a round recovery voided, "" once it is done (a pool id and a
#: round id never hold a ``|``).
POOL_VOID = "jackpot_void:"


def recover(
    ledger: Ledger, tables: Collection[str] | None = None, pools: Mapping[str, str] | None = None
) -> dict[str, int]:
    """Void the open rounds, then send the stakes home (see the module docstring), and
    commit. Returns counts for the log. Nothing on a store that lost data. ``tables``: only
    these tables' rounds and stakes (a store shared by several servers, each serving its
    own tables; the store leaves out rounds whose owner is alive). ``pools``: the jackpot
    pool of each linked table."""
    if ledger.lost is not None:
        return {"rounds_voided": 0, "stakes_returned": 0}
    voided = 0
    for ref, (table, _owner, transfers) in sorted(ledger.open_rounds.items()):
        if tables is not None and table not in tables:
            continue
        for source, target, amount in reversal(transfers):
            ledger.move(source, target, amount, "void_recovery", ref)
        ledger.close_round(ref, "voided", table)
        pool = (pools or {}).get(table)
        if pool is not None:  # its coin-in may be in the pool without its movement here
            ledger.remember(f"{POOL_VOID}{pool}|{ref}", "1")
        voided += 1
    ledger.open_rounds = {}
    cashed = 0
    for name, amount in sorted(ledger.balances.items()):
        if amount <= 0:
            continue
        held = ledger_account(name)
        mine = tables is None or held.on_table in tables
        if held.kind is Kind.STAKE and mine and held.owner is not None:
            ledger.move(name, wallet(held.owner), amount, "cash_out_recovery", None)
            cashed += 1
        elif held.kind is Kind.BOX and mine:
            # a stadium wager left riding on the layout after its settled round: home to
            # the terminal's owner (recorded when it was placed: Books.reserve)
            holder = ledger.meta.get(owner_key(held))
            if holder:
                ledger.move(name, wallet(holder), amount, "riding_recovery", None)
                cashed += 1
        elif tables is None and held.kind is Kind.METER and held.owner is not None:
            # a stadium credit meter (server/tables/books.py meter): no terminal session
            # survives a restart, so its credits go home (not on a shared store: the
            # meters of another live server's terminals are theirs)
            ledger.move(name, wallet(held.owner), amount, "credit_out_recovery", None)
            cashed += 1
    ledger.flush_now()
    return {"rounds_voided": voided, "stakes_returned": cashed}


def pool_voids(meta: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """The pool voids crash recovery left to do: ``(fact, pool, round)``."""
    out = []
    for fact, value in sorted(meta.items()):
        if value and fact.startswith(POOL_VOID):
            pool, ref = fact.removeprefix(POOL_VOID).split("|", 1)
            out.append((fact, pool, ref))
    return out
