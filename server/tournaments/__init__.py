"""Tournaments (ACT poker r 19, seed 001; Canberra Poker r 17, seeds 000 and 002): the pure,
sans-I/O foundations every later step stands on.

* :mod:`~server.tournaments.conditions`: the tournament conditions as data (TOML) and their
  check against the rules (``croupier tournament validate``, :mod:`~server.tournaments.cli`);
* :mod:`~server.tournaments.lifecycle`: the tournament as a state machine (entries, ballot,
  forfeits, reserves, breaks, sessions, cancellation) emitting the ledger's transfers;
* :mod:`~server.tournaments.places`: places, ties and prizes in exact integer cents;
* :mod:`~server.tournaments.canberra`: a Canberra Poker session (results by chip count,
  elimination below the table minimum, the starting marker and the ante order);
* :mod:`~server.tournaments.balancing`: table balancing and table breaking.

Nothing here reads a clock, a socket or global randomness: randomness comes from an injected
:class:`server.cards.RandomSource`, time from the commands' callers.
"""
