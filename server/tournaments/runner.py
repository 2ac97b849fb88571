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
  and the seconds left in it, a break's, the seat map, the buttons, the disqualifications
  waiting for a hand's end) is a fact of the ledger's
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
* **Parts.** The runner is an actor (``server/actor.py``: inbox, handler map, deadline
  loop) composed of modules of one job each, its methods of the same names: the durable
  record (``record.py``), the players' entries (``entries.py``), the start of a session
  (``sessions.py``), what players see (``announce.py``) and the director's controls
  (``director.py``).
* **Players** see the tournament through ``tournament`` state messages
  (:class:`protocol.messages.TournamentState`) and take part at its tables with the ordinary
  poker messages. **The Tournament Director** (role ``tournament_director``) controls it
  through the operator channel (``server/room/operator.py``, audited there).
"""

from __future__ import annotations

import logging
import math
import time
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec
import trio

from protocol import errors
from protocol import messages as wire
from server.actor import Actor, Handlers
from server.cards import RandomSource, random_source
from server.config import ServerConfig
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.store.model import CASHIER, wallet
from server.tables.base import Shutdown, TableActor, TableCommand
from server.tables.connection import Connection
from server.tournaments import announce, director, entries, record, sessions
from server.tournaments.conditions import (
    Conditions,
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
    HandDone,
    MoveOut,
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
    """What a runner needs of its server (``server/net/app.py``: the Croupier)."""

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
        #: players the director disqualified, out once their table's hand in play is over
        self.disqualifying: set[str] = set()
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

    # -- parts of their own (each a module of one job; the same names here) ---------------------
    snapshot = record.snapshot
    save = record.save
    record_hand = record.record_hand
    restore = record.restore
    on_register = entries.on_register
    on_unregister = entries.on_unregister
    on_buy_back = entries.on_buy_back
    on_reserve = entries.on_reserve
    buy_back = entries.buy_back
    info = announce.info
    entered = announce.entered
    state_for = announce.state_for
    _publish = announce.publish
    _begin = sessions.begin
    _table = sessions.open_table
    _here = sessions.here
    _may_pay = sessions.may_pay

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
            self.disqualifying.discard(item.account)
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
