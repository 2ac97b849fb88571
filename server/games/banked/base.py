"""The banked-game framework: one sans-I/O round of a game played against the house.

Theory of operation
-------------------
A banked game is described by data, a :class:`GameSpec` (its id, options with defaults, wager
names, verbs, pay tables by name, card layout), and played by a subclass of
:class:`BankedRound`, a pure state machine for one round at one table:

    round = Caribbean(options, wagers, rng, forced=None, jackpot=JackpotState(...))
    events = round.start()                   # deal; events carry their visibility
    round.pending()                          # [Decision(box, choices)] for the current street
    events = round.decide(1, "bet")          # IllegalAction(code, message), state unchanged
    round.complete, round.result             # per box per wager the player's NET, in cents

Nothing here touches sockets, clocks, money stores or global randomness. Randomness is the
injected :class:`~server.cards.RandomSource`; a scenario's "forced outcome" (SCENARIOS.md)
comes in as :class:`Forced` (fixed cards per box, dealer and board, a shoe order, or a dice /
wheel outcome). The table task owns timers and calls :meth:`BankedRound.timeout` when a player
does not decide in time, and :meth:`BankedRound.insufficient` when a player cannot fund a
wager a decision needs; each game maps them to its rules' treatment.

Decisions are taken in **streets**: on each street every box still in the round owes one
decision, in any order (terminals decide concurrently; the physical order of the rules only
matters for dealing and settlement, which the engine does itself). A game with one decision
per box in turn (blackjack) overrides :meth:`BankedRound.pending`; a shared-outcome game
(roulette, sic-bo) opens no street at all and settles in :meth:`BankedRound.start`.

Money: every figure is integer cents. Settlement records a ledger of transfers between the
parties ``box:N``, ``house``, ``pool`` and ``reserve`` alongside the per-wager nets, so tests
can check that money is conserved and that the nets agree with the movements.

Conventions shared by every game (``docs/rulings.md``, "Banked framework"):

* a wager's figure is the player's net on it: win positive, loss negative (the stake), ``0``
  for a stand-off or a returned wager; a bonus paid on a wager is part of its figure;
* a void round (:meth:`BankedRound.void`) returns every wager and reverses jackpot coin-in
  (Part 1 s4 "void"; jackpots.md §5.6).
"""

from __future__ import annotations

import dataclasses
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from server.cards import STANDARD_DECK, Card, RandomSource, card, card_str, shuffle
from server.errors import IllegalAction
from server.games.events import Event as _EventBase
from server.games.visibility import EVERYONE, NOBODY, may_see
from server.money import dollars

__all__ = [
    "COMMON_OPTIONS",
    "EVERYONE",
    "NOBODY",
    "BankedRound",
    "CardsDealt",
    "Choice",
    "DealerDeclared",
    "Decision",
    "DecisionMade",
    "Event",
    "Forced",
    "GameSpec",
    "HandShown",
    "InvalidRound",
    "JackpotPaid",
    "JackpotState",
    "JackpotWagerAccepted",
    "Odds",
    "OptionSpec",
    "RoundResult",
    "RoundSettled",
    "RoundStarted",
    "RoundVoided",
    "StreetOpened",
    "WagerSettled",
    "WagerSpec",
    "deal",
    "pay",
    "validate_wagers",
]


class InvalidRound(ValueError):
    """The round's inputs are malformed (unknown option or wager, bad card, box out of range).

    The table layer never produces these; the scenario command reports them as an invalid
    scenario (exit 2). Rule breaches by a player are :class:`IllegalAction` instead.
    """


# --------------------------------------------------------------------------- specs (data)


@dataclass(frozen=True)
class OptionSpec:
    """One table option: its name, default, type and the rule it comes from."""

    name: str
    default: Any
    kind: type | tuple[type, ...] = int
    nullable: bool = False
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    doc: str = ""

    def check(self, value: Any) -> Any:
        if value is None:
            if self.nullable:
                return None
            raise InvalidRound(f"option {self.name} may not be null")
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        if bool not in kinds and isinstance(value, bool):
            raise InvalidRound(f"option {self.name} must be {self._type_name()}, not a boolean")
        if not isinstance(value, kinds):
            raise InvalidRound(f"option {self.name} must be {self._type_name()}: {value!r}")
        if self.choices is not None and value not in self.choices:
            raise InvalidRound(f"option {self.name} must be one of {list(self.choices)}: {value!r}")
        if self.minimum is not None and isinstance(value, int) and value < self.minimum:
            raise InvalidRound(f"option {self.name} must be at least {self.minimum}: {value!r}")
        return value

    def _type_name(self) -> str:
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        names = {int: "an integer", bool: "a boolean", str: "a string", list: "a list"}
        return " or ".join(names.get(k, k.__name__) for k in kinds)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"default": self.default, "type": self._type_name()}
        if self.nullable:
            out["nullable"] = True
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.doc:
            out["doc"] = self.doc
        return out


