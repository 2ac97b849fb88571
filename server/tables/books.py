"""A table's books: the one place where a table's money moves.

Every movement is a named transfer ``(id, source, target, amount, kind, round)`` between two
accounts, in integer cents:

* ``wallet:ACCOUNT``: a player's money off the tables (the :class:`~server.wallet.Wallet`);
* ``stake:SEAT``: a poker seat's table stake (ACT 5.4; QLD Sch 11 s18);
* ``box:BOX``: what a banked box has on the layout (QLD Sch 19 s5);
* ``pot``: a poker round's chips while they change hands at settlement;
* ``house``: the table's bank (banked games: lost wagers less winnings);
* ``commission``: commission and participation fees taken by the operator (ACT r 11;
  QLD Sch 11 s19, s30; Sch 5 s28);
* ``jackpot``: what went to a progressive pool (coin-in) and came back (prizes, reversals).

The table calls the named operations below (``buy_in``, ``cash_out``, ``settle_pot``,
``wager``, ``coin_in``, ``settle_wager``...); nothing else in a table changes money. A debit
of a wallet that does not cover it raises :class:`~server.wallet.InsufficientFunds` before
anything moved. :meth:`Books.check` states where every cent is after each table step: the
table's accounts hold exactly what left the wallets and has not come back, no stake, box or
pot is negative, and between rounds the pot is empty. The durable ledger plugs in here: each
transfer already carries its id, kind and round reference.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable
from dataclasses import dataclass

from server.wallet import Wallet

log = logging.getLogger("croupier.tables.books")

HOUSE = "house"
COMMISSION = "commission"
JACKPOT = "jackpot"
POT = "pot"


def stake(seat: int) -> str:
    return f"stake:{seat}"


def box(number: int) -> str:
    return f"box:{number}"


def wallet(account: str) -> str:
    return f"wallet:{account}"


def meter(account: str) -> str:
    """A terminal session's credit meter (QLD Sch 19 s4(2)): a wallet-side account of its
    own, shared by every stadium table the account plays at (s4(3)), so that a wager reserves
    credits with the wallet's one atomic debit."""
    return f"wallet:{account}/meter"


@dataclass(frozen=True, slots=True)
class Transfer:
    """One movement of money between two accounts (integer cents, ``amount`` > 0)."""

    id: str
    source: str
    target: str
    amount: int
    kind: str
    round: str | None


class BooksError(RuntimeError):
    """The books do not balance: a bug in a table, logged with where every cent is."""


