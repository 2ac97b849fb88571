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
  return it posts the second blind (s23A).
* ACT 18.8 (``RuleSet.vacates_abstainers``): a seat that does not wager for 3 consecutive
  rounds while every seat is taken is vacated.
* Pace: the engine's ``turn_to_act`` goes out as the table's ``turn`` event with the clock
  added: turn time then the seat's time bank; on timeout the engine acts (check if legal,
  else fold). A disconnected seat is held for the grace period, its timer still running.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any, ClassVar

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance, TableInfo
from server.cards import RandomSource, SeededRandomSource, SystemRandomSource
from server.config import ServerConfig, TableConfig
from server.errors import IllegalAction
from server.games.poker import PokerRound, blind_posters, next_designated, rules_for
from server.games.poker.events import ActionTaken, Event, TurnToAct
from server.games.visibility import Visibility
from server.money import dollars
from server.store.ledger import Ledger
from server.store.model import InsufficientFunds
from server.tables import books
from server.tables.base import BASE_HANDLERS, Handler, Member, TableActor, TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.views import legal_for, may_see, round_view

log = logging.getLogger("croupier.tables.poker")


class Seat(Member):
    """A seat holder: its number, time bank, and sit-out state (its stake is in the books)."""

    __slots__ = ("abstained", "bank", "missed", "number", "sitting_out")

    def __init__(self, number: int, conn: Connection, bank: float) -> None:
        super().__init__(conn)
        self.number = number
        self.sitting_out = False
        self.bank = bank
        self.abstained = 0  # consecutive rounds without wagering (ACT 18.8)
        self.missed = 0  # rounds missed while absent (QLD Sch 11 s23A)


