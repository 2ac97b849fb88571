"""A session's results by chip count (2017 r 17.3(a)(ix), (xii)(D); 2004 r 17.23), pure.

At a session's end the players are grouped by their chips, best first, ties together
(:func:`server.tournaments.places.by_chips`). :func:`deciding_tie` finds the first tie that
decides something and so needs extra rounds: a tie across the progression cut, or (with
``ties = "extra_rounds"``) within the paid places after the last session. :func:`cut`
splits the groups into those who progress to the next session's ballot and those out,
a tied group across the cut progressing whole (our reading, docs/rulings.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from server.tournaments.conditions import Conditions


def deciding_tie(
    groups: Sequence[list[str]], advance: int, last: bool, conditions: Conditions
) -> list[str]:
    """The first tie group that must play extra rounds (empty: none)."""
    place = 1
    for group in groups:
        end = place + len(group) - 1
        if len(group) > 1:
            straddles = not last and place <= advance < end
            paid = len(conditions.prizes)
            in_prizes = last and place <= paid and conditions.ties == "extra_rounds"
            if straddles or in_prizes:
                return group
        place = end + 1
    return []


def cut(groups: Sequence[list[str]], advance: int) -> tuple[list[str], list[list[str]]]:
    """``(progressing, the groups out, best first)``: groups join the progressing players
    while fewer than ``advance`` have."""
    progressing: list[str] = []
    out: list[list[str]] = []
    for group in groups:
        if len(progressing) < advance:
            progressing += group
        else:
            out.append(group)
    return progressing, out
