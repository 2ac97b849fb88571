"""Places and prizes: who finished where, and what each place-getter is paid, exactly.

Places. Players who are eliminated finish in order: the first out is last. Players out in
the same round of play are one group (:func:`eliminated_in_round`): under 2004 r 17.24 and
the ``same_round = "share"`` conditions they tie; under ``"by_chips"`` (the poker custom)
the one who began the round with more chips finishes higher, and only equal counts tie. The
players left at the end of the last session are ranked by chip count (2017 r 17.3(a)(xii)),
equal counts tying. :func:`standings` turns those groups into places: a group of ``n``
players covering places ``p .. p+n-1``.

Prizes (:func:`prizes`). The pool is divided by the breakdown (basis points, place 1 first)
in integer cents, and 100% of it is returned (2017 r 17.21, 2004 r 17.22):

* each paid place gets ``pool * share // total`` where ``total`` is the sum of the shares of
  the paid places that someone finished in (when fewer finish than places are paid, the
  unfilled places' shares are spread over the filled ones in proportion);
* the cents that rounding down leaves (fewer than the number of paid places) go one each to
  places 1, 2, 3, ... in order;
* tied players combine the prizes of the places they cover and divide them equally (2004
  r 17.24, 2017 r 17.3(a)(xii)(C)); the odd cents go one each to the tied players in the
  order given (the caller gives the seat-ballot order, which is random and journalled).

So the prizes always sum to the pool, to the cent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from server.tournaments.conditions import WHOLE


@dataclass(frozen=True)
class Place:
    """A group of players finishing together: places ``first .. last`` (equal when alone)."""

    first: int
    players: tuple[str, ...]

    @property
    def last(self) -> int:
        return self.first + len(self.players) - 1

    @property
    def tied(self) -> bool:
        return len(self.players) > 1


def by_chips(chips: Mapping[str, int], order: Sequence[str]) -> list[list[str]]:
    """Players grouped by chip count, most first; equal counts in one group, in ``order``."""
    rank = {p: i for i, p in enumerate(order)}
    groups: list[list[str]] = []
    last: int | None = None
    for player in sorted(chips, key=lambda p: (-chips[p], rank.get(p, len(rank)), p)):
        if last is not None and chips[player] == last:
            groups[-1].append(player)
        else:
            groups.append([player])
        last = chips[player]
    return groups


def eliminated_in_round(
    started_with: Mapping[str, int],
    rule: Literal["share", "by_chips"],
    order: Sequence[str],
) -> list[list[str]]:
    """The players eliminated in one round of play, best first, as tie groups: one group
    (``"share"``, 2004 r 17.24) or by their chips at the start of the round (``"by_chips"``)."""
    if rule == "share":
        rank = {p: i for i, p in enumerate(order)}
        return [sorted(started_with, key=lambda p: (rank.get(p, len(rank)), p))]
    return by_chips(started_with, order)


def standings(left: Sequence[Sequence[str]], out: Sequence[Sequence[str]]) -> list[Place]:
    """Places from the groups still in at the end (best first) and the groups eliminated
    (in the order they went out, the first out first)."""
    places: list[Place] = []
    n = 1
    for group in [*left, *reversed(out)]:
        if group:
            places.append(Place(n, tuple(group)))
            n += len(group)
    return places


def place_amounts(pool: int, shares: Sequence[int], finishers: int) -> list[int]:
    """Cents for places 1.. of the breakdown ``shares`` (basis points summing to 100%) when
    ``finishers`` players finished: see the module docstring. Sums to ``pool`` (or is empty
    when nobody finished)."""
    if sum(shares) != WHOLE or any(s <= 0 for s in shares):
        raise ValueError("the prize breakdown must be positive shares summing to 100%")
    paid = list(shares[: max(0, finishers)])
    if not paid:
        return []
    total = sum(paid)
    amounts = [pool * s // total for s in paid]
    for i in range(pool - sum(amounts)):
        amounts[i] += 1
    return amounts


def prizes(pool: int, shares: Sequence[int], places: Sequence[Place]) -> dict[str, int]:
    """Each place-getter's prize in cents (only players with a prize appear); the values sum
    to ``pool`` when anyone finished."""
    finishers = sum(len(p.players) for p in places)
    amounts = place_amounts(pool, shares, finishers)
    out: dict[str, int] = {}
    for place in places:
        combined = sum(amounts[place.first - 1 : place.last])
        if not combined:
            continue
        share, odd = divmod(combined, len(place.players))
        for i, player in enumerate(place.players):
            out[player] = share + (1 if i < odd else 0)
    return {p: a for p, a in out.items() if a}
