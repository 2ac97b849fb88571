"""Table balancing and table breaking, between hands, as pure functions.

Theory of operation. :func:`plan` looks at the tables of a session after a round of play
and returns the moves that restore them (the caller applies them with :func:`apply`, between
hands, and journals them):

1. **Breaking.** The players need ``k = ceil(players / seats)`` tables. While more tables
   are open, the table with the fewest players (ties: the highest number) is broken and its
   players are seated, one at a time, at the open table with the fewest players (ties: the
   lowest number). When the players fit at one table, this forms the final table.
2. **Balancing.** While the fullest open table has two players more than the shortest, one
   player moves from the fullest (ties: the lowest number) to the shortest (ties: the lowest
   number).

Which player moves and to which seat: with ``keep_position`` (the conditions say so), a mover
keeps their position relative to the table's marker (the button, or the Canberra Poker
starting marker): the free seat and the mover are the pair whose clockwise distances from
their tables' markers are nearest (ties: the smaller distance at the new table, then the
lower seat). Without it, the mover and the free seat are drawn by ballot from the injected
random source (as the seats were, 2017 r 17.7). Every table keeps within one player of every
other after a plan, nobody is lost or seated twice, and the seats stay within ``1..seats``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from server.cards import RandomSource


@dataclass(frozen=True)
class Table:
    """One table of a session: its number, its seats, who sits where, and its marker."""

    number: int
    seats: int
    players: Mapping[int, str] = field(default_factory=dict)
    marker: int = 1


@dataclass(frozen=True)
class Move:
    """``player`` moves from ``source`` seat ``from_seat`` to ``target`` seat ``to_seat``."""

    player: str
    source: int
    from_seat: int
    target: int
    to_seat: int


def _distance(seat: int, marker: int, seats: int) -> int:
    return (seat - marker) % seats


class _Plan:
    """The tables as they will be after the moves chosen so far."""

    def __init__(self, tables: Sequence[Table], rng: RandomSource, keep_position: bool) -> None:
        self.tables = {t.number: t for t in tables}
        self.seated = {t.number: dict(t.players) for t in tables}
        self.rng = rng
        self.keep_position = keep_position
        self.moves: list[Move] = []

    def count(self, number: int) -> int:
        return len(self.seated[number])

    def free(self, number: int) -> list[int]:
        taken = self.seated[number]
        return [s for s in range(1, self.tables[number].seats + 1) if s not in taken]

    def move(self, source: int, target: int, only: int | None = None) -> None:
        """Move one player from ``source`` to ``target`` (``only``: that seat's player)."""
        candidates = [only] if only is not None else sorted(self.seated[source])
        free = self.free(target)
        if self.keep_position:
            src, dst = self.tables[source], self.tables[target]

            def cost(pair: tuple[int, int]) -> tuple[int, int, int]:
                a = _distance(pair[0], src.marker, src.seats)
                b = _distance(pair[1], dst.marker, dst.seats)
                gap = abs(a - b)
                return (min(gap, dst.seats - gap), b, pair[1])

            seat, to_seat = min(((s, f) for s in candidates for f in free), key=cost)
        else:
            seat = candidates[self.rng.randbelow(len(candidates))]
            to_seat = free[self.rng.randbelow(len(free))]
        player = self.seated[source].pop(seat)
        self.seated[target][to_seat] = player
        self.moves.append(Move(player, source, seat, target, to_seat))


def plan(tables: Sequence[Table], rng: RandomSource, keep_position: bool = False) -> list[Move]:
    """The moves that break surplus tables and balance the rest (module docstring)."""
    if not tables:
        return []
    p = _Plan(tables, rng, keep_position)
    seats = min(t.seats for t in tables)
    total = sum(len(t.players) for t in tables)
    need = max(1, math.ceil(total / seats))
    open_ = sorted(p.seated)
    while len(open_) > need:
        broken = min(open_, key=lambda n: (p.count(n), -n))
        open_.remove(broken)
        for seat in sorted(p.seated[broken]):
            target = min(open_, key=lambda n: (p.count(n), n))
            p.move(broken, target, only=seat)
    while True:
        fullest = min(open_, key=lambda n: (-p.count(n), n))
        shortest = min(open_, key=lambda n: (p.count(n), n))
        if p.count(fullest) - p.count(shortest) <= 1:
            return p.moves
        p.move(fullest, shortest)


def apply(tables: Sequence[Table], moves: Sequence[Move]) -> list[Table]:
    """The tables after ``moves``; a table left empty is broken (not returned)."""
    seated = {t.number: dict(t.players) for t in tables}
    for m in moves:
        if seated[m.source].get(m.from_seat) != m.player or m.to_seat in seated[m.target]:
            raise ValueError(f"move {m} does not fit the tables")
        del seated[m.source][m.from_seat]
        seated[m.target][m.to_seat] = m.player
    return [
        Table(t.number, t.seats, seated[t.number], t.marker) for t in tables if seated[t.number]
    ]
