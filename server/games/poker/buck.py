"""How the buck / dealer button moves between rounds of play, and who posts the blinds.

* ACT Hold-em/Omaha and 3 Card Manila r 6.2-6.3: the buck passes clockwise to the next
  player at the end of every round of play; nobody may pass up the buck.
* QLD Sch 5 s17(1)-(3): the buck moves to the next player; it cannot be declined.
* QLD Sch 11 s17(2), (4)-(5): the dealer button passes clockwise, skipping absent players;
  if the first-blind player of the preceding round has left (or that round had only one
  blind) the button is *dead*: it moves to the vacant seat to the right of the preceding
  round's second blind, so the returned seat may be unoccupied (``PokerRound`` accepts a
  dead button for these games).
* A misdeal is not a round of play: the buck does not move (ACT r 16.2, QLD s32(3),
  Sch 5 s33(7)); the table simply does not call this function.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from server.games.poker.rules import RuleSet


def _next_after(pos: int, seats: Sequence[int]) -> int:
    ordered = sorted(seats)
    for s in ordered:
        if s > pos:
            return s
    return ordered[0]


def next_designated(
    rules: RuleSet,
    previous: int,
    seats: Sequence[int],
    absent: Iterable[int] = (),
    previous_blinds: Sequence[int] | None = None,
) -> int:
    """The buck/button seat for the next round of play.

    ``seats`` are the occupied seats now; ``absent`` those away with approval (QLD Sch 11
    s21(2): skipped for the button); ``previous_blinds`` the seats that posted the blinds in
    the preceding round, in posting order (QLD Sch 11 dead-button rule s17(5)).
    """
    occupied = sorted(seats)
    if not occupied:
        raise ValueError("no occupied seats")
    if not rules.dead_button:
        return _next_after(previous, occupied)
    away = set(absent)
    present = [s for s in occupied if s not in away] or occupied
    if previous_blinds:
        first_blind = previous_blinds[0] if len(previous_blinds) > 1 else None
        second_blind = previous_blinds[-1]
        if first_blind is not None and first_blind not in occupied:
            return first_blind  # s17(5)(a): the dead button
        if first_blind is None:  # s17(5)(b): only one blind last round
            right = second_blind - 1 if second_blind > 1 else rules.max_seats
            if right not in occupied:
                return right
    return _next_after(previous, present)


def blind_posters(
    rules: RuleSet, designated: int, seats: Sequence[int], first_blind: bool = True
) -> list[int]:
    """The seats that post the blinds this round, in posting order.

    * ACT Hold-em/Omaha r 6.4 (digest A-13): the buck holder posts the first blind and the
      next players clockwise the others (2 or 3 blinds, r 5.3).
    * 3 Card Manila (ACT r 6.4) and Manila (QLD Sch 5 s20(2)): the designated player posts
      the only blind.
    * QLD Sch 11 s23(1)-(2): the two players after the dealer button; heads-up the button
      posts the first blind (s23(5)); a round without a first blind (s23(4)): only the
      player after the button posts (the second blind). ``designated`` may be a dead button's
      vacant seat (s17(4)-(5)).
    """
    if rules.variant == "manila":
        return [designated]
    ring = sorted(seats)
    # the seats clockwise after ``designated`` (which may be a dead button's vacant seat)
    i = bisect_right(ring, designated)
    occupied = i > 0 and ring[i - 1] == designated
    after = ring[i:] + ring[: i - 1 if occupied else i]
    if rules.jurisdiction == "act":
        order = [designated, *after] if occupied else after
        return order[: min(len(rules.blinds), len(ring))]
    if not first_blind:
        return after[:1]
    if len(ring) == 2 and occupied:
        return [designated, after[0]]
    return after[:2]
