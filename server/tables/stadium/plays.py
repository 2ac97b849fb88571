"""How a game's engine plays on a stadium table's terminals: one strategy per engine shape.

:class:`OneShot` (a layout settled and rebuilt each round: one engine round per window,
built on the frozen layout and settled in its ``start``) and :class:`Rolls` (the spec's
``layout_carries``: the layout carries from throw to throw, each window one throw of an
engine opened on the carried layout, wagers and markers going through its ``decide``).
Either one answers what stands on the layout, places a wager, plays the frozen layout on a
result (:class:`Played`) and plays a kept round (:class:`RoundRecord`) again on a corrected
result (QLD Sch 19 s10).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from server.cards import FIRST, CardError, RandomSource, card
from server.errors import IllegalAction
from server.games.banked import base as rules
from server.games.banked.outcome import OutcomeDeclared, SharedOutcomeRound
from server.money import dollars
from server.tables import books

if TYPE_CHECKING:
    from server.tables.stadium.table import StadiumTable

BankedRound = rules.BankedRound
Event = rules.Event
InvalidRound = rules.InvalidRound

#: a validation probe (a round built only to ask the rules) draws nothing of the table's own
PROBE = FIRST


# -- what a carried layout's engine offers (the game's round class) ---------------------------
class CarriedWager(Protocol):
    """One wager standing on a carried layout."""

    @property
    def box(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def stake(self) -> int: ...
    @property
    def point(self) -> int | None: ...


class CarriedLayout(Protocol):
    """The table between throws: the puck (``None``: OFF) and the standing wagers."""

    @property
    def point(self) -> int | None: ...
    @property
    def wagers(self) -> Sequence[CarriedWager]: ...
    def to_json(self) -> dict[str, Any]: ...


class CarriedEngine(Protocol):
    """One throw's engine round, opened on a carried layout (``layout=``)."""

    rng: RandomSource
    transfers: list[tuple[str, str, int]]
    dealer_status: str | None

    @property
    def layout(self) -> CarriedLayout: ...
    def start(self) -> list[Event]: ...
    def decide(self, box: int, verb: str, amount: Any = None) -> list[Event]: ...
    def roll(self, outcome: Mapping[str, Any] | None = None) -> list[Event]: ...
    def end_of_decisions(self) -> list[Event]: ...


# -- one settled round, as each terminal and the table see it ---------------------------------
@dataclass
class Played:
    """What a round's engine did: its events, each terminal's wagers' figures, the transfers
    it made and what stands on each layout afterwards."""

    events: list[Event]
    outcome: dict[str, Any] | None
    call: str
    wagers: dict[int, dict[str, dict[str, Any]]]
    transfers: list[tuple[str, str, int]]
    standing: dict[int, dict[str, int]]
    void: bool = False


@dataclass
class RoundRecord:
    """A settled round kept for recall and correction (s3(2)(f)-(h), s10)."""

    round_no: int
    round_id: str
    outcome: dict[str, Any] | None
    call: str
    frozen: dict[int, dict[str, int]]
    owners: dict[int, str]
    #: per terminal: what the house paid its box, net (wins less losses and commission)
    house_net: dict[int, int]
    before: CarriedLayout | None = None  # a carried layout: the one the throw was made on
    corrections: list[dict[str, Any]] = field(default_factory=list)


