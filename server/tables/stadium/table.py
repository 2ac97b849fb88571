"""The stadium table: the table kind, composed of its parts (see the package's docstring).

:class:`StadiumTable` holds what every part reads (the game's spec and options, the result
source, the play strategy, the frozen layout, the kept rounds) and answers the hooks of
:class:`~server.tables.window.WindowTable` and the table base; each job is a part of its
own: :class:`~.terminals.Terminals` (places and credit meters), :class:`~.limits.Limits`,
:class:`~.layout.Wagering` (wagers in the window), :class:`~.entry.ResultEntry` (staff
calling no more bets and entering results), :class:`~.results.Rounds` (the round from no
more bets to its end) and :class:`~.corrections.Corrections` (Sch 19 s10).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import TableInfo
from server.cards import RandomSource, random_source
from server.config import ConfigError, ServerConfig, TableConfig
from server.errors import IllegalAction
from server.games.banked import base as rules
from server.games.banked.scenario import round_class
from server.games.registry import tabled
from server.games.visibility import EVERYONE, Visibility
from server.store.ledger import Ledger
from server.tables import books, views, window
from server.tables.base import Handler, Member, TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.stadium.corrections import Corrections
from server.tables.stadium.entry import ResultEntry
from server.tables.stadium.events import TerminalConnection, TerminalLeft
from server.tables.stadium.layout import Wagering
from server.tables.stadium.limits import Limits
from server.tables.stadium.plays import PROBE, CarriedLayout, OneShot, Play, Rolls, RoundRecord
from server.tables.stadium.results import RESULT_SOURCES, ResultSource, Rounds
from server.tables.stadium.terminals import Terminal, Terminals

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


class StadiumTable(window.WindowTable):
    """A table of terminals on one shared outcome (see the module's docstring)."""

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
        self.round_cls: type[rules.BankedRound] = round_class(table.game)
        self.spec = self.round_cls.spec
        if self.spec.terminal_layout is None:
            raise ConfigError(f"table {table.id}: {table.game} declares no terminal layout")
        try:
            self.options = self.spec.validate_options(raw)
            if self.spec.empty_boxes:  # a carried layout: the odds settings checked on a round
                self.round_cls(self.options, {}, PROBE)
        except (rules.InvalidRound, IllegalAction) as exc:
            raise ConfigError(f"table {table.id}: {exc}") from None
        self.max_terminals = table.max_terminals
        self.source: ResultSource = RESULT_SOURCES[table.result_source]()
        self.rng: RandomSource = random_source(table.seed)
        self.play: Play = Rolls(self) if self.spec.layout_carries else OneShot(self)
        self.carried_before: CarriedLayout | None = None  # the layout the last throw was made on
        self.frozen: dict[int, dict[str, int]] = {}
        self.records: deque[RoundRecord] = deque(maxlen=int(self.stadium["kept_rounds"]))
        self.terminals = Terminals(self)
        self.bounds = Limits(self, self.options["minimum"], self.options["maximum"])
        self.wagering = Wagering(self)
        self.entry = ResultEntry(self)
        self.rounds = Rounds(self)
        self.corrections = Corrections(self)

    def engine_options(self) -> dict[str, Any]:
        return dict(self.options)

    @property
    def limits(self) -> tuple[int, int]:
        """The table's limits in force (s8)."""
        return self.bounds.limits

    def limits_of(self, terminal: Terminal | None) -> tuple[int, int]:
        return self.bounds.of(terminal)

    def loosest_maximum(self) -> int:
        return self.bounds.loosest_maximum()

    @property
    def sessions(self) -> dict[str, set[str]]:
        """account -> the stadium tables it plays at (the server gives its tables one map:
        a credit meter goes home when the last is left)."""
        return self.terminals.sessions

    @sessions.setter
    def sessions(self, shared: dict[str, set[str]]) -> None:
        self.terminals.sessions = shared

    def _meter(self, account: str) -> int:
        return self.terminals.meter(account)

    # -- lobby and views ---------------------------------------------------------------------
    def seat_minimum(self) -> int:
        """The terminal's smallest wager: the minimum it may credit in to play."""
        return self.limits[0]

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
        draw = self.spec.terminal_layout
        assert draw is not None  # checked when the table was made
        return {
            "game": self.game,
            "layout": draw(self.options),
            "limits": self.bounds.wire(terminal),
            "betting_seconds": self.table.betting_seconds,
            "result_source": self.source.name,
            "winning_stake_policy": self.stadium["winning_stake_policy"],
            "max_terminals": self.max_terminals,
        }

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
            "limit_notices": self.bounds.notices(),
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

    def seat_of(self, member: Member) -> int | None:
        return member.number if isinstance(member, Terminal) else None

    def sees(self, member: Member, visible_to: Visibility | None) -> bool:
        return visible_to == EVERYONE

    def where_money_is(self) -> dict[str, int]:
        """``box:N`` holds terminal N's wagers on the layout (riding or standing included)."""
        return {books.box(n): sum(ws.values()) for n, ws in self.play.layout().items()}

    # -- joining and leaving (the base runs the lifecycle; the terminals part decides) ------
    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        return self.terminals.admit(conn)

    def after_admit(self, member: Member) -> None:
        self.terminals.joined(member)

    def in_round(self, member: Member) -> bool:
        return (
            isinstance(member, Terminal)
            and self.phase is Phase.NO_MORE_BETS
            and member.number in self.frozen
        )

    def release(self, member: Member) -> int:
        return self.terminals.release(member)

    def vacated_event(self, member: Member, reason: str, returned: int) -> TerminalLeft:
        """``terminal_left``, to staff screens only."""
        return self.terminals.left(member, reason)

    def connection_event(self, member: Member, connected: bool) -> TerminalConnection:
        """A terminal's connection, to staff screens only."""
        return TerminalConnection(seat=self.seat_of(member), connected=connected)

    # -- the window and the round (the parts do the work) ----------------------------------
    def open_betting(self, now: float) -> None:
        self.bounds.apply_changes(now)
        self.frozen = {}
        self.wagering.places_made = []
        self.open_window(now)
        self.play.open()
        self.bounds.enforce()

    def close_betting(self) -> None:
        self.rounds.close_betting()

    def void_round(self, reason: str) -> None:
        self.rounds.void(reason)

    # -- the operator channel (server/room/operator.py) -----------------------------------------
    def stage_limits(self, limits: dict[str, int]) -> str | None:
        return self.bounds.stage(limits)

    def limits_detail(self) -> str:
        return self.bounds.detail()

    def limits_from(self) -> dict[str, Any]:
        return self.bounds.applies_from()

    def correct_result(self, result: dict[str, Any], by: tuple[str, str]) -> str | None:
        return self.corrections.correct(result, by)

    # -- messages ------------------------------------------------------------------------------
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
        wire.Place: lambda t, cmd: t.wagering.on_place(cmd),
        wire.Marker: lambda t, cmd: t.wagering.on_marker(cmd),
        wire.Collect: lambda t, cmd: t.terminals.on_collect(cmd),
        wire.CreditIn: lambda t, cmd: t.terminals.on_credit_in(cmd),
        wire.CashOut: lambda t, cmd: t.terminals.on_cash_out(cmd),
        wire.EnterResult: lambda t, cmd: t.entry.on_result(cmd),
        wire.CloseBetting: lambda t, cmd: t.entry.on_close_betting(cmd),
        wire.Staff: lambda t, cmd: t.corrections.on_resettlement(cmd),
        wire.Wager: on_other_kind,
        wire.Decide: on_other_kind,
        wire.Act: on_other_kind,
        wire.BuyIn: on_other_kind,
        wire.SitOut: on_other_kind,
        wire.SitIn: on_other_kind,
        wire.DevForce: on_other_kind,
    }


def layout_config(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """What a terminal needs to draw the game's layout: positions, labels and payouts, from
    the engines' own tables (so the terminal shows the same odds the engine pays); the
    game's spec declares it (``terminal_layout``)."""
    draw = round_class(game).spec.terminal_layout
    if draw is None:
        raise ConfigError(f"{game} declares no terminal layout")
    return draw(options)
