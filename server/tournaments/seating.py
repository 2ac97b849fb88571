"""A session's seats, as pure functions on its tables (2017 r 17.7-17.11).

The tournament (:mod:`server.tournaments.lifecycle`) keeps a session's tables as a list of
:class:`~server.tournaments.balancing.Table` and replaces it whole after every change; the
functions here make the new list. :func:`ballot` seats the players of a session: as many
tables as the conditions say (r 17.8), players spread within one of each other, tables and
seats drawn at random from the injected source (r 17.7). The rest find, take and leave
seats: :func:`where` a player sits, :func:`replaced` (a reserve takes a seat, r 17.10; a
player leaves one), :func:`marked` (the marker moves), :func:`free_seat` and :func:`sit`
(a buy-back takes a free seat at the shortest table, drawn by ballot). Balancing between
hands is :mod:`server.tournaments.balancing`.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.cards import RandomSource, shuffle
from server.tournaments.balancing import Table
from server.tournaments.conditions import Session, tables_for


def ballot(players: Sequence[str], spec: Session, rng: RandomSource) -> list[Table]:
    """The session's tables for ``players``, drawn by ballot (r 17.7, r 17.8); each table's
    marker starts at its lowest occupied seat."""
    count = tables_for(len(players), spec)
    drawn = shuffle(players, rng)
    seated: list[dict[int, str]] = [{} for _ in range(count)]
    for t in range(count):
        group = drawn[t::count]
        seats = shuffle(range(1, spec.players_per_table + 1), rng)
        for player, seat in zip(group, seats, strict=False):
            seated[t][seat] = player
    return [Table(n + 1, spec.players_per_table, s, min(s)) for n, s in enumerate(seated)]


def where(tables: Sequence[Table], player: str) -> tuple[int, int] | None:
    """``(table, seat)`` of ``player``, if seated."""
    for t in tables:
        for seat, p in t.players.items():
            if p == player:
                return t.number, seat
    return None


def replaced(tables: Sequence[Table], old: str, new: str | None) -> list[Table]:
    """``new`` in ``old``'s seat (``None``: the seat is left empty; a table may empty)."""
    out = []
    for t in tables:
        players = {s: (new if p == old else p) for s, p in t.players.items()}
        out.append(
            Table(t.number, t.seats, {s: p for s, p in players.items() if p is not None}, t.marker)
        )
    return out


def marked(tables: Sequence[Table], table: int, marker: int) -> list[Table]:
    """Table ``table``'s marker at seat ``marker``."""
    return [Table(t.number, t.seats, t.players, marker) if t.number == table else t for t in tables]


def free_seat(tables: Sequence[Table], rng: RandomSource) -> tuple[Table, int] | None:
    """A free seat at the shortest table (ties: the lowest number), drawn by ballot;
    ``None`` (nothing drawn) if that table is full."""
    shortest = min(tables, key=lambda t: (len(t.players), t.number))
    free = [s for s in range(1, shortest.seats + 1) if s not in shortest.players]
    if not free:
        return None
    return shortest, free[rng.randbelow(len(free))]


def sit(tables: Sequence[Table], at: Table, seat: int, player: str) -> list[Table]:
    """``player`` in ``seat`` of the table ``at``."""
    players = {**at.players, seat: player}
    return [Table(t.number, t.seats, players, t.marker) if t is at else t for t in tables]
