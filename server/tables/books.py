"""A table's books: the one place where a table's money moves.

Every movement is a named transfer ``(id, source, target, amount, kind, round)`` between two
accounts, in integer cents, posted to the process's durable ledger
(:mod:`server.store.ledger`; account names in :mod:`server.store.model`). A table's own
accounts are named here without their ``table:TABLE:`` prefix (their local names, built and
read as :class:`~server.store.accounts.LedgerAccount` values):

* ``wallet:ACCOUNT``: a player's money off the tables;
* ``stake:SEAT:ACCOUNT``: a poker seat's table stake (ACT 5.4; QLD Sch 11 s18);
* ``box:BOX``: what a banked box has on the layout (QLD Sch 19 s5);
* ``pot``: a poker round's chips while they change hands at settlement;
* ``house``: the table's bank (banked games: lost wagers less winnings);
* ``commission``: commission and participation fees taken by the operator (ACT r 11;
  QLD Sch 11 s19, s30; Sch 5 s28);
* ``jackpot``: what went to a progressive pool (coin-in) and came back (prizes, reversals).

The table calls the named operations below (``buy_in``, ``cash_out``, ``settle_pot``,
``wager``, ``coin_in``, ``settle_wager``...); nothing else in a table changes money. A debit
a wallet does not cover raises :class:`~server.store.model.InsufficientFunds` before
anything moved. A round is opened and closed here too (:meth:`Books.open_round`,
:meth:`Books.close_round`): everything one table step moves is committed to the store
atomically, so a round's settlement is wholly durable or not at all, and a round a crash
left open is voided at the next start. :meth:`Books.check` states where every cent is after
each table step: the table's accounts hold exactly what left the wallets and has not come
back, no stake, box or pot is negative, and between rounds the pot is empty.
"""

from __future__ import annotations

import functools
import logging

from server.store.accounts import Kind, LedgerAccount, ledger_account, owner_key, table_prefix
from server.store.ledger import Ledger
from server.store.model import RoundState, wallet

log = logging.getLogger("croupier.tables.books")

HOUSE = LedgerAccount.of_table(Kind.HOUSE).local
COMMISSION = LedgerAccount.of_table(Kind.COMMISSION).local
JACKPOT = LedgerAccount.of_table(Kind.JACKPOT).local
POT = LedgerAccount.of_table(Kind.POT).local
#: what a table holds on behalf of players (:meth:`Books.held`)
_HELD = frozenset({Kind.STAKE, Kind.BOX, Kind.POT})


@functools.lru_cache(maxsize=1 << 12)
def stake(seat: int, account: str) -> str:
    return LedgerAccount.stake(seat, account).local


@functools.lru_cache(maxsize=1 << 12)
def box(number: int, player: str | None = None) -> str:
    """A box's layout; ``player``: another player's wagers on the box (a backer, BJ s29)."""
    return LedgerAccount.box(number, player).local


def meter(account: str) -> str:
    """A terminal session's credit meter (QLD Sch 19 s4(2)): a wallet-side account of its
    own (in the ledger: never below zero, outside every table), shared by every stadium
    table the account plays at (s4(3)), so that a wager reserves credits with one debit."""
    return str(LedgerAccount.meter(account))


class BooksError(RuntimeError):
    """The books do not balance: a bug in a table, logged with where every cent is."""


