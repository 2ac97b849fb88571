"""The betting structure's limits: fixed sizes, the minimum raise, caps, and checking a wager.

Theory of operation
-------------------
The engine's no-limit fast path (``PokerRound._compute_legal``) answers most turns itself;
every other turn at which a bet or raise has someone to answer it comes here
(:func:`general_legal`): raise caps (ACT r 10.2-10.4, QLD s9(3), Sch 5 s26(1)) and their
heads-up exemptions (ACT r 10.5, Sch 5 s26(5), digests A-4 / A-2), the fixed sizes of a limit
round (:func:`limit_sizes`: ACT r 10.2-10.4 with digest A-2, QLD s28(8), Sch 5 s24, s26), the
pot limits (QLD s28(2)-(3)) and the smallest full raise (:func:`min_raise`: ACT r 10.2-10.4
with digests A-3 / A-5, QLD s28(4), Sch 5 s26(4)). It also leaves in ``rnd._full_inc`` the
increment that counts as a full raise (a smaller all-in is a short all-in: ACT r 12.5,
QLD s29(10), Sch 5 s27(6)). :func:`bet_or_raise` checks a bet or raise against the turn's
:class:`~server.games.poker.legal.LegalActions` and refuses it with the engine's stable
IllegalAction codes (module docstring of :mod:`server.games.poker.engine`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.errors import IllegalAction
from server.games.poker.events import Event
from server.games.poker.legal import Bounds, LegalActions, legal

if TYPE_CHECKING:
    from server.games.poker.engine import PokerRound

#: no upper bound (no-limit; a heads-up exemption)
BIG = 1 << 62


def limit_sizes(rnd: PokerRound, opening: bool) -> tuple[int, ...] | None:
    """Fixed increments of a limit round, or None for pot/no-limit ranges."""
    r = rnd.rules
    if r.structure != "limit":
        return None
    lb, st, last = rnd.lb, rnd.street, rnd.street == r.rounds - 1
    if r.variant == "manila":  # ACT r 10.2-10.4, Sch 5 s24, s26
        return (lb, 2 * lb, 3 * lb, 4 * lb) if last else (lb, 2 * lb)
    if r.jurisdiction == "act":  # ACT r 10.2-10.4, digest A-2
        if st == 0:
            return (lb, 2 * lb)
        return (2 * lb, 4 * lb) if last else (2 * lb,)
    assert r.maximum is not None  # rules_for sets it for every QLD hold'em/Omaha table
    return (lb,) if st < 2 else (r.maximum,)  # QLD s28(8)


def min_raise(rnd: PokerRound, s: int) -> int:
    """The smallest full raise increment now (before limit sizes)."""
    r = rnd.rules
    if r.min_raise_rule == "act":  # r 10.2-10.4, digest
        return max(rnd.lb, rnd.max_wager)
    if r.min_raise_rule == "qld-ma":  # s26(4), digest A-8
        return max(rnd.lb, rnd.last_raise)
    if rnd.cb - rnd.bet[s] < rnd.lb:  # QLD s28(4)(a)
        return rnd.lb
    if rnd.last_raise:  # s28(4)(c)
        return rnd.last_raise
    return max(rnd.opening, rnd.lb)  # s28(4)(b)


def general_legal(
    rnd: PokerRound, s: int, check: bool, call: int | None, to_call: int, reach: int
) -> LegalActions:
    """``PokerRound._compute_legal`` once a bet or raise has someone to answer it: every structure,
    raise caps, heads-up exemptions."""
    cb = rnd.cb
    stack = rnd.stacks[s]
    n_active = rnd.n_active
    r = rnd.rules
    opening = cb == 0
    # ACT r 10.5 / Sch 5 s26(5), digests: exactly two players neither folded nor
    # tapped out (Sch 11 has no heads-up exemption: heads_up is None)
    heads_up = n_active == 2 and r.heads_up is not None
    if not opening and r.raise_cap is not None and rnd.raises >= r.raise_cap and not heads_up:
        return legal(s, check=check, call=call, no_raise_code="raise_cap_reached")
    structure = r.structure
    sizes: tuple[int, ...] | None = None
    if heads_up and not opening and r.heads_up == "unrestricted":
        lo, hi = r.chip_unit, BIG
    elif structure == "limit":
        incs = limit_sizes(rnd, opening)
        assert incs is not None
        if opening or r.min_raise_rule == "qld-he":
            allowed = incs
        else:
            mr = min_raise(rnd, s)
            allowed = tuple(x for x in incs if x >= mr) or (incs[-1],)
        lo, hi = allowed[0], allowed[-1]
        sizes = tuple(cb + x for x in allowed if cb + x <= reach)
    else:
        rule = r.min_raise_rule
        lb = rnd.lb
        if opening and rule != "qld-ma":
            lo = lb
        elif rule == "qld-he":  # _min_raise inline (QLD s28(4))
            if to_call < lb:
                lo = lb
            elif rnd.last_raise:
                lo = rnd.last_raise
            else:
                lo = rnd.opening if rnd.opening > lb else lb
        else:
            lo = min_raise(rnd, s)
        if structure == "no-limit":
            hi = BIG
        else:
            pot = rnd.pot + to_call
            hi = pot if structure == "full-pot" else pot // 2
            hi = hi // r.chip_unit * r.chip_unit
        if lo > hi:  # QLD s28(3)
            lo = hi
    rnd._full_inc = lo
    bounds: Bounds | None = None
    allin: int | None = None
    if hi > 0:
        top = cb + hi  # tapping out allowed up to this total
        if reach <= top:
            allin = stack
        if reach >= cb + lo and (sizes is None or sizes):
            bounds = (cb + lo, top if top < reach else reach)
    if bounds is None:
        return legal(
            s,
            check=check,
            call=call,
            allin=allin,
            no_raise_code=None if allin is not None else "action_not_allowed",
        )
    if opening:
        return legal(s, check=check, call=call, bet=bounds, allin=allin, sizes=sizes)
    return legal(s, check=check, call=call, raise_=bounds, allin=allin, sizes=sizes)


def bet_or_raise(
    rnd: PokerRound, la: LegalActions, seat: int, verb: str, amount: int | None
) -> list[Event]:
    """A bet or raise to ``amount`` checked against the turn's options, then made (ACT
    r 10.2-10.6, QLD s28, Sch 5 s26); refused with an IllegalAction, state unchanged."""
    mine = rnd.bet[seat]
    opening = rnd.cb == 0
    if verb == "bet" and not opening:
        raise IllegalAction(
            "action_not_allowed",
            f"a wager of {rnd.rules.money(rnd.cb)} is already made: raise or call",
        )
    if verb == "raise" and opening:
        raise IllegalAction("action_not_allowed", "nothing to raise: bet or check")
    if amount is None:
        raise IllegalAction("amount_required", f"{verb} needs a 'raise to' amount")
    if type(amount) is not int:
        raise IllegalAction(
            "amount_invalid",
            f"amount must be whole {'chips' if rnd.rules.chips else 'cents'}, got {amount!r}",
        )
    bounds = la.bet if opening else la.raise_
    reach = mine + rnd.stacks[seat]
    if amount == reach and la.allin is not None:
        return rnd._wager(seat, "allin", amount)
    if bounds is None:
        code: str = la.no_raise_code or "action_not_allowed"
        if code == "action_not_allowed" and la.allin is not None and amount > reach:
            code = "amount_too_large"
        raise IllegalAction(code, no_raise_message(rnd, code, seat))
    lo, hi = bounds
    if amount > reach:
        raise IllegalAction(
            "amount_too_large",
            f"{verb} to {rnd.rules.money(amount)} exceeds seat {seat}'s stake "
            f"({rnd.rules.money(reach)} in all)",
        )
    if amount < lo:
        raise IllegalAction(
            "amount_too_small", f"the minimum {verb} is to {rnd.rules.money(lo)}", {"min": lo}
        )
    if amount > hi:
        raise IllegalAction(
            "amount_too_large", f"the maximum {verb} is to {rnd.rules.money(hi)}", {"max": hi}
        )
    if la.sizes is not None and amount not in la.sizes:
        allowed = " or ".join(rnd.rules.money(s) for s in la.sizes)
        raise IllegalAction(
            "amount_not_allowed",
            f"{verb} must be to {allowed}",
            {f"size_{i}": x for i, x in enumerate(la.sizes)},
        )
    return rnd._wager(seat, verb, amount)


def no_raise_message(rnd: PokerRound, code: str, seat: int) -> str:
    """Why a bet or raise (or a tap-out) is refused, for the code of the refusal."""
    if code == "raise_cap_reached":
        return f"the raise cap ({rnd.rules.raise_cap}) for this betting round is reached"
    if code == "betting_closed":
        return "after an all-in for less than a raise, only calls are allowed"
    return f"seat {seat} may not bet or raise now"