# -- how a game's engine plays on terminals ---------------------------------------------------
class Play(ABC):
    """The game's rounds as the stadium runs them (one strategy per engine shape)."""

    def __init__(self, table: StadiumTable) -> None:
        self.table = table

    @abstractmethod
    def wagers(self, number: int) -> dict[str, int]:
        """Terminal ``number``'s wagers on the layout now."""

    @abstractmethod
    def layout(self) -> dict[int, dict[str, int]]:
        """Every terminal's wagers on the layout now (numbers with none may be missing)."""

    @abstractmethod
    def open(self) -> None:
        """A betting window opens."""

    @abstractmethod
    def place(self, number: int, position: str, amount: int, limits: tuple[int, int]) -> int:
        """Set ``position`` to ``amount`` for terminal ``number`` (``IllegalAction`` if the
        rules or limits refuse it, nothing changed); the cents the meter needs at most
        must have been checked by :meth:`cost_bound` first. Returns the net of the engine's
        transfers into the box (commission: negative)."""

    def cost_bound(self, number: int, position: str, amount: int) -> int:
        """The most credits ``place`` can take from the meter."""
        return max(0, amount - self.wagers(number).get(position, 0))

    def mark(self, number: int, position: str, on: bool) -> None:
        raise IllegalAction("no_markers", f"{self.table.game} has no on / off markers")

    @abstractmethod
    def play(self, outcome: Mapping[str, Any] | None) -> Played:
        """No more bets has been called: settle the frozen layout on ``outcome`` (``None``:
        the engine's random source). A malformed outcome raises ``InvalidRound``."""

    @abstractmethod
    def resettle(self, record: RoundRecord, outcome: Mapping[str, Any]) -> Played:
        """The round of ``record`` played again on the corrected ``outcome``."""

    def clear(self, number: int) -> tuple[int, int]:
        """Take terminal ``number``'s removable wagers off the layout: the stakes that came
        off, and the net of the engine's transfers into its box (a commission returned)."""
        return sum(self.layout_pop(number).values()), 0

    @abstractmethod
    def layout_pop(self, number: int) -> dict[str, int]:
        """Remove and return terminal ``number``'s wagers (between rounds)."""

    @abstractmethod
    def keep_riding(self, standing: dict[int, dict[str, int]]) -> None:
        """After settlement: ``standing`` is the new layout."""


class OneShot(Play):
    """A layout settled and rebuilt each round: one engine round per window, built on
    the frozen layout and settled in its ``start``."""

    def __init__(self, table: StadiumTable) -> None:
        super().__init__(table)
        self._layout: dict[int, dict[str, int]] = {}

    def wagers(self, number: int) -> dict[str, int]:
        return self._layout.get(number, {})

    def layout(self) -> dict[int, dict[str, int]]:
        return self._layout

    def open(self) -> None:
        return None

    def place(self, number: int, position: str, amount: int, limits: tuple[int, int]) -> int:
        t = self.table
        spec = t.spec.wager(position)
        if spec is None:
            raise IllegalAction("unknown_wager", f"no {position!r} on the {t.spec.title} layout")
        new = dict(self.wagers(number))
        if amount:
            new[position] = amount
        else:
            new.pop(position, None)
        if new:
            options = {**t.options, "minimum": limits[0], "maximum": limits[1]}
            t.round_cls(options, {number: new}, PROBE)  # the rules' own checks
            self._layout[number] = new
        else:
            self._layout.pop(number, None)
        return 0

    def round_options(self) -> dict[str, Any]:
        """The options a round is settled on: each wager was checked against its terminal's
        own limits when it was made (s8), so the round takes the loosest."""
        t = self.table
        return {**t.options, "minimum": 1, "maximum": t.loosest_maximum()}

    def _round(self, frozen: dict[int, dict[str, int]], outcome: Mapping[str, Any] | None) -> Any:
        t = self.table
        options = self.round_options()
        if issubclass(t.round_cls, SharedOutcomeRound):
            rnd: Any = t.round_cls(options, frozen, t.rng)
            return rnd, rnd.start(outcome)
        forced = None
        rng = t.rng
        if outcome is not None:
            rng = FIRST  # an entered coup spends nothing of the round's secret
            cards = outcome.get("cards") if set(outcome) == {"cards"} else None
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
                raise InvalidRound('a coup is entered as {"cards": ["9h", "Kd", ...]}')
            try:
                forced = rules.Forced(shoe=[card(c) for c in cards])
            except CardError as exc:
                raise InvalidRound(str(exc)) from None
        rnd = t.round_cls(options, frozen, rng, forced=forced)
        events = rnd.start()
        if forced is not None:
            drawn = sum(len(ev.cards) for ev in events if type(ev) is rules.CardsDealt)
            if drawn != len(forced.shoe):
                raise InvalidRound(
                    f"the coup draws {drawn} cards by the tableau; {len(forced.shoe)} entered"
                )
        return rnd, events

    def play(self, outcome: Mapping[str, Any] | None) -> Played:
        frozen = {n: dict(ws) for n, ws in self._layout.items() if ws}
        rnd, events = self._round(frozen, outcome)
        return self._played(rnd, events, frozen)

    def resettle(self, record: RoundRecord, outcome: Mapping[str, Any]) -> Played:
        rnd, events = self._round(record.frozen, outcome)
        return self._played(rnd, events, record.frozen)

    def _played(
        self, rnd: BankedRound, events: list[Event], frozen: dict[int, dict[str, int]]
    ) -> Played:
        ride = self.table.stadium["winning_stake_policy"] == "ride"
        wagers: dict[int, dict[str, dict[str, Any]]] = {n: {} for n in frozen}
        standing: dict[int, dict[str, int]] = {}
        for ev in events:
            if type(ev) is rules.WagerSettled:
                stake = frozen[ev.box][ev.wager]
                wagers[ev.box][ev.wager] = {
                    "stake": stake,
                    "net": ev.net,
                    "outcome": ev.outcome,
                    "detail": ev.detail,
                }
                if ride and ev.outcome == "win":
                    standing.setdefault(ev.box, {})[ev.wager] = stake
        outcome, call = declared(events, rnd)
        return Played(events, outcome, call, wagers, list(rnd.transfers), standing)

    def layout_pop(self, number: int) -> dict[str, int]:
        return self._layout.pop(number, {})

    def keep_riding(self, standing: dict[int, dict[str, int]]) -> None:
        self._layout = {n: dict(ws) for n, ws in standing.items()}