#: Options every banked game accepts (SCENARIOS.md "Banked games"). Games override defaults by
#: listing an OptionSpec of the same name.
COMMON_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("minimum", 100, minimum=1, doc="table minimum per wager, cents (Part 1 s12)"),
    OptionSpec("maximum", 1_000_000, minimum=1, doc="table maximum per wager, cents"),
    OptionSpec(
        "max_payout",
        None,
        nullable=True,
        minimum=0,
        doc="the most one wager may win, where the rules cap it (null: no cap)",
    ),
    OptionSpec(
        "jackpot_wager",
        None,
        nullable=True,
        minimum=1,
        doc="the displayed jackpot wager, cents (null: no jackpot wager offered)",
    ),
    OptionSpec("pay_table", "standard", str, doc="pay table by name"),
    OptionSpec("num_boxes", 7, minimum=1, doc="boxes on the layout"),
)


@dataclass(frozen=True)
class WagerSpec:
    """A wager area on the layout.

    ``initial``: placed before the deal (ante, side wagers); otherwise placed by a decision.
    ``required``: every box in the round must hold it (the ante). ``needs``: another wager the
    box must hold (pair plus needs an ante). ``limits``: ``table`` (minimum..maximum),
    ``jackpot`` (exactly the ``jackpot_wager`` option) or ``decision`` (set by the rules).
    """

    name: str
    initial: bool = True
    required: bool = False
    needs: str | None = None
    limits: str = "table"
    doc: str = ""
    #: a bool option that must be on for the table to offer the wager (pai gow's ``bank``:
    #: ``player_banking_enabled``); ``None``: always offered
    offered_by: str | None = None

    def offered(self, options: Mapping[str, Any]) -> bool:
        return self.offered_by is None or bool(options.get(self.offered_by))


#: Odds as (win, per): 3:1 is (3, 1), 19:20 is (19, 20). Payouts round down to the cent.
Odds = tuple[int, int]


def pay(stake: int, odds: Odds) -> int:
    """Winnings on ``stake`` at ``odds``, rounded down to the cent (general.md)."""
    win, per = odds
    return stake * win // per


