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
* Waiting lists (``server/waiting.py``): a freed seat is held for the list's first for
  ``seat_offer_time`` seconds, then offered to the next.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance, SeatOffer, TableInfo
from server import fair
from server.actor import Handlers
from server.cards import RandomSource, random_source
from server.config import ServerConfig, TableConfig
from server.errors import IllegalAction, ScenarioError
from server.games.poker import PokerRound, RuleSet, blind_posters, next_designated, rules_for
from server.games.poker.events import ActionTaken, Event, TurnToAct
from server.games.visibility import Visibility
from server.money import dollars
from server.store.ledger import Ledger
from server.store.model import InsufficientFunds
from server.tables import books
from server.tables.base import BASE_HANDLERS, Member, TableActor, TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.poker_events import (
    PreActionState,
    RoundStarting,
    SatIn,
    SatOut,
    SeatTaken,
    SeatVacated,
    StakeChanged,
    TimeBankRunning,
    TimedOut,
    TurnStarted,
    VacateWarning,
)
from server.tables.preactions import PreAction, decide, still_valid
from server.tables.views import legal_for, may_see, round_view
from server.waiting import OfferSeat, OfferWithdrawn, WaitingLists

log = logging.getLogger("croupier.tables.poker")


class Seat(Member):
    """A seat holder: its number, time bank, sit-out state, whether it is new (QLD s21(1))
    or waits for the second blind (s23A), and its private pre-action (its stake is in the
    books)."""

    __slots__ = (
        "abstained",
        "bank",
        "hands",
        "missed",
        "new",
        "number",
        "pre",
        "sitting_out",
        "wait_for_blind",
    )

    def __init__(self, number: int, conn: Connection, bank: float) -> None:
        super().__init__(conn)
        self.number = number
        self.sitting_out = False
        self.bank = bank
        self.abstained = 0  # consecutive rounds without wagering (ACT 18.8)
        self.missed = 0  # rounds missed while absent (QLD Sch 11 s23A)
        self.new = False  # not a player in the preceding round (QLD Sch 11 s21(1))
        self.wait_for_blind = False  # s23A: waits for the second blind instead of posting
        self.hands = 0  # rounds dealt in (time bank top-ups)
        self.pre: PreAction | None = None