class Books:
    """The money of one table (see the module docstring)."""

    __slots__ = ("_ids", "balances", "round", "table", "totals", "transfers", "wallet", "wallets")

    def __init__(self, table: str, wallets: Wallet) -> None:
        self.table = table
        self.wallets = wallets
        #: balances of the table's own accounts (stakes, boxes, pot, house, ...)
        self.balances: dict[str, int] = {}
        #: cents moved per transfer kind, since the table opened
        self.totals: dict[str, int] = {}
        #: the transfers of the current round (kept until the round is closed)
        self.transfers: list[Transfer] = []
        #: cents that left the wallets for this table, less what came back
        self.wallet = 0
        #: the round transfers are booked against (``None`` between rounds)
        self.round: str | None = None
        self._ids = itertools.count(1)

    # -- the primitive ----------------------------------------------------------------------
    def _move(self, source: str, target: str, amount: int, kind: str) -> None:
        if amount <= 0:
            if amount < 0:
                raise BooksError(f"negative transfer {source} -> {target}: {amount}")
            return
        balances = self.balances
        if source.startswith("wallet:"):
            self.wallets.debit(source[7:], amount)  # may raise InsufficientFunds: nothing moved
            self.wallet += amount
        else:
            balances[source] = balances.get(source, 0) - amount
        if target.startswith("wallet:"):
            self.wallets.credit(target[7:], amount)
            self.wallet -= amount
        else:
            balances[target] = balances.get(target, 0) + amount
        self.totals[kind] = self.totals.get(kind, 0) + amount
        ref = self.round or "-"
        self.transfers.append(
            Transfer(f"{self.table}:{ref}:{next(self._ids)}", source, target, amount, kind, ref)
        )

    def balance(self, account: str) -> int:
        return self.balances.get(account, 0)

    # -- rounds -----------------------------------------------------------------------------
    def open_round(self, ref: str) -> None:
        self.round = ref

    def close_round(self) -> list[Transfer]:
        """The round's transfers (handed to the ledger), and a clean slate for the next."""
        done, self.transfers = self.transfers, []
        self.round = None
        return done

    # -- poker: stakes and pots -------------------------------------------------------------
    def buy_in(self, account: str, seat: int, amount: int) -> int:
        """Wallet to table stake (ACT 5.4, 12.3; QLD Sch 11 s18, s31); the wallet balance."""
        self._move(wallet(account), stake(seat), amount, "buy_in")
        return self.wallets.balance(account)

    def cash_out(self, account: str, seat: int) -> int:
        """The whole stake back to the wallet; the amount returned."""
        amount = self.balance(stake(seat))
        self._move(stake(seat), wallet(account), amount, "cash_out")
        return amount

    def settle_pot(self, before: dict[int, int], after: dict[int, int], taken: int) -> None:
        """A poker round's result: chips from the seats that lost to the pot, from the pot to
        the seats that won, and the commission and fees to the operator (ACT r 11.1;
        QLD Sch 11 s19, s30; Sch 5 s28). ``before``/``after``: stacks by seat."""
        for seat, was in before.items():
            lost = was - after.get(seat, 0)
            if lost > 0:
                self._move(stake(seat), POT, lost, "pot")
        self._move(POT, COMMISSION, taken, "commission")
        for seat, now in after.items():
            won = now - before.get(seat, 0)
            if won > 0:
                self._move(POT, stake(seat), won, "pot_award")

    # -- banked: the layout ----------------------------------------------------------------
    def wager(self, account: str, number: int, delta: int) -> int:
        """Make or raise (``delta`` > 0) or lower or withdraw (< 0) a box's wagers (Sch 19
        s5(2)); the wallet balance after."""
        if delta > 0:
            self._move(wallet(account), box(number), delta, "wager")
        else:
            self._move(box(number), wallet(account), -delta, "wager_returned")
        return self.wallets.balance(account)

    def return_wager(self, account: str, number: int, amount: int) -> int:
        """Give a wager back in full (a void round, a jackpot wager not accepted)."""
        self._move(box(number), wallet(account), amount, "wager_returned")
        return self.wallets.balance(account)

    def coin_in(self, number: int, pool_part: int, operator_part: int) -> None:
        """A jackpot wager accepted by the pool: its prize and reserve parts to the jackpot,
        the operator's part to the house (jackpots.md 5.3)."""
        self._move(box(number), JACKPOT, pool_part, "coin_in")
        self._move(box(number), HOUSE, operator_part, "coin_in_operator")

    def coin_in_reversed(self, amount: int) -> None:
        """A void round's coin-in taken back by the pool (jackpots.md 5.6)."""
        self._move(JACKPOT, HOUSE, amount, "coin_in_reversed")

    def jackpot_stake_returned(self, account: str, amount: int) -> int:
        """A void round's jackpot wager back to the player in full, from the house, which
        recovers the pool's part by :meth:`coin_in_reversed`."""
        self._move(HOUSE, wallet(account), amount, "jackpot_returned")
        return self.wallets.balance(account)

    def settle_wager(self, account: str, number: int, stake_: int, net: int) -> None:
        """One settled wager: a loss to the house, a win from it, then stake plus net to the
        wallet (Sch 19 s7)."""
        if net < 0:
            self._move(box(number), HOUSE, -net, "lost")
        else:
            self._move(HOUSE, box(number), net, "won")
        self._move(box(number), wallet(account), stake_ + net, "paid")

    def jackpot_prize(self, account: str, amount: int) -> int:
        """A jackpot prize the pool paid (QLD Sch 3 s23(3))."""
        self._move(JACKPOT, wallet(account), amount, "jackpot_prize")
        return self.wallets.balance(account)

    # -- stadium: terminals' credit meters (QLD Sch 19 s4, s7, s9, s10) ------------------
    def credit_in(self, account: str, amount: int) -> None:
        """Credits bought from the wallet onto the terminal's credit meter (s4(2))."""
        self._move(wallet(account), meter(account), amount, "credit_in")

    def credit_out(self, account: str, amount: int) -> None:
        """The meter paid to the player's account (s9(3))."""
        self._move(meter(account), wallet(account), amount, "credit_out")

    def reserve(self, account: str, number: int, amount: int) -> None:
        """Credits to the terminal's layout (a wager made or raised, s5(2))."""
        self._move(meter(account), box(number), amount, "wager")

    def release(self, account: str, number: int, amount: int, kind: str = "wager_returned") -> None:
        """Layout back to the meter: a wager lowered or withdrawn, a stake returned or
        collected (s7(3)(c), s7(4)), winnings credited (s7(3)(b))."""
        self._move(box(number), meter(account), amount, kind)

    def engine_transfer(self, source: str, target: str, amount: int) -> None:
        """One of the engine's own settlement transfers between ``box:N`` and ``house``:
        a loss collected, a win paid, a commission charged or returned."""
        kind = "lost" if target == HOUSE else "won"
        self._move(source, target, amount, kind)

    def adjust(self, account: str, amount: int) -> None:
        """A correction's difference posted to the meter (s10(2)): house to meter
        (``amount`` > 0) or meter to house (< 0)."""
        if amount >= 0:
            self._move(HOUSE, meter(account), amount, "adjustment")
        else:
            self._move(meter(account), HOUSE, -amount, "adjustment")

    # -- where every cent is ----------------------------------------------------------------
    def held(self, prefixes: Iterable[str] = ("stake:", "box:", POT)) -> int:
        """Cents on the table on behalf of players: stakes, layout and pot."""
        p = tuple(prefixes)
        return sum(v for k, v in self.balances.items() if k.startswith(p))

    def check(self, expected: dict[str, int] | None = None) -> None:
        """Raise :class:`BooksError` unless every cent is where the table says it is.

        ``expected``: the table's own idea of each player account (``stake:N``/``box:N``);
        every other such account must be empty."""
        balances = self.balances
        if sum(balances.values()) != self.wallet:
            raise BooksError(f"{self.table}: accounts {balances} do not sum to {self.wallet}")
        for name, v in balances.items():
            if v < 0 and name not in (HOUSE, JACKPOT):
                raise BooksError(f"{self.table}: {name} is negative: {v}")
        if self.round is None and balances.get(POT, 0):
            raise BooksError(f"{self.table}: {balances[POT]} left in the pot between rounds")
        if expected is not None:
            for name, v in balances.items():
                if (name.startswith(("stake:", "box:"))) and v != expected.get(name, 0):
                    raise BooksError(
                        f"{self.table}: {name} holds {v}, the table says {expected.get(name, 0)}"
                    )
            for name, v in expected.items():
                if v and balances.get(name, 0) != v:
                    raise BooksError(f"{self.table}: {name} holds {balances.get(name, 0)} not {v}")

    def money(self) -> dict[str, int]:
        """For ``/health`` and conservation checks (the keys the server has always shown)."""
        t = self.totals
        return {
            "stakes": self.held(),
            "commission": self.balance(COMMISSION),
            "house": self.balance(HOUSE),
            "jackpot_contributed": t.get("coin_in", 0) - t.get("coin_in_reversed", 0),
            "jackpot_paid": t.get("jackpot_prize", 0),
        }
