"""The player-vs-player poker table: seats, stakes, pace, and one engine round at a time.

The engine (``server.games.poker``) knows the rules of one round; this table knows the seats:
who sits where, each seat's table stake (in the books, ``stake:N``), whose turn it is and for
how long, who is sitting out, and when the next round starts. The seat lifecycle (join,
resume, detach, grace, vacate, shutdown) is the base's (``server/tables/base.py``). Money
moves between a wallet and a seat's stake only between rounds, and from stake to stake only
as a round's settlement.

Rules applied here (see the "Table server" section of docs/rulings.md); each reads the
:class:`~server.games.poker.RuleSet`, never the game id:

* Table stakes: buy-in and top-up only while the seat is not in a round (ACT 5.4, 5.5, 12.3;
  QLD Sch 11 s18(4), s31; Sch 5 s19(4), s29); the resulting stake must lie within the
  table's buy-in limits (ACT 5.4: at least the minimum table stake, no maximum; QLD s18(3),
  s31(6): between the minimum and maximum buy-in). Leaving returns the stake to the wallet.
* A seat below the minimum must top up before it is dealt in (``RuleSet.top_up_below``):
  ACT 12.3 (unless its wallet cannot cover the top-up), QLD Sch 11 s31(2) (stake below the
  minimum wager), QLD Sch 5 s29 (no stake). A seat with no stake whose wallet cannot cover a
  buy-in is vacated ("busted": ACT 12.3, QLD Sch 11 s31(4), Sch 5 s29(2)).
* Sitting out (``RuleSet.absent_players``): ACT and QLD Manila cannot skip the buck or blind
  (ACT 6.3, Sch 5 s17(3); digest Rec. A-16/A-11/A-9): a sitting-out seat is still dealt in
  and folds when its turn comes. QLD hold'em/Omaha: sitting out is the absent player of
  Sch 11 s21(2): not dealt in, skipped for the button and blinds (s17(4), s23(3)); on
  return it posts the second blind now or waits until the second blind reaches it, as it
  chooses (s23A(2), ``sit_in.wait_for_blind``). A new player (s21(1)) is not dealt in on
  the button or the first blind (s21(3)) and makes the same choice (s23A(1)).
* ACT 18.8 (``RuleSet.vacates_abstainers``): a seat that does not wager for 3 consecutive
  rounds while every seat is taken is vacated; the round before, it is warned.
* Pace: the engine's ``turn_to_act`` goes out as the table's ``turn`` event with the clock
  added: turn time then the seat's time bank (everyone is told when a bank starts to run;
  banks are topped up every ``time_bank_hands`` hands, up to a cap); on timeout the engine
  acts (check if legal, else fold). A disconnected seat is held for the grace period, its
  timer still running.
* Pre-actions (``server/tables/preactions.py``) are private to their seat and applied at
  its turn, in the same step, as the engine's ordinary action.
* Waiting lists (``server/room/waiting.py``): a freed seat is held for the list's first for
  ``seat_offer_time`` seconds, then offered to the next.

The table is composed of parts, modules of one job each whose functions are the table's
methods of the same names: its views (``poker_views.py``), who is dealt in and the button
(``positions.py``), the clock (``poker_clock.py``), the pre-actions (``poker_pre.py``), the
waiting lists' offers (``poker_offers.py``); its seat holder is ``poker_seat.py``'s and its
events are ``poker_events.py``'s.
"""

from __future__ import annotations

import logging
import math
from typing import Any, ClassVar

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance
from server import fair
from server.actor import Handlers
from server.cards import RandomSource, random_source
from server.config import ServerConfig, TableConfig
from server.errors import IllegalAction, ScenarioError
from server.games.poker import PokerRound, RuleSet, blind_posters, rules_for
from server.games.poker.events import ActionTaken, Event, TurnToAct
from server.games.visibility import Visibility
from server.money import dollars
from server.room.waiting import OfferSeat, OfferWithdrawn, WaitingLists
from server.store.ledger import Ledger
from server.store.model import InsufficientFunds
from server.tables import books, poker_clock, poker_offers, poker_pre, poker_views, positions
from server.tables.base import BASE_HANDLERS, Member, TableActor, TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.poker_events import (
    RoundStarting,
    SatIn,
    SatOut,
    SeatTaken,
    SeatVacated,
    StakeChanged,
    TimeBankRunning,
    TimedOut,
    VacateWarning,
)
from server.tables.poker_seat import Offer as Offer
from server.tables.poker_seat import Seat as Seat
from server.tables.preactions import decide
from server.tables.views import may_see

