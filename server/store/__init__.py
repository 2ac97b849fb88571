"""Durable stores: the ledger (every cent, as double-entry transfers) and its rounds.

* :mod:`.model`: transfers, batches, rounds, errors, and the books check every backend
  shares;
* :mod:`.ledger`: the process's ledger: balances cached in memory (the tables' synchronous
  view), every movement queued and committed to the store in groups by one task;
* :mod:`.sqlite`: the embedded default (``croupier serve --data DIR``);
* :mod:`.memory`: a test double.
"""