@dataclass(frozen=True)
class GameSpec:
    """A banked game as data: everything ``--describe`` prints and the engine validates."""

    id: str
    title: str
    rules: str
    wagers: tuple[WagerSpec, ...]
    verbs: tuple[str, ...]
    options: tuple[OptionSpec, ...] = ()
    #: pay table set name -> table id -> hand/outcome name -> odds. The option ``pay_table``
    #: picks the set; the first set is the default (the digest's labelled proposal).
    pay_tables: Mapping[str, Mapping[str, Mapping[str, Odds]]] = field(default_factory=dict)
    #: cards per box, for the dealer, and communal (board) cards, for the scenario format.
    box_cards: int = 0
    dealer_cards: int = 0
    board_cards: int = 0
    deck: tuple[Card, ...] = STANDARD_DECK
    #: whether the game takes ``jackpot.pool`` / ``reserve`` (a pooled jackpot)
    pooled_jackpot: bool = False
    #: a box may hold no initial wager (craps: wagers come between rolls or stand from
    #: earlier rolls), so ``boxes`` may be empty or list a box with ``{}``
    empty_boxes: bool = False
    #: the box the house's bank sits on while the house banks (pai gow, QLD Sch 6 s18(13):
    #: the bank's tiles go there and nobody wagers on it); ``None``: the bank has no box
    bank_box: int | None = None
    # table facts (banked)
    #: the regime of a jackpot linked to a pool (``server/tables/jackpot_link.py``): "qld"
    #: (QLD Sch 3) or "act2017" (ACT 2017 approval); ``None``: the game's jackpot is never
    #: linked (ACT-2004 Boomerang's shared pool needs approval, jackpots.md 5.5)
    jackpot_regime: Literal["qld", "act2017"] | None = None
    #: how jackpot wagers reopen after an outage when the table's config does not say:
    #: "auto", or "approval" by a manager (ACT 2017 r 14.5)
    jackpot_reopen: Literal["auto", "approval"] = "auto"
    #: the places other players take on a box beside its player (BJ s29(1): "P2", "P3"),
    #: each with his own wagers (the engine's places API); ``()``: none
    backer_places: tuple[str, ...] = ()
    #: stakes a wager puts on the layout when more than one, by wager (SW s6(1),(2): the
    #: main wager stands on each of the box's two areas); any other wager: one
    layout_stakes: Mapping[str, int] = field(default_factory=dict)

    # table facts (stadium)
    #: what an invalid result (a no spin, a no roll, a misdeal) does at a stadium table
    #: (general.md §3, R-VOID): ``"stand"``, the wagers stand and the re-spin / re-deal is
    #: awaited; ``"void"``, every wager goes back to the meters; ``"roll"``, the engine
    #: records the no roll and every wager stands for the next throw
    on_invalid: Literal["stand", "void", "roll"] = "stand"
    #: ``"roll"``: why the reason of an entered invalid result is refused (``None``: taken)
    refuse_invalid: Callable[[str], str | None] | None = None
    #: what a terminal needs to draw the layout (ETG-10, -12), from the table's options
    terminal_layout: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    #: the layout carries from round to round (one engine round per throw; a wager comes
    #: down only as the engine allows it), and a correction re-settles only the last round
    #: before the next betting window, refused with this text (``None``: the layout is
    #: settled and rebuilt each round, and any kept round may be corrected, Sch 19 s10(2))
    layout_carries: str | None = None

    def all_options(self) -> dict[str, OptionSpec]:
        return dict(self._all_options)

    @functools.cached_property
    def _all_options(self) -> dict[str, OptionSpec]:
        """The common options overridden by the game's (built once per spec: a spec is
        frozen, and every round validates its options against it)."""
        out = {o.name: o for o in COMMON_OPTIONS}
        for o in self.options:
            out[o.name] = o
        if self.pay_tables and "pay_table" in out:
            names = tuple(self.pay_tables)
            out["pay_table"] = dataclasses.replace(
                out["pay_table"], default=names[0], choices=names
            )
        return out

    @functools.cached_property
    def _defaults(self) -> dict[str, Any]:
        return {name: spec.default for name, spec in self._all_options.items()}

    @functools.cached_property
    def _required(self) -> tuple[WagerSpec, ...]:
        return tuple(w for w in self.wagers if w.required)

    @functools.cached_property
    def _wagers_by_name(self) -> dict[str, WagerSpec]:
        out: dict[str, WagerSpec] = {}
        for w in self.wagers:
            out.setdefault(w.name, w)
        return out

    def validate_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options with defaults filled in; an unknown option or a bad value is InvalidRound."""
        raw = {} if raw is None else raw
        if not isinstance(raw, Mapping):
            raise InvalidRound("options must be an object")
        specs = self._all_options
        unknown = sorted(set(raw) - set(specs))
        if unknown:
            raise InvalidRound(f"unknown option for {self.id}: {', '.join(unknown)}")
        out = dict(self._defaults)
        for name, value in raw.items():
            out[name] = specs[name].check(value)
        if out["minimum"] > out["maximum"]:
            raise InvalidRound("option minimum is above maximum")
        return out

    def wager(self, name: str) -> WagerSpec | None:
        return self._wagers_by_name.get(name) if isinstance(name, str) else None

    def describe(self) -> dict[str, Any]:
        return {
            "game": self.id,
            "title": self.title,
            "rules": self.rules,
            "options": {n: s.describe() for n, s in self.all_options().items()},
            "wagers": [
                {
                    "name": w.name,
                    "initial": w.initial,
                    "required": w.required,
                    **({"needs": w.needs} if w.needs else {}),
                    "limits": w.limits,
                    **({"doc": w.doc} if w.doc else {}),
                    **({"offered_by": w.offered_by} if w.offered_by else {}),
                }
                for w in self.wagers
            ],
            "verbs": [*list(self.verbs), "timeout", "insufficient"],
            "pay_tables": {
                name: {
                    tid: {hand: list(odds) for hand, odds in table.items()}
                    for tid, table in tables.items()
                }
                for name, tables in self.pay_tables.items()
            },
            "cards": {
                "boxes": self.box_cards,
                "dealer": self.dealer_cards,
                "board": self.board_cards,
            },
            "jackpot": self.pooled_jackpot,
        }


def validate_wagers(
    spec: GameSpec, options: Mapping[str, Any], wagers: Mapping[Any, Mapping[str, Any]]
) -> dict[int, dict[str, int]]:
    """Check the boxes' initial wagers against the spec and the table limits.

    Malformed input (box out of range, unknown wager name, a non-integer or non-positive
    amount) raises :class:`InvalidRound`. A wager the table would refuse (below the minimum,
    above the maximum, a jackpot wager of the wrong denomination, a side wager without the
    wager it needs, no ante) raises :class:`IllegalAction` with a stable code.
    """
    out: dict[int, dict[str, int]] = {}
    if not isinstance(wagers, Mapping) or not (wagers or spec.empty_boxes):
        raise InvalidRound("boxes must be a non-empty object of box -> wagers")
    for key, ws in wagers.items():
        box = _box_number(key, options["num_boxes"])
        if box in out:
            raise InvalidRound(f"box {box} listed twice")
        if not isinstance(ws, Mapping) or not (ws or spec.empty_boxes):
            raise InvalidRound(f"box {box}: wagers must be a non-empty object")
        placed: dict[str, int] = {}
        for name, amount in ws.items():
            w = spec.wager(name)
            if w is None:
                raise InvalidRound(f"box {box}: unknown wager {name!r} for {spec.id}")
            if not w.initial:
                raise InvalidRound(f"box {box}: the {name} wager is placed by a decision")
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise InvalidRound(f"box {box}: {name} must be an integer number of cents")
            if amount <= 0:
                raise InvalidRound(f"box {box}: {name} must be positive")
            placed[name] = amount
        for name, amount in placed.items():
            w = spec.wager(name)
            assert w is not None
            if w.limits == "jackpot":
                if options.get("jackpot_wager") is None:
                    raise IllegalAction("no_jackpot", "no jackpot wager is offered at this table")
                if amount != options["jackpot_wager"]:
                    raise IllegalAction(
                        "jackpot_denomination",
                        f"box {box}: the jackpot wager is exactly "
                        f"{dollars(options['jackpot_wager'])}",
                        {"amount": amount, "exactly": options["jackpot_wager"]},
                    )
            elif w.limits == "table":
                if amount < options["minimum"]:
                    raise IllegalAction(
                        "below_minimum",
                        f"box {box}: {name} {dollars(amount)} is below the table minimum "
                        f"{dollars(options['minimum'])}",
                        {"amount": amount, "min": options["minimum"]},
                    )
                if amount > options["maximum"]:
                    raise IllegalAction(
                        "above_maximum",
                        f"box {box}: {name} {dollars(amount)} is above the table maximum "
                        f"{dollars(options['maximum'])}",
                        {"amount": amount, "max": options["maximum"]},
                    )
            if w.needs and w.needs not in placed:
                raise IllegalAction(
                    "needs_" + w.needs, f"box {box}: the {name} wager needs a {w.needs} wager"
                )
        for w in spec._required:
            if w.name not in placed:
                raise IllegalAction("needs_" + w.name, f"box {box}: a {w.name} is required")
        out[box] = placed
    return dict(sorted(out.items()))


def split_others(
    wagers: Mapping[Any, Mapping[str, Any]],
) -> tuple[dict[Any, Mapping[str, Any]], dict[Any, Any]]:
    """A layout as a round or a betting window takes it, split into each box's own wagers
    and its ``others`` (the other players on the box, raw: SCENARIOS.md)."""
    if not isinstance(wagers, Mapping):
        raise InvalidRound("boxes must be a non-empty object of box -> wagers")
    own: dict[Any, Mapping[str, Any]] = {}
    others: dict[Any, Any] = {}
    for key, ws in wagers.items():
        if isinstance(ws, Mapping) and "others" in ws:
            others[key] = ws["others"]
            own[key] = {k: a for k, a in ws.items() if k != "others"}
        else:
            own[key] = ws
    return own, others


def others_on_box(
    box: int, raw: Any, places: int, rule: str, check: Callable[[str, Any], dict[str, int]]
) -> dict[str, dict[str, int]]:
    """A box's ``others`` (SCENARIOS.md): player id -> his wagers, each checked by
    ``check``; at most ``places`` others beside the box's player (``rule`` cites the game's:
    BJ s29(1), Sch 6 s15(1), casino war s8(1))."""
    if not isinstance(raw, Mapping) or not raw:
        raise InvalidRound(f"box {box}: others must be an object of player -> wagers")
    if len(raw) > places:
        raise IllegalAction(
            "too_many_players", f"box {box}: at most {places + 1} players a box ({rule})"
        )
    out: dict[str, dict[str, int]] = {}
    for pid, ws in raw.items():
        if not isinstance(pid, str) or not pid:
            raise InvalidRound(f"box {box}: a player id must be a non-empty string")
        out[pid] = check(pid, ws)
    return out


def _box_number(key: Any, num_boxes: int) -> int:
    if type(key) is int and 1 <= key <= num_boxes:
        return key
    if isinstance(key, bool):
        raise InvalidRound(f"not a box number: {key!r}")
    try:
        box = int(key)
    except (TypeError, ValueError):
        raise InvalidRound(f"not a box number: {key!r}") from None
    if str(box) != str(key).strip() or not 1 <= box <= num_boxes:
        raise InvalidRound(f"box {key!r} out of range 1..{num_boxes}")
    return box


# --------------------------------------------------------------------------- decisions

#: A decision's argument: an amount in cents, or the hands a ``set`` makes of the box's tiles
#: (pai gow: ``{"high": [tile, tile], "low": [tile, tile]}``).
Argument = int | Mapping[str, Any] | None


@dataclass(frozen=True)
class Choice:
    """A verb a box may use now. ``amounts``: the exact amounts allowed (``()`` = no amount);
    a single allowed amount is the default when the decision gives none."""

    verb: str
    amounts: tuple[int, ...] = ()
    #: the verb carries a setting of the box's cards into hands (pai gow's ``set``)
    setting: bool = False

    def resolve(self, amount: int | None) -> int | None:
        if not self.amounts:
            if amount is not None:
                raise IllegalAction("unexpected_amount", f"{self.verb} takes no amount")
            return None
        if amount is None:
            if len(self.amounts) == 1:
                return self.amounts[0]
            raise IllegalAction(
                "amount_required",
                f"{self.verb} needs an amount: {' or '.join(map(dollars, self.amounts))}",
            )
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise IllegalAction("bad_amount", f"{self.verb}: amount must be integer cents")
        if amount not in self.amounts:
            raise IllegalAction(
                "bad_amount",
                f"{self.verb} {dollars(amount)}: allowed {' or '.join(map(dollars, self.amounts))}",
            )
        return amount

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verb": self.verb}
        if self.setting:
            out["setting"] = True
        if self.amounts:
            out["amounts"] = list(self.amounts)
            out["min"], out["max"] = min(self.amounts), max(self.amounts)
        return out


@dataclass(frozen=True)
class Decision:
    """A decision a box owes on the current street."""

    box: int
    street: str
    choices: tuple[Choice, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "street": self.street,
            "legal": [c.to_wire() for c in self.choices],
        }


# --------------------------------------------------------------------------- events


class Event(_EventBase, frozen=True, kw_only=True):
    """Base of every banked event (keyword-built; cards already as card strings)."""


class RoundStarted(Event, frozen=True):
    TYPE: ClassVar[str] = "round_started"
    game: str
    boxes: Mapping[int, Mapping[str, int]]


class JackpotWagerAccepted(Event, frozen=True):
    """The explicit acknowledgement of an accepted jackpot wager (QLD Sch 3 s14(3))."""

    TYPE: ClassVar[str] = "jackpot_wager_accepted"
    box: int
    amount: int


class CardsDealt(Event, frozen=True):
    """Cards to a box, the dealer or the board. ``cards`` are wire strings; a card dealt face
    down to the dealer is an event visible to NOBODY until :class:`HandShown`."""

    TYPE: ClassVar[str] = "cards_dealt"
    to: str  # "box", "dealer" or "board"
    box: int | None
    cards: tuple[str, ...]
    street: str | None = None


class StreetOpened(Event, frozen=True):
    TYPE: ClassVar[str] = "street_opened"
    street: str
    boxes: tuple[int, ...]


class DecisionMade(Event, frozen=True):
    TYPE: ClassVar[str] = "decision_made"
    box: int
    street: str
    verb: str
    amount: int | None
    cause: str = "player"  # "player", "timeout" or "insufficient"


class HandShown(Event, frozen=True):
    TYPE: ClassVar[str] = "hand_shown"
    box: int | None  # None: the dealer
    cards: tuple[str, ...]
    hand: str


class DealerDeclared(Event, frozen=True):
    TYPE: ClassVar[str] = "dealer_declared"
    status: str  # "qualifies" / "does not qualify" / a hand name
    hand: str


class WagerSettled(Event, frozen=True):
    TYPE: ClassVar[str] = "wager_settled"
    box: int
    wager: str
    net: int
    outcome: str  # "win", "lose", "push", "returned"
    detail: str = ""


class JackpotPaid(Event, frozen=True):
    TYPE: ClassVar[str] = "jackpot_paid"
    box: int
    amount: int
    hand: str


class RoundSettled(Event, frozen=True):
    TYPE: ClassVar[str] = "round_settled"
    nets: Mapping[int, int]


class RoundVoided(Event, frozen=True):
    TYPE: ClassVar[str] = "round_voided"
    reason: str


# --------------------------------------------------------------------------- inputs/outputs


@dataclass(frozen=True)
class Forced:
    """A forced outcome (scenario mode): cards fixed per box, for the dealer and the board
    (prefixes; the rest is dealt from the shuffled remainder), a shoe order for shoe games,
    or a dice/wheel outcome for shared-outcome games."""

    boxes: Mapping[int, Sequence[Card]] = field(default_factory=dict)
    dealer: Sequence[Card] = ()
    board: Sequence[Card] = ()
    shoe: Sequence[Card] = ()
    outcome: Mapping[str, Any] | None = None

    @classmethod
    def from_strings(
        cls,
        boxes: Mapping[int, Sequence[str]] | None = None,
        dealer: Sequence[str] = (),
        board: Sequence[str] = (),
    ) -> Forced:
        return cls(
            {int(b): [card(c) for c in cs] for b, cs in (boxes or {}).items()},
            [card(c) for c in dealer],
            [card(c) for c in board],
        )


@dataclass(frozen=True)
class PastRound:
    """A round the table played, for rules about the rounds before (pai gow's bank, Sch 6
    s18): its layout (box -> wagers; empty: no round, a break in play) and who held each
    box."""

    layout: Mapping[int, Mapping[str, int]] = field(default_factory=dict)
    owners: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class JackpotState:
    """A pooled jackpot as the round sees it: the jackpot prize pool and the reserve, cents."""

    pool: int
    reserve: int = 0


@dataclass
class RoundResult:
    """What the round came to. ``boxes``: per box per wager the player's net (cents).

    ``state``: ``waiting`` (decisions outstanding), ``complete`` or ``void``. ``jackpot``: the
    pool after the round (``None`` when the game has no pool). ``house``: the house's net.
    """

    state: str
    boxes: dict[int, dict[str, int]]
    dealer: str | None = None
    jackpot: JackpotState | None = None
    house: int = 0
    detail: dict[str, Any] = field(default_factory=dict)

    def box_totals(self) -> dict[int, int]:
        return {b: sum(ws.values()) for b, ws in self.boxes.items()}


def deal(
    deck: Sequence[Card],
    layout: Sequence[tuple[str, int | None, int]],
    forced: Forced | None,
    rng: RandomSource,
) -> dict[tuple[str, int | None], list[Card]]:
    """Deal ``layout`` (slots ``(to, box, n)`` in the game's canonical draw order).

    Forced cards fill each slot's first places; every other place is dealt, in draw order,
    from the deck less all forced cards, shuffled by ``rng``. A forced card outside the deck,
    a card forced twice, or a slot forced beyond its size raises :class:`InvalidRound`.
    """
    forced = forced or Forced()
    if forced.shoe or forced.outcome:
        raise InvalidRound("this game is dealt from a deck: give cards per box, dealer, board")
    wanted: dict[tuple[str, int | None], Sequence[Card]] = {}
    sizes = {(to, box): n for to, box, n in layout}
    for box, cs in forced.boxes.items():
        wanted[("box", box)] = cs
    if forced.dealer:
        wanted[("dealer", None)] = forced.dealer
    if forced.board:
        wanted[("board", None)] = forced.board
    used: set[Card] = set()
    deck_set = set(deck)
    for slot, cs in wanted.items():
        where = f"box {slot[1]}" if slot[0] == "box" else slot[0]
        if slot not in sizes:
            raise InvalidRound(f"cards given for {where}, which is not dealt in this round")
        if len(cs) > sizes[slot]:
            raise InvalidRound(f"{where}: {len(cs)} cards given, {sizes[slot]} are dealt")
        for c in cs:
            if c not in deck_set:
                raise InvalidRound(f"{card_str(c)} is not in this game's deck")
            if c in used:
                raise InvalidRound(f"{card_str(c)} is used twice")
            used.add(c)
    rest = iter(shuffle([c for c in deck if c not in used], rng))
    out: dict[tuple[str, int | None], list[Card]] = {}
    for to, where_box, n in layout:
        given = list(wanted.get((to, where_box), ()))
        out[(to, where_box)] = given + [next(rest) for _ in range(n - len(given))]
    return out


# --------------------------------------------------------------------------- the round


class BankedRound(ABC):
    """One round of a banked game at one table (abstract; see the module docstring).

    Subclasses set ``spec`` and implement :meth:`_deal`, :meth:`_choices`, :meth:`_apply`,
    :meth:`_street_closed` and :meth:`_settle`; they move money only through :meth:`_win`,
    :meth:`_lose`, :meth:`_push`, :meth:`_transfer` and :meth:`_stake`.
    """

    spec: ClassVar[GameSpec]

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
    ) -> None:
        self.options: dict[str, Any] = self.spec.validate_options(options)
        self.wagers: dict[int, dict[str, int]] = validate_wagers(self.spec, self.options, wagers)
        self.rng = rng
        self.forced = forced
        self.jackpot_before = jackpot
        self.jackpot_after = jackpot
        self.events: list[Event] = []
        self.street: str | None = None
        self._awaiting: list[int] = []
        self._started = False
        self.complete = False
        self.voided = False
        #: stakes on the layout per box and wager (initial wagers and decision wagers)
        self.stakes: dict[int, dict[str, int]] = {b: dict(ws) for b, ws in self.wagers.items()}
        #: the player's net per box per wager, filled in at settlement
        self.nets: dict[int, dict[str, int]] = {b: {} for b in self.wagers}
        self.transfers: list[tuple[str, str, int]] = []
        self.dealer_status: str | None = None
        self.detail: dict[str, Any] = {}

    # ----------------------------------------------------------------- public API
    @property
    def boxes(self) -> list[int]:
        return list(self.wagers)

    def start(self) -> list[Event]:
        """Accept the wagers and deal; opens the first street or settles."""
        if self._started:
            raise IllegalAction("already_started", "the round has already started")
        self._started = True
        out: list[Event] = [RoundStarted(game=self.spec.id, boxes=self.wagers)]
        out += self._deal()
        return self._emit(out)

    def pending(self) -> list[Decision]:
        if self.complete or self.street is None:
            return []
        return [Decision(b, self.street, self._choices(b)) for b in self._awaiting]

    @classmethod
    def check_layout(
        cls,
        options: Mapping[str, Any],
        layout: Mapping[int, Mapping[str, int]],
        owners: Mapping[int, str],
        past: Sequence[PastRound] = (),
    ) -> None:
        """Refuse (:class:`IllegalAction`) a betting window's layout (box -> wagers, each box
        already valid by :func:`validate_wagers`; ``owners``: box -> account) that no round
        could be dealt on, or that the rules forbid given the table's ``past`` rounds (oldest
        first), so that the table refuses the wager that makes it rather than void the round.
        Default: any."""
        return None

    def decide(
        self,
        box: int,
        verb: str,
        amount: Argument = None,
        qualifiers: Mapping[str, Any] | None = None,
    ) -> list[Event]:
        """Apply one box's decision on the current street. Illegal: IllegalAction, no change.

        ``qualifiers`` (SCENARIOS.md's fourth element: ``{"player": "P2"}``,
        ``{"before_roll": 1}``) go to :meth:`_decide_qualified`, which games that use them
        override; by default a decision with qualifiers is illegal.
        """
        if qualifiers:
            return self._decide_qualified(box, verb, amount, qualifiers)
        if isinstance(amount, Mapping):
            raise IllegalAction("unexpected_setting", f"{verb} takes no setting of the tiles")
        if verb == "timeout":
            if amount is not None:
                raise IllegalAction("unexpected_amount", "timeout takes no amount")
            return self.timeout(box)
        if verb == "insufficient":
            if amount is not None:
                raise IllegalAction("unexpected_amount", "insufficient takes no amount")
            return self.insufficient(box)
        return self._decide(box, verb, amount, "player")

    def timeout(self, box: int) -> list[Event]:
        """The player did not decide in time: the game's rule for an absent/slow player."""
        self._check_awaiting(box)
        verb, amount = self._timeout_decision(box)
        return self._decide(box, verb, amount, "timeout")

    def insufficient(self, box: int) -> list[Event]:
        """The player cannot fund the wager the decision needs."""
        self._check_awaiting(box)
        verb, amount = self._insufficient_decision(box)
        return self._decide(box, verb, amount, "insufficient")

    def end_of_decisions(self) -> list[Event]:
        """No further decision will come (a scenario's list is exhausted). Default: nothing,
        the round stays as it is; craps throws the rolls its outcome still holds; blackjack
        declines the offers still open."""
        return []

    def void(self, reason: str) -> list[Event]:
        """Void the round: every wager is returned and jackpot coin-in reversed (§5.6)."""
        if self.complete:
            raise IllegalAction("round_complete", "a settled round cannot be voided here")
        self.complete = True
        self.voided = True
        self.street = None
        self._awaiting = []
        self.transfers = []
        self.nets = {b: {w: 0 for w in ws} for b, ws in self.stakes.items()}
        self.jackpot_after = self.jackpot_before
        self.dealer_status = None
        return self._emit([RoundVoided(reason=reason)])

    @property
    def result(self) -> RoundResult:
        if not self.complete:
            state = "waiting"
        else:
            state = "void" if self.voided else "complete"
        return RoundResult(
            state=state,
            boxes={b: dict(ws) for b, ws in self.nets.items()},
            dealer=self.dealer_status,
            jackpot=self.jackpot_after,
            house=self.party_net("house"),
            detail=dict(self.detail),
        )

    def view(self, box: int | None) -> dict[str, Any]:
        """What ``box`` (``None``: a spectator) may see: its events and the pending decisions."""
        return {
            "game": self.spec.id,
            "events": [e.to_wire() for e in self.events if may_see(e.visible_to, box)],
            "pending": [d.to_wire() for d in self.pending()],
            "complete": self.complete,
        }

    def party_net(self, party: str) -> int:
        """Net money movement for ``party`` (``box:N``, ``house``, ``pool``, ``reserve``)."""
        n = 0
        for src, dst, amount in self.transfers:
            if src == party:
                n -= amount
            if dst == party:
                n += amount
        return n

    # ----------------------------------------------------------------- for subclasses
    @abstractmethod
    def _deal(self) -> list[Event]:
        """Deal the cards (or draw the outcome); then :meth:`_open_street` or :meth:`_finish`."""

    @abstractmethod
    def _choices(self, box: int) -> tuple[Choice, ...]:
        """The verbs ``box`` may use on the current street."""

    @abstractmethod
    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        """Apply a validated decision (place the wager, fold...)."""

    @abstractmethod
    def _street_closed(self) -> list[Event]:
        """Every box has decided: open the next street or :meth:`_finish`."""

    @abstractmethod
    def _settle(self) -> list[Event]:
        """Settle every wager (nets and transfers); set ``dealer_status``/``jackpot_after``."""

    def _decide_qualified(
        self, box: int, verb: str, amount: Any, qualifiers: Mapping[str, Any]
    ) -> list[Event]:
        """A decision carrying qualifiers; games without them reject it."""
        raise IllegalAction(
            "unexpected_qualifiers", f"{self.spec.id} takes no qualifiers: {sorted(qualifiers)}"
        )

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        """Default treatment of a slow player: fold (the digests' recommendation)."""
        return "fold", None

    def _insufficient_decision(self, box: int) -> tuple[str, int | None]:
        """Default: a player who cannot fund the wager the decision needs folds or checks."""
        verbs = {c.verb for c in self._choices(box)}
        return ("check" if "check" in verbs else "fold"), None

    def _deal_layout(
        self, layout: Sequence[tuple[str, int | None, int]], dealer_up: Iterable[int] = ()
    ) -> list[Event]:
        """Deal ``layout`` (see :func:`deal`) into ``self.cards`` and return the deal events:
        each box's cards visible to that box only; the dealer's cards face down (NOBODY)
        except the indexes in ``dealer_up`` (EVERYONE); board cards face down (NOBODY) until
        the game exposes them with :meth:`_expose_board`."""
        self.cards: dict[tuple[str, int | None], list[Card]] = deal(
            self.spec.deck, layout, self.forced, self.rng
        )
        up = set(dealer_up)
        out: list[Event] = []
        for to, box, _n in layout:
            cs = self.cards[(to, box)]
            if to == "box":
                out.append(
                    CardsDealt(
                        to="box",
                        box=box,
                        cards=tuple(map(card_str, cs)),
                        visible_to=box if box is not None else NOBODY,
                    )
                )
            elif to == "dealer":
                down = tuple(card_str(c) for i, c in enumerate(cs) if i not in up)
                shown = tuple(card_str(c) for i, c in enumerate(cs) if i in up)
                if down:
                    out.append(CardsDealt(to="dealer", box=None, cards=down, visible_to=NOBODY))
                if shown:
                    out.append(CardsDealt(to="dealer", box=None, cards=shown, visible_to=EVERYONE))
            else:
                out.append(
                    CardsDealt(to=to, box=None, cards=tuple(map(card_str, cs)), visible_to=NOBODY)
                )
        return out

    def _expose_board(self, start: int, stop: int, street: str) -> list[Event]:
        """Turn board cards ``start:stop`` face up for everyone."""
        cs = self.cards[("board", None)][start:stop]
        return [CardsDealt(to="board", box=None, cards=tuple(map(card_str, cs)), street=street)]

    def _open_street(self, street: str, boxes: Iterable[int]) -> list[Event]:
        self.street = street
        self._awaiting = sorted(boxes)
        if not self._awaiting:
            self.street = None
            return self._street_closed()
        return [StreetOpened(street=street, boxes=tuple(self._awaiting))]

    def _finish(self) -> list[Event]:
        """Settle and complete the round."""
        self.street = None
        self._awaiting = []
        out = self._settle()
        self.complete = True
        out.append(RoundSettled(nets={b: sum(ws.values()) for b, ws in self.nets.items()}))
        return out

    def _stake(self, box: int, wager: str, amount: int) -> None:
        """A wager placed by a decision (bet, play, street wagers)."""
        self.stakes[box][wager] = self.stakes[box].get(wager, 0) + amount

    def _transfer(self, src: str, dst: str, amount: int) -> None:
        if amount < 0:
            src, dst, amount = dst, src, -amount
        if amount:
            self.transfers.append((src, dst, amount))

    def _record(self, box: int, wager: str, net: int) -> None:
        self.nets[box][wager] = self.nets[box].get(wager, 0) + net

    def _win(self, box: int, wager: str, amount: int, detail: str = "") -> WagerSettled:
        self._record(box, wager, amount)
        self._transfer("house", f"box:{box}", amount)
        return WagerSettled(box=box, wager=wager, net=amount, outcome="win", detail=detail)

    def _lose(self, box: int, wager: str, detail: str = "") -> WagerSettled:
        stake = self.stakes[box][wager]
        self._record(box, wager, -stake)
        self._transfer(f"box:{box}", "house", stake)
        return WagerSettled(box=box, wager=wager, net=-stake, outcome="lose", detail=detail)

    def _push(self, box: int, wager: str, detail: str = "", outcome: str = "push") -> WagerSettled:
        self._record(box, wager, 0)
        return WagerSettled(box=box, wager=wager, net=0, outcome=outcome, detail=detail)

    # ----------------------------------------------------------------- internals
    def _emit(self, events: list[Event]) -> list[Event]:
        self.events.extend(events)
        return events

    def _check_awaiting(self, box: int) -> None:
        if not self._started:
            raise IllegalAction("not_started", "the round has not started")
        if self.complete:
            raise IllegalAction("round_complete", "the round is complete")
        if box not in self.wagers:
            raise IllegalAction("no_such_box", f"box {box} has no wager in this round")
        if box not in self._awaiting:
            raise IllegalAction(
                "not_awaiting_decision", f"box {box} owes no decision on this street"
            )

    def _decide(self, box: int, verb: str, amount: int | None, cause: str) -> list[Event]:
        self._check_awaiting(box)
        choices = {c.verb: c for c in self._choices(box)}
        if verb not in choices:
            raise IllegalAction(
                "illegal_verb", f"box {box} may {', '.join(choices)} now, not {verb!r}"
            )
        resolved = choices[verb].resolve(amount)
        assert self.street is not None
        out: list[Event] = [
            DecisionMade(box=box, street=self.street, verb=verb, amount=resolved, cause=cause)
        ]
        out += self._apply(box, verb, resolved)
        self._awaiting.remove(box)
        if not self._awaiting:
            out += self._street_closed()
        return self._emit(out)
