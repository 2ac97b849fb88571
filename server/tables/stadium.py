"""The stadium table: hundreds of electronic player terminals on one shared outcome.

QLD Casino Gaming Rule 2010, Schedule 19 (electronic table games; digest
``electronic-table-games.md``, ETG-nn below). One spin, roll or coup of roulette (Sch 7),
sic-bo (Sch 8), wheel of fortune (Sch 10), craps (Sch 4) or baccarat (Sch 1) settles the
wagers of up to ``max_terminals`` terminals (s2(3), ETG-04).

Theory of operation, one round
------------------------------
1. **Betting window** (s5(4), ETG-24): ``betting_open`` with the countdown goes to every
   terminal. A terminal makes, changes or withdraws wagers on layout positions (``place``,
   s5(1)-(2)); each is checked against the game's rules and the terminal's own limits
   (s5(3), s8) and answered privately with ``bet_ack`` and its credit meter (ETG-15).
2. **No more bets** (s3(2)(d), s3(3)): at the deadline, or when staff call it
   (``close_betting``), the server closes the window and refuses every later wager
   (``betting_closed``). The layout frozen here is what is settled.
3. **The result** comes from one :class:`ResultSource` (ETG-05): the CSPRNG (the engine's
   injected random source: one unbiased draw per die or wheel, at once) or a dealer or an
   automated wheel or tumbler entering it with the staff ``result`` message. An invalid
   result (a no spin, a no roll, a misdeal) is handled as the game's schedule says
   (the spec's ``on_invalid``): roulette, sic-bo and baccarat wait for the re-spin with the wagers
   standing; wheel of fortune voids the spin (Sch 10 s13(4)); craps lets every wager stand
   and opens the next window (Sch 4 s23).
4. **Settlement** (s7): the game's engine settles every terminal's wagers; the result goes
   to everyone in one event, each terminal gets its own ``settlement`` (its wagers, the
   winnings, what rides) and its meter. Winnings go to the meter at once (s7(3)(b)); a
   winning stake rides on the layout until collected (s7(3)(c), s7(4); general.md C-2),
   or is collected at once with ``winning_stake_policy = "auto_collect"``.
5. **Recall** (s3(2)(f)-(h)): each terminal's previous round (bet, result, win) and the
   table's last results are in every snapshot and answer ``recall``.
6. **Corrections** (s10): staff re-settle a kept round on the right result
   (``correct_result``); the difference is posted to each meter as an adjustment, never
   overwritten; what a meter cannot cover is recorded as owed (s10(3)).

Money: the terminal's credit meter is a wallet-side account of its own
(:func:`server.tables.books.meter`), so a wager reserves credits with the wallet's one
atomic debit and the same meter serves every stadium table the account plays (s4(3)).
``box:N`` holds terminal N's wagers on the layout; ``house`` the house's net. Every movement
is a named transfer of the table's :class:`~server.tables.books.Books`.
"""

from __future__ import annotations

import copy
import logging
import math
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import TableInfo
from server import operator
from server.cards import FIRST, CardError, RandomSource, card, random_source
from server.config import ConfigError, ServerConfig, TableConfig
from server.errors import IllegalAction
from server.games.banked import base as rules
from server.games.banked.craps import Craps, Layout
from server.games.banked.outcome import OutcomeDeclared, SharedOutcomeRound
from server.games.banked.scenario import round_class
from server.games.registry import tabled
from server.games.visibility import EVERYONE, Visibility
from server.money import dollars
from server.store.ledger import Ledger
from server.store.model import InsufficientFunds, RoundState
from server.tables import books, phases, views, window
from server.tables.base import Handler, Member, Refused, TableCommand
from server.tables.connection import Connection
from server.tables.events import TableEvent

Phase = phases.Phase
BankedRound = rules.BankedRound
Event = rules.Event
InvalidRound = rules.InvalidRound
WindowTable = window.WindowTable

log = logging.getLogger("croupier.tables.stadium")

#: Every game id a stadium table plays (server/games/registry.py).
STADIUM_GAMES: tuple[str, ...] = tabled("stadium")

#: Table options of the stadium itself (taken out of ``options`` before the engine sees them).
STADIUM_OPTIONS: dict[str, Any] = {
    "winning_stake_policy": "ride",  # general.md C-2: "ride" or "auto_collect"
    "limit_notice_rounds": 3,  # Part 2 s12(1)(a): three hands' notice of a limit change
    "higher_minimum_notice_seconds": 1200,  # Part 2 s12(1)(c): 20 minutes for a higher minimum
    "kept_rounds": 20,  # settled rounds kept for recall and correction (s3(2), s10)
    #: Part 2 s12(1) "scheduled" (notice) or s12(2) "immediate_grandfathered": a higher
    #: minimum at once, the players already playing keeping the old one until they leave
    "min_increase_mode": "scheduled",
    "approval": None,  # ETG-01: the game's approval id and version, in every round record
}

#: Staff roles (session tokens, server/accounts.py) that may enter a result (sic-bo s16,
#: wheel s5: the dealer or a supervisor at the entry terminal; craps: the stickperson's call,
#: Sch 4 s24). Who may correct one or change limits: the operator channel
#: (server/operator.py; general.md §4: no correction is manager-only).
ENTRY_ROLES = frozenset({"dealer", "stickperson", "boxperson", "supervisor"})

#: Terminal lifecycle events that only staff and spectators get (a thousand terminals do not
#: need each other's comings and goings).
_QUIET = frozenset({"terminal_left", "connection"})


# -- the result source (ETG-05) ---------------------------------------------------------------
class ResultSource(ABC):
    """Where a round's result comes from: decided at "no more bets", or awaited from a
    dealer or an automated device through the staff ``result`` message."""

    name: ClassVar[str]

    @abstractmethod
    def at_no_more_bets(self) -> tuple[bool, Mapping[str, Any] | None]:
        """``(True, outcome)``: settle now on ``outcome`` (``None``: the engine draws from
        its injected random source); ``(False, None)``: wait for an entered result."""


class RngSource(ResultSource):
    """The OS CSPRNG through the engine's injected random source: one unbiased draw per die,
    wheel or card (the engines' ``randbelow``)."""

    name = "rng"

    def at_no_more_bets(self) -> tuple[bool, Mapping[str, Any] | None]:
        return True, None


class EnteredSource(ResultSource):
    """A dealer, an automated wheel or tumbler (roulette s5(2), wheel s3(2)) or a live table
    (sic-bo s2(4)) enters the result with ``result``; nothing is drawn here."""

    name = "dealer"

    def at_no_more_bets(self) -> tuple[bool, Mapping[str, Any] | None]:
        return False, None


