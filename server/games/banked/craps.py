"""Craps (Queensland Casino Gaming Rule 2010, Schedule 4; seed 004).

Game id ``craps``. Digest: ``../shared/rules/craps.md`` ("sN" = Schedule 4 section N).

Theory of operation
-------------------
Craps is a shared-outcome game whose wagers outlive a roll: a win bet waits for its point, a
come bet travels to its come point, a place bet stays up after it wins. The engine keeps the
**layout** (:class:`Layout`): the puck (``None`` = OFF, the next roll is a come-out roll, s2;
else the come out point) and every wager standing on it (:class:`Standing`: box, id, stake,
come point, "on"/"off" marker, commission paid, the s6(3) no-increase mark).

A :class:`Craps` round is a sequence of rolls at one table, on the banked framework:

    rnd = Craps(options, new_wagers, rng, forced, layout=previous.layout)
    rnd.start()                                   # RoundStarted; nothing thrown yet
    rnd.decide(1, "bet", {"place_6": 600})         # a wager between rolls (s5(1))
    rnd.decide(1, "on", "place_6")                 # the on marker (s7)
    rnd.roll()                                     # no more bets; one roll is thrown and settled
    rnd.end_of_decisions()                         # throw what the outcome still holds; complete
    rnd.layout                                     # what stands for the next round

The rolls come, in order of precedence, from a live result (``start(outcome)`` or
``roll(outcome)``), the scenario's forced ``outcome.rolls``, or the injected
:class:`~server.cards.RandomSource`: one unbiased ``randbelow(6)`` per die. A scenario decision
``[box, verb, amount, {"before_roll": k}]`` first throws rolls up to index ``k``; once the
decisions are exhausted the remaining forced rolls are thrown (or, with none given, one roll
from the random source). A table would run one roll per round and carry ``layout`` over.

Each roll: a "no roll" (s23) settles nothing and every wager stands (A9); otherwise every
wager the total decides is settled, losers collected first, then winners paid (ETG s7), the
stakes that win stay up or come down as the digest's §5.1 says, come bets travel to their come
points (s2, s4) and the puck moves. A wager's figure is its net over all the rolls; ``0`` while
undecided; buy and lay commissions (s11(1), s12(1)) are their own figure, ``commission``.

Wager ids (the digest's; payout odds s10-s12, not operator options):

* ``win`` / ``dont_win``: the line (s4), placed only while the puck is OFF; 1 to 1; the don't
  side is void on a come-out 2 (bar 2, A7);
* ``come`` / ``dont_come``: placed while the puck is ON (A1; option
  ``come_bets_when_puck_off``); 1 to 1; they travel to their come point;
* ``win_odds``, ``dont_win_odds``, ``come_odds_<n>``, ``dont_come_odds_<n>``: the supplemental
  wagers of s14-s17 at true odds, up to the maximum of digest §3.2;
* ``place_<n>`` (9:5, 7:5, 7:6), ``buy_<n>`` (2:1, 3:2, 6:5; commission on the stake, s11),
  ``lay_<n>`` (1:2, 2:3, 5:6; commission on the win, s12), n in 4, 5, 6, 8, 9, 10;
* ``big6``, ``big8`` (1 to 1); ``hard_<n>``, n in 4, 6, 8, 10 (7.5 / 9.5 to 1);
* one roll (s4(2)): ``field`` (1 to 1; 2 to 1 on 2 and 12), ``any7`` (4), ``any_craps``
  (7.5), ``craps2`` (33), ``craps3`` (16), ``craps12`` (33), ``eleven`` (16), ``horn`` (four
  equal units on 2, 3, 11, 12) and ``horn_high_<x>`` (five units, two on x), paid as separate
  wagers (s10(2)).

Place, buy, hardway and come-odds wagers are inactive on a come-out roll unless "on" (s7(1),
s16(6)); an on marker on one wager turns on the player's similar wagers (s7(2), A3) unless
another is marked off. Verbs: ``bet`` ({id: cents}, placed or added to), ``reduce`` ({id: new
cents}), ``remove`` (id), ``on`` / ``off`` (id).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from math import ceil, floor
from typing import Any, ClassVar

from server.cards import RandomSource
from server.errors import IllegalAction
from server.games.banked.base import (
    BankedRound,
    Choice,
    Decision,
    Event,
    Forced,
    InvalidRound,
    JackpotState,
    Odds,
    OptionSpec,
    RoundSettled,
    WagerSettled,
    WagerSpec,
    pay,
)
from server.games.banked.outcome import (
    OutcomeDeclared,
    SharedOutcomeSpec,
    number_suffix,
    roll_dice,
)
from server.money import dollars

POINTS = (4, 5, 6, 8, 9, 10)
HARD = (4, 6, 8, 10)
HORN = (2, 3, 11, 12)
ONE_ROLL = ("field", "any7", "any_craps", "craps2", "craps3", "craps12", "eleven")
SIMPLE = ("win", "dont_win", "come", "dont_come", "win_odds", "dont_win_odds", "big6", "big8")
#: per point-numbered family, the numbers it takes
NUMBERED: dict[str, tuple[int, ...]] = {
    "place": POINTS,
    "buy": POINTS,
    "lay": POINTS,
    "come_odds": POINTS,
    "dont_come_odds": POINTS,
    "hard": HARD,
    "horn_high": HORN,
}

#: s7(1)/s16(6): inactive on a come-out roll unless on; the marker's "similar wagers" (A3)
CATEGORY = {"place": "place_buy", "buy": "place_buy", "hard": "hardways", "come_odds": "come_odds"}

#: s23: why a roll is invalid ("no roll")
NO_ROLL_REASONS = {
    "off_table": "s23(1)(a)",
    "die_on_die": "s23(1)(b)",
    "on_bank_chips": "s23(1)(c)",
    "in_cup_or_on_rail": "s23(1)(d)",
    "more_than_one_side_on_object": "s23(1)(e)",
    "cheating": "s23(1)(f)",
    "unapproved_dice": "s23(1)(g)",
    "fell_in_or_out_of_cup": "s23(1)(h)",
    "knocked_dice_from_cup": "s23(1)(i)",
    "not_simultaneous": "s23(2)(a)",
    "far_end_not_struck": "s23(2)(b)",
    "improper": "s23(2)(c)",
}


def _true(n: int) -> Odds:
    """s11(2)/s14(5): true odds on n to win (2:1, 3:2, 6:5)."""
    return {4: (2, 1), 10: (2, 1), 5: (3, 2), 9: (3, 2), 6: (6, 5), 8: (6, 5)}[n]


def _lay(n: int) -> Odds:
    """s12(2)/s15(5): true odds on n to lose (1:2, 2:3, 5:6)."""
    w, per = _true(n)
    return per, w


#: s10(1), s11(2), s12(2), s14(5)-s17(5): payout odds by pay-table key.
S10: dict[str, Odds] = {
    "win": (1, 1),
    "dont_win": (1, 1),
    "come": (1, 1),
    "dont_come": (1, 1),
    "big6": (1, 1),
    "big8": (1, 1),
    "field": (1, 1),
    "field_2": (2, 1),
    "field_12": (2, 1),
    "any7": (4, 1),
    "any_craps": (15, 2),
    "craps2": (33, 1),
    "craps3": (16, 1),
    "craps12": (33, 1),
    "eleven": (16, 1),
    **{f"horn_{t}": o for t, o in ((2, (33, 1)), (3, (16, 1)), (11, (16, 1)), (12, (33, 1)))},
    **{f"hard_{n}": (15, 2) if n in (4, 10) else (19, 2) for n in HARD},
    **{f"place_{n}": (9, 5) if n in (4, 10) else (7, 5) if n in (5, 9) else (7, 6) for n in POINTS},
    **{f"{k}_{n}": _true(n) for n in POINTS for k in ("buy", "win_odds", "come_odds")},
    **{f"{k}_{n}": _lay(n) for n in POINTS for k in ("lay", "dont_win_odds", "dont_come_odds")},
}

#: s14(3)(a) PROPOSED payable units (digest §3.2): the smallest odds stake winning whole dollars
TAKE_UNIT = {4: 100, 10: 100, 5: 200, 9: 200, 6: 500, 8: 500}
LAY_UNIT = {4: 200, 10: 200, 5: 300, 9: 300, 6: 600, 8: 600}
#: digest §8 ``place_amount_units_enforced``: place 4/5/9/10 in $5, 6/8 in $6
PLACE_UNIT = {4: 500, 10: 500, 5: 500, 9: 500, 6: 600, 8: 600}


def parse(wager: str) -> tuple[str, int | None] | None:
    """A wager id -> (family, number), or ``None`` if it names no s4 wager."""
    if not isinstance(wager, str):
        return None
    if wager in SIMPLE or wager in ONE_ROLL or wager == "horn":
        return wager, None
    for fam in sorted(NUMBERED, key=len, reverse=True):
        n = number_suffix(wager, fam)
        if n is not None:
            return (fam, n) if n in NUMBERED[fam] else None
    return None


def normal_odds(lay: bool, n: int, line: int) -> Fraction:
    """s14(2)-s17(2): the odds stake allowed on a line / come bet of ``line`` on ``n``: the
    line bet itself, or on the don't side the lay that wins it."""
    if not lay:
        return Fraction(line)
    win, per = _lay(n)
    return Fraction(line * per, win)


