"""The ledger's model: accounts, transfers, batches and rounds; the books check.

Every cent is in exactly one account, and money moves only as a :class:`Transfer` between two
accounts. Account names:

* ``cashier``: where money enters and leaves the system (deposits, withdrawals, a dev
  server's starting balances); its balance is minus what was issued;
* ``wallet:ACCOUNT``: a player's money off the tables (never below zero);
* ``table:TABLE:stake:SEAT:ACCOUNT``: a poker seat's table stake;
* ``table:TABLE:box:BOX``: what a banked box has on the layout in the round in play;
* ``table:TABLE:pot``: a poker round's chips while they change hands at settlement;
* ``table:TABLE:house``: the table's bank; ``table:TABLE:commission``: commission and fees;
* ``table:TABLE:jackpot``: coin-in sent to a progressive pool, less prizes and reversals;
* ``wallet:ACCOUNT/meter``: a stadium terminal's credit meter (QLD Sch 19 s4(2));
* ``tournament:ID:pool``, ``tournament:ID:commission``: a tournament's entry fees.

Code reads a name as a value, never by slicing it: :class:`~server.store.accounts.LedgerAccount`
(:func:`~server.store.accounts.ledger_account` parses a name, ``str`` prints it back exactly).

A :class:`Batch` is what one table step (or one cashier call) moved: its transfers, and the
rounds it opened or closed. A store commits batches atomically and idempotently (a
transfer id applied twice moves money once), so a round's settlement is wholly in the store
or not at all. Rounds are ``open`` until ``settled`` or ``voided``; a round left open by a
dead process is voided at the next start (crash recovery, ``server/store/recovery.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from server.store.accounts import METER_SUFFIX, OWNER_OF, Kind, LedgerAccount, known
from server.store.journal import JournalEntry

CASHIER = str(LedgerAccount.cashier())
RoundState = Literal["open", "settled", "voided"]


class StoreError(Exception):
    """The store failed."""


class StoreUnavailable(StoreError):
    """The store cannot be reached now (disk, network): retry later; nothing was lost."""


class StoreLost(StoreError):
    """The store is empty or older than what this server has seen: never trust it again
    without an operator (the epoch or version does not match)."""


class InsufficientFunds(Exception):
    """The balance does not cover the debit; nothing changed. ``balance`` and ``amount``
    are the cents involved."""

    def __init__(self, message: str, balance: int = 0, amount: int = 0) -> None:
        super().__init__(message)
        self.balance = balance
        self.amount = amount

    def amounts(self) -> dict[str, int]:
        return {"balance": self.balance, "amount": self.amount}


class OverLimit(InsufficientFunds):
    """The movement would take an account beyond :data:`MAX_CENTS` (what every client reads
    exactly); nothing changed. Refused where a shortfall is refused."""


#: The most any account may hold, or any movement move, in cents: 2^53 - 1, the largest
#: integer a browser reads exactly (its numbers are doubles); the wire and every store keep
#: to it (the SQLite store by CHECK constraints).
MAX_CENTS = 2**53 - 1


@functools.lru_cache(maxsize=1 << 14)
def wallet(owner: str) -> str:
    """The stored name of ``owner``'s wallet; ``ACCOUNT/meter``: the account's credit meter
    (a stadium terminal asks :meth:`Ledger.balance` for a meter this way: stadium.py)."""
    meter = owner.removesuffix(METER_SUFFIX)
    if meter != owner:
        return str(LedgerAccount.meter(meter))
    return str(LedgerAccount.wallet(owner))


@dataclass(frozen=True, slots=True)
class Transfer:
    """One movement of ``amount`` cents (> 0) from ``source`` to ``target``."""

    id: str
    source: str
    target: str
    amount: int
    kind: str
    round: str | None = None


@dataclass(frozen=True, slots=True)
class RoundOpened:
    ref: str
    table: str
    owner: str


@dataclass(frozen=True, slots=True)
class RoundClosed:
    ref: str
    state: RoundState


@dataclass
class Batch:
    """What one step moved, committed atomically."""

    transfers: list[Transfer] = field(default_factory=list)
    opened: list[RoundOpened] = field(default_factory=list)
    closed: list[RoundClosed] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)  # cashier log entries
    journal: list[JournalEntry] = field(default_factory=list)  # rounds on the record
    #: the embedded jackpot pools' commits (``server/jackpots/memory.py``, ``PoolRecord``)
    jackpot: list[dict[str, Any]] = field(default_factory=list)
    #: a deployment's table directory (``server/room/directory.py``): the table whose steps these
    #: are, the fencing token its owner holds, the wallet tokens of the wallets it debits,
    #: and ``guarded``: the store refuses the batch if a player account would go below zero
    table: str | None = None
    fence: int | None = None
    wallets: dict[str, int] = field(default_factory=dict)
    guarded: bool = False

    def __bool__(self) -> bool:
        return bool(
            self.transfers
            or self.opened
            or self.closed
            or self.notes
            or self.journal
            or self.jackpot
        )


@dataclass
class Loaded:
    """Everything a server needs from a store at start."""

    epoch: str
    version: int
    balances: dict[str, int]
    #: rounds still open: ref -> (table, owner, the round's transfers)
    open_rounds: dict[str, tuple[str, str, list[Transfer]]]
    meta: dict[str, str]


@dataclass
class CheckReport:
    """``croupier ledger check``: the books of a whole store."""

    balanced: bool
    issued: int
    accounts: int
    rounds_settled: int
    rounds_voided: int
    open_rounds: int
    problems: list[str]
    #: the servers that own the open rounds: instance -> {"alive": bool, "rounds": count}
    owners: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: each jackpot pool against the ledger (``server/jackpots/reconcile.py``)
    jackpots: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "balanced": self.balanced,
            "issued": self.issued,
            "accounts": self.accounts,
            "rounds_settled": self.rounds_settled,
            "rounds_voided": self.rounds_voided,
            "open_rounds": self.open_rounds,
            "owners": self.owners,
            "jackpots": self.jackpots,
            "problems": self.problems,
        }


def check_books(
    balances: Mapping[str, int],
    transfers: Iterable[Transfer],
    rounds: Mapping[str, RoundState],
    owners_alive: bool | Collection[str] = False,
    meta: Mapping[str, str] | None = None,
    owners: Mapping[str, str] | None = None,
) -> CheckReport:
    """The checks of ``croupier ledger check`` on a store's whole content:

    * every balance equals the sum of the transfers (balances derived from transfers);
    * the accounts sum to zero (double entry: the cashier's is minus what was issued);
    * no player balance (wallet or stake) is negative;
    * every closed round's transfers net to zero on its table-side accounts (box, pot):
      what the players put on the layout went somewhere; except a stadium layout, where a
      winning stake may ride into the next round (ETG s7(4)): those boxes (their owner is
      in ``meta`` as ``owner:ACCOUNT-NAME``) are held to the other checks only (balance
      equal to transfers, never negative), and crash recovery sends them home;
    * no round is open while its server is not running (``owners``: each round's server;
      ``owners_alive``: whether they all run, or the ones that do: a live server has
      rounds in play); the report counts the open rounds per server (``owners``).
    """
    problems: list[str] = []
    riding = {k.removeprefix(OWNER_OF) for k in (meta or {}) if k.startswith(OWNER_OF)}

    def carried_over(name: str) -> bool:
        return name in riding

    derived: dict[str, int] = {}
    per_round: dict[str, dict[str, int]] = {}
    for t in transfers:
        derived[t.source] = derived.get(t.source, 0) - t.amount
        derived[t.target] = derived.get(t.target, 0) + t.amount
        if t.round is not None:
            r = per_round.setdefault(t.round, {})
            r[t.source] = r.get(t.source, 0) - t.amount
            r[t.target] = r.get(t.target, 0) + t.amount
    for name in set(derived) | set(balances):
        if derived.get(name, 0) != balances.get(name, 0):
            problems.append(
                f"{name}: balance {balances.get(name, 0)} but transfers sum to "
                f"{derived.get(name, 0)}"
            )
    total = sum(balances.values())
    if total != 0:
        problems.append(f"the accounts sum to {total}, not 0")
    for name, v in balances.items():
        if v < 0 and (a := known(name)) is not None and a.is_player:
            problems.append(f"{name} is negative: {v}")
    settled = voided = still_open = 0
    per_owner: dict[str, dict[str, Any]] = {}
    for ref, state in rounds.items():
        if state == "open":
            still_open += 1
            owner = (owners or {}).get(ref, "")
            alive = owners_alive if isinstance(owners_alive, bool) else owner in owners_alive
            row = per_owner.setdefault(owner, {"alive": alive, "rounds": 0})
            row["rounds"] += 1
            continue
        settled += state == "settled"
        voided += state == "voided"
        for name, v in per_round.get(ref, {}).items():
            if v and carried_over(name):
                continue
            kind = a.kind if (a := known(name)) is not None else None
            if v and (kind is Kind.BOX or kind is Kind.POT):
                problems.append(f"round {ref}: {name} nets {v}, not 0")
    dead = {o: r["rounds"] for o, r in per_owner.items() if not r["alive"]}
    if dead:
        names = ", ".join(sorted(o for o in dead if o)) or "unknown"
        problems.append(
            f"{sum(dead.values())} rounds are open and their server is not running ({names}):"
            " start a server on this store to void them"
        )
    return CheckReport(
        balanced=not problems,
        issued=-balances.get(CASHIER, 0),
        accounts=sum(1 for v in balances.values() if v),
        rounds_settled=settled,
        rounds_voided=voided,
        open_rounds=still_open,
        problems=problems,
        owners=dict(sorted(per_owner.items())),
    )


def reversal(transfers: Iterable[Transfer]) -> list[tuple[str, str, int]]:
    """The movements that undo a round's transfers: each account's net in the round goes
    back (a void round: every wager returned). ``(source, target, amount)`` triples."""
    net: dict[str, int] = {}
    for t in transfers:
        net[t.source] = net.get(t.source, 0) - t.amount
        net[t.target] = net.get(t.target, 0) + t.amount
    owe = sorted((n, v) for n, v in net.items() if v > 0)  # received: give back
    due = sorted((n, -v) for n, v in net.items() if v < 0)  # paid in: gets back
    out: list[tuple[str, str, int]] = []
    i = j = 0
    while i < len(owe) and j < len(due):
        (src, have), (dst, want) = owe[i], due[j]
        amount = min(have, want)
        out.append((src, dst, amount))
        owe[i], due[j] = (src, have - amount), (dst, want - amount)
        i += owe[i][1] == 0
        j += due[j][1] == 0
    return out
