"""What happened at the tables, and its proofs: read from the journal, never written here.

- ``histories.py``, ``pokerstars.py``, ``phh.py``: hand histories in the formats trackers
  read (PokerStars text, Open Hand History, PHH), from journalled rounds;
- ``history_cli.py``: ``croupier history`` (export);
- ``fair.py``: the fairness proof of a round (commitments, seeds, Merkle openings of what
  was shown, and nothing else);
- ``verify.py``, ``verify_cli.py``: ``croupier verify`` replays a round through its engine
  (``server/games/replay.py``) and checks it against its record.
"""