def odds_cap(lay: bool, n: int, line: int, multiple: int, roundup: bool) -> int:
    """The largest odds stake (digest §3.2): the s14-s17(2) maximum, rounded up to a payable
    unit (s14-s17(3)(a)); with 2x odds (3)(b), twice it is a ceiling, rounded down to the
    unit but never below the 1x maximum rounded up. Without unit round-up, exactly
    ``multiple`` times the maximum, rounded down to the cent."""
    normal = normal_odds(lay, n, line)
    if not roundup:
        return floor(normal * multiple)
    unit = (LAY_UNIT if lay else TAKE_UNIT)[n]
    up = ceil(normal / unit) * unit
    if multiple == 1:
        return up
    return max(floor(normal * multiple / unit) * unit, up)


def horn_units(wager: str, stake: int) -> dict[int, int]:
    """A horn's stake per total: four equal units, a horn high's fifth unit on its number
    (s4 horn high bet (a), s10(2))."""
    fam, n = parse(wager) or ("", None)
    u = stake // (4 if fam == "horn" else 5)
    return {t: u * (2 if t == n else 1) for t in HORN}


def family(wager: str) -> str | None:
    """The wager's family (``place_6`` -> ``place``), or ``None``."""
    p = parse(wager)
    return None if p is None else p[0]


@dataclass
class Standing:
    """One wager on the layout. ``point``: a come / don't come bet's come point once it has
    travelled; ``units``: a horn's stake per total (s10(2)); ``marker``: the player's explicit
    on (``True``) / off (``False``) marker, ``None`` for none (s7)."""

    box: int
    name: str
    stake: int
    point: int | None = None
    units: dict[int, int] | None = None
    commission: int = 0
    marker: bool | None = None
    no_increase: bool = False


