"""Settlement: uncalled wagers, pot layering, commission groups and split pots.

The algorithm (``holdem-omaha-act.md`` "Server pot-building algorithm"; the same in all four
digests):

1. The top contributor's excess over the second-highest contribution (folded players
   included) is uncalled: returned, never part of a pot (ACT r 11.4, QLD Sch 11 s26(3)(a),
   s30(4)(c)-(d), Sch 5 s24(9), s28(4)(b)).
2. Contributions are layered at each distinct contribution level of a player still in;
   folded players' chips stay in the layers they reached (ACT r 12.1-12.2, QLD s29(5)-(6),
   Sch 5 s27(3)-(4)). Pot 0 is the main pot, then side pots in order of formation.
3. Pots with the same set of winners form one commission group (ACT r 11.3 and digest
   A-11; QLD s30(4)(a); Sch 5 s28(4)(a)). A group whose contributors are all equal-hand
   winners pays nothing (ACT r 11.5, QLD s30(4)(e), Sch 5 s28(4)(c)). QLD Sch 11 takes
   commission group by group in order of formation up to one cumulative maximum per round
   of play (s30(4)(b), digest A-5).
4. Each group's net is divided equally in the chip unit; the remainder goes, as one amount,
   to the sharer the rulebook names (:func:`odd_chip_order`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from server import money
from server.games.poker.rules import RuleSet


@dataclass(slots=True)
class Pot:
    amount: int
    eligible: list[int]
    contributors: set[int]
    winners: list[int] = field(default_factory=list)
    commission: int = 0


def uncalled(contrib: dict[int, int]) -> tuple[int | None, int]:
    """(seat, excess) of the top contributor over the second-highest contribution."""
    top = second = 0
    top_seat = None
    for s, c in contrib.items():
        if c > top:
            second, top, top_seat = top, c, s
        elif c > second:
            second = c
    return top_seat, top - second


_TOP = 1 << 62


def build_pots(contrib: dict[int, int], live: Sequence[int], dead: int = 0) -> list[Pot]:
    """Layer contributions at the levels of the players still in (``live``)."""
    levels = sorted({contrib[s] for s in live})
    if len(levels) == 1:  # one level (nobody still in is short): one pot
        pot = Pot(
            sum(contrib.values()) + dead, list(live), {s for s, c in contrib.items() if c > 0}
        )
        if dead:
            pot.contributors.add(-1)
        return [pot] if pot.amount > 0 else []
    pots: list[Pot] = []
    prev = 0
    items = list(contrib.items())
    top = len(levels) - 1
    for i, level in enumerate(levels):
        cap = _TOP if i == top else level  # the last layer takes everything above the previous
        amount = 0
        contributors: set[int] = set()
        for s, c in items:
            if c > prev:  # this contributor's chips in (prev, cap]
                amount += (c if c < cap else cap) - prev
                contributors.add(s)
        eligible = [s for s in live if contrib[s] >= level]
        pots.append(Pot(amount, eligible, contributors))
        prev = level
    if pots and dead:
        pots[0].amount += dead
        pots[0].contributors.add(-1)  # dead money: nobody's contribution level
    return [p for p in pots if p.amount > 0]


def odd_chip_order(rules: RuleSet, seats: Sequence[int], reference: int) -> list[int]:
    """Seats in the order the remainder of a split looks for a sharer.

    * ACT r 9.4 (both games): the sharer "in or nearest clockwise to" the buck seat, the buck
      seat itself first.
    * QLD Sch 11 s27(16) (digest A-14): the first winner clockwise after the button, the
      button last; Sch 5 s25(7) (digest A-3): the first sharer clockwise after the designated
      player of the final round, that player last. ``reference`` is the button/buck seat or
      that designated player (a dead button's seat need not be occupied).
    """
    after = [s for s in seats if s > reference] + [s for s in seats if s < reference]
    if reference in seats:
        if rules.odd_chip == "buck-first":
            return [reference, *after]
        return [*after, reference]
    return after


def settle_pots(
    rules: RuleSet,
    pots: list[Pot],
    winners_of: Callable[[list[int]], list[int]],
    order: Callable[[], Sequence[int]],
) -> tuple[dict[int, int], int, list[dict[str, Any]]]:
    """Find winners, take commission per group, divide. Returns (payouts, commission, groups).

    ``order()`` gives the odd-chip order (:func:`odd_chip_order`); it is called only when a
    split leaves a remainder."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, pot in enumerate(pots):
        w = pot.winners = winners_of(pot.eligible)
        key = tuple(w) if len(w) == 1 else tuple(sorted(w))
        idxs = groups.get(key)
        if idxs is None:
            groups[key] = [i]
        else:
            idxs.append(i)
    payouts: dict[int, int] = {}
    total_commission = 0
    commission_on = rules.commission_on
    cap_left = 0
    if commission_on and rules.cumulative_cap:
        cap_left = money.commission(
            rules.commission_cap_base,
            rules.commission_percent,
            rules.commission_step,
            rules.commission_cap_base,
            rules.chip_unit,
        )
    out_groups = []
    for winners, idxs in groups.items():
        total = 0
        for i in idxs:
            total += pots[i].amount
        exempt = False
        if len(winners) > 1:
            contributors: set[int] = set()
            for i in idxs:
                contributors |= pots[i].contributors
            exempt = contributors <= set(winners)
        c = 0
        if commission_on and not exempt:
            c = money.commission(
                total,
                rules.commission_percent,
                rules.commission_step,
                rules.commission_cap_base,
                rules.chip_unit,
            )
            if rules.cumulative_cap:
                c = min(c, cap_left)
                cap_left -= c
        total_commission += c
        if c:
            left = c
            for i in idxs:  # report the group's commission pot by pot
                pot = pots[i]
                pot.commission = taken = left if left < pot.amount else pot.amount
                left -= taken
        share, rem = money.split(total - c, len(winners), rules.chip_unit)
        shares = dict.fromkeys(winners, share)
        if rem:
            for lucky in order():
                if lucky in shares:
                    shares[lucky] += rem
                    break
            else:
                raise ValueError("the odd-chip order names none of the sharers")
        for s, v in shares.items():
            payouts[s] = payouts[s] + v if s in payouts else v
        out_groups.append(
            {
                "pots": idxs,
                "winners": list(winners),
                "base": total,
                "commission": c,
                "exempt": exempt,
                "shares": shares,
            }
        )
    return payouts, total_commission, out_groups
