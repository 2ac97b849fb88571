"""The player-vs-player poker table: seats, stakes, pace, and one engine round at a time.

The engine (``server.games.poker``) knows the rules of one round; this actor knows the table:
who sits where, each seat's table stake, whose turn it is and for how long, who is sitting
out or disconnected, and when the next round starts. It moves money only between the wallet
and a seat's stake, and only between rounds.

Rules applied here (see the "Table server" section of docs/rulings.md):

* Table stakes: buy-in and top-up only while the seat is not in a round (ACT 5.4, 5.5, 12.3;
  QLD Sch 11 s18(4), s31; Sch 5 s19(4), s29); the resulting stake must lie within the
  table's buy-in limits (ACT 5.4: at least the minimum table stake, no maximum; QLD s18(3),
  s31(6): between the minimum and maximum buy-in). Leaving returns the stake to the wallet.
* A seat below the minimum must top up before it is dealt in: ACT 12.3 (unless its wallet
  cannot cover the top-up), QLD Sch 11 s31(2) (stake below the minimum wager), QLD Sch 5
  s29 (no stake). A seat with no stake whose wallet cannot cover a buy-in is vacated
  ("busted": ACT 12.3, QLD Sch 11 s31(4), Sch 5 s29(2)).
* Sitting out: ACT and QLD Manila cannot skip the buck or blind (ACT 6.3, Sch 5 s17(3); digest
  Rec. A-16/A-11/A-9): a sitting-out seat is still dealt in and folds when its turn comes.
  QLD hold'em/Omaha: sitting out is the absent player of Sch 11 s21(2): not dealt in, skipped
  for the button and blinds (s17(4), s23(3)); on return it posts the second blind (s23A).
* ACT 18.8: a seat that does not wager for 3 consecutive rounds while every seat is taken is
  vacated (ACT tables only).
* Pace: turn time then the seat's time bank; on timeout the engine acts (check if legal,
  else fold). A disconnected seat is held for the grace period, its timer still running.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import trio

from protocol import errors
from protocol.messages import Balance, Left, TableInfo
from server.cards import RandomSource, SeededRandomSource, SystemRandomSource
from server.config import ServerConfig, TableConfig
from server.errors import IllegalAction
from server.games.poker import PokerRound, blind_posters, next_designated, rules_for
from server.games.poker.events import TurnToAct
from server.tables.base import (
    Act,
    BuyIn,
    Detach,
    Join,
    Leave,
    Recipient,
    SitIn,
    SitOut,
    TableActor,
)
from server.tables.connection import Connection
from server.tables.views import legal_for, may_see, round_view
from server.wallet import InsufficientFunds, Wallet

log = logging.getLogger("croupier.tables.poker")

GAME_NAMES = {
    "holdem-act": "Texas Hold'em, ACT rules",
    "omaha-act": "Omaha, ACT rules",
    "manila-act": "3 Card Manila, ACT rules",
    "holdem-qld": "Texas Hold'em, Queensland Schedule 11",
    "omaha-qld": "Omaha, Queensland Schedule 11",
    "manila-qld": "Manila, Queensland Schedule 5",
}


class Seat(Recipient):
    """A seat holder: the account, its table stake and its pace and sit-out state."""

    __slots__ = (
        "abstained",
        "account",
        "bank",
        "connected",
        "grace_until",
        "leaving",
        "missed",
        "name",
        "number",
        "sitting_out",
        "stake",
    )

    def __init__(self, number: int, conn: Connection, bank: float) -> None:
        super().__init__(conn)
        self.number = number
        self.account: str = conn.account or ""
        self.name = conn.name
        self.stake = 0
        self.sitting_out = False
        self.leaving = False
        self.connected = True
        self.grace_until: float | None = None
        self.bank = bank
        self.abstained = 0  # consecutive rounds without wagering (ACT 18.8)
        self.missed = 0  # rounds missed while absent (QLD Sch 11 s23A)


class PokerTable(TableActor):
    kind = "poker"
    indexes_seats = True

    def __init__(self, table: TableConfig, config: ServerConfig, wallet: Wallet) -> None:
        super().__init__(table, config, wallet)
        self.rules = rules_for(table.game, dict(table.options))
        self.game = table.game
        self.act_rules = table.game.endswith("-act")
        self.absent_model = table.game in ("holdem-qld", "omaha-qld")  # Sch 11 s21(2)
        self.rng: RandomSource = (
            SeededRandomSource(table.seed) if table.seed is not None else SystemRandomSource()
        )
        self.seats: dict[int, Seat] = {}
        self.round: Any = None
        self.in_round: set[int] = set()
        self.round_stakes: dict[int, int] = {}
        self.designated: int | None = None
        self.hand = 0
        self.commission = 0
        self.turn_seat: int | None = None
        self.turn_started = 0.0
        self.turn_deadline = math.inf
        self.next_round_at = 0.0
        self.table_full_at_start = False
        self.last_blinds: list[int] = []

    # -- lobby and views --------------------------------------------------------------------
    def info(self) -> TableInfo:
        stakes = {f"blind_{i + 1}": b for i, b in enumerate(self.rules.blinds)}
        return TableInfo(
            id=self.id,
            name=self.table.name or self.id,
            game=self.game,
            description=GAME_NAMES.get(self.game, self.game) + f", {self.rules.structure}",
            stakes=stakes,
            min_buy_in=self.rules.min_buy_in,
            max_buy_in=self.rules.max_buy_in,
            seats=self.rules.max_seats,
            taken=len(self.seats),
            spectators=len(self.spectators),
        )

    def view_for(self, seat: int | None) -> dict[str, Any]:
        info = self.info()
        turn = None
        if self.turn_seat is not None:
            now = trio.current_time()
            turn = {
                "seat": self.turn_seat,
                "time_ms": max(0, int((self.turn_deadline - now) * 1000)),
                "time_bank_ms": int(self.seats[self.turn_seat].bank * 1000)
                if self.turn_seat in self.seats
                else 0,
            }
        return {
            "table": {
                "id": info.id,
                "name": info.name,
                "game": info.game,
                "description": info.description,
                "stakes": info.stakes,
                "min_buy_in": info.min_buy_in,
                "max_buy_in": info.max_buy_in,
                "seats": info.seats,
            },
            "status": "closing" if self.closing else "playing" if self.round else "waiting",
            "hand": self.hand,
            "designated": self.designated,
            "seats": [
                self._seat_row(s) for s in sorted(self.seats.values(), key=lambda s: s.number)
            ],
            "round": round_view(self.round, seat, self.in_round),
            "turn": turn,
        }

    def _seat_row(self, s: Seat) -> dict[str, Any]:
        return {
            "seat": s.number,
            "name": s.name,
            "stake": s.stake,
            "sitting_out": s.sitting_out,
            "connected": s.connected,
            "in_round": s.number in self.in_round,
        }

    def recipients(self) -> list[tuple[Recipient, int | None]]:
        out: list[tuple[Recipient, int | None]] = [(s, s.number) for s in self.seats.values()]
        return out + super().recipients()

    def holds_seat(self, conn: Connection) -> bool:
        return any(s.conn is conn for s in self.seats.values())

    def seat_of_account(self, account: str) -> int | None:
        for s in self.seats.values():
            if s.account == account:
                return s.number
        return None

    def money(self) -> dict[str, int]:
        return {"stakes": sum(s.stake for s in self.seats.values()), "commission": self.commission}

    def broadcast(self, event: dict[str, Any], visible_to: Any = "everyone") -> None:
        """Send a table or engine event to every recipient allowed to see it."""
        for to, seat in self.recipients():
            if may_see(visible_to, seat):
                self.event(to, event)

    def _seat_for(self, conn: Connection, ref: str) -> Seat | None:
        for s in self.seats.values():
            if s.conn is conn:
                return s
        code = errors.NOT_SEATED if conn.id in self.spectators else errors.NOT_AT_TABLE
        self.error(conn, code, "you hold no seat at this table", ref)
        return None

    # -- commands ---------------------------------------------------------------------------
    def on_join(self, cmd: Join) -> None:
        conn = cmd.conn
        held = self.seat_of_account(conn.account or "")
        if held is not None:
            self._resume(self.seats[held], conn)
            return
        if conn.id in self.spectators:
            self.error(conn, errors.ALREADY_AT_TABLE, "already watching this table", "join")
            return
        if self.closing:
            self.error(conn, errors.SHUTTING_DOWN, "the table is closing", "join")
            return
        free = [n for n in range(1, self.rules.max_seats + 1) if n not in self.seats]
        if cmd.seat is not None:
            if not 1 <= cmd.seat <= self.rules.max_seats:
                self.error(conn, errors.BAD_SEAT, f"seats are 1 to {self.rules.max_seats}", "join")
                return
            if cmd.seat in self.seats:
                self.error(conn, errors.SEAT_TAKEN, f"seat {cmd.seat} is taken", "join")
                return
            number = cmd.seat
        elif free:
            number = free[0]
        else:
            self.error(conn, errors.TABLE_FULL, "every seat is taken", "join")
            return
        seat = Seat(number, conn, self.config.time_bank)
        if self.absent_model and self.hand > 0:
            seat.missed = 1  # a new player posts the second blind (Sch 11 s23A(1))
        for to, _ in self.recipients():
            self.event(to, {"type": "seat_taken", "seat": number, "name": seat.name})
        self.seats[number] = seat
        self.seat_index.setdefault(seat.account, set()).add(self.id)
        conn.tables.add(self.id)
        self.snapshot(seat, "player", number)

    def _resume(self, seat: Seat, conn: Connection) -> None:
        """Reconnect: the account's seat now talks to ``conn``; full snapshot, seq continues."""
        old = seat.conn
        if old is not None and old is not conn:
            old.tables.discard(self.id)
        seat.conn = conn
        conn.tables.add(self.id)
        was_connected = seat.connected
        seat.connected = True
        seat.grace_until = None
        self.snapshot(seat, "player", seat.number)
        if not was_connected:
            self._broadcast_except(
                seat, {"type": "connection", "seat": seat.number, "connected": True}
            )

    def _broadcast_except(self, skip: Recipient, event: dict[str, Any]) -> None:
        for to, _ in self.recipients():
            if to is not skip:
                self.event(to, event)

    def on_buyin(self, cmd: BuyIn) -> None:
        seat = self._seat_for(cmd.conn, "buy_in")
        if seat is None:
            return
        if self.closing:
            self.error(cmd.conn, errors.SHUTTING_DOWN, "the table is closing", "buy_in")
            return
        if seat.number in self.in_round:
            self.error(
                cmd.conn,
                errors.ROUND_IN_PROGRESS,
                "buy-in and top-up only between rounds (ACT 5.4, 12.3; QLD s18(4), s31)",
                "buy_in",
            )
            return
        new = seat.stake + cmd.amount
        low, high = self.rules.min_buy_in, self.rules.max_buy_in
        if cmd.amount <= 0 or new < low or (high is not None and new > high):
            limits = f"{low} to {high}" if high is not None else f"at least {low}"
            self.error(
                cmd.conn,
                errors.BUY_IN_RANGE,
                f"the stake after a buy-in must be {limits} cents",
                "buy_in",
            )
            return
        try:
            balance = self.wallet.debit(seat.account, cmd.amount)
        except InsufficientFunds as exc:
            self.error(cmd.conn, errors.INSUFFICIENT_FUNDS, str(exc), "buy_in")
            return
        seat.stake = new
        self._gather()
        cmd.conn.send(Balance(balance))
        self.broadcast({"type": "stake", "seat": seat.number, "stake": new, "added": cmd.amount})

    def on_act(self, cmd: Act) -> None:
        seat = self._seat_for(cmd.conn, "act")
        if seat is None:
            return
        if self.round is None or self.round.complete:
            self.error(cmd.conn, errors.NO_ROUND, "no round is being played", "act")
            return
        if self.round.to_act != seat.number:
            self.error(
                cmd.conn, errors.NOT_YOUR_TURN, f"it is seat {self.round.to_act}'s turn", "act"
            )
            return
        try:
            events = self.round.act(seat.number, cmd.verb, cmd.amount)
        except IllegalAction as exc:
            self.error(cmd.conn, errors.ILLEGAL_ACTION, exc.message, "act", exc.code)
            return
        self._spend_time(seat, trio.current_time())
        self._after(events)

    def on_sitout(self, cmd: SitOut) -> None:
        seat = self._seat_for(cmd.conn, "sit_out")
        if seat is None or seat.sitting_out:
            return
        seat.sitting_out = True
        self.broadcast({"type": "sat_out", "seat": seat.number})
        if self.round is not None and self.round.to_act == seat.number:
            self._auto_fold(seat)

    def on_sitin(self, cmd: SitIn) -> None:
        seat = self._seat_for(cmd.conn, "sit_in")
        if seat is None or not seat.sitting_out:
            return
        seat.sitting_out = False
        seat.abstained = 0
        self._gather()
        self.broadcast({"type": "sat_in", "seat": seat.number})

    def on_leave(self, cmd: Leave) -> None:
        if self.leave_spectator(cmd.conn):
            return
        seat = self._seat_for(cmd.conn, "leave")
        if seat is None:
            return
        if seat.number in self.in_round:
            seat.leaving = True  # vacated when the round ends; folds at its turn
            if self.round.to_act == seat.number:
                self._auto_fold(seat)
        else:
            self._vacate(seat, "left")

    def on_detach(self, cmd: Detach) -> None:
        if self.spectators.pop(cmd.conn.id, None) is not None:
            return
        for seat in self.seats.values():
            if seat.conn is cmd.conn:
                seat.conn = None
                seat.connected = False
                seat.grace_until = trio.current_time() + self.config.grace
                self.broadcast({"type": "connection", "seat": seat.number, "connected": False})

    # -- time -------------------------------------------------------------------------------
    def next_deadline(self) -> float:
        deadline = self.turn_deadline
        for seat in self.seats.values():
            if seat.grace_until is not None:
                deadline = min(deadline, seat.grace_until)
        if self.round is None and not self.closing and self._eligible_count() >= 2:
            deadline = min(deadline, self.next_round_at)
        return deadline

    def on_time(self, now: float) -> None:
        for seat in list(self.seats.values()):
            if seat.grace_until is not None and now >= seat.grace_until:
                seat.grace_until = None
                if seat.number in self.in_round:
                    seat.leaving = True
                else:
                    self._vacate(seat, "grace_expired")
        if self.round is not None and self.turn_seat is not None and now >= self.turn_deadline:
            seat_no = self.turn_seat
            if seat_no in self.seats:
                self.seats[seat_no].bank = 0.0
            events = self.round.timeout(seat_no)
            verb = next(
                (
                    e.verb
                    for e in events
                    if getattr(e, "TYPE", "") == "action_taken" and e.seat == seat_no
                ),
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
        if seat.stake <= 0:
            return True
        if self.game in ("holdem-qld", "omaha-qld"):
            return seat.stake < self.rules.minimum_wager  # Sch 11 s31(2)
        if self.act_rules and seat.stake < self.rules.min_buy_in:
            # ACT 12.3: required to top up, unless the player cannot
            return self.wallet.balance(seat.account) >= self.rules.min_buy_in - seat.stake
        return False

    def _dealt_in(self, seat: Seat) -> bool:
        if seat.leaving or self._must_top_up(seat):
            return False
        return not (self.absent_model and seat.sitting_out)

    def _eligible_count(self) -> int:
        """Seats that would be dealt in and are actually playing (not sitting out)."""
        return sum(1 for s in self.seats.values() if self._dealt_in(s) and not s.sitting_out)

    def _start_round(self) -> None:
        if self._eligible_count() < 2:
            return
        players = sorted(n for n, s in self.seats.items() if self._dealt_in(s))
        self.table_full_at_start = len(self.seats) == self.rules.max_seats
        designated = self._next_designated(players)
        posts: dict[int, int] = {}
        if self.absent_model:
            blinds = blind_posters(self.rules, designated, players)
            for n in players:
                if self.seats[n].missed and n not in blinds:
                    posts[n] = self.rules.minimum_wager  # Sch 11 s23A(2): the returner posts
        stacks = {n: self.seats[n].stake for n in players}
        try:
            rnd = PokerRound(self.rules, stacks, designated, self.rng, posts=posts or None)
            events = rnd.start()
        except ValueError:  # e.g. a stake that cannot pay a participation fee
            log.exception("table %s: cannot start a round with %s", self.id, stacks)
            self.next_round_at = trio.current_time() + max(self.config.round_pause, 1.0)
            return
        self.round = rnd
        self.round_stakes = stacks
        self.in_round = set(players)
        self.designated = designated
        self.hand += 1
        self.last_blinds = list(getattr(rnd, "blind_seats", []))
        self.broadcast(
            {
                "type": "round_starting",
                "hand": self.hand,
                "designated": designated,
                "seats": players,
            }
        )
        self._after(events)

    def _next_designated(self, players: list[int]) -> int:
        """The buck / button for the next round (ACT 6.2-6.3; QLD Sch 11 s17; Sch 5 s17).

        First round: ACT and Manila give the buck to the lowest dealt-in seat (seat 1 posts
        the first blind); QLD hold'em/Omaha puts the button on the seat immediately right of
        the dealer, the highest dealt-in seat (s17(1)), so seat 1 again posts first.
        """
        if self.designated is None:
            return players[-1] if self.absent_model else players[0]
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

    def _after(self, events: list[Any]) -> None:
        """Deliver engine events, then either end the round or set up the next turn."""
        while True:
            for ev in events:
                if type(ev) is TurnToAct:  # the table's own turn event says it, with the clock
                    continue
                self.broadcast(ev.to_wire(), ev.visible_to)
            events = []
            rnd = self.round
            if rnd is None:
                return
            if rnd.complete:
                self._end_round()
                return
            seat_no = rnd.to_act
            seat = self.seats.get(seat_no)
            if seat is not None and (seat.sitting_out or seat.leaving):
                events = self._fold_events(seat)
                continue
            self._start_turn(seat_no)
            return

    def _fold_events(self, seat: Seat) -> list[Any]:
        try:
            return self.round.act(seat.number, "fold")
        except IllegalAction:
            return self.round.timeout(seat.number)

    def _auto_fold(self, seat: Seat) -> None:
        self._after(self._fold_events(seat))

    def _start_turn(self, seat_no: int) -> None:
        now = trio.current_time()
        seat = self.seats.get(seat_no)
        bank = seat.bank if seat is not None else 0.0
        self.turn_seat = seat_no
        self.turn_started = now
        self.turn_deadline = now + self.config.turn_time + bank
        legal = _legal_map(self.round.legal_actions())
        time_ms = int((self.config.turn_time + bank) * 1000)
        bank_ms = int(bank * 1000)
        public = {
            "type": "turn",
            "seat": seat_no,
            "legal": {},
            "time_ms": time_ms,
            "time_bank_ms": bank_ms,
        }
        for to, viewer in self.recipients():
            shown = legal_for(seat_no, viewer, legal)
            self.event(to, {**public, "legal": shown} if shown else public)

    def _end_round(self) -> None:
        result = self.round.result
        stacks = {int(k): v for k, v in result.stacks.items()}
        taken = int(getattr(result, "commission", 0) or 0) + int(getattr(result, "fees", 0) or 0)
        before = sum(self.round_stakes.values())
        if sum(stacks.values()) + taken != before:  # pragma: no cover - an engine bug
            log.error(
                "table %s hand %d: chips not conserved (%d in, %d out + %d)",
                self.id,
                self.hand,
                before,
                sum(stacks.values()),
                taken,
            )
        self.commission += taken
        for n, stack in stacks.items():
            if n in self.seats:
                self.seats[n].stake = stack
        played = self.in_round
        self.round = None
        self.in_round = set()
        self.round_stakes = {}
        self.turn_seat = None
        self.turn_deadline = math.inf
        self.next_round_at = trio.current_time() + self.config.round_pause
        for seat in list(self.seats.values()):
            self._after_round(seat, seat.number in played)

    def _after_round(self, seat: Seat, played: bool) -> None:
        if seat.leaving:
            self._vacate(
                seat, "left" if seat.grace_until is None and seat.connected else "grace_expired"
            )
            return
        wagered = played and not seat.sitting_out
        if self.absent_model:
            seat.missed = seat.missed + 1 if seat.sitting_out else 0 if played else seat.missed
        if wagered or not self.table_full_at_start:
            seat.abstained = 0
        else:
            seat.abstained += 1
        if self.act_rules and seat.abstained >= self.config.abstain_rounds:
            self._vacate(seat, "abstained")  # ACT 18.8
            return
        if seat.stake == 0 and self.wallet.balance(seat.account) < self.rules.min_buy_in:
            self._vacate(seat, "busted")  # ACT 12.3; QLD Sch 11 s31(4), Sch 5 s29(2)

    def _vacate(self, seat: Seat, reason: str) -> None:
        """Free the seat and return its stake to the wallet."""
        returned = seat.stake
        seat.stake = 0
        balance = self.wallet.credit(seat.account, returned)
        del self.seats[seat.number]
        held = self.seat_index.get(seat.account)
        if held is not None:
            held.discard(self.id)
            if not held:
                del self.seat_index[seat.account]
        self.deliver(seat, lambda seq: Left(self.id, seq, returned, reason))
        if seat.conn is not None:
            seat.conn.tables.discard(self.id)
            seat.conn.send(Balance(balance))
        self.broadcast(
            {"type": "seat_vacated", "seat": seat.number, "reason": reason, "returned": returned}
        )

    # -- shutdown ---------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop starting rounds, void the running one (every wager returned), cash out."""
        self.closing = True
        self.broadcast({"type": "table_closing"})
        if self.round is not None and not self.round.complete:
            self._after(self.round.void("shutdown"))
        for seat in list(self.seats.values()):
            self._vacate(seat, "shutdown")
        for conn_id in list(self.spectators):
            to = self.spectators.pop(conn_id)
            self.deliver(to, lambda seq: Left(self.id, seq, 0, "shutdown"))
        self.closed.set()


def _legal_map(legal: Any) -> dict[str, Any]:
    """The engine's legal actions as ``{verb: bounds}`` (protocol/README.md, ``turn`` event)."""
    out: dict[str, Any] = {}
    for entry in legal.to_wire():
        entry = dict(entry)
        out[entry.pop("verb")] = entry
    return out