@dataclass
class Layout:
    """The table between rolls: the puck (``None`` = OFF) and the standing wagers."""

    point: int | None = None
    wagers: list[Standing] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The layout as JSON (a stadium round's record: the layout a roll was thrown on)."""
        return {"point": self.point, "wagers": [asdict(w) for w in self.wagers]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Layout:
        wagers = []
        for w in data["wagers"]:
            units = w.get("units")
            fields = {
                **w,
                "units": None if units is None else {int(k): v for k, v in units.items()},
            }
            wagers.append(Standing(**fields))
        return cls(data["point"], wagers)


@dataclass(frozen=True)
class Roll:
    """One throw: two faces, or a "no roll" with its s23 reason code."""

    dice: tuple[int, int] | None
    no_roll: str | None = None

    @property
    def total(self) -> int:
        assert self.dice is not None
        return self.dice[0] + self.dice[1]

    @property
    def hard(self) -> bool:
        assert self.dice is not None
        return self.dice[0] == self.dice[1]

    def wire(self) -> Any:
        return list(self.dice) if self.dice is not None else {"invalid": self.no_roll}


# --------------------------------------------------------------------------- events


class WagerPlaced(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "wager_placed"
    box: int
    wager: str
    amount: int  # the wager's stake after the change
    commission: int = 0  # commission charged (negative: returned) by this change


class MarkerSet(Event, frozen=True, kw_only=True):
    """The on / off marker on a wager (s7)."""

    TYPE: ClassVar[str] = "marker_set"
    box: int
    wager: str
    on: bool


class NoRoll(Event, frozen=True, kw_only=True):
    """An invalid roll (s23): nothing is settled, every wager stands (A9)."""

    TYPE: ClassVar[str] = "no_roll"
    roll: int
    reason: str
    rule: str


class WagerTravelled(Event, frozen=True, kw_only=True):
    """A come / don't come bet moves to its come point (s2, s4)."""

    TYPE: ClassVar[str] = "wager_travelled"
    box: int
    wager: str
    point: int


class PuckMoved(Event, frozen=True, kw_only=True):
    """The puck after a roll: ``point`` None = OFF (the next roll is a come-out roll, s2)."""

    TYPE: ClassVar[str] = "puck_moved"
    point: int | None


# --------------------------------------------------------------------------- spec


@dataclass(frozen=True)
class CrapsSpec(SharedOutcomeSpec):
    """Odds wagers are held to ``odds_maximum`` (s8(2)), which the round checks, not to the
    table ``maximum``."""

    def wager(self, name: str) -> WagerSpec | None:
        fam = family(name)
        if fam is None:
            return None
        return WagerSpec(name, limits="decision" if fam.endswith("odds") else "table")


def terminal_layout(options: Mapping[str, Any]) -> dict[str, Any]:
    """What a stadium terminal draws (Sch 19 ETG-10, -12): the line, number and proposition
    wagers with the s10 payouts the engine pays, the points and the odds multiple."""
    pays = S10
    line = [
        {"id": w, "label": w.replace("_", " "), "pays": [1, 1]}
        for w in ("win", "dont_win", "come", "dont_come", "win_odds", "dont_win_odds")
    ]
    numbers = [
        {"id": f"{k}_{n}", "label": f"{k} {n}", "pays": list(pays[f"{k}_{n}"])}
        for k in ("place", "buy", "lay")
        for n in POINTS
    ]
    props = [
        {"id": w, "label": w.replace("_", " "), "pays": list(pays[w])}
        for w in ("field", "any7", "any_craps", "craps2", "craps3", "craps12", "eleven")
    ]
    props += [
        {"id": f"hard_{n}", "label": f"hard {n}", "pays": list(pays[f"hard_{n}"])} for n in HARD
    ]
    props += [{"id": w, "label": w, "pays": [1, 1]} for w in ("big6", "big8")]
    return {
        "kind": "craps",
        "line": line,
        "numbers": numbers,
        "props": props,
        "points": list(POINTS),
        "odds_multiple": options["odds_multiple"],
        # come and don't come while the puck is OFF (A1), else only once a point is on
        "come_when_puck_off": bool(options.get("come_bets_when_puck_off")),
    }


def refuse_no_roll(reason: str) -> str | None:
    """Why an entered no roll's reason is refused (s23), or None."""
    if reason in NO_ROLL_REASONS:
        return None
    return f"a no roll is one of {', '.join(sorted(NO_ROLL_REASONS))} (Sch 4 s23)"


SPEC = CrapsSpec(
    id="craps",
    title="Craps",
    rules="Queensland Casino Gaming Rule 2010, Schedule 4",
    wagers=(
        WagerSpec("win", doc="s4 win bet (pass): only while the puck is OFF; 1 to 1"),
        WagerSpec("dont_win", doc="s4 don't win bet: only while the puck is OFF; bar 2; 1 to 1"),
        WagerSpec("come", doc="s4 come bet: while the puck is ON (A1); 1 to 1"),
        WagerSpec("dont_come", doc="s4 don't come bet: while the puck is ON (A1); bar 2; 1 to 1"),
        WagerSpec("win_odds", doc="s14: on the win bet's point; 2:1, 3:2, 6:5"),
        WagerSpec("dont_win_odds", doc="s15: on the don't win bet's point; 1:2, 2:3, 5:6"),
        WagerSpec("come_odds_<n>", doc="s16: on a come bet at n; 2:1, 3:2, 6:5"),
        WagerSpec("dont_come_odds_<n>", doc="s17: on a don't come bet at n; 1:2, 2:3, 5:6"),
        WagerSpec("place_<n>", doc="s4, s10: n before 7; 9:5, 7:5, 7:6"),
        WagerSpec("buy_<n>", doc="s11: n before 7 at 2:1, 3:2, 6:5; commission on the stake"),
        WagerSpec("lay_<n>", doc="s12: 7 before n at 1:2, 2:3, 5:6; commission on the win"),
        WagerSpec("big6", doc="s4: 6 before 7; 1 to 1"),
        WagerSpec("big8", doc="s4: 8 before 7; 1 to 1"),
        WagerSpec("hard_<n>", doc="s4: n = 4, 6, 8, 10 as a pair before easy n or 7; 7.5/9.5"),
        WagerSpec("field", doc="s4: one roll 2, 3, 4, 9, 10, 11, 12; 2 to 1 on 2 and 12"),
        WagerSpec("any7", doc="s4: one roll 7; 4 to 1"),
        WagerSpec("any_craps", doc="s4: one roll 2, 3, 12; 7.5 to 1"),
        WagerSpec("craps2", doc="s4: one roll 2; 33 to 1"),
        WagerSpec("craps3", doc="s4: one roll 3; 16 to 1"),
        WagerSpec("craps12", doc="s4: one roll 12; 33 to 1"),
        WagerSpec("eleven", doc="s4: one roll 11; 16 to 1"),
        WagerSpec("horn", doc="s4, s10(2): four equal units on 2, 3, 11, 12"),
        WagerSpec("horn_high_<x>", doc="s4: five units, the fifth on x (2, 3, 11 or 12)"),
    ),
    verbs=("bet", "reduce", "remove", "on", "off"),
    options=(
        OptionSpec("num_boxes", 200, minimum=1, doc="player positions (ETG s2(3))"),
        OptionSpec("odds_multiple", 1, choices=(1, 2), doc="s14-s17(3)(b): 2 if the casino agrees"),
        OptionSpec(
            "odds_payable_unit_roundup",
            True,
            bool,
            doc="s14-s17(3)(a): odds may exceed the maximum to make a payable unit",
        ),
        OptionSpec(
            "odds_round_up_to_dollar",
            False,
            bool,
            doc="s14-s17(4): odds winnings on a (3)(a)/(b) wager rounded up to a dollar",
        ),
        OptionSpec(
            "odds_maximum",
            None,
            nullable=True,
            minimum=1,
            doc="s8: the sign's maximum for odds wagers, cents (null: full odds on a maximum "
            "line bet; a smaller figure is refused, s8(2))",
        ),
        OptionSpec(
            "buy_lay_commission_bp",
            500,
            minimum=0,
            doc="s11(1), s12(1): commission in basis points, at most 500 (5%), rounded down",
        ),
        OptionSpec(
            "buy_lay_stays_up",
            False,
            bool,
            doc="digest §5.1/A4: a winning buy or lay bet stays up (no new commission)",
        ),
        OptionSpec(
            "place_amount_units_enforced",
            True,
            bool,
            doc="A5: place 4/5/9/10 in multiples of $5, 6/8 of $6",
        ),
        OptionSpec(
            "horn_unit", 100, minimum=1, doc="horn / horn high units: multiples of this (cents)"
        ),
        OptionSpec(
            "come_bets_when_puck_off",
            False,
            bool,
            doc="A1: come / don't come bets also while the puck is OFF (literal s4)",
        ),
    ),
    pay_tables={"s10": {"payout": S10}},
    parse=family,
    empty_boxes=True,
    # table facts (stadium): a no roll is recorded and every wager stands (s23, A9); the
    # layout carries from roll to roll (s2, s4); a roll is corrected before the next
    # betting window (s24)
    on_invalid="roll",
    refuse_invalid=refuse_no_roll,
    terminal_layout=terminal_layout,
    layout_carries="a craps roll is corrected before the next betting window (Sch 4 s24)",
)


# --------------------------------------------------------------------------- the round


class Craps(BankedRound):
    """Rolls at one craps table (see the module docstring)."""

    spec: ClassVar[CrapsSpec] = SPEC

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
        layout: Layout | None = None,
    ) -> None:
        super().__init__(options, wagers, rng, forced, jackpot)
        if jackpot is not None:
            raise InvalidRound("craps has no jackpot")
        if self.options["jackpot_wager"] is not None:
            raise InvalidRound("craps offers no jackpot wager")
        if self.options["buy_lay_commission_bp"] > 500:
            raise InvalidRound("buy_lay_commission_bp is at most 500 (5%, s11(1), s12(1))")
        if forced is not None and (forced.boxes or forced.dealer or forced.board or forced.shoe):
            raise InvalidRound("craps uses no cards: give the outcome instead")
        #: s8(1)-(2): the sign's maximum for odds, never short of full odds on a maximum bet
        full = max(
            odds_cap(lay, n, self.options["maximum"], *self._odds_rules())
            for lay in (False, True)
            for n in POINTS
        )
        self.odds_limit: int = self.options["odds_maximum"] or full
        if self.odds_limit < full:
            raise InvalidRound(
                f"odds_maximum {dollars(self.odds_limit)} stops full odds on a maximum line "
                f"bet ({dollars(full)} needed, s8(2))"
            )
        self.given: list[Roll] | None = None
        if forced is not None and forced.outcome is not None:
            self.given = self._parse_outcome(forced.outcome)
        self.layout = copy.deepcopy(layout) if layout is not None else Layout()
        self.rolls: list[Roll] = []
        self._due = 1  # rolls to throw at the end when none are given (after the last bet)
        # the initial wagers go on the layout as a bet before the first roll would
        self.stakes = {b: {} for b in self.wagers}
        for box, ws in self.wagers.items():
            for name, amount in ws.items():
                self._bet(box, name, amount)
        for w in self.layout.wagers:
            self.nets.setdefault(w.box, {})

    # ----------------------------------------------------------------- public API
    def start(self, outcome: Mapping[str, Any] | None = None) -> list[Event]:
        """Open the round (nothing is thrown yet). ``outcome``: live rolls, scenario shape."""
        if outcome is not None:
            self.given = self._parse_outcome(outcome)
        return super().start()

    def pending(self) -> list[Decision]:
        return []

    def decide(
        self,
        box: int,
        verb: str,
        amount: Any = None,
        qualifiers: Mapping[str, Any] | None = None,
    ) -> list[Event]:
        """A wager or marker between rolls; ``{"before_roll": k}`` throws rolls up to ``k``
        first. Illegal: :class:`IllegalAction`, nothing changed (rolls already due stand)."""
        self._check_open()
        quals = dict(qualifiers or {})
        k = quals.pop("before_roll", None)
        if quals:
            raise IllegalAction("unexpected_qualifiers", f"craps takes before_roll, not {quals}")
        if k is not None:
            if isinstance(k, bool) or not isinstance(k, int) or k < len(self.rolls):
                raise IllegalAction("bad_before_roll", f"before_roll {k!r}: already thrown")
            if self.given is not None and k >= len(self.given):
                raise IllegalAction("bad_before_roll", f"before_roll {k}: no such roll")
        if not 1 <= box <= self.options["num_boxes"]:
            raise IllegalAction("no_such_box", f"box {box} is not on this table")
        out: list[Event] = []
        if k is not None:
            self._due = max(self._due, k + 1)
        while k is not None and len(self.rolls) < k:
            out += self._throw(None)
        self.nets.setdefault(box, {})
        self.stakes.setdefault(box, {})
        layout, nets = copy.deepcopy(self.layout), {b: dict(ws) for b, ws in self.nets.items()}
        stakes, moved = {b: dict(ws) for b, ws in self.stakes.items()}, len(self.transfers)
        try:
            out += self._verb(box, verb, amount)
        except IllegalAction:
            self.layout, self.nets, self.stakes = layout, nets, stakes
            del self.transfers[moved:]
            self._emit(out)
            raise
        return self._emit(out)

    def roll(self, outcome: Mapping[str, Any] | None = None) -> list[Event]:
        """No more bets: throw one roll (a live result ``{"dice": [a, b]}`` or
        ``{"invalid": reason}``, else the next forced roll, else the random source)."""
        self._check_open()
        live = None if outcome is None else self._parse_roll(outcome, "roll")
        return self._emit(self._throw(live))

    def end_of_decisions(self) -> list[Event]:
        """Throw every roll the outcome still holds (with none given, from the random source
        up to the roll after the last ``before_roll``), then complete the round."""
        if self.complete:
            return []
        self._check_open()
        out: list[Event] = []
        due = self._due if self.given is None else len(self.given)
        while len(self.rolls) < due:
            out += self._throw(None)
        for w in self.layout.wagers:
            self.nets[w.box].setdefault(w.name, 0)
        self.complete = True
        self.detail["scenario_extra"] = {
            "outcome": {"rolls": [r.wire() for r in self.rolls]},
            "puck": self.layout.point,
            "layout": [
                {"box": w.box, "wager": w.name, "stake": w.stake, "point": w.point}
                for w in self.layout.wagers
            ],
        }
        out.append(RoundSettled(nets={b: sum(ws.values()) for b, ws in self.nets.items()}))
        return self._emit(out)

    def pay_table(self) -> Mapping[str, Odds]:
        return self.spec.pay_tables[self.options["pay_table"]]["payout"]

    def odds_maximum(self, box: int, name: str) -> int:
        """The most ``box`` may have on odds wager ``name`` now (s14-s17(2)-(3), digest §3.2):
        0 when the wager it supports is not there."""
        fam, n = self._parsed(name)
        point, line = self._odds_line(box, fam, n)
        if not line or point is None:
            return 0
        return odds_cap(fam.startswith("dont"), point, line, *self._odds_rules())

    def _odds_rules(self) -> tuple[int, bool]:
        return self.options["odds_multiple"], self.options["odds_payable_unit_roundup"]

    def _odds_line(self, box: int, fam: str, n: int | None) -> tuple[int | None, int]:
        """The point and the stake of the line / come bet an odds wager supports."""
        if fam in ("win_odds", "dont_win_odds"):
            line = sum(w.stake for w in self._records(box, fam.removesuffix("_odds")))
            return self.layout.point, line
        base = fam.removesuffix("_odds")
        return n, sum(w.stake for w in self._records(box, base) if w.point == n)

    # ----------------------------------------------------------------- verbs
    def _verb(self, box: int, verb: str, amount: Any) -> list[Event]:
        if verb in ("timeout", "insufficient"):
            # no decision or no funds: nothing is placed, the standing wagers stay (s6(1))
            if amount is not None:
                raise IllegalAction("unexpected_amount", f"{verb} takes no amount")
            return []
        if verb == "bet" or verb == "reduce":
            if not isinstance(amount, Mapping) or not amount:
                raise IllegalAction("bad_amount", f"{verb} takes {{wager: cents, ...}}")
            out: list[Event] = []
            for name, cents in amount.items():
                self._parsed(name)
                if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
                    raise IllegalAction("bad_amount", f"{name}: amount must be integer cents")
                if verb == "bet":
                    if cents <= 0:
                        raise IllegalAction("bad_amount", f"{name}: amount must be positive")
                    out += self._bet(box, name, cents)
                else:
                    out += self._reduce(box, name, cents)
            return out
        if verb in ("remove", "on", "off"):
            if not isinstance(amount, str):
                raise IllegalAction("bad_amount", f"{verb} takes a wager id")
            self._parsed(amount)
            if verb == "remove":
                return self._reduce(box, amount, 0)
            return self._mark(box, amount, verb == "on")
        raise IllegalAction("illegal_verb", f"craps takes bet, reduce, remove, on, off: {verb!r}")

    def _bet(self, box: int, name: str, amount: int) -> list[Event]:
        """Place ``amount`` on ``name`` (s4 timing, s5, s6(3), s8(1), s14-s17 maxima)."""
        fam, n = self._parsed(name)
        rec = self._open_record(box, name)
        if rec is not None and rec.no_increase:
            raise IllegalAction("no_increase", f"{name}: reduced, so not increased again (s6(3))")
        puck = self.layout.point
        if fam in ("win", "dont_win") and puck is not None:
            raise IllegalAction(
                "not_before_come_out", f"{name}: only immediately before a come-out roll (s4)"
            )
        if (
            fam in ("come", "dont_come")
            and puck is None
            and not self.options["come_bets_when_puck_off"]
        ):
            raise IllegalAction("no_point", f"{name}: only after the come out roll (s4, A1)")
        new = amount + (rec.stake if rec is not None else 0)
        if new < self.options["minimum"]:
            raise IllegalAction("below_minimum", f"{name} {dollars(new)} is below the minimum")
        if new > (self.odds_limit if fam.endswith("odds") else self.options["maximum"]):
            raise IllegalAction("above_maximum", f"{name} {dollars(new)} is above the maximum")
        if fam.endswith("odds"):
            most = self.odds_maximum(box, name)
            if not most:
                raise IllegalAction("no_point", f"{name}: no point for these odds (s14-s17(1))")
            if new > most:
                raise IllegalAction(
                    "odds_above_maximum", f"{name}: at most {dollars(most)} (s14-s17(2)-(3))"
                )
        if fam == "place" and self.options["place_amount_units_enforced"]:
            assert n is not None
            if new % PLACE_UNIT[n]:
                raise IllegalAction(
                    "place_unit", f"{name}: multiples of {dollars(PLACE_UNIT[n])} (A5)"
                )
        units = None
        if fam in ("horn", "horn_high"):
            k = 4 if fam == "horn" else 5
            if new % (k * self.options["horn_unit"]):
                raise IllegalAction(
                    "horn_units", f"{name}: {k} equal units of {dollars(self.options['horn_unit'])}"
                )
            units = horn_units(name, new)
        if rec is None:
            rec = Standing(box, name, 0)
            self.layout.wagers.append(rec)
        rec.stake, rec.units = new, units
        charged = self._commission(rec)
        self.stakes[box][name] = self.stakes[box].get(name, 0) + amount
        self.nets[box].setdefault(name, 0)
        return [WagerPlaced(box=box, wager=name, amount=new, commission=charged)]

    def _reduce(self, box: int, name: str, to: int) -> list[Event]:
        """Reduce or (``to`` = 0) remove a wager before a roll decides it (s6, s13(1))."""
        fam, _ = self._parsed(name)
        recs = self._records(box, name)
        if not recs:
            raise IllegalAction("no_such_wager", f"box {box} has no {name}")
        if len(recs) > 1:
            raise IllegalAction("ambiguous", f"box {box} has {len(recs)} {name} wagers")
        rec = recs[0]
        if to >= rec.stake:
            raise IllegalAction("not_a_reduction", f"{name}: {dollars(to)} is not less")
        contract = (fam == "win" and self.layout.point is not None) or (
            fam == "come" and rec.point is not None
        )
        if contract:
            raise IllegalAction("contract_bet", f"{name}: a point is set, it stays (s6(2))")
        if to and to < self.options["minimum"]:
            raise IllegalAction("below_minimum", f"{name} {dollars(to)} is below the minimum")
        if fam in ("horn", "horn_high"):
            if to:
                raise IllegalAction("horn_units", f"{name}: remove it or keep it whole")
        self.stakes[box][name] = self.stakes[box].get(name, 0) - (rec.stake - to)
        self.nets[box].setdefault(name, 0)
        rec.stake = to
        if fam in ("dont_win", "dont_come"):
            rec.no_increase = True
        returned = -self._commission(rec)
        if not to:
            self.layout.wagers.remove(rec)
        return [WagerPlaced(box=box, wager=name, amount=to, commission=-returned)]

    def _mark(self, box: int, name: str, on: bool) -> list[Event]:
        """The on / off marker (s7(1)-(2), s16(6)) on a place, buy, hardway or come-odds wager."""
        fam, _ = self._parsed(name)
        if fam not in CATEGORY:
            raise IllegalAction("always_on", f"{name} works on every roll (s7(3))")
        recs = self._records(box, name)
        if not recs:
            raise IllegalAction("no_such_wager", f"box {box} has no {name}")
        for r in recs:
            r.marker = on
        return [MarkerSet(box=box, wager=name, on=on)]

    def _commission(self, rec: Standing) -> int:
        """Bring the commission paid on a buy / lay wager to what its stake owes (s11(1),
        s12(1): at most the rate, rounded down; s13(1): returned when removed). Returns the
        amount charged now (negative: returned)."""
        fam, n = self._parsed(rec.name)
        if fam not in ("buy", "lay"):
            return 0
        assert n is not None
        base = rec.stake if fam == "buy" else pay(rec.stake, _lay(n))
        owed: int = base * self.options["buy_lay_commission_bp"] // 10_000
        delta = owed - rec.commission
        rec.commission = owed
        self._record(rec.box, "commission", -delta)
        self._transfer(f"box:{rec.box}", "house", delta)
        return delta

    # ----------------------------------------------------------------- rolls
    def _throw(self, live: Roll | None) -> list[Event]:
        k = len(self.rolls)
        if live is not None:
            r, source = live, "live"
        elif self.given is not None:
            if k >= len(self.given):
                raise IllegalAction("no_more_rolls", "the outcome holds no further roll")
            r, source = self.given[k], "forced"
        else:
            a, b = roll_dice(self.rng, 2)
            r, source = Roll((a, b)), "rng"
        self.rolls.append(r)
        if r.dice is None:
            assert r.no_roll is not None
            return [NoRoll(roll=k, reason=r.no_roll, rule=NO_ROLL_REASONS[r.no_roll])]
        call = f"{r.total}" + (" the hard way" if r.hard and r.total in HARD else "")
        out: list[Event] = [
            OutcomeDeclared(outcome={"roll": k, "dice": list(r.dice)}, call=call, source=source)
        ]
        return out + self._settle_roll(r)

    def _settle_roll(self, r: Roll) -> list[Event]:
        """Settle every wager the roll decides: losers collected, then winners paid (ETG s7);
        move come bets to their come points and the puck (s2, s4)."""
        losers: list[Event] = []
        winners: list[Event] = []
        others: list[Event] = []
        keep: list[Standing] = []
        puck = self.layout.point
        for w in self.layout.wagers:
            fam, n = self._parsed(w.name)
            if fam in ("horn", "horn_high"):
                won = (w.units or horn_units(w.name, w.stake)).get(r.total, 0)
                lost = w.stake - won
                if lost:
                    losers.append(self._lose_part(w, lost, "units on the other totals"))
                if won:
                    odds = self.pay_table()[f"horn_{r.total}"]
                    winners.append(self._win(w.box, w.name, pay(won, odds), _say(odds)))
                    w.units, w.stake = {r.total: won}, won  # the winning units stay (A8)
                    keep.append(w)
                continue
            verdict = judge(w, r, puck, self._working(w))
            if verdict == "none":
                keep.append(w)
            elif verdict == "travel":
                w.point = r.total
                keep.append(w)
                others.append(WagerTravelled(box=w.box, wager=w.name, point=r.total))
            elif verdict == "lose":
                losers.append(self._lose_part(w, w.stake, "lost"))
            elif verdict == "void":
                stays = fam == "dont_win"
                winners.append(
                    self._push(w.box, w.name, "void: stays on the line", "push")
                    if stays
                    else self._push(w.box, w.name, "void", "returned")
                )
                if stays:
                    keep.append(w)
            else:
                odds = self.pay_table()[_odds_key(fam, n, w.point, puck, r.total)]
                won = pay(w.stake, odds)
                if fam.endswith("odds") and self.options["odds_round_up_to_dollar"]:
                    if w.stake > self._normal_odds(w):
                        won = -(-won // 100) * 100  # s14-s17(4)
                stays = fam in ("win", "dont_win", "place", "big6", "big8", "hard", *ONE_ROLL)
                stays = stays or (fam in ("buy", "lay") and self.options["buy_lay_stays_up"])
                detail = _say(odds) + ("; stays up" if stays else "; returned")
                winners.append(self._win(w.box, w.name, won, detail))
                if stays:
                    w.no_increase = False
                    keep.append(w)
        self.layout.wagers = keep
        if puck is None and r.total in POINTS:
            self.layout.point = r.total
        elif puck is not None and r.total in (7, puck):
            self.layout.point = None
        if self.layout.point != puck:
            others.append(PuckMoved(point=self.layout.point))
        return losers + winners + others

    def _lose_part(self, w: Standing, amount: int, detail: str) -> WagerSettled:
        self._record(w.box, w.name, -amount)
        self._transfer(f"box:{w.box}", "house", amount)
        return WagerSettled(box=w.box, wager=w.name, net=-amount, outcome="lose", detail=detail)

    def _normal_odds(self, w: Standing) -> Fraction:
        """The s14-s17(2) maximum for an odds wager (the stake that wins the line bet)."""
        fam, n = self._parsed(w.name)
        point, line = self._odds_line(w.box, fam, n)
        assert point is not None
        return normal_odds(fam.startswith("dont"), point, line)

    def _working(self, w: Standing) -> bool:
        """s7: on a come-out roll place, buy, hardway and come-odds wagers work only when on;
        an on marker turns on the player's similar wagers (s7(2), A3) unless marked off."""
        if self.layout.point is not None:
            return True
        cat = CATEGORY.get(self._parsed(w.name)[0])
        if cat is None:
            return True
        if w.marker is not None:
            return w.marker
        return any(
            x.marker is True
            for x in self.layout.wagers
            if x.box == w.box and CATEGORY.get(self._parsed(x.name)[0]) == cat
        )

    # ----------------------------------------------------------------- helpers
    def _parsed(self, name: Any) -> tuple[str, int | None]:
        p = parse(name)
        if p is None:
            raise IllegalAction("unknown_wager", f"not a craps wager: {name!r}")
        return p

    def _records(self, box: int, name: str) -> list[Standing]:
        return [w for w in self.layout.wagers if w.box == box and w.name == name]

    def _open_record(self, box: int, name: str) -> Standing | None:
        """The record a new amount on ``name`` adds to: a come / don't come bet not yet moved
        to a point (a new one otherwise), or the one wager of that id."""
        for w in self._records(box, name):
            if w.name not in ("come", "dont_come") or w.point is None:
                return w
        return None

    def _check_open(self) -> None:
        if not self._started:
            raise IllegalAction("not_started", "the round has not started")
        if self.complete:
            raise IllegalAction("round_complete", "the round is complete")

    def _parse_outcome(self, raw: Mapping[str, Any]) -> list[Roll]:
        rolls = raw.get("rolls") if isinstance(raw, Mapping) and set(raw) == {"rolls"} else None
        if not isinstance(rolls, list) or not rolls:
            raise InvalidRound('craps outcome must be {"rolls": [[d1, d2], ...]}')
        return [self._parse_roll(r, f"rolls[{i}]") for i, r in enumerate(rolls)]

    @staticmethod
    def _parse_roll(raw: Any, where: str) -> Roll:
        """``[d1, d2]`` (a die may be ``{"resting_on_object": f}``: it counts the face
        opposite f, s25(3)), ``{"dice": [d1, d2]}``, or ``{"invalid": reason}`` (s23)."""
        if isinstance(raw, Mapping) and set(raw) == {"invalid"}:
            if raw["invalid"] not in NO_ROLL_REASONS:
                raise InvalidRound(f"{where}: invalid reason one of {sorted(NO_ROLL_REASONS)}")
            return Roll(None, raw["invalid"])
        if isinstance(raw, Mapping) and set(raw) == {"dice"}:
            raw = raw["dice"]
        if not isinstance(raw, list) or len(raw) != 2:
            raise InvalidRound(f'{where}: a roll is [d1, d2] or {{"invalid": reason}}')
        faces = []
        for d in raw:
            opposite = isinstance(d, Mapping) and set(d) == {"resting_on_object"}
            face = d["resting_on_object"] if opposite else d
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
                raise InvalidRound(f"{where}: a die shows 1..6: {raw!r}")
            faces.append(7 - face if opposite else face)
        return Roll((faces[0], faces[1]))

    # the framework's street machinery is unused: craps takes decisions between rolls
    def _deal(self) -> list[Event]:
        return []

    def _choices(self, box: int) -> tuple[Choice, ...]:
        return ()

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        raise IllegalAction("illegal_verb", "craps decisions go through decide()")

    def _street_closed(self) -> list[Event]:
        return []

    def _settle(self) -> list[Event]:
        return []


def judge(w: Standing, r: Roll, puck: int | None, working: bool) -> str:
    """What roll ``r`` does to wager ``w`` (s4, s7, s16(6)): ``win``, ``lose``, ``void``
    (stake back, or kept on the line for the bar-2 don't win bet), ``travel`` (a come / don't
    come bet to its come point) or ``none``. Horn bets are settled per unit by the round."""
    fam, n = parse(w.name) or ("", None)
    t = r.total
    if fam in ("win", "dont_win"):
        dont = fam == "dont_win"
        if puck is None:
            if t in (7, 11):
                return "lose" if dont else "win"
            if t == 2 and dont:
                return "void"  # bar 2 (s4 don't win bet (c); A7)
            if t in (2, 3, 12):
                return "win" if dont else "lose"
            return "none"
        if t in (7, puck):
            return "win" if (t == 7) == dont else "lose"
        return "none"
    if fam in ("come", "dont_come"):
        dont = fam == "dont_come"
        if w.point is None:
            if t in (7, 11):
                return "lose" if dont else "win"
            if t == 2 and dont:
                return "void"
            if t in (2, 3, 12):
                return "win" if dont else "lose"
            return "travel"
        if t in (7, w.point):
            return "win" if (t == 7) == dont else "lose"
        return "none"
    if fam in ("win_odds", "dont_win_odds"):
        if puck is None:
            return "none"
        if t in (7, puck):
            return "win" if (t == 7) == (fam == "dont_win_odds") else "lose"
        return "none"
    if fam in ("come_odds", "dont_come_odds"):
        if t not in (7, n):
            return "none"
        if not working:
            return "void"  # its come bet is decided while the odds are off (digest §3.1)
        return "win" if (t == 7) == (fam == "dont_come_odds") else "lose"
    if fam in ("place", "buy", "lay", "big6", "big8"):
        target = {"big6": 6, "big8": 8}.get(fam, n)
        if not working or t not in (7, target):
            return "none"
        return "win" if (t == 7) == (fam == "lay") else "lose"
    if fam == "hard":
        if not working or t not in (7, n):
            return "none"
        return "win" if t == n and r.hard else "lose"
    won = {
        "field": t in (2, 3, 4, 9, 10, 11, 12),
        "any7": t == 7,
        "any_craps": t in (2, 3, 12),
        "craps2": t == 2,
        "craps3": t == 3,
        "craps12": t == 12,
        "eleven": t == 11,
    }
    if fam not in won:
        raise ValueError(f"not a craps wager: {w.name!r}")
    return "win" if won[fam] else "lose"


def _odds_key(fam: str, n: int | None, point: int | None, puck: int | None, total: int) -> str:
    """The pay-table key a winning wager is paid from."""
    if fam == "field":
        return f"field_{total}" if total in (2, 12) else "field"
    if fam in ("win_odds", "dont_win_odds"):
        return f"{fam}_{puck}"
    if n is not None:
        return f"{fam}_{n}"
    return fam


def _say(odds: Odds) -> str:
    """Odds as the schedule writes them: "9 to 5", "7.5 to 1"."""
    w, per = odds
    if per == 2 and w % 2:
        return f"{w // 2}.5 to 1"
    return f"{w} to {per}"


ROUNDS = {SPEC.id: Craps}
