"""Durable stores: the ledger (every cent, as double-entry transfers) and its rounds.

* :mod:`.model`: transfers, batches, rounds, errors, and the books check every backend
  shares;
* :mod:`.ledger`: the process's ledger: balances cached in memory (the tables' synchronous
  view), every movement queued and committed to the store in groups by one task;
* :mod:`.sqlite`: the embedded default (``croupier serve --data DIR``);
* :mod:`.redis`: the production store, shared by every server on one Redis
  (``croupier serve --redis URL``; Lua scripts under the hash tag ``{ledger}``);
* :mod:`.witness`: what a server saw of each store (epoch, version) in ``--data DIR``, so a
  store that came back empty or older is detected, never trusted;
* :mod:`.memory`: a test double.
"""