log = logging.getLogger("croupier.tables.poker")


class PokerTable(TableActor):
    kind = "poker"

    def __init__(self, table: TableConfig, config: ServerConfig, ledger: Ledger) -> None:
        super().__init__(table, config, ledger)
        self.rules = rules_for(table.game, dict(table.options))
        self.game = table.game
        self.rng: RandomSource = random_source(table.seed)
        self.seats: dict[int, Seat] = {}
        self.round: PokerRound | None = None
        self.in_round_seats: set[int] = set()
        self.round_stakes: dict[int, int] = {}
        self.designated: int | None = None
        self.hand = 0
        self.turn_seat: int | None = None
        self.turn_started = 0.0
        self.turn_deadline = math.inf
        self.next_round_at = 0.0
        self.table_full_at_start = False
        self.last_blinds: list[int] = []
        self.staged_rules: RuleSet | None = None  # new limits, from the next round
        self.bank_at = math.inf  # when the seat to act starts on its time bank
        #: the server's waiting lists (set by the server for its poker tables)
        self.waiting: WaitingLists | None = None
        self.offers: dict[int, Offer] = {}  # seat held for the waiting list's first
        self.unstaked: dict[int, float] = {}  # seat -> since when it holds no stake

    @property
    def bank_max(self) -> float:
        cap = self.config.time_bank_max
        return self.config.time_bank if cap is None else cap

    def entry_post(self) -> int:
        """What a new player posts to be dealt in (QLD Sch 11 s23A(1)), or may wait for."""
        return self.rules.minimum_wager if self.rules.absent_players and self.hand > 0 else 0

    def stake(self, seat: Seat) -> int:
        return self.books.balance(books.stake(seat.number, seat.account))

    # -- lobby and views --------------------------------------------------------------------
    #: release a seat held without a stake after ``unstaked_seat_time`` (a tournament's seats
    #: are the tournament's: it says otherwise)
    releases_unstaked: ClassVar[bool] = True

    def seat_minimum(self) -> int:
        """The minimum buy-in (QLD Sch 11 s18; ACT 5.4)."""
        return self.rules.min_buy_in

    def seat_of(self, member: Member) -> int | None:
        return member.number if isinstance(member, Seat) else None

    def sees(self, member: Member, visible_to: Visibility | None) -> bool:
        return may_see(visible_to, member.number if isinstance(member, Seat) else None)

    def where_money_is(self) -> dict[str, int] | None:
        return None  # a seat's stake lives only in the books

    # -- joining and leaving (the base runs the lifecycle) ----------------------------------
    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        max_seats = self.rules.max_seats
        held = {n for n, o in self.offers.items() if o.account != conn.account}
        mine = next((n for n, o in self.offers.items() if o.account == conn.account), None)
        # a seat offered to this account is its own; one offered to another is not free
        if join.seat is not None:
            if not 1 <= join.seat <= max_seats:
                self.error(conn, errors.BAD_SEAT, f"seats are 1 to {max_seats}", "join")
                return None
            if join.seat in self.seats or join.seat in held:
                self.error(conn, errors.SEAT_TAKEN, f"seat {join.seat} is taken", "join")
                return None
            number = join.seat
        else:
            free = mine or self._free_seat(held)
            if free is None:
                self.error(conn, errors.TABLE_FULL, "every seat is taken", "join")
                return None
            number = free
        seat = Seat(number, conn, self.config.time_bank)
        if self.rules.absent_players and self.hand > 0:
            seat.missed = 1  # a new player posts the second blind (Sch 11 s23A(1))
            seat.new = True  # not on the button or the first blind (s21(3))
        self.broadcast(SeatTaken(seat=number, name=seat.name))
        self.seats[number] = seat
        return seat

    def after_admit(self, member: Member) -> None:
        for n, o in list(self.offers.items()):
            if o.account == member.account:
                del self.offers[n]
        if self.waiting is not None:
            self.waiting.seated(self.id, member.account)

    def in_round(self, member: Member) -> bool:
        return isinstance(member, Seat) and member.number in self.in_round_seats

    def on_leaving(self, member: Member) -> None:
        if isinstance(member, Seat) and self.round is not None:
            if self.round.to_act == member.number:
                self._auto_fold(member)

    def release(self, member: Member) -> int:
        assert isinstance(member, Seat)
        returned = self.books.cash_out(member.account, member.number)
        del self.seats[member.number]
        if self.waiting is not None:
            self.waiting.seat_free(self.id)
        return returned

    def vacated_event(self, member: Member, reason: str, returned: int) -> SeatVacated:
        return SeatVacated(seat=self.seat_of(member), reason=reason, returned=returned)

    def _seat(self, cmd: TableCommand[Any], ref: str) -> Seat | None:
        member = self.member_for(cmd.conn, ref)
        return member if isinstance(member, Seat) else None

    # -- commands ---------------------------------------------------------------------------
    def on_buy_in(self, cmd: TableCommand[wire.BuyIn]) -> None:
        seat = self._seat(cmd, "buy_in")
        if seat is None:
            return
        if self.closing:
            self.error(cmd.conn, errors.SHUTTING_DOWN, "the table is closing", "buy_in")
            return
        if seat.number in self.in_round_seats:
            self.error(
                cmd.conn,
                errors.ROUND_IN_PROGRESS,
                "buy-in and top-up only between rounds (ACT 5.4, 12.3; QLD s18(4), s31)",
                "buy_in",
            )
            return
        if not self.books.can_move:
            self.error(cmd.conn, errors.STORE_UNAVAILABLE, self.books.why_not(), "buy_in")
            return
        amount = cmd.message.amount
        new = self.stake(seat) + amount
        low, high = self.rules.min_buy_in, self.rules.max_buy_in
        if amount <= 0 or new < low or (high is not None and new > high):
            limits = (
                f"{dollars(low)} to {dollars(high)}"
                if high is not None
                else f"at least {dollars(low)}"
            )
            bounds = {"min": low} if high is None else {"min": low, "max": high}
            self.error(
                cmd.conn,
                errors.BUY_IN_RANGE,
                f"the stake after a buy-in must be {limits}",
                "buy_in",
                amounts=bounds,
            )
            return
        try:
            balance = self.books.buy_in(seat.account, seat.number, amount)
        except InsufficientFunds as exc:
            self.error(
                cmd.conn, errors.INSUFFICIENT_FUNDS, str(exc), "buy_in", amounts=exc.amounts()
            )
            return
        self._gather()
        cmd.conn.send(Balance(balance))
        self.broadcast(StakeChanged(seat=seat.number, stake=new, added=amount))

    def on_act(self, cmd: TableCommand[wire.Act]) -> None:
        seat = self._seat(cmd, "act")
        if seat is None:
            return
        rnd = self.round
        if rnd is None or rnd.complete:
            self.error(cmd.conn, errors.NO_ROUND, "no round is being played", "act")
            return
        verb, amount = cmd.message.verb, cmd.message.amount
        try:  # the engine refuses out of turn (not_your_turn) and illegal actions alike
            events = rnd.act(seat.number, verb, amount)
        except IllegalAction as exc:
            code = errors.NOT_YOUR_TURN if exc.code == "not_your_turn" else errors.ILLEGAL_ACTION
            self.journal.command("act", seat=seat.number, verb=verb, amount=amount, refused=code)
            self.error(cmd.conn, code, exc.message, "act", exc.code, exc.amounts)
            return
        self.journal.command("act", seat=seat.number, verb=verb, amount=amount)
        self._spend_time(seat, trio.current_time())
        self._after(events)

    def on_sit_out(self, cmd: TableCommand[wire.SitOut]) -> None:
        seat = self._seat(cmd, "sit_out")
        if seat is None or seat.sitting_out:
            return
        seat.sitting_out = True
        self.broadcast(SatOut(seat=seat.number))
        if self.round is not None and self.round.to_act == seat.number:
            self._auto_fold(seat)

    def on_sit_in(self, cmd: TableCommand[wire.SitIn]) -> None:
        """Play again; ``wait_for_blind``: the QLD returning (or new) player's choice to
        wait for the second blind rather than post it now (Sch 11 s23A(1)-(2))."""
        seat = self._seat(cmd, "sit_in")
        if seat is None:
            return
        wait = cmd.message.wait_for_blind and self.rules.absent_players and seat.missed > 0
        if not seat.sitting_out and wait == seat.wait_for_blind:
            return
        seat.sitting_out = False
        seat.wait_for_blind = wait
        seat.abstained = 0
        self._gather()
        self.broadcast(SatIn(seat=seat.number, wait_for_blind=wait))

    # -- waiting lists (server/room/waiting.py) ---------------------------------------------------
    # -- parts of their own (each a module of one job; the same names here) ---------------
    info = poker_views.info
    view_for = poker_views.view_for
    _entry = poker_views.entry
    _seat_row = poker_views.seat_row
    _owes = poker_views.owes
    _must_top_up = positions.must_top_up
    _dealt_in = positions.dealt_in
    _eligible_count = positions.eligible_count
    _choose_players = positions.choose_players
    _waiting_seats = positions.waiting_seats
    _next_designated = positions.button_for
    on_pre_action = poker_pre.on_pre_action
    _to_call = poker_pre.to_call
    _check_pres = poker_pre.check_pres
    _clear_pre = poker_pre.clear_pre
    _tell_pre = poker_pre.tell_pre
    _start_turn = poker_clock.start_turn
    _spend_time = poker_clock.spend_time
    _top_up_bank = poker_clock.top_up_bank
    _release_unstaked = poker_clock.release_unstaked
    _gather = poker_clock.gather
    on_offer_seat = poker_offers.on_offer_seat
    on_offer_withdrawn = poker_offers.on_offer_withdrawn
    _expire_offers = poker_offers.expire_offers
    _free_seat = poker_offers.free_seat

    # -- time -------------------------------------------------------------------------------
    def round_deadline(self) -> float:
        deadline = min(self.turn_deadline, self.bank_at)
        for o in self.offers.values():
            deadline = min(deadline, o.expires)
        if self.unstaked:
            deadline = min(deadline, min(self.unstaked.values()) + self.config.unstaked_seat_time)
        if self.round is None and self.may_deal() and self._eligible_count() >= 2:
            return min(deadline, self.next_round_at)
        return deadline

    def on_round_time(self, now: float) -> None:
        self._expire_offers(now)
        if self.releases_unstaked:
            self._release_unstaked(now)
        if self.turn_seat is not None and now >= self.bank_at:
            self.bank_at = math.inf  # the turn time is up: everyone sees the bank run
            at = self.seats.get(self.turn_seat)
            bank = int(at.bank * 1000) if at is not None else 0
            self.broadcast(TimeBankRunning(seat=self.turn_seat, time_bank_ms=bank))
        rnd = self.round
        if rnd is not None and self.turn_seat is not None and now >= self.turn_deadline:
            seat_no = self.turn_seat
            if seat_no in self.seats:
                self.seats[seat_no].bank = 0.0
            self.journal.command("timeout", seat=seat_no)
            events = rnd.timeout(seat_no)
            verb = next(
                (e.verb for e in events if type(e) is ActionTaken and e.seat == seat_no),
                "fold",
            )
            self.broadcast(TimedOut(seat=seat_no, verb=verb))
            self._after(events)
        if self.round is None and self.may_deal() and now >= self.next_round_at:
            self._start_round()

    # -- rounds -----------------------------------------------------------------------------
    def stage_limits(self, limits: dict[str, int]) -> str | None:
        """New blinds (``blind_1``, ``blind_2``...) or buy-in limits (``min_table_stake``,
        ``min_buy_in``, ``max_buy_in``), checked by the rules and in force from the next
        round (the players were told now)."""
        options = {k: v for k, v in self.table.options.items()}
        blinds = [limits.pop(k) for k in sorted(k for k in limits if k.startswith("blind_"))]
        if blinds:
            options["blinds"] = blinds
        options.update(limits)
        try:
            self.staged_rules = rules_for(self.game, options)
        except ScenarioError as exc:
            return str(exc)
        return None

    def limits_from(self) -> dict[str, Any]:
        """Staged limits apply from the next hand (numbered as the table counts them)."""
        return {"from_round": self.hand + 1}

    def reopen(self) -> None:
        self._gather()

    def _start_round(self) -> None:
        if self.staged_rules is not None:  # limits changed with notice: between rounds
            self.rules, self.staged_rules = self.staged_rules, None
        if self._eligible_count() < 2 or not self.books.can_move:
            return  # no round starts while the ledger's store is out (it says why)
        chosen = self._choose_players(sorted(n for n, s in self.seats.items() if self._dealt_in(s)))
        if chosen is None:  # only new or waiting seats besides one player: they wait
            self.next_round_at = trio.current_time() + max(self.config.round_pause, 1.0)
            return
        designated, players = chosen
        self.table_full_at_start = len(self.seats) == self.rules.max_seats
        posts: dict[int, int] = {}
        if self.rules.absent_players:
            blinds = blind_posters(self.rules, designated, players)
            for n in players:
                if self.seats[n].missed and n not in blinds:
                    posts[n] = self.rules.minimum_wager  # Sch 11 s23A(2): the returner posts
        stacks = {n: self.stake(self.seats[n]) for n in players}
        try:
            # the round's secret and its players' seeds fix its card order (server/fair.py)
            rng = self.journal.begin(self.seats[n].account for n in players)
            rnd = PokerRound(self.rules, stacks, designated, rng, posts=posts or None)
            events = rnd.start()
        except ValueError:  # e.g. a stake that cannot pay a participation fee
            log.exception("table %s: cannot start a round with %s", self.id, stacks)
            self.next_round_at = trio.current_time() + max(self.config.round_pause, 1.0)
            return
        self.phases.to(Phase.DECIDING)
        self.round = rnd
        self.round_stakes = stacks
        self.in_round_seats = set(players)
        self.designated = designated
        self.hand += 1
        ref = f"{self.id}.{self.ledger.instance}.{self.hand}"
        self.books.open_round(ref)
        self.last_blinds = list(rnd.blind_seats)
        self.broadcast(RoundStarting(hand=self.hand, designated=designated, seats=players))
        self.open_journal(
            ref,
            {
                "options": dict(self.table.options),
                "rules": self.rules.describe(),
                "hand": self.hand,
                "designated": designated,
                "posts": {str(n): v for n, v in posts.items()},
                "seats": {
                    str(n): {
                        "account": self.seats[n].account,
                        "name": self.seats[n].name,
                        "stake": stacks[n],
                    }
                    for n in players
                },
            },
            fair.deck_items(rnd.deck),
        )
        self._after(events)

    def _after(self, events: list[Event]) -> None:
        """Deliver engine events (the engine's turn as the table's ``turn``, with the clock),
        then end the round or fold a seat that is sitting out or leaving at its turn."""
        while True:
            wires = [ev.to_wire() for ev in events]
            self.journal.events(events, wires)
            turn: TurnToAct | None = None
            for ev, shown in zip(events, wires, strict=True):
                if type(ev) is TurnToAct:
                    turn = ev
                else:
                    self.broadcast(shown, ev.visible_to, engine=True)
            events = []
            rnd = self.round
            if rnd is None:
                return
            if rnd.complete:
                self._end_round(rnd)
                return
            self._check_pres(rnd)
            if turn is None:
                return
            seat = self.seats.get(turn.seat)
            if seat is not None and (seat.sitting_out or seat.leaving):
                events = self._fold_events(seat)
                continue
            self._start_turn(turn)
            if seat is not None and seat.pre is not None:
                pre, verb = seat.pre, decide(seat.pre, turn.legal)
                if verb is None:
                    self._clear_pre(seat, "changed")
                    return
                if pre.verb != "fold_any" or verb == "fold":
                    self._clear_pre(seat, "applied")  # one-shot (fold to any bet stays)
                events = rnd.act(seat.number, verb)  # the ordinary action, in this step
                self.journal.command("act", seat=seat.number, verb=verb, amount=None, pre=pre.verb)
                continue
            return

    def _fold_events(self, seat: Seat) -> list[Event]:
        assert self.round is not None
        try:
            events = self.round.act(seat.number, "fold")
        except IllegalAction:
            self.journal.command("timeout", seat=seat.number)
            return self.round.timeout(seat.number)
        self.journal.command("act", seat=seat.number, verb="fold", amount=None)
        return events

    def _auto_fold(self, seat: Seat) -> None:
        self._after(self._fold_events(seat))

    def _end_round(self, rnd: PokerRound) -> None:
        result = rnd.result
        assert result is not None
        stacks = {int(k): v for k, v in result.stacks.items()}
        taken = result.commission + result.fees
        owners = {n: self.seats[n].account for n in self.round_stakes}
        before = self.round_stakes
        self.journal.settlement(
            {
                "before": {str(n): v for n, v in self.round_stakes.items()},
                "after": {str(n): v for n, v in stacks.items()},
                "commission": result.commission,
                "fees": result.fees,
                "voided": result.voided,
            }
        )
        self.books.settle_pot(self.round_stakes, stacks, taken, owners)
        self.books.close_round("voided" if result.voided else "settled")
        played = self.in_round_seats
        self.round = None
        self.in_round_seats = set()
        self.round_stakes = {}
        self.turn_seat = None
        self.turn_deadline = self.bank_at = math.inf
        self.next_round_at = trio.current_time() + self.config.round_pause
        self.phases.to(Phase.PAUSE)
        for seat in list(self.seats.values()):
            self._after_round(seat, seat.number in played)
        self.hand_over(owners, before, stacks)

    def hand_over(
        self, owners: dict[int, str], before: dict[int, int], after: dict[int, int]
    ) -> None:
        """A hand was settled: the ``owners`` of the seats dealt in, their stacks
        ``before`` and ``after`` it (a tournament table reports to its tournament)."""
        return None

    def may_deal(self) -> bool:
        """Whether the next hand may start when due (a tournament holds its tables)."""
        return not self.closing

    def _after_round(self, seat: Seat, played: bool) -> None:
        if seat.leaving:
            self.vacate(seat, self.leave_reason(seat))
            return
        if seat.pre is not None:
            self._clear_pre(seat, "round_ended")  # a pre-action never outlives its round
        wagered = played and not seat.sitting_out
        if self.rules.absent_players:
            seat.missed = seat.missed + 1 if seat.sitting_out else 0 if played else seat.missed
        if played:
            seat.new = seat.wait_for_blind = False
            self._top_up_bank(seat)
        if wagered or not self.table_full_at_start:
            seat.abstained = 0
        else:
            seat.abstained += 1
        self.seat_rules(seat)

    def seat_rules(self, seat: Seat) -> None:
        """After a round, the cash table's rules that vacate a seat (a tournament table's
        seats stay until the tournament moves or eliminates them)."""
        if self.rules.vacates_abstainers:
            if seat.abstained >= self.config.abstain_rounds:
                self.vacate(seat, "abstained")  # ACT 18.8
                return
            if seat.abstained == self.config.abstain_rounds - 1:  # warned first (ACT 18.8)
                warning = VacateWarning(seat=seat.number, rounds=1, visible_to=seat.number)
                self.event(seat, warning.to_wire())
        if self.stake(seat) == 0 and self.ledger.balance(seat.account) < self.rules.min_buy_in:
            self.vacate(seat, "busted")  # ACT 12.3; QLD Sch 11 s31(4), Sch 5 s29(2)

    def void_round(self, reason: str) -> None:
        """A shutdown voids the round in play: every wager returned (the engine's void)."""
        if self.round is not None and not self.round.complete:
            self.journal.command("void", reason=reason)
            self._after(self.round.void(reason))


#: The poker table's handlers: the base's and the poker messages (server/actor.py).
PokerTable.handlers = (
    Handlers[PokerTable, None](BASE_HANDLERS)
    .command(wire.BuyIn, PokerTable.on_buy_in)
    .command(wire.Act, PokerTable.on_act)
    .command(wire.SitOut, PokerTable.on_sit_out)
    .command(wire.SitIn, PokerTable.on_sit_in)
    .command(wire.PreAction, PokerTable.on_pre_action)
    .item(OfferSeat, PokerTable.on_offer_seat)
    .item(OfferWithdrawn, PokerTable.on_offer_withdrawn)
)