RESULT_SOURCES: dict[str, type[ResultSource]] = {"rng": RngSource, "dealer": EnteredSource}


#: a validation probe (a round built only to ask the rules) draws nothing of the table's own
_PROBE = FIRST


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
    before: Layout | None = None  # craps: the layout the roll was thrown on
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
    """Roulette, sic-bo, wheel of fortune, baccarat: one engine round per window, built on
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
            t.round_cls(options, {number: new}, _PROBE)  # the rules' own checks
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
        outcome, call = _declared(events, rnd)
        return Played(events, outcome, call, wagers, list(rnd.transfers), standing)

    def layout_pop(self, number: int) -> dict[str, int]:
        return self._layout.pop(number, {})

    def keep_riding(self, standing: dict[int, dict[str, int]]) -> None:
        self._layout = {n: dict(ws) for n, ws in standing.items()}


class Rolls(Play):
    """Craps: the layout carries from roll to roll (Sch 4 s2, s4); each window is one roll of
    a :class:`~server.games.banked.craps.Craps` round opened on the carried layout, wagers
    and markers go through its ``decide`` (timing, odds maxima, commission, s6 removals)."""

    def __init__(self, table: StadiumTable) -> None:
        super().__init__(table)
        self.carried = Layout()
        self.engine: Craps | None = None

    def _engine(self) -> Craps:
        if self.engine is None:
            self.open()
        assert self.engine is not None
        return self.engine

    def wagers(self, number: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for w in self._current().wagers:
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
        return self._current().point

    def _current(self) -> Layout:
        return self.engine.layout if self.engine is not None else self.carried

    def layout(self) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {}
        for w in self._current().wagers:
            ws = out.setdefault(w.box, {})
            ws[w.name] = ws.get(w.name, 0) + w.stake
        return out

    def open(self) -> None:
        if self.engine is None:
            t = self.table
            self.engine = Craps(t.engine_options(), {}, t.rng, layout=self.carried)
            self.engine.start()

    def cost_bound(self, number: int, position: str, amount: int) -> int:
        """A raise plus the most commission it can owe (s11(1), s12(1): at most the rate of
        the stake, or of a lay's win, which is at most the stake)."""
        more = max(0, amount - self.wagers(number).get(position, 0))
        bp: int = self.table.options["buy_lay_commission_bp"]
        return more + -(-more * bp // 10_000)

    def place(self, number: int, position: str, amount: int, limits: tuple[int, int]) -> int:
        engine = self._engine()
        have = self.wagers(number).get(position, 0)
        odds = position.endswith("odds") or "_odds_" in position
        if amount and not odds and not limits[0] <= amount <= limits[1]:
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
        return _nets(engine.transfers[moved:]).get(books.box(number), 0)

    def mark(self, number: int, position: str, on: bool) -> None:
        self._engine().decide(number, "on" if on else "off", position)

    def play(self, outcome: Mapping[str, Any] | None) -> Played:
        engine = self._engine()
        before = copy.deepcopy(engine.layout)
        frozen = self.layout()
        played = self._roll(engine, outcome, frozen)
        self.table.craps_before = before
        return played

    def _roll(
        self, engine: Craps, outcome: Mapping[str, Any] | None, frozen: dict[int, dict[str, int]]
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
        out, call = _declared(events, engine)
        if out is None:  # a no roll (s23): nothing settled, every wager stands
            call = "no roll"
        standing = self.layout()
        return Played(events, out, call, wagers, list(engine.transfers[moved:]), standing)

    def resettle(self, record: RoundRecord, outcome: Mapping[str, Any]) -> Played:
        assert record.before is not None
        t = self.table
        engine = Craps(t.engine_options(), {}, t.rng, layout=record.before)
        engine.start()
        return self._roll(engine, outcome, record.frozen)

    def clear(self, number: int) -> tuple[int, int]:
        """A terminal's wagers that may come down (s6(1)), with their commission returned
        (s13(1)); contract bets stay and are settled to its meter (s6(2))."""
        engine = self._engine()
        moved = len(engine.transfers)
        taken = 0
        for w in [w for w in engine.layout.wagers if w.box == number]:
            stake = w.stake
            try:
                engine.decide(number, "remove", w.name)
            except IllegalAction:
                continue
            taken += stake
        return taken, _nets(engine.transfers[moved:]).get(books.box(number), 0)

    def layout_pop(self, number: int) -> dict[str, int]:
        """Craps wagers come off only as :meth:`clear` says."""
        raise AssertionError("a carried layout's wagers come down through clear()")

    def keep_riding(self, standing: dict[int, dict[str, int]]) -> None:
        """The roll's engine layout is already carried (:meth:`_roll`)."""


def _declared(events: list[Event], rnd: BankedRound) -> tuple[dict[str, Any] | None, str]:
    """The outcome and the call of a round's events (baccarat: its two hands)."""
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


def _nets(transfers: list[tuple[str, str, int]]) -> dict[str, int]:
    """What each party gained (negative: lost) over ``transfers``, in one pass."""
    out: dict[str, int] = {}
    for src, dst, amount in transfers:
        out[dst] = out.get(dst, 0) + amount
        out[src] = out.get(src, 0) - amount
    return out


# -- the terminal ------------------------------------------------------------------------------
class Terminal(Member):
    """One electronic player terminal at the table: its number (its place on the layout)."""

    __slots__ = ("number",)

    def __init__(self, conn: Connection, number: int) -> None:
        super().__init__(conn)
        self.number = number


@dataclass
class LimitChange:
    """A limit change under notice (Part 2 s12(1)): effective from ``round_no`` and not
    before ``not_before`` (a higher minimum: 20 minutes after the notice)."""

    terminal: int | None
    minimum: int
    maximum: int
    round_no: int
    not_before: float
    announced: int  # wall clock, ms


class StadiumTable(WindowTable):
    """A table of terminals on one shared outcome (see the module docstring)."""

    kind = "stadium"

    def __init__(self, table: TableConfig, config: ServerConfig, ledger: Ledger) -> None:
        super().__init__(table, config, ledger)
        self.game = table.game
        if table.game not in STADIUM_GAMES:
            raise ConfigError(f"table {table.id}: no stadium tables of {table.game}")
        if table.result_source not in RESULT_SOURCES:
            raise ConfigError(
                f"table {table.id}: result_source is one of {', '.join(RESULT_SOURCES)}"
            )
        if table.max_terminals < 1:
            raise ConfigError(f"table {table.id}: max_terminals must be at least 1")
        raw = dict(table.options)
        self.stadium = {k: raw.pop(k, v) for k, v in STADIUM_OPTIONS.items()}
        if self.stadium["winning_stake_policy"] not in ("ride", "auto_collect"):
            raise ConfigError(f"table {table.id}: winning_stake_policy is ride or auto_collect")
        if self.stadium["min_increase_mode"] not in ("scheduled", "immediate_grandfathered"):
            raise ConfigError(
                f"table {table.id}: min_increase_mode is scheduled or immediate_grandfathered"
            )
        raw["num_boxes"] = table.max_terminals
        self.round_cls: type[BankedRound] = round_class(table.game)
        self.spec = self.round_cls.spec
        try:
            self.options = self.spec.validate_options(raw)
            if self.spec.empty_boxes:  # craps: the odds settings are checked on a round
                self.round_cls(self.options, {}, _PROBE)
        except (InvalidRound, IllegalAction) as exc:
            raise ConfigError(f"table {table.id}: {exc}") from None
        self.max_terminals = table.max_terminals
        self.source: ResultSource = RESULT_SOURCES[table.result_source]()
        self.rng: RandomSource = random_source(table.seed)
        self.play: Play = Rolls(self) if self.spec.layout_carries else OneShot(self)
        self.craps_before: Layout | None = None
        self.numbers: dict[int, str] = {}  # terminal number -> account (while it has one)
        self.limits = (self.options["minimum"], self.options["maximum"])
        self.terminal_limits: dict[int, tuple[int, int]] = {}
        self.grandfathered: dict[str, int] = {}  # account -> the minimum it keeps (s12(2))
        self.changes: list[LimitChange] = []
        self.frozen: dict[int, dict[str, int]] = {}
        #: the window's place / marker commands, journalled with their times at no more bets
        self.places_made: list[dict[str, Any]] = []
        #: the openings of the cards the round's result shows (sent with ``round_result``)
        self.shown: list[dict[str, Any]] = []
        self.records: deque[RoundRecord] = deque(maxlen=int(self.stadium["kept_rounds"]))
        self.owed: dict[str, int] = {}  # account -> cents a correction could not take back
        self.device_refs: set[tuple[str, str]] = set()
        #: account -> the stadium tables it plays at (the server shares one among its
        #: tables: the credit meter is cashed out when the last is left)
        self.sessions: dict[str, set[str]] = {}

    def engine_options(self) -> dict[str, Any]:
        return dict(self.options)

    def loosest_maximum(self) -> int:
        top: int = self.limits[1]
        return max([top, *(mx for _, mx in self.terminal_limits.values())])

    # -- lobby and views ---------------------------------------------------------------------
    def seat_minimum(self) -> int:
        """The terminal's smallest wager: the minimum it may credit in to play."""
        low: int = self.limits[0]
        return low

    def info(self) -> TableInfo:
        return self.lobby_row(
            f"{self.spec.title}, electronic terminals ({self.spec.rules}; Sch 19)",
            {"minimum": self.limits[0], "maximum": self.limits[1]},
            self.max_terminals,
            len(self.members),
        )

    def floor_more(self) -> dict[str, Any]:
        """The floor's stadium facts: who enters results, and the kept rounds a correction
        may re-settle (Sch 19 s10(2)), newest first."""
        kept = [
            {"round": r.round_no, "outcome": r.outcome, "corrections": len(r.corrections)}
            for r in reversed(self.records)
        ]
        return {"result_source": self.source.name, "kept": kept}

    def game_config(self, terminal: Terminal | None) -> dict[str, Any]:
        """The layout a terminal draws (ETG-10, -12) and its limits (ETG-11)."""
        return {
            "game": self.game,
            "layout": layout_config(self.game, self.options),
            "limits": self._limits_wire(terminal),
            "betting_seconds": self.table.betting_seconds,
            "result_source": self.source.name,
            "winning_stake_policy": self.stadium["winning_stake_policy"],
            "max_terminals": self.max_terminals,
        }

    def _limits_wire(self, terminal: Terminal | None) -> dict[str, int]:
        lo, hi = self.limits_of(terminal)
        return {"minimum": lo, "maximum": hi}

    def limits_of(self, terminal: Terminal | None) -> tuple[int, int]:
        """ETG-40: the terminal's own limits, else the table's; a grandfathered minimum
        (Part 2 s12(2)) is kept until the player leaves."""
        if terminal is None:
            return self.limits
        lo, hi = self.terminal_limits.get(terminal.number, self.limits)
        kept = self.grandfathered.get(terminal.account)
        return (min(lo, kept) if kept is not None else lo), hi

    def view_for(self, member: Member | None) -> dict[str, Any]:
        terminal = member if isinstance(member, Terminal) else None
        now = trio.current_time()
        betting = self.phase is Phase.BETTING
        return {
            "table": self.table_view(self.info(), stadium=True),
            "game_config": self.game_config(terminal),
            "status": self._status(),
            "no_more_bets": not betting,
            "round": self.round_no,
            "round_id": self.round_id,
            "closes_in_ms": views.ms_left(self.closes_at, now) if betting else 0,
            "server_time": window.wall_ms(),
            "terminal": terminal.number if terminal else None,
            "wagers": dict(self.play.wagers(terminal.number)) if terminal else {},
            "credit_meter": self._meter(terminal.account) if terminal else None,
            "last_round": self.last_round.get(terminal.account) if terminal else None,
            "history": [
                {"round": r.round_no, "outcome": r.outcome, "call": r.call}
                for r in reversed(self.records)
            ],
            "limit_notices": [self._notice(c) for c in self.changes],
            "terminals": len(self.members),
            "puck": self.play.puck() if isinstance(self.play, Rolls) else None,
        }

    def _status(self) -> str:
        if self.closing:
            return "closing"
        return {
            Phase.BETTING: "betting_open",
            Phase.NO_MORE_BETS: "no_more_bets",
        }.get(self.phase, "settled" if self.records else "idle")

    def _meter(self, account: str) -> int:
        return self.ledger.balance(books.meter(account)[7:])

    def seat_of(self, member: Member) -> int | None:
        return member.number if isinstance(member, Terminal) else None

    def sees(self, member: Member, visible_to: Visibility | None) -> bool:
        return visible_to == EVERYONE

    def broadcast(
        self,
        event: dict[str, Any] | TableEvent,
        visible_to: Visibility | None = EVERYONE,
        skip: Any = None,
        engine: bool = False,
    ) -> None:
        """Table events to every terminal, except the terminal lifecycle (:data:`_QUIET`),
        which only spectators (staff screens) get."""
        if isinstance(event, TableEvent):
            super().broadcast(event, visible_to, skip, engine)
            return
        if event.get("type") in _QUIET:
            for s in self.spectators.values():
                self.event(s, event)
            return
        super().broadcast(event, visible_to, skip, engine)

    def where_money_is(self) -> dict[str, int]:
        """``box:N`` holds terminal N's wagers on the layout (riding or standing included)."""
        return {books.box(n): sum(ws.values()) for n, ws in self.play.layout().items()}

    # -- joining and leaving (the base runs the lifecycle) ----------------------------------
    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        if len(self.members) >= self.max_terminals:
            self.error(
                conn,
                errors.GAME_FULL,
                f"{self.spec.title} has its {self.max_terminals} approved terminals "
                "(QLD Sch 19 s2(3))",
                "join",
            )
            return None
        account = conn.account or ""
        number = next(
            (
                n
                for n in range(1, self.max_terminals + 1)
                if self.numbers.get(n, account) == account
            ),
            None,
        )
        if number is None:
            self.error(conn, errors.GAME_FULL, "every terminal place is held", "join")
            return None
        self.numbers[number] = account
        return Terminal(conn, number)

    def after_admit(self, member: Member) -> None:
        self.sessions.setdefault(member.account, set()).add(self.id)
        if self.phase is Phase.IDLE:
            self.next_round_at = trio.current_time()

    def in_round(self, member: Member) -> bool:
        return (
            isinstance(member, Terminal)
            and self.phase is Phase.NO_MORE_BETS
            and member.number in self.frozen
        )

    def release(self, member: Member) -> int:
        """The terminal's wagers come off the layout to its meter (craps: the ones that may,
        s6(1)); the meter goes to the wallet when this was its last stadium table."""
        assert isinstance(member, Terminal)
        returned = 0
        self._take_down(member.account, member.number, "wager_returned")
        if not self.play.wagers(member.number):
            self.numbers.pop(member.number, None)
        self.grandfathered.pop(member.account, None)
        tables = self.sessions.get(member.account, set())
        tables.discard(self.id)
        if not tables:
            self.sessions.pop(member.account, None)
            returned = self._home(member.account)
        return returned

    def _home(self, account: str) -> int:
        """Pay the meter of an account without a stadium session to its wallet."""
        if account in self.sessions:
            return 0
        amount = self._meter(account)
        self.books.credit_out(account, amount)
        return amount

    def vacated_event(self, member: Member, reason: str, returned: int) -> dict[str, Any]:
        number = member.number if isinstance(member, Terminal) else None
        return {"type": "terminal_left", "terminal": number, "reason": reason}

    def _terminal(self, cmd: TableCommand[Any], ref: str) -> Terminal | None:
        member = self.member_for(cmd.conn, ref)
        return member if isinstance(member, Terminal) else None

    # -- the credit meter (s4, s7, s9) -----------------------------------------------------------
    def _meter_event(self, terminal: Terminal, why: str) -> None:
        self.event(
            terminal,
            {"type": "credit_meter", "credits": self._meter(terminal.account), "why": why},
        )

    def on_credit_in(self, cmd: TableCommand[wire.CreditIn]) -> None:
        """Credits bought from the wallet, onto the meter at once (s4(2)); a repeated
        ``device_ref`` is acknowledged without a second debit."""
        terminal = self._terminal(cmd, "credit_in")
        if terminal is None or self.refuse_money(cmd.conn, "credit_in"):
            return
        m = cmd.message
        ref = (terminal.account, m.device_ref) if m.device_ref is not None else None
        if ref is None or ref not in self.device_refs:
            try:
                self.books.credit_in(terminal.account, m.amount)
            except InsufficientFunds as exc:
                self.error(cmd.conn, errors.INSUFFICIENT_FUNDS, str(exc), "credit_in")
                return
            if ref is not None:
                self.device_refs.add(ref)
        cmd.conn.send(wire.Balance(self.ledger.balance(terminal.account)))
        self._meter_event(terminal, "credit_in")

    def on_collect(self, cmd: TableCommand[wire.Collect]) -> None:
        """Every wager left on the layout to the meter (s7(3)(c), s7(4))."""
        terminal = self._terminal(cmd, "collect")
        if terminal is None or self.refuse_money(cmd.conn, "collect"):
            return
        if not self._collect(cmd.conn, terminal, "collect"):
            return
        self._ack(terminal, None)

    def _collect(self, conn: Connection, terminal: Terminal, ref: str) -> bool:
        if self.phase is Phase.NO_MORE_BETS:
            self.error(conn, errors.BETTING_CLOSED, "no more bets: collect after the result", ref)
            return False
        self._take_down(terminal.account, terminal.number, "collected")
        return True

    def _take_down(self, account: str, number: int, kind: str) -> None:
        """The terminal's removable wagers (and a commission returned) to its meter."""
        taken, into = self.play.clear(number)
        self._book_engine_moves(number, into)
        self.books.release(account, number, taken + into, kind)

    def on_cash_out(self, cmd: TableCommand[wire.CashOut]) -> None:
        """The layout collected and the meter paid to the player's account (s9(3)); refused
        while its wagers wait for a result (those credits are not decided yet)."""
        terminal = self._terminal(cmd, "cash_out")
        if terminal is None or self.refuse_money(cmd.conn, "cash_out"):
            return
        if self.in_round(terminal):
            self.error(
                cmd.conn,
                errors.ROUND_IN_PROGRESS,
                "your wagers wait for the result: cash out after it",
                "cash_out",
            )
            return
        if not self._collect(cmd.conn, terminal, "cash_out"):
            return
        amount = self._meter(terminal.account)
        self.books.credit_out(terminal.account, amount)
        cmd.conn.send(wire.Balance(self.ledger.balance(terminal.account)))
        self.event(terminal, {"type": "cashed_out", "amount": amount, "method": "account"})
        self._ack(terminal, None)

    # -- the betting window (s3, s5) ----------------------------------------------------------
    def open_betting(self, now: float) -> None:
        self._apply_limit_changes(now)
        self.frozen = {}
        self.places_made = []
        self.open_window(now)
        self.play.open()
        self._enforce_limits()

    def on_place(self, cmd: TableCommand[wire.Place]) -> None:
        """Make, change or withdraw a wager (s5(1)-(3)); refused after no more bets (s3(3))."""
        terminal = self._terminal(cmd, "place")
        if terminal is None or self.refuse_after_close(cmd.conn, "place"):
            return
        m = cmd.message
        n, account = terminal.number, terminal.account
        before = sum(self.play.wagers(n).values())
        need = self.play.cost_bound(n, m.position, m.amount)
        if need > self._meter(account):
            self.error(
                cmd.conn,
                errors.INSUFFICIENT_FUNDS,
                f"the credit meter holds {dollars(self._meter(account))}: buy credits first",
                "place",
            )
            return
        try:
            into = self.play.place(n, m.position, m.amount, self.limits_of(terminal))
        except (IllegalAction, InvalidRound) as exc:
            code = exc.code if isinstance(exc, IllegalAction) else "not_a_wager"
            text = exc.message if isinstance(exc, IllegalAction) else str(exc)
            self.error(cmd.conn, errors.WAGER_REFUSED, text, "place", code)
            return
        self._book_engine_moves(n, into)
        self._square(account, n, before + into, sum(self.play.wagers(n).values()))
        self.numbers[n] = account
        self.places_made.append(
            {"terminal": n, "position": m.position, "amount": m.amount, "at": time.time()}
        )
        self._ack(terminal, m.position)

    def _book_engine_moves(self, number: int, into: int) -> None:
        """A commission the engine charged (``into`` < 0) or returned (> 0) on the box."""
        if into < 0:
            self.books.engine_transfer(books.box(number), books.HOUSE, -into)
        elif into > 0:
            self.books.engine_transfer(books.HOUSE, books.box(number), into)

    def _square(self, account: str, number: int, holds: int, wants: int) -> None:
        """Bring ``box:number`` from what it ``holds`` to what its layout ``wants``: the
        difference from or to the meter."""
        if wants > holds:
            self.books.reserve(account, number, wants - holds)
        elif holds > wants:
            self.books.release(account, number, holds - wants)

    def on_marker(self, cmd: TableCommand[wire.Marker]) -> None:
        """Craps: the on / off marker (Sch 4 s7), while betting is open."""
        terminal = self._terminal(cmd, "marker")
        if terminal is None or self.refuse_after_close(cmd.conn, "marker"):
            return
        try:
            self.play.mark(terminal.number, cmd.message.position, cmd.message.on)
        except IllegalAction as exc:
            self.error(cmd.conn, errors.WAGER_REFUSED, exc.message, "marker", exc.code)
            return
        self.places_made.append(
            {
                "terminal": terminal.number,
                "marker": cmd.message.position,
                "on": cmd.message.on,
                "at": time.time(),
            }
        )
        self._ack(terminal, cmd.message.position)

    def _ack(self, terminal: Terminal, position: str | None) -> None:
        """ETG §3 ``bet_ack``: the terminal's wagers as the server holds them, and its meter."""
        self.event(
            terminal,
            {
                "type": "bet_ack",
                "round": self.round_no,
                "position": position,
                "wagers": dict(self.play.wagers(terminal.number)),
                "credits": self._meter(terminal.account),
            },
        )

    def on_close_betting(self, cmd: TableCommand[wire.CloseBetting]) -> None:
        """Staff call "no more bets" now (the ball about to rest, the dice thrown)."""
        staff = self._staff(cmd, ENTRY_ROLES, "close_betting")
        if staff is None:
            return
        if self.phase is not Phase.BETTING:
            text = "betting is not open"
            self.error(cmd.conn, errors.BETTING_CLOSED, text, "close_betting")
            self._audit(cmd.conn, "close_betting", operator.Refusal(errors.BETTING_CLOSED, text))
            return
        round_no, round_id = self.round_no, self.round_id
        self.close_betting()
        done = operator.Done(f"no more bets: round {round_no}")
        self._audit(cmd.conn, "close_betting", done, round_id=round_id)

    def close_betting(self) -> None:
        """No more bets (s3(2)(d)): the layout is frozen; the result source decides or is
        awaited."""
        self.closes_at = math.inf
        self.phases.to(Phase.NO_MORE_BETS)
        self.frozen = {n: dict(ws) for n, ws in self.play.layout().items() if ws}
        if not self.frozen and not isinstance(self.play, Rolls):
            self.broadcast(
                {"type": "no_more_bets", "round": self.round_no, "server_time": window.wall_ms()}
            )
            self._announce(None, "no wagers: no spin", "none")
            self._end_round()
            return
        self._open_record()
        self.broadcast(
            {"type": "no_more_bets", "round": self.round_no, "server_time": window.wall_ms()}
        )
        now, outcome = self.source.at_no_more_bets()
        if now:
            self._result(outcome)
        else:
            self.broadcast({"type": "awaiting_result", "round": self.round_no})

    def _open_record(self) -> None:
        """Put the round on the record (``server/store/journal.py``) at no more bets, before
        the result: the frozen layout and its owners, the window's commands with their
        times, and the commitment to the round's secret (``server/fair.py``), which is the
        random source of the round's draws from here on (the engine's die, wheel or card)."""
        # the round's deal: the committed secret with the seeds of the terminals in it
        source = self.journal.begin(sorted({self.numbers[n] for n in self.frozen}))
        self.rng = source  # OneShot rounds are built on it at the result
        before = None
        if isinstance(self.play, Rolls):
            engine = self.play._engine()
            engine.rng = source
            before = engine.layout.to_json()
            rules_used = self.engine_options()
        else:
            assert isinstance(self.play, OneShot)
            rules_used = self.play.round_options()
        self.open_journal(
            self.round_id,
            {
                "options": dict(self.table.options),
                "rules": rules_used,
                "round_no": self.round_no,
                "result_source": self.source.name,
                "approval": self.stadium["approval"],
                "boxes": {
                    str(n): {"account": self.numbers[n], "wagers": ws}
                    for n, ws in sorted(self.frozen.items())
                },
                "before": before,
            },
            deal=False,  # committed at the result, before its cards (:meth:`_result`)
        )
        for p in self.places_made:
            self.journal.command("place" if "position" in p else "marker", **p)

    # -- the result (ETG-05) and settlement (s7) ---------------------------------------------------
    def on_result(self, cmd: TableCommand[wire.EnterResult]) -> None:
        """A dealer or device enters the result (sic-bo s15, s16; wheel s4A, s5)."""
        staff = self._staff(cmd, ENTRY_ROLES, "result")
        if staff is None:
            return
        outcome = cmd.message.outcome
        round_no, round_id = self.round_no, self.round_id
        refused = self._enter(cmd.conn, outcome, staff)
        asked = {"outcome": dict(outcome)}
        if refused is not None:
            self.error(cmd.conn, errors.BAD_RESULT, refused, "result")
            audited: operator.Outcome = operator.Refusal(errors.BAD_RESULT, refused)
        elif set(outcome) == {"invalid"}:
            audited = operator.Done(f"round {round_no}: no spin ({outcome['invalid']})")
        else:
            audited = operator.Done(f"round {round_no}: result entered")
        self._audit(cmd.conn, "result", audited, asked, round_id)

    def _enter(
        self, conn: Connection, outcome: Mapping[str, Any], staff: tuple[str, str]
    ) -> str | None:
        """Apply an entered result; why it is refused (``bad_result``), or None."""
        if self.phase is not Phase.NO_MORE_BETS or self.source.name != "dealer":
            return "no result is awaited now"
        if set(outcome) == {"invalid"}:
            if self.spec.on_invalid != "roll":
                self._invalid(str(outcome["invalid"]), staff)
                return None
            refuse = self.spec.refuse_invalid
            why = refuse(str(outcome["invalid"])) if refuse is not None else None
            if why is not None:
                return why
        try:
            self._result(outcome)
        except (InvalidRound, IllegalAction) as exc:
            return exc.message if isinstance(exc, IllegalAction) else str(exc)
        return None

    def _invalid(self, reason: str, staff: tuple[str, str]) -> None:
        """A no spin / misdeal: the wagers stand for the re-spin, or (wheel of fortune,
        s13(4)) every wager is void and returned."""
        if self.spec.on_invalid == "void":
            for n, ws in sorted(self.frozen.items()):
                account = self.numbers[n]
                self.play.layout_pop(n)
                self.books.release(account, n, sum(ws.values()))
                self._meter_to(account, "void")
            self.broadcast(
                {"type": "round_voided", "round": self.round_no, "reason": f"no spin: {reason}"}
            )
            self._end_round("voided")
            return
        self.broadcast(
            {"type": "no_spin", "round": self.round_no, "reason": reason, "by": staff[1]}
        )

    def _result(self, outcome: Mapping[str, Any] | None) -> None:
        played = self.play.play(outcome)  # InvalidRound: nothing changed
        if outcome is not None:
            self.journal.command("result", outcome=dict(outcome))
        # the deal the result came from (nothing, for a result entered: it draws nothing),
        # committed before its cards; the cards the result shows are opened with it
        self.broadcast(self.journal.commit(), engine=True)
        wires = [ev.to_wire() for ev in played.events]
        self.journal.events(played.events, wires)
        self.shown = [
            opening
            for w in wires
            if w.get("visible_to", EVERYONE) == EVERYONE
            for opening in w.get("open", ())
        ]
        owners = {n: self.numbers[n] for n in set(self.frozen) | set(played.wagers)}
        holds = {n: sum(ws.values()) for n, ws in self.frozen.items()}
        house_net = self._book_settlement(played, holds, owners)
        self.journal.settlement(
            {
                "state": "settled",
                "outcome": played.outcome,
                "call": played.call,
                "dealer": None,
                "boxes": {
                    str(n): {
                        "player": owners[n],
                        "wagers": played.wagers.get(n, {}),
                        "bet": holds.get(n, 0),
                        "paid": holds.get(n, 0) + house_net[n],
                    }
                    for n in sorted(owners)
                },
            }
        )
        self.play.keep_riding(played.standing)
        record = RoundRecord(
            self.round_no,
            self.round_id,
            played.outcome,
            played.call,
            self.frozen,
            owners,
            house_net,
            self.craps_before if isinstance(self.play, Rolls) else None,
        )
        self.records.append(record)
        self._announce(
            played.outcome, played.call, self.source.name if outcome is None else "entered"
        )
        for n in sorted(owners):
            self._settlement(record, played, n)
            if owners[n] not in self.members and not self.play.wagers(n):
                self.numbers.pop(n, None)  # a gone terminal's last standing wager settled
        self._end_round()

    def _announce(self, outcome: dict[str, Any] | None, call: str, source: str) -> None:
        """The round's result to everyone (s7(1); general.md C-6: only after no more bets)."""
        self.broadcast(
            {
                "type": "round_result",
                "round": self.round_no,
                "round_id": self.round_id,
                "outcome": outcome,
                "call": call,
                "source": source,
                "approval": self.stadium["approval"],
                "puck": self.play.puck() if isinstance(self.play, Rolls) else None,
                "open": self.shown,
            }
        )
        self.shown = []

    def _book_settlement(
        self, played: Played, holds: dict[int, int], owners: dict[int, str]
    ) -> dict[int, int]:
        """The engine's transfers through the books, then each box squared to what stands
        on it: winnings and returned stakes to the meter (s7(3)(b))."""
        for src, dst, amount in played.transfers:
            self.books.engine_transfer(src, dst, amount)
        house_net: dict[int, int] = {}
        nets = _nets(played.transfers)
        for n, account in owners.items():
            net = nets.get(books.box(n), 0)
            house_net[n] = net
            self._square(
                account, n, holds.get(n, 0) + net, sum(played.standing.get(n, {}).values())
            )
        return house_net

    def _settlement(self, record: RoundRecord, played: Played, n: int) -> None:
        """Terminal ``n``'s wagers and what they came to, to it alone (s7), and its recall."""
        account = record.owners[n]
        wagers = played.wagers.get(n, {})
        bet = sum(record.frozen.get(n, {}).values())
        won = sum(w["net"] for w in wagers.values() if w["net"] > 0)
        rec = {
            "round": record.round_no,
            "round_id": record.round_id,
            "result": played.outcome,
            "call": played.call,
            "bet_total": bet,
            "won_total": won,
            "net": record.house_net.get(n, 0),
            "wagers": wagers,
            "riding": dict(played.standing.get(n, {})),
        }
        self.last_round[account] = rec
        terminal = self.members.get(account)
        if isinstance(terminal, Terminal):
            self.event(
                terminal,
                {"type": "settlement", **rec, "credits": self._meter(account)},
            )
        else:
            self._home(account)

    def _meter_to(self, account: str, why: str) -> None:
        terminal = self.members.get(account)
        if isinstance(terminal, Terminal):
            self._meter_event(terminal, why)
        else:
            self._home(account)

    def _end_round(self, state: RoundState = "settled") -> None:
        self.books.close_round(state)
        self.frozen = {}
        self.closes_at = math.inf
        self.phases.to(Phase.PAUSE)
        self.next_round_at = trio.current_time() + self.config.round_pause
        for member in list(self.members.values()):
            if member.leaving:
                self.vacate(member, self.leave_reason(member))

    # -- corrections (s10) ---------------------------------------------------------------------
    def _kept_round(self, result: dict[str, Any]) -> tuple[RoundRecord, dict[str, Any]]:
        """The kept round a correction names (``result["round"]``, default the last) and
        the corrected outcome (the rest of ``result``); :class:`Refused` when there is no
        such round, or a craps roll that may no longer be corrected (Sch 4 s24)."""
        outcome = {k: v for k, v in result.items() if k != "round"}
        wanted = result.get("round", self.records[-1].round_no if self.records else None)
        record = next((r for r in self.records if r.round_no == wanted), None)
        if record is None:
            raise Refused(errors.NO_SUCH_ROUND, f"no kept round {wanted}")
        carries = self.spec.layout_carries
        if carries and (record is not self.records[-1] or self.phase is not Phase.PAUSE):
            raise Refused(errors.NO_SUCH_ROUND, carries)
        return record, outcome

    def _resettled(self, record: RoundRecord, outcome: dict[str, Any]) -> Played:
        try:
            return self.play.resettle(record, outcome)
        except (InvalidRound, IllegalAction) as exc:
            text = exc.message if isinstance(exc, IllegalAction) else str(exc)
            raise Refused(errors.BAD_RESULT, text) from None

    def on_resettlement(self, cmd: TableCommand[wire.Staff]) -> None:
        """The staff console's ``resettlement`` query: what ``correct_result`` would do to a
        kept round, computed and not applied, so the staff member sees the re-settlement
        before confirming it (Sch 19 s10(2)-(3)): per terminal, what the house paid it
        net, what it pays on the corrected outcome, and the difference its meter gets. A
        craps roll is re-rolled on the table's live engine, so it has no preview."""
        try:
            if isinstance(self.play, Rolls):
                text = f"a {self.spec.title.lower()} correction has no preview"
                raise Refused(errors.NOT_SUPPORTED, text)
            record, outcome = self._kept_round(dict(cmd.message.result))
            played = self._resettled(record, outcome)
        except Refused as exc:
            self.error(cmd.conn, exc.code, exc.text, "staff")
            return
        nets = _nets(played.transfers)
        terminals = [
            {
                "terminal": n,
                "account": account,
                "was": record.house_net.get(n, 0),
                "now": nets.get(books.box(n), 0),
                "difference": nets.get(books.box(n), 0) - record.house_net.get(n, 0),
            }
            for n, account in sorted(record.owners.items())
        ]
        data = {
            "table": self.id,
            "round": record.round_no,
            "old": record.outcome,
            "new": played.outcome,
            "call": played.call,
            "terminals": terminals,
        }
        cmd.conn.send(wire.StaffAnswer("resettlement", data))

    def correct_result(self, result: dict[str, Any], by: tuple[str, str]) -> str | None:
        """The operator channel's ``correct_result`` (roles: server/operator.py): re-settle
        a kept round (``result["round"]``, default the last) on the actual outcome (the rest
        of ``result``, as in ``result``; s10(2)); each meter gets the difference as an
        adjustment, and what it cannot cover is recorded as owed (s10(3))."""
        record, outcome = self._kept_round(result)
        was = self.play.layout()
        played = self._resettled(record, outcome)
        old = record.outcome
        staff = by
        in_play = self.books.round  # a window may be open meanwhile: it goes on after this
        record.corrections.append(
            {"old": old, "new": played.outcome, "by": staff[0], "role": staff[1]}
        )
        self.books.open_round(f"{record.round_id}.correction{len(record.corrections)}")
        adjustments: dict[int, int] = {}
        nets = _nets(played.transfers)
        for n, account in sorted(record.owners.items()):
            new_net = nets.get(books.box(n), 0)
            diff = new_net - record.house_net.get(n, 0)
            if isinstance(self.play, Rolls):  # the standing layout is the corrected one
                had = sum(was.get(n, {}).values())
                self._rebox(account, n, diff, had, sum(played.standing.get(n, {}).values()))
            else:
                self._adjust(account, diff)
            record.house_net[n] = new_net
            adjustments[n] = diff
        self.books.close_round("settled")
        self.books.round = in_play
        record.outcome, record.call = played.outcome, played.call
        self.broadcast(
            {
                "type": "result_corrected",
                "round": record.round_no,
                "old": old,
                "new": played.outcome,
                "call": played.call,
                "by": staff[0],
                "role": staff[1],
            }
        )
        for n, diff in adjustments.items():
            account = record.owners[n]
            rec = self.last_round.get(account)
            if rec is not None and rec["round"] == record.round_no:
                rec.update(result=played.outcome, call=played.call, net=record.house_net[n])
                rec["wagers"] = played.wagers.get(n, {})
                rec["won_total"] = sum(w["net"] for w in rec["wagers"].values() if w["net"] > 0)
            terminal = self.members.get(account)
            if isinstance(terminal, Terminal):
                self.event(
                    terminal,
                    {
                        "type": "round_adjusted",
                        "round": record.round_no,
                        "amount": diff,
                        "owed": self.owed.get(account, 0),
                        "credits": self._meter(account),
                        "wagers": played.wagers.get(n, {}),
                    },
                )
            else:
                self._home(account)
        moved = sum(abs(d) for d in adjustments.values())
        return (
            f"round {record.round_no} re-settled on {played.call}: {len(adjustments)} "
            f"terminal(s) adjusted, {dollars(moved)} moved"
        )

    def _adjust(self, account: str, diff: int) -> None:
        """Post ``diff`` to the meter; a shortfall (the credits were cashed out) is owed."""
        if diff < 0:
            take = min(-diff, self._meter(account))
            if take < -diff:
                self.owed[account] = self.owed.get(account, 0) + (-diff - take)
            diff = -take
        self.books.adjust(account, diff)

    def _rebox(self, account: str, n: int, diff: int, was: int, now: int) -> None:
        """Craps: the house's corrected net on the box, and the box squared from the
        standing layout it had to the corrected one, through the meter."""
        self._adjust(account, diff)
        if now > was and self._meter(account) < now - was:
            self.owed[account] = self.owed.get(account, 0) + (now - was - self._meter(account))
            self.books.adjust(account, now - was - self._meter(account))
        self._square(account, n, was, now)

    # -- limits (s8; Part 2 s12) ---------------------------------------------------------------
    def stage_limits(self, limits: dict[str, int]) -> str | None:
        """The operator channel's ``set_limits`` (``minimum``, ``maximum``, and ``terminal``
        for one terminal's): a limit change after the notice of Part 2 s12(1), three rounds
        and 20 minutes for a higher minimum; the reason it is refused, or None."""
        unknown = set(limits) - {"minimum", "maximum", "terminal"}
        if unknown:
            return f"a stadium table's limits are minimum, maximum and terminal, not {unknown}"
        terminal = limits.get("terminal")
        if terminal is not None and not 1 <= terminal <= self.max_terminals:
            return f"no terminal {terminal}: terminals are 1 to {self.max_terminals}"
        current = self.terminal_limits.get(terminal, self.limits) if terminal else self.limits
        minimum: int = limits["minimum"] if "minimum" in limits else current[0]
        maximum: int = limits["maximum"] if "maximum" in limits else current[1]
        if not 1 <= minimum <= maximum:
            return "limits need 1 <= minimum <= maximum"
        now = trio.current_time()
        higher = minimum > current[0]
        rounds = int(self.stadium["limit_notice_rounds"])
        wait = self.stadium["higher_minimum_notice_seconds"] if higher else 0
        if higher and self.stadium["min_increase_mode"] == "immediate_grandfathered":
            for member in self.members.values():  # s12(2): those playing keep the old minimum
                if isinstance(member, Terminal) and terminal in (None, member.number):
                    kept = self.grandfathered.get(member.account, current[0])
                    self.grandfathered[member.account] = min(kept, current[0])
            rounds, wait = 0, 0
        change = LimitChange(
            terminal,
            minimum,
            maximum,
            self.round_no + 1 + rounds,
            now + wait,
            window.wall_ms(),
        )
        self.changes.append(change)
        self.broadcast({"type": "limits_notice", **self._notice(change)})
        return None

    def limits_detail(self) -> str:
        c = self.changes[-1]
        return f"new limits from round {c.round_no} (notice of Part 2 s12(1))"

    def limits_from(self) -> dict[str, Any]:
        """The notice of Part 2 s12(1): the round and the time (ms) the change waits for."""
        notice = self._notice(self.changes[-1])
        return {"from_round": notice["from_round"], "not_before": notice["not_before"]}

    def _notice(self, c: LimitChange) -> dict[str, Any]:
        return {
            "terminal": c.terminal,
            "minimum": c.minimum,
            "maximum": c.maximum,
            "from_round": c.round_no,
            "not_before": c.announced + int(max(0.0, c.not_before - trio.current_time()) * 1000),
        }

    def _apply_limit_changes(self, now: float) -> None:
        due = [c for c in self.changes if self.round_no + 1 >= c.round_no and now >= c.not_before]
        for c in due:
            self.changes.remove(c)
            if c.terminal is None:
                self.limits = (c.minimum, c.maximum)
            else:
                self.terminal_limits[c.terminal] = (c.minimum, c.maximum)
            for member in self.members.values():
                if isinstance(member, Terminal) and c.terminal in (None, member.number):
                    self.event(
                        member,
                        {"type": "limits_changed", **self._limits_wire(member)},
                    )

    def _enforce_limits(self) -> None:
        """general.md C-3: a riding wager outside the terminal's limits now goes back to the
        meter before betting opens."""
        if isinstance(self.play, Rolls):
            return
        for n, ws in list(self.play.layout().items()):
            account = self.numbers.get(n)
            member = self.members.get(account or "")
            lo, hi = self.limits_of(member if isinstance(member, Terminal) else None)
            off = {w: a for w, a in ws.items() if not lo <= a <= hi}
            if account is None or not off:
                continue
            for w in off:
                del ws[w]
            if not ws:
                self.play.layout_pop(n)
            self.books.release(account, n, sum(off.values()))
            self._meter_to(account, "outside_limits")

    # -- staff ----------------------------------------------------------------------------------
    def _staff(
        self, cmd: TableCommand[Any], roles: frozenset[str], ref: str
    ) -> tuple[str, str] | None:
        """The account and role (from its session token, server/accounts.py) of a staff
        command, or ``not_authorized`` (Sch 19 s6), audited."""
        account = cmd.conn.account or ""
        role = cmd.conn.role
        if role not in roles:
            text = f"{ref} needs the role {' or '.join(sorted(roles))} (QLD Sch 19 s6)"
            self.error(cmd.conn, errors.NOT_AUTHORIZED, text, ref)
            self._audit(cmd.conn, ref, operator.Refusal(errors.NOT_AUTHORIZED, text))
            return None
        return account, role

    def _audit(
        self,
        conn: Connection,
        action: str,
        outcome: operator.Outcome,
        asked: Mapping[str, Any] | None = None,
        round_id: str | None = None,
    ) -> None:
        """A staff command at this table (``result``, ``close_betting``: no reason on the
        wire) into the audit log (server/operator.py), in the step that decided it."""
        operator.entry(
            self.ledger,
            operator.Staff.of(conn),
            action,
            reason=None,
            target={"table": self.id, "round": round_id or self.round_id or None},
            asked=asked,
            outcome=outcome,
            batch=self.id,
        )

    # -- other kinds' messages -------------------------------------------------------------------
    def on_other_kind(self, cmd: TableCommand[Any]) -> None:
        ref = type(cmd.message).__struct_config__.tag
        self.error(
            cmd.conn,
            errors.WRONG_GAME,
            f"a stadium table takes place / collect / credit_in / cash_out, not {ref!r}",
            ref,
        )

    handlers: ClassVar[Mapping[type, Handler]] = {
        **window.WINDOW_HANDLERS,
        wire.Place: on_place,
        wire.Marker: on_marker,
        wire.Collect: on_collect,
        wire.CreditIn: on_credit_in,
        wire.CashOut: on_cash_out,
        wire.EnterResult: on_result,
        wire.CloseBetting: on_close_betting,
        wire.Staff: on_resettlement,
        wire.Wager: on_other_kind,
        wire.Decide: on_other_kind,
        wire.Act: on_other_kind,
        wire.BuyIn: on_other_kind,
        wire.SitOut: on_other_kind,
        wire.SitIn: on_other_kind,
        wire.DevForce: on_other_kind,
    }

    def void_round(self, reason: str) -> None:
        """A shutdown or an operator's ``void_round``: the round's wagers go back to the
        meters (the round is void); craps wagers standing from earlier rolls too (at a
        shutdown: in any phase)."""
        in_window = self.phase in (Phase.BETTING, Phase.NO_MORE_BETS)
        if isinstance(self.play, Rolls):
            for n, ws in sorted(self.play.layout().items()):
                self.books.release(self.numbers[n], n, sum(ws.values()))
                self._meter_to(self.numbers[n], "void")
            self.play.carried = Layout()
            self.play.engine = None
        elif in_window:
            voided = self.frozen if self.phase is Phase.NO_MORE_BETS else self.play.layout()
            for n, ws in sorted(dict(voided).items()):
                account = self.numbers[n]
                self.play.layout_pop(n)
                self.books.release(account, n, sum(ws.values()))
                self._meter_to(account, "void")
        if in_window:
            self.broadcast({"type": "round_voided", "round": self.round_no, "reason": reason})
            self._end_round("voided")


# -- the layouts terminals draw (ETG-10, -12) -----------------------------------------------
def layout_config(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """What a terminal needs to draw the game's layout: positions, labels and payouts, from
    the engines' own tables (so the terminal shows the same odds the engine pays); the
    game's spec declares it (``terminal_layout``)."""
    draw = round_class(game).spec.terminal_layout
    if draw is None:
        raise ConfigError(f"{game} declares no terminal layout")
    return draw(options)