class Books:
    """The money of one table (see the module docstring)."""

    __slots__ = (
        "_ledger",
        "_prefix",
        "closed",
        "moved",
        "names",
        "round",
        "table",
        "totals",
        "wallet",
    )

    def __init__(self, table: str, ledger: Ledger) -> None:
        self.table = table
        self._ledger = ledger
        self._prefix = table_prefix(table)
        #: the table's own accounts (their local names), with any balance a store held
        self.names: set[str] = {
            a.local for k in ledger.balances if (a := ledger_account(k)).on_table == table
        }
        #: cents moved per transfer kind, since this process opened the table
        self.totals: dict[str, int] = {}
        #: cents that left the wallets for this table, less what came back
        self.wallet = sum(self.balance(n) for n in self.names)
        #: the round transfers are booked against (``None`` between rounds)
        self.round: str | None = None
        #: money moved since the last :meth:`check` (a step that moved nothing needs none)
        self.moved = True
        #: how the last round closed (the journal records it)
        self.closed: RoundState = "settled"

    # -- the primitive ----------------------------------------------------------------------
    def _full(self, name: str, account: LedgerAccount) -> str:
        if account.is_wallet_side:
            return name
        self.names.add(name)
        return self._prefix + name

    def _move(self, source: str, target: str, amount: int, kind: str) -> None:
        if amount <= 0:
            if amount < 0:
                raise BooksError(f"negative transfer {source} -> {target}: {amount}")
            return
        src, dst = ledger_account(source), ledger_account(target)
        self._ledger.move(
            self._full(source, src), self._full(target, dst), amount, kind, self.round
        )
        self.moved = True
        if src.is_wallet_side:
            self.wallet += amount
        if dst.is_wallet_side:
            self.wallet -= amount
        self.totals[kind] = self.totals.get(kind, 0) + amount

    def balance(self, account: str) -> int:
        return self._ledger.balances.get(self._prefix + account, 0)

    def wallet_balance(self, account: str) -> int:
        """What the player's wallet holds: where this table's buy-ins and wagers come from
        (a tournament table's books keep tournament chips: server/tournaments/tables.py)."""
        return self._ledger.balance(account)

    @property
    def can_move(self) -> bool:
        """Whether money may move now (the ledger's store answers and lost nothing)."""
        return self._ledger.can_move

    def why_not(self) -> str:
        return self._ledger.why_not()

    # -- rounds -----------------------------------------------------------------------------
    def open_round(self, ref: str) -> None:
        self.round = ref
        self._ledger.open_round(ref, self.table)

    def close_round(self, state: RoundState = "settled") -> None:
        """The round is settled (or void): its transfers and this close are one commit."""
        if self.round is not None:
            self._ledger.close_round(self.round, state)
            self.closed = state
        self.round = None

    # -- poker: stakes and pots -------------------------------------------------------------
    def buy_in(self, account: str, seat: int, amount: int) -> int:
        """Wallet to table stake (ACT 5.4, 12.3; QLD Sch 11 s18, s31); the wallet balance."""
        self._move(wallet(account), stake(seat, account), amount, "buy_in")
        return self._ledger.balance(account)

    def cash_out(self, account: str, seat: int) -> int:
        """The whole stake back to the wallet; the amount returned."""
        amount = self.balance(stake(seat, account))
        self._move(stake(seat, account), wallet(account), amount, "cash_out")
        return amount

    def settle_pot(
        self, before: dict[int, int], after: dict[int, int], taken: int, owners: dict[int, str]
    ) -> None:
        """A poker round's result: chips from the seats that lost to the pot, from the pot to
        the seats that won, and the commission and fees to the operator (ACT r 11.1;
        QLD Sch 11 s19, s30; Sch 5 s28). ``before``/``after``: stacks by seat."""
        for seat, was in before.items():
            lost = was - after.get(seat, 0)
            if lost > 0:
                self._move(stake(seat, owners[seat]), POT, lost, "pot")
        self._move(POT, COMMISSION, taken, "commission")
        for seat, now in after.items():
            won = now - before.get(seat, 0)
            if won > 0:
                self._move(POT, stake(seat, owners[seat]), won, "pot_award")

    # -- banked: the layout ----------------------------------------------------------------
    def wager(self, account: str, number: int, delta: int, player: str | None = None) -> int:
        """Make or raise (``delta`` > 0) or lower or withdraw (< 0) a box's wagers (Sch 19
        s5(2)); the wallet balance after. ``player``: a backer's wagers on the box."""
        if delta > 0:
            self._move(wallet(account), box(number, player), delta, "wager")
        else:
            self._move(box(number, player), wallet(account), -delta, "wager_returned")
        return self._ledger.balance(account)

    def return_wager(
        self, account: str, number: int, amount: int, player: str | None = None
    ) -> int:
        """Give a wager back in full (a void round, a jackpot wager not accepted)."""
        self._move(box(number, player), wallet(account), amount, "wager_returned")
        return self._ledger.balance(account)

    def coin_in(self, number: int, pool_part: int, operator_part: int) -> None:
        """A jackpot wager accepted by the pool: its prize and reserve parts to the jackpot,
        the operator's part to the house (jackpots.md 5.3)."""
        self._move(box(number), JACKPOT, pool_part, "coin_in")
        self._move(box(number), HOUSE, operator_part, "coin_in_operator")

    def house_recovers(self, number: int, amount: int) -> None:
        """A jackpot wager the house already paid back (a void round) that the pool
        refused: it stays with the house."""
        self._move(box(number), HOUSE, amount, "jackpot_recovered")

    def coin_in_reversed(self, amount: int) -> None:
        """A void round's coin-in taken back by the pool (jackpots.md 5.6)."""
        self._move(JACKPOT, HOUSE, amount, "coin_in_reversed")

    def jackpot_stake_returned(self, account: str, amount: int) -> int:
        """A void round's jackpot wager back to the player in full, from the house, which
        recovers the pool's part by :meth:`coin_in_reversed`."""
        self._move(HOUSE, wallet(account), amount, "jackpot_returned")
        return self._ledger.balance(account)

    def settle_wager(
        self, account: str, number: int, stake_: int, net: int, player: str | None = None
    ) -> None:
        """One settled wager: a loss to the house, a win from it, then stake plus net to the
        wallet (Sch 19 s7). ``player``: a backer's wager on the box."""
        place = box(number, player)
        if net < 0:
            self._move(place, HOUSE, -net, "lost")
        else:
            self._move(HOUSE, place, net, "won")
        self._move(place, wallet(account), stake_ + net, "paid")

    def jackpot_prize(self, account: str, amount: int) -> int:
        """A jackpot prize the pool paid (QLD Sch 3 s23(3))."""
        self._move(JACKPOT, wallet(account), amount, "jackpot_prize")
        return self._ledger.balance(account)

    # -- stadium: terminals' credit meters (QLD Sch 19 s4, s7, s9, s10) ------------------
    def credit_in(self, account: str, amount: int) -> None:
        """Credits bought from the wallet onto the terminal's credit meter (s4(2))."""
        self._move(wallet(account), meter(account), amount, "credit_in")

    def credit_out(self, account: str, amount: int) -> None:
        """The meter paid to the player's account (s9(3))."""
        self._move(meter(account), wallet(account), amount, "credit_out")

    def reserve(self, account: str, number: int, amount: int) -> None:
        """Credits to the terminal's layout (a wager made or raised, s5(2)). Who owns the
        layout is kept in the store, so that crash recovery can send a wager left riding
        after its round home (``Ledger.recover``)."""
        key = owner_key(LedgerAccount.box(number, table=self.table))
        if self._ledger.meta.get(key) != account:
            self._ledger.remember(key, account)
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
    def held(self) -> int:
        """Cents on the table on behalf of players: stakes, layout and pot."""
        return sum(self.balance(n) for n in self.names if ledger_account(n).kind in _HELD)

    def check(self, expected: dict[str, int] | None = None) -> None:
        """Raise :class:`BooksError` unless every cent is where the table says it is.

        ``expected``: the table's own idea of each ``box:N`` account; every other box must be
        empty."""
        balances = {n: self.balance(n) for n in self.names}
        if sum(balances.values()) != self.wallet:
            raise BooksError(f"{self.table}: accounts {balances} do not sum to {self.wallet}")
        for name, v in balances.items():
            if v < 0 and name not in (HOUSE, JACKPOT):
                raise BooksError(f"{self.table}: {name} is negative: {v}")
        if self.round is None and balances.get(POT, 0):
            raise BooksError(f"{self.table}: {balances[POT]} left in the pot between rounds")
        if expected is not None:
            for name, v in balances.items():
                if ledger_account(name).kind is Kind.BOX and v != expected.get(name, 0):
                    raise BooksError(
                        f"{self.table}: {name} holds {v}, the table says {expected.get(name, 0)}"
                    )
            for name, v in expected.items():
                if v and balances.get(name, 0) != v:
                    raise BooksError(f"{self.table}: {name} holds {balances.get(name, 0)} not {v}")

    def money(self) -> dict[str, int]:
        """For ``/health`` and conservation checks (the keys the server has always shown):
        ``jackpot_contributed - jackpot_paid`` is what the table's jackpot account holds."""
        paid = self.totals.get("jackpot_prize", 0)
        return {
            "stakes": self.held(),
            "commission": self.balance(COMMISSION),
            "house": self.balance(HOUSE),
            "jackpot_contributed": self.balance(JACKPOT) + paid,
            "jackpot_paid": paid,
        }
