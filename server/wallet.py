"""The wallet: each account's money off the tables, in integer cents (in-memory store).

Money moves only between a wallet and a table stake (buy-in, top-up, cash-out) and is never
created except by :meth:`Wallet.open` (a new account's starting balance, recorded in
``issued`` so conservation can be checked: wallets + stakes + in play + commission ==
issued).
"""

from __future__ import annotations


class InsufficientFunds(Exception):
    """The balance does not cover the debit; nothing changed."""


class Wallet:
    """In-memory balances. Synchronous on purpose: one trio thread, no await inside a move."""

    def __init__(self) -> None:
        self._balances: dict[str, int] = {}
        self.issued = 0

    def open(self, account: str, amount: int) -> int:
        """Create ``account`` with ``amount`` cents if it does not exist; return its balance."""
        if account not in self._balances:
            _check(amount)
            self._balances[account] = amount
            self.issued += amount
        return self._balances[account]

    def has(self, account: str) -> bool:
        return account in self._balances

    def balance(self, account: str) -> int:
        return self._balances.get(account, 0)

    def debit(self, account: str, amount: int) -> int:
        _check(amount)
        have = self._balances.get(account, 0)
        if amount > have:
            raise InsufficientFunds(f"balance {have} does not cover {amount}")
        self._balances[account] = have - amount
        return have - amount

    def credit(self, account: str, amount: int) -> int:
        _check(amount)
        self._balances[account] = self._balances.get(account, 0) + amount
        return self._balances[account]

    def total(self) -> int:
        return sum(self._balances.values())


def _check(amount: int) -> None:
    if type(amount) is not int or amount < 0:
        raise ValueError(f"amount must be a non-negative int of cents, not {amount!r}")
