"""What the seat to act may do now, with amount bounds (``PokerRound.legal_actions()``).

Amounts for ``bet`` and ``raise`` are "raise to" totals: the seat's total wager in this
betting round after the action (``shared/SCENARIOS.md``); a blind counts toward its poster's
round-1 total. ``call`` and ``allin`` give the chips the action moves from the stack.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, Protocol

#: why a bet or raise is refused to the seat to act (an IllegalAction code of the engine)
NoRaiseCode = Literal["action_not_allowed", "betting_closed", "raise_cap_reached"]
#: (min, max) totals of a bet or raise
Bounds = tuple[int, int]


class LegalActions(NamedTuple):
    """Built once per turn by the engine; immutable (a named tuple: built at C speed on the
    engine's hot path, once per turn)."""

    seat: int
    fold: bool
    check: bool
    #: chips a call moves (less than the amount to call when the call taps out), or None.
    call: int | None
    #: (min, max) opening-bet totals, or None.
    bet: Bounds | None
    #: (min, max) raise-to totals, or None.
    raise_: Bounds | None
    #: chips a tap-out moves (the whole stack), or None when tapping out is not allowed.
    allin: int | None
    #: the only totals allowed for bet/raise under fixed limits (None: any in the range).
    sizes: tuple[int, ...] | None = None
    #: why bet/raise is refused, when it is ("raise_cap_reached", "betting_closed", ...).
    no_raise_code: NoRaiseCode | None = None

    def verbs(self) -> list[str]:
        out = ["fold"]
        if self.check:
            out.append("check")
        if self.call is not None:
            out.append("call")
        if self.bet is not None:
            out.append("bet")
        if self.raise_ is not None:
            out.append("raise")
        if self.allin is not None:
            out.append("allin")
        return out

    def to_wire(self) -> list[dict[str, Any]]:
        """A list of ``{"verb": ..., bounds}``, e.g. ``{"verb": "raise", "min": 400, ...}``."""
        out: list[dict[str, Any]] = [{"verb": "fold"}]
        if self.check:
            out.append({"verb": "check"})
        if self.call is not None:
            out.append({"verb": "call", "amount": self.call})
        for verb, bounds in (("bet", self.bet), ("raise", self.raise_)):
            if bounds is not None:
                d: dict[str, Any] = {"verb": verb, "min": bounds[0], "max": bounds[1]}
                if self.sizes is not None:
                    d["sizes"] = list(self.sizes)
                out.append(d)
        if self.allin is not None:
            out.append({"verb": "allin", "amount": self.allin})
        return out


#: every field of a :class:`LegalActions`, in order, typed (what :data:`fast` takes)
Fields = tuple[
    int,
    bool,
    bool,
    int | None,
    Bounds | None,
    Bounds | None,
    int | None,
    tuple[int, ...] | None,
    NoRaiseCode | None,
]


class _Build(Protocol):
    """``tuple.__new__`` typed for :class:`LegalActions`: every field checked by mypy."""

    def __call__(self, cls: type[LegalActions], fields: Fields, /) -> LegalActions: ...


#: builds a :class:`LegalActions` from its complete field tuple without the keyword-aware
#: ``__new__``: the no-limit hot path's builder (``PokerRound._compute_legal``, once per
#: turn). Measured: 0.13 us a call, against 0.6 us for the named tuple's keywords, some 12
#: us a 9-seat hand; everywhere else use :func:`legal`.
fast: _Build = tuple.__new__


def legal(
    seat: int,
    *,
    check: bool,
    call: int | None,
    bet: Bounds | None = None,
    raise_: Bounds | None = None,
    allin: int | None = None,
    sizes: tuple[int, ...] | None = None,
    no_raise_code: NoRaiseCode | None = None,
) -> LegalActions:
    """A :class:`LegalActions` by keyword (the seat to act may always fold)."""
    return fast(LegalActions, (seat, True, check, call, bet, raise_, allin, sizes, no_raise_code))
