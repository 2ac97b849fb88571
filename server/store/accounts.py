"""Ledger account names as values: :class:`LedgerAccount`, parsed once, printed exactly.

The ledger, its stores and the tables name accounts by strings (the stored format, on disk
and in Redis, and what ``ledger.lua`` reads; the names are listed in
:mod:`server.store.model`). Code that needs to know *what* an account is (whose wallet, which
table, which seat) asks :func:`ledger_account` for the value instead of slicing the string:

========================================  =======================  =========================
stored name                               kind                     fields
========================================  =======================  =========================
``cashier``                               ``CASHIER``
``wallet:ACCOUNT``                        ``WALLET``               owner
``wallet:ACCOUNT/meter``                  ``METER``                owner (QLD Sch 19 s4(2))
``table:TABLE:stake:SEAT:ACCOUNT``        ``STAKE``                table, number, owner
``table:TABLE:box:BOX[:PLAYER]``          ``BOX``                  table, number, owner
``table:TABLE:pot`` (``house``, ...)      ``POT`` (``HOUSE``...)   table
``tournament:ID:pool``                    ``PRIZE_POOL``           table (the tournament)
``tournament:ID:commission``              ``ENTRY_COMMISSION``     table (the tournament)
========================================  =======================  =========================

A table's own accounts have a *local* name too, without ``table:TABLE:`` (``box:3``,
``house``: what the engines and :mod:`server.tables.books` use): a value of a table kind
with ``table=None`` prints as its local name, and :meth:`LedgerAccount.at` places it at a
table. ``str(ledger_account(name)) == name`` for every name :func:`ledger_account` accepts, and
``ledger_account(str(a)) == a`` for every value (``tests/store/test_accounts.py``).
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass, field, replace


class Kind(enum.Enum):
    """What an account holds (see the module docstring for its stored name)."""

    CASHIER = "cashier"
    WALLET = "wallet"
    METER = "meter"
    STAKE = "stake"
    BOX = "box"
    POT = "pot"
    HOUSE = "house"
    COMMISSION = "commission"
    JACKPOT = "jackpot"
    PRIZE_POOL = "pool"
    ENTRY_COMMISSION = "entry_commission"


#: the accounts of a table (``table:TABLE:...``)
TABLE_KINDS = frozenset({Kind.STAKE, Kind.BOX, Kind.POT, Kind.HOUSE, Kind.COMMISSION, Kind.JACKPOT})
#: a table's accounts named by their kind alone (``table:TABLE:house``)
_PLAIN = {k.value: k for k in (Kind.POT, Kind.HOUSE, Kind.COMMISSION, Kind.JACKPOT)}
#: a player's own money, never below zero (a wallet, a credit meter, a seat's stake)
PLAYER_KINDS = frozenset({Kind.WALLET, Kind.METER, Kind.STAKE})
#: a tournament's accounts (``tournament:ID:...``)
_TOURNAMENT = {"pool": Kind.PRIZE_POOL, "commission": Kind.ENTRY_COMMISSION}
_TOURNAMENT_KINDS = frozenset(_TOURNAMENT.values())
_PLACED = TABLE_KINDS | _TOURNAMENT_KINDS
_OWNED = PLAYER_KINDS  # a player's money names its player
_MAY_OWN = _OWNED | {Kind.BOX}
_NUMBERED = frozenset({Kind.STAKE, Kind.BOX})
#: how a meter's name ends (``wallet:ACCOUNT/meter``)
METER_SUFFIX = "/meter"
_NUMBER = re.compile(r"0|[1-9][0-9]*")


@dataclass(frozen=True, slots=True)
class LedgerAccount:
    """One ledger account (see the module docstring); hashable, compared by value."""

    kind: Kind
    #: the player: a wallet's or meter's holder, a stake's seat holder, a backer on a box
    owner: str | None = None
    #: the table (``None``: a table account's local name); a tournament's id for its accounts
    table: str | None = None
    #: the seat (a stake) or the box
    number: int | None = None
    # what the ledger asks of every movement's accounts, worked out once (not compared)
    #: the table whose account this is (``None``: a wallet, the cashier, a tournament's)
    on_table: str | None = field(init=False, repr=False, compare=False)
    #: a player's own money: a wallet, a meter or a seat's stake (never below zero)
    is_player: bool = field(init=False, repr=False, compare=False)
    #: a wallet or a meter: outside every table (``wallet:...``)
    is_wallet_side: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kind, owner, table, number = self.kind, self.owner, self.table, self.number
        problem = None
        if (owner is None and kind in _OWNED) or (owner is not None and kind not in _MAY_OWN):
            problem = "an owner" if owner is None else "no owner"
        elif (number is None) == (kind in _NUMBERED):
            problem = "a seat or box number" if number is None else "no number"
        elif number is not None and number < 0:
            problem = "a number not below zero"
        elif table is None and kind in _TOURNAMENT_KINDS:
            problem = "its tournament"
        elif table is not None and (kind not in _PLACED or not table or ":" in table):
            problem = "a table id without ':'" if kind in _PLACED else "no table"
        elif kind is Kind.WALLET and owner is not None and owner.endswith(METER_SUFFIX):
            problem = f"an owner not ending in {METER_SUFFIX!r} (a meter's name)"
        if problem is not None:
            raise ValueError(f"a {kind.value} account needs {problem}: {self!r}")
        object.__setattr__(self, "on_table", table if kind in TABLE_KINDS else None)
        object.__setattr__(self, "is_player", kind in PLAYER_KINDS)
        object.__setattr__(self, "is_wallet_side", kind is Kind.WALLET or kind is Kind.METER)

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def cashier(cls) -> LedgerAccount:
        return CASHIER

    @classmethod
    def wallet(cls, owner: str) -> LedgerAccount:
        return cls(Kind.WALLET, owner)

    @classmethod
    def meter(cls, owner: str) -> LedgerAccount:
        """A stadium terminal session's credit meter (QLD Sch 19 s4(2))."""
        return cls(Kind.METER, owner)

    @classmethod
    def stake(cls, seat: int, owner: str, table: str | None = None) -> LedgerAccount:
        return cls(Kind.STAKE, owner, table, seat)

    @classmethod
    def box(cls, number: int, backer: str | None = None, table: str | None = None) -> LedgerAccount:
        """A box's layout; ``backer``: another player's wagers on the box (BJ s29)."""
        return cls(Kind.BOX, backer, table, number)

    @classmethod
    def of_table(cls, kind: Kind, table: str | None = None) -> LedgerAccount:
        """A table's ``pot``, ``house``, ``commission`` or ``jackpot``."""
        return cls(kind, None, table)

    @classmethod
    def tournament(cls, kind: Kind, tournament: str) -> LedgerAccount:
        """A tournament's prize pool or entry commission (ACT r 19.4)."""
        return cls(kind, None, tournament)

    def at(self, table: str) -> LedgerAccount:
        """This table account at ``table`` (a local name placed)."""
        return replace(self, table=table)

    # -- reading -----------------------------------------------------------------------------
    @classmethod
    def parse(cls, name: str) -> LedgerAccount:
        """The account a stored name names; :class:`ValueError` if it names none."""
        return ledger_account(name)

    @property
    def local(self) -> str:
        """A table account's name within its table (``box:3``, ``stake:2:ann``)."""
        if self.kind is Kind.STAKE:
            return f"stake:{self.number}:{self.owner}"
        if self.kind is Kind.BOX:
            return f"box:{self.number}" if self.owner is None else f"box:{self.number}:{self.owner}"
        return self.kind.value

    def __str__(self) -> str:
        kind = self.kind
        if kind is Kind.CASHIER:
            return "cashier"
        if kind is Kind.WALLET:
            return f"wallet:{self.owner}"
        if kind is Kind.METER:
            return f"wallet:{self.owner}{METER_SUFFIX}"
        if kind is Kind.PRIZE_POOL:
            return f"tournament:{self.table}:pool"
        if kind is Kind.ENTRY_COMMISSION:
            return f"tournament:{self.table}:commission"
        return self.local if self.table is None else f"table:{self.table}:{self.local}"


