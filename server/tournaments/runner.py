"""The tournament runner: one trio task owns one tournament, as one task owns one table.

Theory of operation. A :class:`TournamentRunner` drives the pure
:class:`~server.tournaments.lifecycle.Tournament` (the only place the rules of the
tournament live) with what the lifecycle leaves to its caller:

* **The clock.** Registration opens when the runner starts (the conditions were in the lobby
  from the moment the server had them, 2017 r 17.2(b)); a scheduled tournament closes its
  registration and seats by ballot at ``starts_at``; a sit-and-go seats when the N-th enters.
  Blind levels rise on the clock (``minutes`` of each level; a minute is
  ``ServerConfig.tournament_minute`` seconds), and the scheduled breaks (``after_level``)
  stop dealing at each table's next hand end and resume when they are over (r 17.18). A
  break stops the level clock.
* **Money.** Every :class:`~server.tournaments.lifecycle.Step`'s transfers are booked in the
  process's ledger (``server/store/ledger.py``): entry fees from the wallet to
  ``tournament:ID:pool`` and ``tournament:ID:commission``, prizes from the pool to the
  wallets, refunds on a cancellation (the director's decision, never the server's). Each
  step's events are journalled in the ledger's store as a note (``tournament:ID:...``): the
  ballot draws, the moves, the places.
* **Surviving a stop.** The whole tournament (:meth:`TournamentRunner.snapshot`: the
  lifecycle's state, every player's chips at their table's last completed hand, the level
  and the seconds left in it, a break's, the seat map, the buttons) is a fact of the ledger's
  store (``tournament_snapshot:ID``, :meth:`Ledger.remember`), rewritten at the end of every
  step that changed it, so in the same commit as the step's money; and when a table settles
  a hand, in that table's step (:meth:`record_hand`), so the hand's result is not told
  before the chips it leaves are durable (commit, then speak). A graceful stop writes it
  with the clock as it stands and cancels nothing; at the next start (after a stop or a
  kill -9) :meth:`run` resumes from it: the interrupted hands are void (every chip back to
  the last completed hand), the tables reopen with the same seats, the players sit out
  until they join again, and the level's clock goes on from the time it had left
  (docs/rulings.md, "Interrupted tournament play").
* **Chips.** Tournament chips are issued at the start of a session into each player's chips
  wallet in the tournament's own chips ledger (a memory store, never money); the tables'
  books post there (:mod:`server.tournaments.tables`). After every hand the runner checks
  that the chips in play are exactly the chips issued.
* **Tables.** At the start every table of the ballot is created on the one table layer
  (:class:`~server.tournaments.tables.PokerTournamentTable`) in the server's nursery and its
  players are seated. Each table reports every hand (:class:`HandDone`); the runner books
  the eliminations, asks the lifecycle for the balancing moves (table breaking and
  balancing, :mod:`server.tournaments.balancing`), sends each mover off its table
  (:class:`MoveOut`, between that table's hands) and seats them at the new one when the old
  one has let them go (:class:`Released`), then lets the reporting table deal again
  (:class:`Proceed`, with the blinds of the level). A table with nobody left is closed.
* **Players** see the tournament through ``tournament`` state messages
  (:class:`protocol.messages.TournamentState`) and take part at its tables with the ordinary
  poker messages. **The Tournament Director** (role ``tournament_director``) controls it
  through the operator channel (``server/operator.py``, audited there).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec
import trio

from protocol import errors
from protocol import messages as wire
from server.actor import Actor, Handlers
from server.cards import RandomSource, random_source
from server.config import ServerConfig, TableConfig
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.store.model import CASHIER, InsufficientFunds, wallet
from server.tables.base import Shutdown, TableActor, TableCommand
from server.tables.connection import Connection
from server.tournaments import director
from server.tournaments.conditions import (
    Conditions,
    banked_options,
    hand_record,
    table_options,
)
from server.tournaments.lifecycle import (
    Eliminated,
    Finished,
    Phase,
    Seated,
    Step,
    Tournament,
    TournamentError,
)
from server.tournaments.tables import (
    CanberraTournamentTable,
    HandDone,
    MoveOut,
    PokerTournamentTable,
    Proceed,
    Released,
    SeatPlayer,
    TournamentSeats,
    chips_of,
)

log = logging.getLogger("croupier.tournaments")

#: the ledger fact (``meta``) holding a tournament not over: ``tournament_snapshot:ID`` = its
#: :meth:`TournamentRunner.snapshot` as JSON ("" once it is complete or cancelled)
SNAPSHOT = "tournament_snapshot:"
_encode = msgspec.json.Encoder().encode  # a 90-player snapshot: ~10 KB in ~40 us


class Host(Protocol):
    """What a runner needs of its server (``server/app.py``: the Croupier)."""

    def open_tournament_table(self, table: TableActor) -> None: ...

    def remove_table(self, table_id: str) -> None: ...

    def connection(self, account: str) -> Connection | None: ...


class TournamentRunner(Actor):
    """One tournament in a server (see the module docstring), an actor (server/actor.py)."""

    def __init__(
        self,
        conditions: Conditions,
        config: ServerConfig,
        ledger: Ledger,
        host: Host,
        rng: RandomSource | None = None,
    ) -> None:
        super().__init__(ledger.gate, f"tournament:{conditions.id}")
        self.conditions = conditions
        self.id = conditions.id
        self.config = config
        self.ledger = ledger
        self.host = host
        self.key = SNAPSHOT + self.id  #: its snapshot's fact in the ledger's store
        self.tournament = Tournament(conditions, rng or random_source(None))
        self.chips = Ledger(MemoryStore(), instance=f"chips-{conditions.id}")
        self.tables: dict[int, TournamentSeats] = {}
        self.at: dict[str, int] = {}  #: player -> the table they play at (or go to)
        self.moving: dict[str, tuple[int, int]] = {}  #: player -> (table, seat) once released
        self.held: set[int] = set()  #: tables waiting for the runner's Proceed
        self.names: dict[str, str] = {}
        self.places: dict[str, tuple[int, int | None]] = {}  #: player -> (place, prize)
        self.level = 0  #: index in conditions.levels (0 before the start too)
        self.level_ends = math.inf
        self.level_left = 0.0  #: seconds left in the level while the clock is stopped
        self.break_ends = math.inf
        self.awarding = False  #: the director awards places once every table is between hands
        #: a break (minutes, scheduled: ends by itself) that starts when every table is
        #: between hands
        self.pausing: tuple[int, bool] | None = None
        self.starts = math.inf
        self.rounds = 0  #: Canberra Poker: rounds of play in the session
        self.session_ends = math.inf
        self.time_up = False  #: the session's minutes ran out: it ends when play allows
        self.notes = 0
        self.problems: list[str] = []  #: chips not conserved (never expected)
        #: table sizes after every round of eliminations and balancing (tests, /status)
        self.sizes: list[list[int]] = []
        self._public: tuple[Any, ...] = ()
        #: each player's chips at the last completed hand of their table (the snapshot's)
        self.stacks: dict[str, int] = {}
        #: hands settled with players out that the runner has not booked yet: their table
        #: and the busted players' chips at the hand's start
        self.pending: list[dict[str, Any]] = []
        self.buttons: dict[int, int] = {}  #: poker: each table's button after its last hand
        self.stopped = False  #: the server stopped: nothing more is done or written
        self.resumed = False  #: this runner resumed a tournament from its snapshot

    # -- called by tables, the router and jobs (sync, never blocks) -------------------------
    def submit(self, item: object) -> None:
        if isinstance(item, HandDone):  # in the table's step: durable before it is told
            self.record_hand(item)
        super().submit(item)

    @property
    def over(self) -> bool:
        return self.tournament.phase in (Phase.COMPLETE, Phase.CANCELLED)

    @property
    def minute(self) -> float:
        return self.config.tournament_minute

    # -- the actor's hooks (server/actor.py runs the inbox and the deadline loop) -------------
    async def start_services(self, nursery: trio.Nursery) -> None:
        """Open the tournament (or resume it from its snapshot) before anyone is told."""
        c = self.conditions
        gate = self.gate
        saved = self.ledger.meta.get(self.key)
        gate.begin(self.speaker)
        try:
            if saved:  # a tournament not over when the server stopped or died: it goes on
                self.restore(msgspec.json.decode(saved))
            else:
                self._apply(self.tournament.open_registration())
            if c.starts_at is not None and self.tournament.phase is Phase.REGISTERING:
                wait = (c.starts_at - datetime.now(UTC)).total_seconds()
                # resumed: the entrants get the reconnection grace to come back and take
                # their seats before the start (r 17.9; docs/rulings.md)
                back = self.config.grace if self.resumed else 0.0
                self.starts = trio.current_time() + max(0.0, wait, back)
            self.save()
        finally:
            gate.end()

    def dispatch(self, item: object) -> None:
        if self.stopped:  # the server is stopping: the snapshot is written, nothing moves
            if isinstance(item, Shutdown):
                item.done.set()
            elif isinstance(item, TableCommand):
                item.conn.send(wire.Error(code=errors.SHUTTING_DOWN, message="shutting down"))
            return
        try:
            super().dispatch(item)
        except TournamentError as exc:
            if not isinstance(item, TableCommand):
                raise
            ref = str(item.message.__struct_config__.tag)
            self._refuse(item.conn, ref, errors.TOURNAMENT_REFUSED, str(exc), exc.code)

    def failed(self, item: object) -> None:
        if isinstance(item, TableCommand):
            item.conn.send(wire.Error(code=errors.INTERNAL, message="server error"))

    def end_step(self) -> None:
        self.save()

    def on_shutdown(self, item: Shutdown) -> None:
        """The server stops (gracefully): a tournament not over is not cancelled (that is
        the director's decision): its snapshot is written with the clock as it stands, before
        the ledger's last commit, and the next start resumes it (docs/rulings.md)."""
        self.save()
        self.stopped = True
        item.done.set()

    def next_deadline(self) -> float:
        if self.stopped:
            return math.inf
        return min(self.starts, self.level_ends, self.break_ends, self.session_ends)

    # -- the durable snapshot (a tournament survives a stop) ------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """What a restarted server resumes from (see the module docstring): times are the
        seconds left (a stop pauses the clock, docs/rulings.md)."""
        now = trio.current_time()

        def left(at: float) -> float | None:
            return None if math.isinf(at) else round(max(0.0, at - now), 3)

        return {
            "version": 1,
            "tournament": self.tournament.snapshot(),
            "level": self.level,
            "level_ends": left(self.level_ends),
            "level_left": round(self.level_left, 3),
            "break_ends": left(self.break_ends),
            "session_ends": left(self.session_ends),
            "pausing": None if self.pausing is None else list(self.pausing),
            "awarding": self.awarding,
            "rounds": self.rounds,
            "stacks": dict(sorted(self.stacks.items())),
            "pending": self.pending,
            "buttons": sorted(self.buttons.items()),
            "names": dict(sorted(self.names.items())),
            "places": sorted([p, place, prize] for p, (place, prize) in self.places.items()),
        }

    def save(self) -> None:
        """Write the snapshot as a fact of the ledger's store when it changed: in the commit
        that holds what the current step moved, before the step's frames are said; cleared
        once the tournament is complete or cancelled."""
        if self.stopped:
            return
        text = "" if self.over else _encode(self.snapshot()).decode()
        if text != self.ledger.meta.get(self.key, ""):
            self.ledger.remember(self.key, text)

    def record_hand(self, item: HandDone) -> None:
        """A table settled a hand (called in the table's step): its players' chips are the
        tournament's record now; players out wait in :attr:`pending` until the runner books
        them (:meth:`on_hand_done`), so a crash between the two loses neither."""
        if self.stopped or self.tournament.phase not in (Phase.RUNNING, Phase.ON_BREAK):
            return
        self.stacks.update(item.chips)
        if item.busted:
            self.pending.append({"table": item.number, "busted": dict(item.busted)})
            for player in item.busted:
                self.stacks[player] = 0
        if self.conditions.rulebook.poker and item.marker is not None:
            self.buttons[item.number] = item.marker
        self.save()

    def restore(self, data: Mapping[str, Any]) -> None:
        """Resume the tournament a snapshot recorded (at the start, before anyone connects):
        hands a table had settled but the runner had not booked are booked; every table of
        the session reopens with its players in their seats, their chips as at their
        table's last completed hand (the hands interrupted are void, docs/rulings.md), and
        the clock goes on from the time the level (or the break) had left."""
        t = Tournament.restore(self.conditions, self.tournament.rng, data["tournament"])
        self.tournament = t
        self.resumed = True
        now = trio.current_time()

        def at(left: float | None) -> float:
            return math.inf if left is None else now + float(left)

        self.level = int(data["level"])
        self.level_left = float(data["level_left"])
        self.rounds = int(data["rounds"])
        self.awarding = bool(data["awarding"])
        pausing = data["pausing"]
        self.pausing = None if pausing is None else (int(pausing[0]), bool(pausing[1]))
        self.stacks = {p: int(v) for p, v in data["stacks"].items()}
        self.buttons = {int(n): int(b) for n, b in data["buttons"]}
        self.names = dict(data["names"])
        self.places = {p: (place, prize) for p, place, prize in data["places"]}
        log.warning(
            "tournament %s resumes: %s, session %d, level %d, %d players",
            self.id,
            t.phase.value,
            t.session,
            self.level + 1,
            len(t.playing) or len(t.status),
        )
        for hand in data["pending"]:  # settled, told, not booked: booked now
            busted = {p: int(v) for p, v in hand["busted"].items() if t.status.get(p) == "playing"}
            if busted and t.phase is Phase.RUNNING and len(busted) < len(t.playing):
                self._apply(t.eliminate(busted))
        if self.over:
            return
        if t.phase is Phase.SEATING:  # the ballot was drawn, the start not made: made now;
            # the server's stop is not an entrant's absence (r 17.9): nobody forfeits by it
            for player in [p for p, s in t.status.items() if s == "entered"]:
                self._apply(t.take_seat(player))
            self._begin()
            return
        if t.phase not in (Phase.RUNNING, Phase.ON_BREAK):
            return
        self.level_ends = at(data["level_ends"])
        self.break_ends = at(data["break_ends"])
        self.session_ends = at(data["session_ends"])
        for player in t.playing:
            chips = self.stacks.get(player, 0)
            if chips <= 0 and self.conditions.rulebook.poker:
                self.problems.append(f"resume: {player} is playing with {chips} chips")
            self.chips.move(CASHIER, wallet(player), max(chips, 0), "tournament_chips", None)
        for table in t.tables:
            actor = self._table(table.number, table.seats)
            if isinstance(actor, PokerTournamentTable):
                actor.designated = self.buttons.get(table.number)
            elif isinstance(actor, CanberraTournamentTable):
                actor.marker = table.marker
            self.tables[table.number] = actor
            self.held.add(table.number)
            self.host.open_tournament_table(actor)
            for seat, player in sorted(table.players.items()):
                self.at[player] = table.number
                self._seat(player, table.number, seat)
        if t.phase is Phase.RUNNING:
            self._moves(t.rebalance())
        self._publish(Step(), everyone=True)
        self._award_if_ready()
        self._pause_if_ready()
        for number in sorted(self.tables):
            self._proceed(number)

    def on_time(self, now: float) -> None:
        if self.stopped:
            return
        t = self.tournament
        if now >= self.starts:
            self.starts = math.inf
            if t.phase is Phase.REGISTERING:
                try:
                    self._apply(t.close_registration())
                except TournamentError as exc:
                    self._apply(t.cancel(str(exc)))
                    return
                self._begin()
        if now >= self.break_ends:
            self.break_ends = math.inf
            self._resume()
        if now >= self.level_ends:
            self._next_level(now)
        if now >= self.session_ends:
            self.session_ends = math.inf
            self._time_up()

    def _time_up(self) -> None:
        """The session's ``minutes`` are up (2017 r 17.3(a)(ii)(A)): no table starts another
        hand or round, and the session ends on the chip counts (r 17.3(a)(ix)) once the ones
        in play are over, on a break too: poker through the award of places (every table
        between hands), Canberra Poker at the end of its round of play."""
        if self.tournament.phase not in (Phase.RUNNING, Phase.ON_BREAK):
            return
        if self.conditions.rulebook.poker:
            self.awarding = True
            self._award_if_ready()
            return
        self.time_up = True
        if self.tournament.phase is Phase.ON_BREAK:  # the break ends with the session
            self._apply(self.tournament.resume())
            self.break_ends = math.inf
        if set(self.tables) <= self.held and not self.moving:
            self._round_of_play()  # every table between rounds: the session ends now

    # -- levels and breaks --------------------------------------------------------------------
    @property
    def blinds(self) -> list[int]:
        levels = self.conditions.levels
        return list(levels[self.level].blinds) if levels else []

    def _level_seconds(self) -> float:
        levels = self.conditions.levels
        return levels[self.level].minutes * self.minute if levels else math.inf

    def _next_level(self, now: float) -> None:
        """The level is over: the next begins (the last lasts to the end); a break scheduled
        after it starts now (r 17.18)."""
        ended = self.level + 1
        if self.level + 1 < len(self.conditions.levels):
            self.level += 1
        self.level_ends = now + self._level_seconds()
        brk = next((b for b in self.conditions.breaks if b.after_level == ended), None)
        if brk is not None and self.tournament.phase is Phase.RUNNING:
            self._break(brk.minutes, scheduled=True)
        self._publish(Step())

    def _break(self, minutes: int, scheduled: bool = True) -> None:
        """No table deals another hand; the break starts when every hand in play is over."""
        self.pausing = (minutes, scheduled)
        self._pause_if_ready()

    def _pause_if_ready(self) -> None:
        if self.pausing is None or not set(self.tables) <= self.held or self.moving:
            return
        minutes, scheduled = self.pausing
        self.pausing = None
        now = trio.current_time()
        self._apply(self.tournament.pause(minutes))
        self.level_left = max(0.0, self.level_ends - now)
        self.level_ends = math.inf
        self.break_ends = now + minutes * self.minute if scheduled else math.inf

    def _resume(self) -> None:
        if self.tournament.phase is not Phase.ON_BREAK:
            return
        self._apply(self.tournament.resume())
        self.break_ends = math.inf
        self.level_ends = trio.current_time() + self.level_left
        for number in sorted(self.held):
            self._proceed(number)

    # -- money and the record -----------------------------------------------------------------
    def _apply(self, step: Step, to: Connection | None = None) -> None:
        """Book a step's transfers in the ledger, journal its events, tell the players."""
        for tr in step.transfers:  # durable with the snapshot of this step (:meth:`save`)
            self.ledger.move(tr.source, tr.target, tr.amount, tr.kind, None)
        if step.transfers:
            for account in {tr.source[7:] for tr in step.transfers if tr.source[:7] == "wallet:"}:
                self._balance(account)
            for account in {tr.target[7:] for tr in step.transfers if tr.target[:7] == "wallet:"}:
                self._balance(account)
        for ev in step.events:
            if type(ev) is Eliminated:
                for p in ev.players:
                    self.places[p] = (ev.first, None)
                    self.at.pop(p, None)
                    self.stacks.pop(p, None)
                    self.moving.pop(p, None)  # out before it could move
            elif type(ev) is Finished:
                for p, prize in zip(ev.players, ev.prizes, strict=True):
                    self.places[p] = (ev.first, prize)
        if step.events:
            self.notes += 1
            self.ledger.note(
                {
                    "id": f"tournament:{self.id}:{self.ledger.instance}:{self.notes}",
                    "tournament": self.id,
                    "at": time.time(),
                    "events": [ev.to_wire() for ev in step.events],
                }
            )
        self._publish(step, to)

    def _balance(self, account: str) -> None:
        conn = self.host.connection(account)
        if conn is not None:
            conn.send(wire.Balance(self.ledger.balance(account)))

    # -- players' messages ----------------------------------------------------------------------
    # (a :class:`TournamentError` a handler raises is the refusal: :meth:`dispatch`)
    def on_register(self, cmd: TableCommand[wire.Register]) -> None:
        conn, account, t = cmd.conn, cmd.conn.account or "", self.tournament
        if not self.ledger.can_move:
            self._refuse(conn, "register", errors.STORE_UNAVAILABLE, self.ledger.why_not())
            return
        fee = self.conditions.entry_fee
        if self.ledger.balance(account) < fee:
            exc = InsufficientFunds(
                "the wallet does not cover the entry fee", self.ledger.balance(account), fee
            )
            conn.send(
                wire.Error(
                    code=errors.INSUFFICIENT_FUNDS,
                    message=str(exc),
                    ref="register",
                    amounts=exc.amounts(),
                )
            )
            return
        self.names[account] = conn.name
        self._apply(t.register(account), conn)
        if t.phase is Phase.SEATING:
            self._begin()

    def on_unregister(self, cmd: TableCommand[wire.Unregister]) -> None:
        self._apply(self.tournament.unregister(cmd.conn.account or ""), cmd.conn)

    def on_buy_back(self, cmd: TableCommand[wire.BuyBack]) -> None:
        self.buy_back(cmd.conn, cmd.conn.account or "")

    def on_reserve(self, cmd: TableCommand[wire.Reserve]) -> None:
        account = cmd.conn.account or ""
        self.names[account] = cmd.conn.name
        self._apply(self.tournament.reserve(account), cmd.conn)

    def buy_back(self, conn: Connection, account: str) -> None:
        """An eliminated player re-enters as the conditions allow (2017 r 17.3(a)(ii)(F)):
        the fee from the wallet, the entry's chips, the seat the lifecycle drew."""
        fee = self.conditions.entry_fee
        if self.ledger.balance(account) < fee or not self.ledger.can_move:
            text = "the wallet does not cover the entry fee"
            code = errors.INSUFFICIENT_FUNDS if self.ledger.can_move else errors.STORE_UNAVAILABLE
            self._refuse(conn, "buy_back", code, text)
            return
        t = self.tournament
        step = t.buy_back(account, self.level + 1 if self.conditions.levels else None)
        seat = next(e for e in step.events if type(e) is Seated)
        self.chips.move(CASHIER, wallet(account), t.chips[account], "tournament_chips", None)
        self.places.pop(account, None)
        self.stacks[account] = t.chips[account]
        self.at[account] = seat.table
        self.names[account] = conn.name
        self._seat(account, seat.table, seat.seat)
        self._apply(step, conn)

    def _refuse(
        self, conn: Connection, ref: str, code: str, text: str, reason: str | None = None
    ) -> None:
        conn.send(wire.Error(code=code, message=text, ref=ref, reason=reason))

    def _award_if_ready(self) -> None:
        """The director's award of places: when no table has a hand in play, the places by
        chip count (2017 r 17.3(a)(ix)) and the prizes."""
        live = set(self.tables)
        if not self.awarding or not live <= self.held or self.moving:
            return
        self.awarding = False
        t = self.tournament
        if t.phase is Phase.ON_BREAK:
            self._apply(t.resume())
        counts = {p: chips_of(self.chips, p) for p in t.playing}
        session = t.session
        self._apply(t.end_session(counts))
        if self.over:
            self._close_tables()
        elif t.phase is Phase.SEATING:  # the next session: a new ballot, new tables
            self._next_session(session)
        else:  # a tie decides the progression: every table plays one more hand, then again
            for number in sorted(self.held):
                self._proceed(number)
            self.awarding = True

    # -- the start ------------------------------------------------------------------------------
    def _begin(self) -> None:
        """Seats drawn: the players here take them (the others forfeit, r 17.9), the chips
        are issued, the tables open and deal."""
        t = self.tournament
        for player in [p for p, s in t.status.items() if s == "entered"]:
            if self._here(player):
                self._apply(t.take_seat(player))
            elif t.session == 1:  # r 17.10-17.11: a reserve here takes the absent's seat
                reserve = next((r for r in t.reserves if self._may_pay(r)), None)
                if reserve is not None:
                    self._apply(t.substitute(player, reserve))
        try:
            self._apply(t.start())
        except TournamentError as exc:
            self._apply(t.cancel(str(exc)))
            return
        for name, left in list(self.chips.balances.items()):  # last session's chips: back
            if name.startswith("wallet:") and left > 0:
                self.chips.move(name, CASHIER, left, "chips_returned", None)
        for player, chips in t.chips.items():
            self.chips.move(CASHIER, wallet(player), chips, "tournament_chips", None)
        self.stacks, self.buttons = dict(t.chips), {}
        self.rounds = 0
        self.time_up = False
        spec = self.conditions.sessions[t.session - 1]
        minutes = spec.minutes * self.minute if spec.minutes else math.inf
        self.session_ends = trio.current_time() + minutes
        for table in t.tables:
            actor = self._table(table.number, table.seats)
            self.tables[table.number] = actor
            self.host.open_tournament_table(actor)
            for seat, player in sorted(table.players.items()):
                self.at[player] = table.number
                self._seat(player, table.number, seat)
        self.level = 0
        self.level_ends = trio.current_time() + self._level_seconds()
        self._moves(t.rebalance())
        self._publish(Step(), everyone=True)
        for number in self.tables:
            self._proceed(number)

    def _table(self, number: int, seats: int) -> TournamentSeats:
        """A table of the session on the one table layer: poker in chips with the level's
        blinds, or Canberra Poker in chips at the session's table limits."""
        c, session = self.conditions, self.tournament.session
        ident = f"{self.id}.{number}" if session == 1 else f"{self.id}.{session}.{number}"
        name = f"{c.name} table {number}"
        turn = self.config.turn_time
        limits = c.session_limits(session)
        record = {**hand_record(c), "session": session, "started_at": time.time()}
        if limits is None:
            options = table_options(c, self.blinds, seats)
            config = TableConfig(id=ident[:32], game=c.game, name=name, options=options)
            return PokerTournamentTable(
                config,
                self.config,
                self.ledger,
                number=number,
                chips=self.chips,
                report=self.submit,
                record=record,
            )
        options = banked_options(c, session, seats)
        config = TableConfig(
            id=ident[:32], game=c.game, name=name, options=options, decision_seconds=turn
        )
        return CanberraTournamentTable(
            config,
            self.config,
            self.ledger,
            number=number,
            chips=self.chips,
            report=self.submit,
            limits=limits,
            record=record,
        )

    def _here(self, account: str) -> bool:
        conn = self.host.connection(account)
        return conn is not None and not conn.closing.is_set()

    def _may_pay(self, account: str) -> bool:
        """A reserve connected now whose wallet covers the entry fee."""
        return self._here(account) and self.ledger.balance(account) >= self.conditions.entry_fee

    def _seat(self, player: str, number: int, seat: int) -> None:
        conn = self.host.connection(player)
        name = self.names.get(player) or (conn.name if conn is not None else player)
        self.tables[number].submit(SeatPlayer(player, name, seat, conn))

    def _proceed(self, number: int) -> None:
        t = self.tournament
        table = self.tables.get(number)
        if table is None or t.phase is not Phase.RUNNING or self.awarding or self.pausing:
            self.held.add(number)
            return
        self.held.discard(number)
        table.submit(Proceed(tuple(self.blinds), self.level + 1 if self.blinds else 0))

    # -- the tables' reports --------------------------------------------------------------------
    def on_hand_done(self, item: HandDone) -> None:
        t = self.tournament
        if item.busted:  # booked now (record_hand kept it until then)
            hand = {"table": item.number, "busted": dict(item.busted)}
            if hand in self.pending:
                self.pending.remove(hand)
        self.held.add(item.number)
        if t.phase not in (Phase.RUNNING, Phase.ON_BREAK):
            return
        if item.marker is not None:
            t.mark(item.number, item.marker)
        if not self.conditions.rulebook.poker:
            self._round_of_play()
            return
        if item.busted:
            self._apply(t.eliminate(item.busted))
            if self.over:
                self._close_tables()
                return
        self._check_chips()
        if t.phase is Phase.RUNNING:
            self._moves(t.rebalance())
        self.sizes.append(sorted(len(tb.players) for tb in t.tables))
        self._close_broken()
        self._award_if_ready()
        self._pause_if_ready()
        self._proceed(item.number)

    def _round_of_play(self) -> None:
        """Canberra Poker: every table has played the round. At the session's end (its
        rounds or minutes) the results by chip count (r 17.3(a)(ix)); otherwise, before the
        next round, the players below the table minimum are out (r 17.14); then every table
        plays the next round (a break first if one is due)."""
        t = self.tournament
        if not set(self.tables) <= self.held or self.moving or self.pausing is not None:
            self._pause_if_ready()
            return
        self.rounds += 1
        spec = self.conditions.sessions[t.session - 1]
        chips = {p: chips_of(self.chips, p) for p in t.playing}
        due = (spec.rounds is not None and self.rounds >= spec.rounds) or self.time_up
        due = due or trio.current_time() >= self.session_ends  # (before the timer says so)
        session = t.session
        step = t.end_session(chips) if due else t.before_round(chips)
        if due and t.phase is Phase.RUNNING and t.session == session:
            self._apply(step)  # extra rounds (ties): r 17.14 still holds before each
            step = t.before_round(chips)
        for ev in step.events:  # out: off their tables before the next round
            if type(ev) is Eliminated:
                for p in ev.players:
                    if p in self.at and t.session == session:
                        self.tables[self.at[p]].submit(MoveOut(p, "eliminated"))
        self._apply(step)
        if self.over:
            self._close_tables()
            return
        if t.phase is Phase.SEATING:  # the next session: a new ballot, new tables
            self._next_session(session)
            return
        # a 2017 sit-and-go may move players between tables (r 17.3(a)(ii)(B)); otherwise
        # the seats are kept for the session (r 17.7) and nothing moves
        self._moves(t.rebalance())
        self.sizes.append(sorted(len(tb.players) for tb in t.tables))
        self._deal_round()

    def _deal_round(self) -> None:
        """Canberra Poker: once every mover sits at its new table, every table plays the next
        round; a table the balancing broke (or left empty) closes."""
        if self.moving:
            return
        live = {tb.number for tb in self.tournament.tables}
        for number in list(self.tables):
            if number not in live:
                self._close(number)
            else:
                self._proceed(number)

    def _next_session(self, ended: int) -> None:
        """Session ``ended`` is over and its players progressed: its tables close, the next
        session's ballot seats them at new ones (a break first if one is due after it)."""
        self._close_tables()
        self.at = {}
        after = next((b for b in self.conditions.breaks if b.after_session == ended), None)
        self._begin()
        if after is not None:
            self._break(after.minutes, scheduled=True)

    def _moves(self, step: Step) -> None:
        """Send each mover off its table; they sit at the new one once released."""
        for ev in step.events:
            if type(ev) is Seated and ev.how == "moved":
                if ev.player in self.moving:  # still on its way: a new destination
                    self.moving[ev.player] = (ev.table, ev.seat)
                else:
                    source = self.at[ev.player]
                    self.moving[ev.player] = (ev.table, ev.seat)
                    self.tables[source].submit(MoveOut(ev.player))
                self.at[ev.player] = ev.table
        self._apply(step)

    def on_released(self, item: Released) -> None:
        t = self.tournament
        if item.reason == "disqualified":
            chips = self.chips.balance(item.account)
            self.chips.move(wallet(item.account), CASHIER, chips, "chips_removed", None)
            self.stacks.pop(item.account, None)
            self.at.pop(item.account, None)
            self._apply(t.disqualify(item.account, chips))
            if self.over:
                self._close_tables()
                return
            if t.phase is Phase.RUNNING:
                self._moves(t.rebalance())
        else:
            target = self.moving.pop(item.account, None)
            if target is not None:
                self._seat(item.account, *target)
                if not self.conditions.rulebook.poker and t.phase is Phase.RUNNING:
                    self._deal_round()  # the round waited for the moves
        self._close_broken()
        self._award_if_ready()
        self._pause_if_ready()

    def _close_broken(self) -> None:
        """Close the tables the balancing broke, once nobody sits there."""
        live = {tb.number for tb in self.tournament.tables}
        for number, table in list(self.tables.items()):
            if number not in live and not table.members and number not in self.at.values():
                self._close(number)

    def _close(self, number: int) -> None:
        table = self.tables.pop(number)
        self.held.discard(number)
        table.submit(Shutdown(trio.Event()))
        self.host.remove_table(table.id)

    def _close_tables(self) -> None:
        """The tournament is over: the chips go home to the chips wallets, tables close."""
        for number in list(self.tables):
            self._close(number)
        self.level_ends = self.break_ends = math.inf

    def _check_chips(self) -> None:
        """Every chip issued is at a table or in a chips wallet of a player still in."""
        t = self.tournament
        issued = -self.chips.balances.get(CASHIER, 0)
        held = sum(v for k, v in self.chips.balances.items() if k != CASHIER)
        out = [p for p, s in t.status.items() if s == "out" and chips_of(self.chips, p)]
        if issued != t.issued or held != issued or out:
            self.problems.append(f"chips: issued {issued}/{t.issued}, held {held}, out {out}")

    # -- what players see -------------------------------------------------------------------------
    def info(self) -> wire.TournamentInfo:
        t, c = self.tournament, self.conditions
        return wire.TournamentInfo(
            id=self.id,
            name=c.name,
            game=c.game,
            phase=t.phase.value,
            entries=len(t.entries),
            players_left=len(t.playing) if t.phase is not Phase.REGISTERING else len(t.status),
            pool=t.pool,
            conditions=msgspec.to_builtins(c),
        )

    def entered(self, account: str) -> bool:
        """Whether ``account`` entered (or finished) this tournament."""
        return account in self.tournament.status or account in self.places

    def state_for(self, account: str, events: list[dict[str, Any]]) -> wire.TournamentState:
        t = self.tournament
        now = trio.current_time()
        number = self.at.get(account) if t.status.get(account) == "playing" else None
        table = self.tables.get(number) if number is not None else None
        seat = None
        if number is not None:
            seat = next(
                (
                    s
                    for tb in t.tables
                    if tb.number == number
                    for s, p in tb.players.items()
                    if p == account
                ),
                None,
            )
        place, prize = self.places.get(account, (None, None))
        return wire.TournamentState(
            tournament=self.id,
            phase=t.phase.value,
            level=self.level + 1 if t.session else 0,
            blinds=self.blinds,
            level_ms=None if math.isinf(self.level_ends) else int((self.level_ends - now) * 1000),
            break_ms=None if math.isinf(self.break_ends) else int((self.break_ends - now) * 1000),
            players_left=len(t.playing),
            entries=len(t.entries),
            pool=t.pool,
            registered=account in t.status,
            table=table.id if table is not None else None,
            seat=seat,
            place=place,
            prize=prize,
            events=events,
        )

    def _publish(self, step: Step, to: Connection | None = None, everyone: bool = False) -> None:
        """A ``tournament`` message to every entrant when what all see changed, else to the
        players the step's events name (and to ``to``, who asked)."""
        t = self.tournament
        public = (t.phase, self.level, len(t.playing), len(t.entries))
        events = [ev.to_wire() for ev in step.events]
        if everyone or public != self._public:
            self._public = public
            accounts = set(t.status)
        else:
            accounts = set()
            for ev in events:
                accounts |= {v for k, v in ev.items() if k == "player" and isinstance(v, str)}
                accounts |= {p for p in ev.get("players", ()) if isinstance(p, str)}
        if to is not None and to.account:
            accounts.add(to.account)
        for account in sorted(accounts):
            conn = to if to is not None and to.account == account else None
            conn = conn or self.host.connection(account)
            if conn is not None:
                conn.send(self.state_for(account, events))


#: The runner's handlers (server/actor.py): the players' and the director's messages, the
#: tables' reports and the server's stop.
TournamentRunner.handlers = (
    Handlers[TournamentRunner, None]()
    .command(wire.Register, TournamentRunner.on_register)
    .command(wire.Unregister, TournamentRunner.on_unregister)
    .command(wire.BuyBack, TournamentRunner.on_buy_back)
    .command(wire.Reserve, TournamentRunner.on_reserve)
    .command(wire.Operator, director.on_director)
    .item(Shutdown, TournamentRunner.on_shutdown)
    .item(HandDone, TournamentRunner.on_hand_done)
    .item(Released, TournamentRunner.on_released)
)
