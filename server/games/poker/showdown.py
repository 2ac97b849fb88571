"""The end of a round of play: dealing out, the uncalled wager, the pots, the showdown, a void.

Theory of operation
-------------------
:func:`settle_round` runs once, when one player is left or the last betting round ends. With
more than one player left it deals out the board (ACT r 8.6, QLD s27(2)) and values every
live hand (:func:`hand_values`: ACT r 14.1, QLD s2, Sch 5 s4). It returns the uncalled wager
(ACT r 11.4, QLD s26(3)(a); a fold-around to the second blind: QLD s24(5)-(6), digest A-1),
builds the main and side pots and awards them with their commission and odd chips (module
:mod:`server.games.poker.settle`), shows or mucks the hands in showing order (:func:`show`:
ACT r 9.2, QLD s27(2)-(3), Sch 5 s25(2)-(3)), and leaves the :class:`RoundResult` on the
round. :func:`void` is the other ending: a misdeal or void round returns every wager and fee
(ACT r 16.2, 18.3-18.4; QLD s32-33A; Sch 5 s33).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from server.cards import card_str
from server.errors import IllegalAction
from server.games.poker import settle
from server.games.poker.deal import turn_board
from server.games.poker.events import (
    CommissionTaken,
    Event,
    HandMucked,
    HandShown,
    PotAwarded,
    RoundEnded,
    RoundVoided,
    UncalledReturned,
)
from server.hands import best_exact, best_of_each, category_name

if TYPE_CHECKING:
    from server.games.poker.engine import PokerRound


@dataclass(slots=True)
class RoundResult:
    """The settled round. ``to_scenario()`` gives the SCENARIOS.md result fields."""

    stacks: dict[int, int]
    pots: list[dict[str, Any]]
    commission: int
    fees: int
    uncalled: dict[int, int]
    board: list[int]
    showdown: dict[int, str]
    voided: str | None = None
    groups: list[dict[str, Any]] = field(default_factory=list)

    def to_scenario(self) -> dict[str, Any]:
        return {
            "state": "complete",
            "stacks": {str(s): v for s, v in sorted(self.stacks.items())},
            "commission": self.commission,
            "fees": self.fees,
            "pots": [
                {
                    "amount": p["amount"],
                    "eligible": p["eligible"],
                    "winners": p["winners"],
                    "commission": p["commission"],
                }
                for p in self.pots
            ],
            "uncalled": {str(s): v for s, v in self.uncalled.items()},
            "board": [card_str(c) for c in self.board],
            "showdown": {str(s): v for s, v in sorted(self.showdown.items())},
            "error": None,
        }


def hand_values(rnd: PokerRound, live: list[int]) -> dict[int, int]:
    """Every live hand's value (the showdown shows or mucks them all, so all are needed):
    hold'em the best five of hole and board (ACT r 14.1, QLD s2), the board's keys summed
    once for all; Omaha and Manila exactly ``exact_use`` hole and board cards (ACT r 14.1,
    QLD s2 "hand", Sch 5 s4)."""
    r = rnd.rules
    hole, board, ranking = rnd.hole, rnd.board, r.ranking
    if r.exact_use is None:
        values = best_of_each([hole[s] for s in live], board, ranking)
        return dict(zip(live, values, strict=False))  # one value per seat
    nh, nb = r.exact_use
    return {s: best_exact(hole[s], board, nh, nb, ranking) for s in live}


def settle_round(rnd: PokerRound, ev: list[Event]) -> None:
    """Deal out, return the uncalled wager, build and award the pots (module
    :mod:`.settle`), show or muck, and end the round; appends the events to ``ev``."""
    r = rnd.rules
    folded = rnd.folded
    live = [s for s in rnd.seats if s not in folded]
    showdown = len(live) > 1
    if showdown:  # deal out (ACT r 8.6, QLD s27(2))
        while rnd.street < rnd._last_street:
            rnd.street += 1
            turn_board(rnd, rnd.street, ev)
    contrib = rnd.contrib
    uncalled: dict[int, int] = {}
    top: int | None
    if (
        not showdown
        and r.fold_around == "return-second-blind"
        and rnd.street == 0
        and live[0] == rnd.second_blind_seat
        and rnd.cb == rnd.lb
        and all(c < rnd.lb for x, c in contrib.items() if x != live[0])
    ):
        top, excess = live[0], contrib[live[0]]  # QLD s24(5)-(6), s26(3)(a), digest A-1
    else:
        top, excess = settle.uncalled(contrib)
    if top is not None and excess:
        contrib = dict(contrib)  # rnd.contrib keeps what was wagered
        contrib[top] -= excess
        rnd.stacks[top] += excess
        uncalled[top] = excess
        ev.append(UncalledReturned(top, excess))
    pots = settle.build_pots(contrib, live, rnd.dead)
    vals = hand_values(rnd, live) if showdown else {}

    def winners_of(eligible: list[int]) -> list[int]:
        if len(eligible) == 1:
            return list(eligible)
        best = max(map(vals.__getitem__, eligible))
        return [s for s in eligible if vals[s] == best]

    def order() -> Sequence[int]:
        ref = rnd.designated_player() if r.odd_chip == "after-designated" else rnd.designated
        if ref in rnd._idx:  # settle.odd_chip_order, from the rings
            return rnd._from[ref] if r.odd_chip == "buck-first" else rnd._after[ref]
        return settle.odd_chip_order(r, rnd.seats, ref)

    payouts, commission, groups = settle.settle_pots(r, pots, winners_of, order)
    showdown_names: dict[int, str] = {}
    if showdown:
        show(rnd, live, pots, vals, showdown_names, ev)
    for g in groups:
        if g["commission"]:
            ev.append(CommissionTaken(tuple(g["pots"]), g["base"], g["commission"]))
        ev.append(
            PotAwarded(g["pots"][0], g["base"], tuple(g["winners"]), g["shares"], g["commission"])
        )
    stacks = rnd.stacks
    for s, v in payouts.items():
        stacks[s] += v
    rnd.complete = True
    rnd.to_act = None
    rnd._legal = None
    rnd.result = RoundResult(
        stacks=dict(stacks),
        pots=[
            {
                "amount": p.amount,
                # in seat order already: filtered from the live seats, in seat order
                "eligible": list(p.eligible),
                "winners": sorted(p.winners),
                "commission": p.commission,
            }
            for p in pots
        ],
        commission=commission,
        fees=rnd.fees,
        uncalled=uncalled,
        board=list(rnd.board),
        showdown=showdown_names,
        groups=groups,
    )
    ev.append(RoundEnded(dict(stacks)))


def show(
    rnd: PokerRound,
    live: list[int],
    pots: list[settle.Pot],
    vals: dict[int, int],
    names: dict[int, str],
    ev: list[Event],
) -> None:
    """Showing order: the called player first (ACT r 9.2, QLD s27(2)-(3), Sch 5 s25(2)-(3));
    with no final wager the first player in the betting order (ACT A-10, QLD s27(3), Sch 5
    s25(3)). Others show only an equal or better hand, or a hand that wins a pot."""
    r = rnd.rules
    winners = {w for p in pots for w in p.winners}
    folded = rnd.folded
    start = rnd.aggressor
    if start is None or start in folded:
        first = (
            rnd.after(rnd.designated)
            if r.postflop_after_button
            else rnd.from_(rnd.designated_player())
        )
        for start in first:
            if start not in folded:
                break
    assert start is not None
    best = -1
    hole, shown = rnd.hole, rnd.shown
    i = live.index(start)  # the live seats clockwise from start (live is in seat order)
    for s in live[i:] + live[:i]:
        v = vals[s]
        if v >= best or s in winners:
            if v > best:
                best = v
            name = category_name(v)
            names[s] = name
            cards = shown[s] = hole[s]
            ev.append(HandShown(s, tuple(cards), name))
        else:
            ev.append(HandMucked(s))


def void(rnd: PokerRound, reason: str) -> list[Event]:
    """A misdeal or void round (ACT r 16.2, 18.3-18.4; QLD s32-33A; Sch 5 s33): every
    wager and fee is returned and no commission is taken."""
    if rnd.complete:
        raise IllegalAction("round_complete", "the round of play is over")
    rnd.stacks = dict(rnd.start_stacks)
    rnd.complete = True
    rnd.to_act = None
    rnd._legal = None
    rnd.result = RoundResult(
        stacks=dict(rnd.stacks),
        pots=[],
        commission=0,
        fees=0,
        uncalled={},
        board=list(rnd.board),
        showdown={},
        voided=reason,
    )
    return [RoundVoided(reason, dict(rnd.stacks)), RoundEnded(dict(rnd.stacks))]
