"""Progressive jackpot regimes: the pure prize arithmetic of the jackpot side wagers.

One module per regime, each pure functions on integer cents (``../shared/rules/jackpots.md``):

* :mod:`.act` - ACT Canberra Poker, the 2004 Boomerang Jackpot and the 2017 progressive
  (s2, s3), used by :mod:`server.games.banked.canberra_poker`;
* :mod:`.qld` - the Queensland Caribbean stud jackpot (s4), used by
  :mod:`server.games.banked.caribbean_stud`.

A regime decides how much a round pays and what it leaves in the pool; the pool service
(:mod:`server.jackpots`) only moves that money, atomically, in memory or in Redis.
"""