class PokerTable(TableActor):
    kind = "poker"

    def __init__(self, table: TableConfig, config: ServerConfig, ledger: Ledger) -> None:
        super().__init__(table, config, ledger)
        self.rules = rules_for(table.game, dict(table.options))
        self.game = table.game
        self.rng: RandomSource = (
            SeededRandomSource(table.seed) if table.seed is not None else SystemRandomSource()
        )
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

    def stake(self, seat: Seat) -> int:
        return self.books.balance(books.stake(seat.number, seat.account))

    # -- lobby and views --------------------------------------------------------------------
    def info(self) -> TableInfo:
        stakes = {f"blind_{i + 1}": b for i, b in enumerate(self.rules.blinds)}
        return TableInfo(
            id=self.id,
            name=self.table.name or self.id,
            game=self.game,
            description=f"{self.rules.title}, {self.rules.structure}",
            stakes=stakes,
            min_buy_in=self.rules.min_buy_in,
            max_buy_in=self.rules.max_buy_in,
            seats=self.rules.max_seats,
            taken=len(self.seats),
            spectators=len(self.spectators),
        )

    def view_for(self, member: Member | None) -> dict[str, Any]:
        seat = member.number if isinstance(member, Seat) else None
        info = self.info()
        turn = None
        if self.turn_seat is not None:
            now = trio.current_time()
            at = self.seats.get(self.turn_seat)
            turn = {
                "seat": self.turn_seat,
                "time_ms": max(0, int((self.turn_deadline - now) * 1000)),
                "time_bank_ms": int(at.bank * 1000) if at is not None else 0,
            }
        return {
            "table": self.table_view(
                info, min_buy_in=info.min_buy_in, max_buy_in=info.max_buy_in, seats=info.seats
            ),
            "status": "closing"
            if self.closing
            else "playing"
            if self.phase is Phase.DECIDING
            else "waiting",
            "hand": self.hand,
            "designated": self.designated,
            "seats": [self._seat_row(s) for s in sorted(self.seats.values(), key=_number)],
            "round": round_view(self.round, seat, self.in_round_seats),
            "turn": turn,
        }

    def _seat_row(self, s: Seat) -> dict[str, Any]:
        return {
            "seat": s.number,
            "name": s.name,
            "stake": self.stake(s),
            "sitting_out": s.sitting_out,
            "connected": s.connected,
            "in_round": s.number in self.in_round_seats,
        }

    def seat_of(self, member: Member) -> int | None:
        return member.number if isinstance(member, Seat) else None

    def sees(self, member: Member, visible_to: Visibility | None) -> bool:
        return may_see(visible_to, member.number if isinstance(member, Seat) else None)

    def where_money_is(self) -> dict[str, int] | None:
        return None  # a seat's stake lives only in the books

    # -- joining and leaving (the base runs the lifecycle) ----------------------------------
    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        max_seats = self.rules.max_seats
        if join.seat is not None:
            if not 1 <= join.seat <= max_seats:
                self.error(conn, errors.BAD_SEAT, f"seats are 1 to {max_seats}", "join")
                return None
            if join.seat in self.seats:
                self.error(conn, errors.SEAT_TAKEN, f"seat {join.seat} is taken", "join")
                return None
            number = join.seat
        else:
            free = next((n for n in range(1, max_seats + 1) if n not in self.seats), None)
            if free is None:
                self.error(conn, errors.TABLE_FULL, "every seat is taken", "join")
                return None
            number = free
        seat = Seat(number, conn, self.config.time_bank)
        if self.rules.absent_players and self.hand > 0:
            seat.missed = 1  # a new player posts the second blind (Sch 11 s23A(1))
        self.broadcast({"type": "seat_taken", "seat": number, "name": seat.name})
        self.seats[number] = seat
        return seat

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
        return returned

    def vacated_event(self, member: Member, reason: str, returned: int) -> dict[str, Any]:
        return {
            "type": "seat_vacated",
            "seat": self.seat_of(member),
            "reason": reason,
            "returned": returned,
        }

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
        self.broadcast({"type": "stake", "seat": seat.number, "stake": new, "added": amount})

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
        self.broadcast({"type": "sat_out", "seat": seat.number})
        if self.round is not None and self.round.to_act == seat.number:
            self._auto_fold(seat)

    def on_sit_in(self, cmd: TableCommand[wire.SitIn]) -> None:
        seat = self._seat(cmd, "sit_in")
        if seat is None or not seat.sitting_out:
            return
        seat.sitting_out = False
        seat.abstained = 0
        self._gather()
        self.broadcast({"type": "sat_in", "seat": seat.number})

    handlers: ClassVar[Mapping[type, Handler]] = {
        **BASE_HANDLERS,
        wire.BuyIn: on_buy_in,
        wire.Act: on_act,
        wire.SitOut: on_sit_out,
        wire.SitIn: on_sit_in,
    }

    # -- time -------------------------------------------------------------------------------
    def round_deadline(self) -> float:
        if self.round is None and not self.closing and self._eligible_count() >= 2:
            return min(self.turn_deadline, self.next_round_at)
        return self.turn_deadline

    def on_round_time(self, now: float) -> None:
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
            self.broadcast({"type": "timed_out", "seat": seat_no, "verb": verb})
            self._after(events)
        if self.round is None and not self.closing and now >= self.next_round_at:
            self._start_round()

    def _gather(self) -> None:
        """A player became ready while no round runs: wait ``round_pause`` for others."""
        now = trio.current_time()
        if self.round is None and self.next_round_at <= now:
            self.next_round_at = now + self.config.round_pause

    def _spend_time(self, seat: Seat, now: float) -> None:
        used = now - self.turn_started
        if used > self.config.turn_time:
            seat.bank = max(0.0, seat.bank - (used - self.config.turn_time))

    # -- rounds -----------------------------------------------------------------------------
    def _must_top_up(self, seat: Seat) -> bool:
        """Whether the seat must top up before it is dealt in (ACT 12.3; QLD s31, Sch 5 s29)."""
        stake = self.stake(seat)
        if stake <= 0:
            return True
        rule = self.rules.top_up_below
        if rule == "min_wager":
            return stake < self.rules.minimum_wager  # Sch 11 s31(2)
        if rule == "min_stake" and stake < self.rules.min_buy_in:
            # ACT 12.3: required to top up, unless the player cannot
            return self.ledger.balance(seat.account) >= self.rules.min_buy_in - stake
        return False

    def _dealt_in(self, seat: Seat) -> bool:
        if seat.leaving or self._must_top_up(seat):
            return False
        return not (self.rules.absent_players and seat.sitting_out)

    def _eligible_count(self) -> int:
        """Seats that would be dealt in and are actually playing (not sitting out)."""
        return sum(1 for s in self.seats.values() if self._dealt_in(s) and not s.sitting_out)

    def _start_round(self) -> None:
        if self._eligible_count() < 2 or not self.books.can_move:
            return  # no round starts while the ledger's store is out (it says why)
        players = sorted(n for n, s in self.seats.items() if self._dealt_in(s))
        self.table_full_at_start = len(self.seats) == self.rules.max_seats
        designated = self._next_designated(players)
        posts: dict[int, int] = {}
        if self.rules.absent_players:
            blinds = blind_posters(self.rules, designated, players)
            for n in players:
                if self.seats[n].missed and n not in blinds:
                    posts[n] = self.rules.minimum_wager  # Sch 11 s23A(2): the returner posts
        stacks = {n: self.stake(self.seats[n]) for n in players}
        try:
            rng = self.journal.begin()  # the round's secret fixes its card order (fair.py)
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
        self.broadcast(
            {
                "type": "round_starting",
                "hand": self.hand,
                "designated": designated,
                "seats": players,
            }
        )
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
        )
        self._after(events)

    def _next_designated(self, players: list[int]) -> int:
        """The buck / button for the next round (ACT 6.2-6.3; QLD Sch 11 s17; Sch 5 s17).

        First round: ACT and Manila give the buck to the lowest dealt-in seat (seat 1 posts
        the first blind); QLD hold'em/Omaha puts the button on the seat immediately right of
        the dealer, the highest dealt-in seat (s17(1)), so seat 1 again posts first.
        """
        if self.designated is None:
            return players[-1] if self.rules.absent_players else players[0]
        if not self.rules.dead_button:
            return next_designated(self.rules, self.designated, players)
        occupied = sorted(self.seats)
        absent = [n for n in occupied if n not in players]
        return next_designated(
            self.rules,
            self.designated,
            occupied,
            absent=absent,
            previous_blinds=self.last_blinds or None,
        )

    def _after(self, events: list[Event]) -> None:
        """Deliver engine events (the engine's turn as the table's ``turn``, with the clock),
        then end the round or fold a seat that is sitting out or leaving at its turn."""
        while True:
            self.journal.events(events)
            turn: TurnToAct | None = None
            for ev in events:
                if type(ev) is TurnToAct:
                    turn = ev
                else:
                    self.broadcast(ev.to_wire(), ev.visible_to, engine=True)
            events = []
            rnd = self.round
            if rnd is None:
                return
            if rnd.complete:
                self._end_round(rnd)
                return
            if turn is None:
                return
            seat = self.seats.get(turn.seat)
            if seat is not None and (seat.sitting_out or seat.leaving):
                events = self._fold_events(seat)
                continue
            self._start_turn(turn)
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

    def _start_turn(self, turn: TurnToAct) -> None:
        """The engine's turn with the clock: turn time, then the seat's time bank."""
        now = trio.current_time()
        seat = self.seats.get(turn.seat)
        bank = seat.bank if seat is not None else 0.0
        self.turn_seat = turn.seat
        self.turn_started = now
        self.turn_deadline = now + self.config.turn_time + bank
        public = {
            "type": "turn",
            "seat": turn.seat,
            "legal": [],
            "time_ms": int((self.config.turn_time + bank) * 1000),
            "time_bank_ms": int(bank * 1000),
        }
        legal = turn.legal.to_wire()
        for to in self.recipients():
            viewer = to.number if isinstance(to, Seat) else None
            shown = legal_for(turn.seat, viewer, legal)
            self.event(to, {**public, "legal": shown} if shown else public)

    def _end_round(self, rnd: PokerRound) -> None:
        result = rnd.result
        assert result is not None
        stacks = {int(k): v for k, v in result.stacks.items()}
        taken = result.commission + result.fees
        owners = {n: self.seats[n].account for n in self.round_stakes}
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
        self.turn_deadline = math.inf
        self.next_round_at = trio.current_time() + self.config.round_pause
        self.phases.to(Phase.PAUSE)
        for seat in list(self.seats.values()):
            self._after_round(seat, seat.number in played)

    def _after_round(self, seat: Seat, played: bool) -> None:
        if seat.leaving:
            self.vacate(seat, self.leave_reason(seat))
            return
        wagered = played and not seat.sitting_out
        if self.rules.absent_players:
            seat.missed = seat.missed + 1 if seat.sitting_out else 0 if played else seat.missed
        if wagered or not self.table_full_at_start:
            seat.abstained = 0
        else:
            seat.abstained += 1
        if self.rules.vacates_abstainers and seat.abstained >= self.config.abstain_rounds:
            self.vacate(seat, "abstained")  # ACT 18.8
            return
        if self.stake(seat) == 0 and self.ledger.balance(seat.account) < self.rules.min_buy_in:
            self.vacate(seat, "busted")  # ACT 12.3; QLD Sch 11 s31(4), Sch 5 s29(2)

    def void_round(self, reason: str) -> None:
        """A shutdown voids the round in play: every wager returned (the engine's void)."""
        if self.round is not None and not self.round.complete:
            self.journal.command("void", reason=reason)
            self._after(self.round.void(reason))


def _number(seat: Seat) -> int:
    return seat.number