class Rolls(Play):
    """The spec's ``layout_carries`` (Sch 4 s2, s4): the layout carries from throw to
    throw; each window is one throw of a :class:`CarriedEngine` (the game's round class)
    opened on the carried layout, wagers and markers going through its ``decide`` (timing,
    odds maxima, commission, s6 removals)."""

    def __init__(self, table: StadiumTable) -> None:
        super().__init__(table)
        self.carried: CarriedLayout | None = None  # None: an empty layout
        self.engine: CarriedEngine | None = None
        self.make = cast(Callable[..., CarriedEngine], table.round_cls)

    def reset(self) -> None:
        """Every wager is off the layout (a void): nothing carries, no engine is open."""
        self.carried = None
        self.engine = None

    def live_engine(self) -> CarriedEngine:
        if self.engine is None:
            self.open()
        assert self.engine is not None
        return self.engine

    def wagers(self, number: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for w in self._standing():
            if w.box == number:
                key = (
                    w.name
                    if w.point is None or w.name not in ("come", "dont_come")
                    else (f"{w.name}_{w.point}")
                )
                out[key] = out.get(key, 0) + w.stake
        return out

    def puck(self) -> int | None:
        """The point (``None``: OFF, the next roll is a come-out roll, Sch 4 s2)."""
        current = self.engine.layout if self.engine is not None else self.carried
        return current.point if current is not None else None

    def _standing(self) -> Sequence[CarriedWager]:
        current = self.engine.layout if self.engine is not None else self.carried
        return current.wagers if current is not None else ()

    def layout(self) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {}
        for w in self._standing():
            ws = out.setdefault(w.box, {})
            ws[w.name] = ws.get(w.name, 0) + w.stake
        return out

    def open(self) -> None:
        if self.engine is None:
            t = self.table
            self.engine = self.make(t.engine_options(), {}, t.rng, layout=self.carried)
            self.engine.start()

    def cost_bound(self, number: int, position: str, amount: int) -> int:
        """A raise plus the most commission it can owe (s11(1), s12(1): at most the rate of
        the stake, or of a lay's win, which is at most the stake)."""
        more = max(0, amount - self.wagers(number).get(position, 0))
        bp: int = self.table.options["buy_lay_commission_bp"]
        return more + -(-more * bp // 10_000)

    def place(self, number: int, position: str, amount: int, limits: tuple[int, int]) -> int:
        engine = self.live_engine()
        have = self.wagers(number).get(position, 0)
        spec = self.table.spec.wager(position)
        held = spec is None or spec.limits == "table"  # odds: to the odds maximum (s8(2))
        if amount and held and not limits[0] <= amount <= limits[1]:
            raise IllegalAction(
                "outside_limits",
                f"{position}: this terminal's limits are {dollars(limits[0])} to "
                f"{dollars(limits[1])}",
            )
        moved = len(engine.transfers)
        if amount > have:
            engine.decide(number, "bet", {position: amount - have})
        elif amount == 0:
            engine.decide(number, "remove", position)
        elif amount < have:
            engine.decide(number, "reduce", {position: amount})
        return nets(engine.transfers[moved:]).get(books.box(number), 0)

    def mark(self, number: int, position: str, on: bool) -> None:
        self.live_engine().decide(number, "on" if on else "off", position)

    def play(self, outcome: Mapping[str, Any] | None) -> Played:
        engine = self.live_engine()
        before = copy.deepcopy(engine.layout)
        frozen = self.layout()
        played = self._roll(engine, outcome, frozen)
        self.table.carried_before = before
        return played

    def _roll(
        self,
        engine: CarriedEngine,
        outcome: Mapping[str, Any] | None,
        frozen: dict[int, dict[str, int]],
    ) -> Played:
        moved = len(engine.transfers)
        events = engine.roll(dict(outcome) if outcome is not None else None)
        engine.end_of_decisions()
        self.carried = engine.layout
        self.engine = None
        wagers: dict[int, dict[str, dict[str, Any]]] = {n: {} for n in frozen}
        for ev in events:
            if type(ev) is rules.WagerSettled:
                stake = frozen.get(ev.box, {}).get(ev.wager, 0)
                wagers.setdefault(ev.box, {})[ev.wager] = {
                    "stake": stake,
                    "net": ev.net,
                    "outcome": ev.outcome,
                    "detail": ev.detail,
                }
        out, call = declared(events, engine)
        if out is None:  # a no roll (s23): nothing settled, every wager stands
            call = "no roll"
        standing = self.layout()
        return Played(events, out, call, wagers, list(engine.transfers[moved:]), standing)

    def resettle(self, record: RoundRecord, outcome: Mapping[str, Any]) -> Played:
        assert record.before is not None
        t = self.table
        engine = self.make(t.engine_options(), {}, t.rng, layout=record.before)
        engine.start()
        return self._roll(engine, outcome, record.frozen)

    def clear(self, number: int) -> tuple[int, int]:
        """A terminal's wagers that may come down (s6(1)), with their commission returned
        (s13(1)); contract bets stay and are settled to its meter (s6(2))."""
        engine = self.live_engine()
        moved = len(engine.transfers)
        taken = 0
        for w in [w for w in engine.layout.wagers if w.box == number]:
            stake = w.stake
            try:
                engine.decide(number, "remove", w.name)
            except IllegalAction:
                continue
            taken += stake
        return taken, nets(engine.transfers[moved:]).get(books.box(number), 0)

    def layout_pop(self, number: int) -> dict[str, int]:
        """A carried layout's wagers come off only as :meth:`clear` says."""
        raise AssertionError("a carried layout's wagers come down through clear()")

    def keep_riding(self, standing: dict[int, dict[str, int]]) -> None:
        """The roll's engine layout is already carried (:meth:`_roll`)."""


def declared(
    events: list[Event], rnd: BankedRound | CarriedEngine
) -> tuple[dict[str, Any] | None, str]:
    """The outcome and the call of a round's events (a coup of cards: its hands)."""
    for ev in events:
        if type(ev) is OutcomeDeclared:
            return dict(ev.outcome), ev.call
    status = rnd.dealer_status
    if status is not None:
        hands: dict[str, list[str]] = {}
        for ev in events:
            if type(ev) is rules.CardsDealt:
                hands.setdefault(ev.to, []).extend(ev.cards)
        return {"hands": hands, "winner": getattr(rnd, "outcome", "")}, status
    return None, ""


def nets(transfers: list[tuple[str, str, int]]) -> dict[str, int]:
    """What each party gained (negative: lost) over ``transfers``, in one pass."""
    out: dict[str, int] = {}
    for src, dst, amount in transfers:
        out[dst] = out.get(dst, 0) + amount
        out[src] = out.get(src, 0) - amount
    return out