CASHIER = LedgerAccount(Kind.CASHIER)


#: a stadium layout's holder is kept in the store's meta as ``owner:NAME`` = the player (NAME:
#: the box's stored name), so that crash recovery sends a wager left riding after its round
#: home (``Books.reserve``, ``Ledger.recover``; the books check lets it ride)
OWNER_OF = "owner:"


def owner_key(box: LedgerAccount) -> str:
    """The meta key naming who holds the layout ``box``."""
    return f"{OWNER_OF}{box}"


def table_prefix(table: str) -> str:
    """What every stored name of ``table``'s accounts begins with."""
    return f"table:{table}:"


@functools.lru_cache(maxsize=1 << 14)
def ledger_account(name: str) -> LedgerAccount:
    """The account a stored (or a table's local) name names, once per name (cached: the
    ledger reads the names of every movement); :class:`ValueError` if it names none."""
    head, sep, rest = name.partition(":")
    if not sep:
        if name == "cashier":
            return CASHIER
        if name in _PLAIN:
            return LedgerAccount(_PLAIN[name])
    elif head == "wallet":
        if rest.endswith(METER_SUFFIX):
            return LedgerAccount(Kind.METER, rest.removesuffix(METER_SUFFIX))
        return LedgerAccount(Kind.WALLET, rest)
    elif head == "table":
        table, sep, local = rest.partition(":")
        if sep and table:
            return _local(local, name).at(table)
    elif head == "tournament":
        tournament, sep, what = rest.partition(":")
        if sep and tournament and what in _TOURNAMENT:
            return LedgerAccount(_TOURNAMENT[what], None, tournament)
    else:
        return _local(name, name)
    raise ValueError(f"not a ledger account: {name!r}")


def known(name: str) -> LedgerAccount | None:
    """The account ``name`` names, or ``None`` if it names none (a check reading a store
    reports what it finds rather than stopping at a name it does not know)."""
    try:
        return ledger_account(name)
    except ValueError:
        return None


def _local(local: str, name: str) -> LedgerAccount:
    if local in _PLAIN:
        return LedgerAccount(_PLAIN[local])
    head, _, rest = local.partition(":")
    if head == "stake":
        seat, sep, owner = rest.partition(":")
        if sep and _NUMBER.fullmatch(seat):
            return LedgerAccount(Kind.STAKE, owner, None, int(seat))
    elif head == "box":
        number, sep, backer = rest.partition(":")
        if _NUMBER.fullmatch(number):
            return LedgerAccount(Kind.BOX, backer if sep else None, None, int(number))
    raise ValueError(f"not a ledger account: {name!r}")
