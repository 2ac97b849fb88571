"""A tournament's money: entry fees, refunds and prizes as ledger transfers (ACT r 19.4;
2017 r 17.21-17.23, 2004 r 17.22-17.26).

Each entry moves the fee from the player's wallet: ``entry_fee - commission`` to the prize
pool (``tournament:ID:pool``) and ``commission`` to ``tournament:ID:commission``. A
withdrawal (where the rules allow one) gets the fee less the commission back (the operator
keeps the commission "whether an entrant withdraws or not", r 19.4); a cancelled tournament
refunds every fee and commission in full (r 17.23); at the end 100% of the pool goes to the
places (r 17.21). The transfers are appended to the command's step, with ids
``tournament:ID:N`` numbered in order, so booking a step twice moves money once.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.store.accounts import Kind, LedgerAccount
from server.store.model import Transfer, wallet
from server.tournaments.conditions import Conditions


@dataclass(frozen=True)
class Entry:
    number: int
    player: str
    fee: int
    commission: int


class Purse:
    """The entries and the money of one tournament (see the module docstring)."""

    def __init__(self, conditions: Conditions) -> None:
        self.conditions = conditions
        self.id = conditions.id
        self.entries: list[Entry] = []
        self.withdrawn: list[Entry] = []  #: entries withdrawn (ACT r 19.4: commission kept)
        self.transfers = 0  #: transfers numbered so far
        self.pool_account = str(LedgerAccount.tournament(Kind.PRIZE_POOL, self.id))
        self.commission_account = str(LedgerAccount.tournament(Kind.ENTRY_COMMISSION, self.id))

    @property
    def pool(self) -> int:
        """The prize pool: every entry's fee less commission, forfeits included (r 17.9)."""
        return sum(e.fee - e.commission for e in self.entries)

    def _transfer(
        self, out: list[Transfer], source: str, target: str, amount: int, kind: str
    ) -> None:
        if amount > 0:
            self.transfers += 1
            t = Transfer(f"tournament:{self.id}:{self.transfers}", source, target, amount, kind)
            out.append(t)

    def enter(self, out: list[Transfer], player: str) -> Entry:
        """A new entry of ``player`` (an entry, a buy-back, a reserve seated): the fee."""
        c = self.conditions
        entry = Entry(len(self.entries) + 1, player, c.entry_fee, c.commission)
        self.entries.append(entry)
        self._transfer(out, wallet(player), self.pool_account, c.pool_per_entry, "entry_fee")
        self._transfer(
            out, wallet(player), self.commission_account, c.commission, "tournament_commission"
        )
        return entry

    def withdraw(self, out: list[Transfer], player: str) -> int:
        """``player``'s entries withdrawn: the fee less the commission back; the refund."""
        mine = [e for e in self.entries if e.player == player]
        self.entries = [e for e in self.entries if e.player != player]
        self.withdrawn += mine
        for e in mine:
            pool = e.fee - e.commission
            self._transfer(out, self.pool_account, wallet(player), pool, "refund_entry_fee")
        return sum(e.fee - e.commission for e in mine)

    def prize(self, out: list[Transfer], player: str, amount: int) -> None:
        """A place's prize from the pool (r 17.21)."""
        self._transfer(out, self.pool_account, wallet(player), amount, "prize")

    def refund_all(self, out: list[Transfer]) -> int:
        """A cancellation: every entry fee and commission back in full (r 17.23), buy-backs,
        reserves' and forfeited entries included; the total refunded."""
        for e in self.entries:
            self._refund(out, e)
        for e in self.withdrawn:  # their fee less commission went back when they withdrew
            self._refund(out, e, fee=False)
        return sum(e.fee for e in self.entries) + sum(e.commission for e in self.withdrawn)

    def _refund(self, out: list[Transfer], e: Entry, fee: bool = True) -> None:
        pool = e.fee - e.commission if fee else 0
        self._transfer(out, self.pool_account, wallet(e.player), pool, "refund_entry_fee")
        self._transfer(
            out, self.commission_account, wallet(e.player), e.commission, "refund_commission"
        )