@dataclass(frozen=True, slots=True)
class Offer:
    """A seat held for a waiting list's first (``seat_offer``) until ``expires``."""

    account: str
    conn: Connection
    expires: float


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

    def info(self) -> TableInfo:
        stakes = {f"blind_{i + 1}": b for i, b in enumerate(self.rules.blinds)}
        return self.lobby_row(
            f"{self.rules.title}, {self.rules.structure}",
            stakes,
            self.rules.max_seats,
            len(self.seats),
            min_buy_in=self.rules.min_buy_in,
            max_buy_in=self.rules.max_buy_in,
            entry_post=self.entry_post(),
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
                info,
                min_buy_in=info.min_buy_in,
                max_buy_in=info.max_buy_in,
                seats=info.seats,
                entry=self._entry(),
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
            # the seat's own queued pre-action: in its own snapshot only, when it has one
            **(
                {"pre_action": _pre_wire(member.pre)}
                if isinstance(member, Seat) and member.pre is not None
                else {}
            ),
        }

    def _entry(self) -> dict[str, Any]:
        """Before you sit: what a new player posts (or may wait for), the buy-in range, and
        the rules behind it (QLD Sch 11 s21(3), s23A(1); ACT 6.3; Sch 5 s17(3))."""
        post = self.entry_post()
        return {
            "post": post,
            "may_wait": post > 0,
            "not_on_button": self.rules.absent_players,
            "min_buy_in": self.rules.min_buy_in,
            "max_buy_in": self.rules.max_buy_in,
            "vacate_after": self.config.abstain_rounds if self.rules.vacates_abstainers else None,
        }

    def _seat_row(self, s: Seat) -> dict[str, Any]:
        return {
            "seat": s.number,
            "name": s.name,
            "stake": self.stake(s),
            "sitting_out": s.sitting_out,
            "connected": s.connected,
            "in_round": s.number in self.in_round_seats,
            "time_bank_ms": int(s.bank * 1000),
            "owes": self._owes(s),
            "wait_for_blind": s.wait_for_blind,
        }

    def _owes(self, s: Seat) -> int:
        """What the seat posts when next dealt in (QLD Sch 11 s23A), unless it waits."""
        if not self.rules.absent_players or not s.missed or s.wait_for_blind:
            return 0
        return self.rules.minimum_wager

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

    def _free_seat(self, held: set[int]) -> int | None:
        """The lowest seat neither taken nor in ``held`` (seats held for an offer)."""
        for n in range(1, self.rules.max_seats + 1):
            if n not in self.seats and n not in held:
                return n
        return None

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

    def on_pre_action(self, cmd: TableCommand[wire.PreAction]) -> None:
        """Queue or clear the seat's pre-action (private: only its seat is told)."""
        seat = self._seat(cmd, "pre_action")
        if seat is None:
            return
        rnd, verb = self.round, cmd.message.verb
        if verb is None:
            if seat.pre is not None:
                self._clear_pre(seat, "cleared")
            return
        if rnd is None or rnd.complete or seat.number not in self.in_round_seats:
            self.error(cmd.conn, errors.NO_ROUND, "you are not in a round", "pre_action")
            return
        if seat.number in rnd.folded or seat.number in rnd.allin or rnd.to_act == seat.number:
            why = "your_turn" if rnd.to_act == seat.number else "not_to_act"
            text = "act now: it is your turn" if why == "your_turn" else "you have no more turns"
            self.error(cmd.conn, errors.ILLEGAL_ACTION, text, "pre_action", why)
            return
        amount = cmd.message.amount
        if verb == "call" and amount is None:
            self.error(
                cmd.conn, errors.ILLEGAL_ACTION, "say how much to call", "pre_action", "amount"
            )
            return
        seat.pre = PreAction(
            verb, amount if verb == "call" else None, rnd.street, self._to_call(seat)
        )
        self._tell_pre(seat, "set")

    def _to_call(self, seat: Seat) -> int:
        rnd = self.round
        return 0 if rnd is None else max(0, rnd.cb - rnd.bet.get(seat.number, 0))

    def _clear_pre(self, seat: Seat, reason: str) -> None:
        seat.pre = None
        self._tell_pre(seat, reason)

    def _tell_pre(self, seat: Seat, reason: str) -> None:
        """The seat's pre-action as it stands now, told to that seat alone."""
        pre = seat.pre
        verb, amount = (None, None) if pre is None else (pre.verb, pre.amount)
        state = PreActionState(verb=verb, amount=amount, reason=reason, visible_to=seat.number)
        self.event(seat, state.to_wire())

    # -- waiting lists (server/waiting.py) ---------------------------------------------------
    def on_offer_seat(self, item: OfferSeat) -> None:
        """Hold a free seat for the list's first for ``seat_offer_time`` seconds."""
        assert self.waiting is not None
        free = self._free_seat(set(self.offers))
        taken = item.account in self.members or any(
            o.account == item.account for o in self.offers.values()
        )
        if free is None or self.closing or taken:
            self.waiting.no_seat(self.id, item.account)
            return
        limit = self.config.seat_offer_time
        self.offers[free] = Offer(item.account, item.conn, trio.current_time() + limit)
        item.conn.send(SeatOffer(self.id, free, int(limit * 1000)))

    def on_offer_withdrawn(self, item: OfferWithdrawn) -> None:
        for n, o in list(self.offers.items()):
            if o.account == item.account:
                del self.offers[n]
                if self.waiting is not None:
                    self.waiting.seat_free(self.id)

    def _expire_offers(self, now: float) -> None:
        """An offer not taken in time lapses: the seat goes to the next on the list."""
        for n, o in list(self.offers.items()):
            if now >= o.expires:
                del self.offers[n]
                o.conn.send(SeatOffer(self.id, n, 0))
                if self.waiting is not None:
                    self.waiting.lapsed(self.id, o.account)

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

    def _release_unstaked(self, now: float) -> None:
        """A seat held without a stake (never bought in, or busted and not topped up) is
        released after ``unstaked_seat_time`` s (issue 25: nine connections held every seat
        of a table without a cent, and rounds never started to vacate them)."""
        unstaked = self.unstaked
        limit = self.config.unstaked_seat_time
        for number, seat in list(self.seats.items()):
            if self.stake(seat) or number in self.in_round_seats:
                unstaked.pop(number, None)
                continue
            since = unstaked.setdefault(number, now)
            if now - since >= limit:
                del unstaked[number]
                self.vacate(seat, "no_stake")
        for number in [n for n in unstaked if n not in self.seats]:
            del unstaked[number]

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

    def _choose_players(self, candidates: list[int]) -> tuple[int, list[int]] | None:
        """The button and the seats dealt in, after the QLD seat rules (Sch 11):

        * s21(3): a new player is not dealt in on the button or the first blind: it waits;
        * s23A(1)-(2): a new or returning player who chose to wait for the second blind is
          dealt in only in the round that puts it there.

        Waiting seats are absent for the button (s17(4)), so the positions are worked out
        again without them until none is left out. When that would leave fewer than two
        players (heads-up with a new player), the button moves on past the waiting seat
        instead. ACT and QLD Manila have no such rules: every candidate is dealt in.
        """
        players = candidates
        if all(self.seats[n].new for n in players):
            for n in players:  # nobody played the preceding round: a fresh start, no one new
                self.seats[n].new = False
        while True:
            if len(players) < 2:
                return None
            designated = self._next_designated(players)
            if not self.rules.absent_players:
                return designated, players
            waits = self._waiting_seats(designated, players)
            if not waits:
                return designated, players
            if len(players) - len(waits) >= 2:
                players = [n for n in players if n not in waits]
                continue
            ring = [n for n in players if n > designated] + [n for n in players if n <= designated]
            for button in ring:
                if not self._waiting_seats(button, players):
                    return button, players
            return None

    def _waiting_seats(self, designated: int, players: list[int]) -> set[int]:
        blinds = blind_posters(self.rules, designated, players)
        first = blinds[0] if len(blinds) > 1 else None
        second = blinds[-1] if blinds else None
        out: set[int] = set()
        for n in players:
            seat = self.seats[n]
            if seat.new and n in (designated, first):
                out.add(n)  # s21(3)
            elif seat.wait_for_blind and seat.missed and n != second:
                out.add(n)  # s23A: waits for the second blind
        return out

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

    def _check_pres(self, rnd: PokerRound) -> None:
        """Clear the pre-actions the last events made stale (private to each seat)."""
        for seat in self.seats.values():
            if seat.pre is not None:
                if not still_valid(seat.pre, rnd.street, self._to_call(seat)):
                    self._clear_pre(seat, "changed")

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
        self.bank_at = now + self.config.turn_time if bank > 0 else math.inf
        public = TurnStarted(
            seat=turn.seat,
            legal=[],
            time_ms=int((self.config.turn_time + bank) * 1000),
            time_bank_ms=int(bank * 1000),
        ).to_wire()
        legal = turn.legal.to_wire()
        for to in self.recipients():
            shown = legal_for(turn.seat, to.number, legal) if isinstance(to, Seat) else None
            self.event(to, {**public, "legal": shown} if shown else public)

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

    def _top_up_bank(self, seat: Seat) -> None:
        """Every ``time_bank_hands`` hands a seat plays, ``time_bank_add`` seconds more, up to
        ``time_bank_max`` (the room's time bank; seen in the seat's row)."""
        seat.hands += 1
        every = self.config.time_bank_hands
        if every > 0 and seat.hands % every == 0 and seat.bank < self.bank_max:
            seat.bank = min(self.bank_max, seat.bank + self.config.time_bank_add)

    def void_round(self, reason: str) -> None:
        """A shutdown voids the round in play: every wager returned (the engine's void)."""
        if self.round is not None and not self.round.complete:
            self.journal.command("void", reason=reason)
            self._after(self.round.void(reason))


def _number(seat: Seat) -> int:
    return seat.number


def _pre_wire(pre: PreAction | None) -> dict[str, Any]:
    """A seat's queued pre-action as its own view and events show it (never anyone else)."""
    return {
        "verb": None if pre is None else pre.verb,
        "amount": None if pre is None else pre.amount,
    }


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
