"""Tournament tables: the poker table played in tournament chips, held by its tournament.

Theory of operation. A :class:`PokerTournamentTable` is the cash poker table
(:class:`server.tables.poker.PokerTable`, the one table layer) with four differences, each a
hook of that class, nothing copied:

* **Chips, not money.** Its :class:`~server.tables.books.Books` post to the tournament's own
  chips ledger (a :class:`~server.store.ledger.Ledger` on a memory store, one per
  tournament), where ``wallet:ACCOUNT`` is the player's tournament chips off the tables and
  ``cashier`` issued them. Stakes, pots and settlements are the cash table's transfers in
  that unit; the process ledger (money) never sees a chip (issue 15: chips are their own
  currency). So the books check after every step also checks chips.
* **No commission on pots** (ACT r 19: the operator's share is the tournament commission):
  the rules are built by :func:`server.tournaments.conditions.table_options`, with the
  blinds of the current level.
* **Seats come from the tournament.** Nobody buys in: the tournament seats a player
  (:class:`SeatPlayer`: the seat drawn by ballot or by a move) with all their chips; a seat
  is never vacated by the cash table's rules (ACT 18.8, busted) nor by leaving or a lost
  connection: an absent player sits out, still dealt in, and folds (ACT 6.3), so the blinds
  go on. A move (:class:`MoveOut`) takes effect between hands.
* **Held between hands.** After each hand the table reports to its tournament
  (:class:`HandDone`: who is out, with their chips at the start of the hand) and deals the
  next only when the tournament says so (:class:`Proceed`, with the blinds of the level in
  play): balancing, breaks and the final table happen between hands.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import trio

from protocol import errors
from protocol import messages as wire
from server.actor import Handlers
from server.config import ServerConfig, TableConfig
from server.games.poker import rules_for
from server.store.ledger import Ledger
from server.tables.banked import BankedTable, Player
from server.tables.base import Member, TableActor, TableCommand
from server.tables.books import Books
from server.tables.connection import Connection
from server.tables.events import TableEvent
from server.tables.phases import Phase
from server.tables.poker import PokerTable, Seat
from server.tables.poker_events import SatIn, SatOut, SeatTaken, StakeChanged
from server.tournaments import canberra
from server.tournaments.canberra import AnteError, AnteRound
from server.tournaments.conditions import Limits

__all__ = [
    "CanberraTournamentTable",
    "HandDone",
    "MoveOut",
    "PokerTournamentTable",
    "Proceed",
    "Released",
    "SeatPlayer",
    "chips_of",
]


# -- tournament -> table ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Seat ``account`` at ``seat`` with every chip in its chips wallet; ``conn``: its
    connection now (None: away; it sits out until it joins)."""

    account: str
    name: str
    seat: int
    conn: Connection | None


@dataclass(frozen=True, slots=True)
class MoveOut:
    """Take ``account`` off this table (its chips back to its chips wallet) between hands,
    then tell the tournament (:class:`Released`); ``reason``: ``moved`` or ``disqualified``."""

    account: str
    reason: str = "moved"


@dataclass(frozen=True, slots=True)
class Proceed:
    """Deal the next hand, at these blinds (of blind level ``level``, 1-based; 0: none)."""

    blinds: tuple[int, ...]
    level: int = 0


# -- table -> tournament ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HandDone:
    """Table ``number`` settled a hand: ``busted`` players (chips at the hand's start) are
    off the table; ``chips``: the chips of every other player dealt at it after the hand
    (those moving off after it included)."""

    number: int
    busted: Mapping[str, int]
    chips: Mapping[str, int]
    marker: int | None = None  #: the button (poker) or starting marker after the hand


@dataclass(frozen=True, slots=True)
class Released:
    """``account`` left table ``number`` (its chips are in its chips wallet)."""

    number: int
    account: str
    reason: str


class TournamentSeats(TableActor):
    """What every tournament table shares, whatever its game: chips books, seats given by
    the tournament, moves between rounds, no money held. A kind writes how a seat is made
    (:meth:`taken`, :meth:`seat_member`, :meth:`seated`) and what leaving means."""

    number: int
    chips: Ledger
    report: Callable[[object], None]
    moving: dict[str, str]  #: accounts to take off after the round in play: reason
    arriving: list[SeatPlayer]  #: seats still taken by a player moving off
    #: the tournament's facts for each hand's record (conditions.hand_record), or None
    record: Mapping[str, Any] | None
    level: int  #: the blind level of the hands dealt now (poker; 0: none)

    def join_tournament(
        self,
        number: int,
        chips: Ledger,
        report: Callable[[object], None],
        record: Mapping[str, Any] | None = None,
    ) -> None:
        self.number = number
        self.chips = chips
        self.books = Books(self.id, chips)  # tournament chips: the chips ledger, never money
        self.report = report
        self.moving = {}
        self.arriving = []
        self.record = record
        self.level = 0

    def open_journal(
        self, ref: str, start: dict[str, Any], items: list[str] | None = None, deal: bool = True
    ) -> None:
        """Each round's record says it is a tournament's: the tournament, this table's number
        and the blind level (the hand histories' tournament header, server/records/histories.py)."""
        if self.record is not None:
            start = {**start, "tournament": {**self.record, "table": self.number}}
            if self.level:
                start["tournament"]["level"] = self.level
        super().open_journal(ref, start, items, deal)

    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        self.error(
            conn, errors.NOT_AUTHORIZED, "the tournament seats its players (watch instead)", "join"
        )
        return None

    def money(self) -> dict[str, int]:
        """No money is held here (tournament chips are not money)."""
        return {
            "stakes": 0,
            "commission": 0,
            "house": 0,
            "jackpot_contributed": 0,
            "jackpot_paid": 0,
        }

    @property
    def between_rounds(self) -> bool:
        return self.phase in (Phase.IDLE, Phase.PAUSE)

    def taken(self, seat: int) -> bool:
        """Whether the seat (or box) is held."""
        raise NotImplementedError

    def seat_member(self, item: SeatPlayer, conn: Connection) -> Member:
        """The kind's member for a player seated at ``item.seat``."""
        raise NotImplementedError

    def seated(self, member: Member) -> dict[str, Any] | TableEvent | None:
        """The member sits (poker: its chips become its stake); the event that tells the
        table, sent once the player has its snapshot."""
        return None

    def stop_playing(self, member: Member) -> None:
        """A member leaves after the round in play (disqualified): stop it playing now."""
        return None

    def on_seat_player(self, item: SeatPlayer) -> None:
        """Seat a player the tournament placed here (a seat taken by a player still moving
        off waits for it); a player away sits out until it joins (its seat is kept)."""
        if self.taken(item.seat):
            self.arriving.append(item)
            return
        conn = item.conn if item.conn is not None and not item.conn.closing.is_set() else None
        stand_in = conn or Connection(1)
        if conn is None:
            stand_in.account, stand_in.name = item.account, item.name
        member = self.seat_member(item, stand_in)
        member.name = item.name
        if conn is None:
            member.conn, member.connected = None, False
        self.members[item.account] = member
        self.seat_index.setdefault(item.account, set()).add(self.id)
        told = self.seated(member)  # first: the player's snapshot shows its chips
        if conn is not None:
            conn.tables.add(self.id)
            self.snapshot(member, "player", member)
        if told is not None:
            self.broadcast(told)

    def on_move_out(self, item: MoveOut) -> None:
        waiting = [a for a in self.arriving if a.account == item.account]
        if waiting:  # not seated yet (its seat was still taken): it goes on at once
            self.arriving = [a for a in self.arriving if a.account != item.account]
            self.report(Released(self.number, item.account, item.reason))
            return
        member = self.members.get(item.account)
        if member is None:
            return
        self.moving[item.account] = item.reason
        if self.between_rounds:
            self.move_off()
        elif item.reason == "disqualified":
            self.stop_playing(member)

    def move_off(self) -> None:
        """Between rounds: players the tournament moves (or eliminated, or disqualified)
        leave with their chips to their chips wallet; then any player waiting for one of
        those seats sits."""
        for account, reason in list(self.moving.items()):
            member = self.members.get(account)
            del self.moving[account]
            if member is not None:
                self.vacate(member, reason)
                self.report(Released(self.number, account, reason))
        waiting, self.arriving = self.arriving, []
        for item in waiting:
            self.on_seat_player(item)

    def tournament_view(self, view: dict[str, Any]) -> dict[str, Any]:
        view["table"]["tournament"] = {"number": self.number, "chips": True}
        return view


class PokerTournamentTable(TournamentSeats, PokerTable):
    """A poker table of a tournament (see the module docstring)."""

    releases_unstaked = False  # a seat is the tournament's: a busted player is out (r 19)

    kind = "poker"

    def __init__(
        self,
        table: TableConfig,
        config: ServerConfig,
        ledger: Ledger,
        *,
        number: int,
        chips: Ledger,
        report: Callable[[object], None],
        record: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(table, config, ledger)
        self.join_tournament(number, chips, report, record)
        self.go = False  # the tournament lets the next hand be dealt

    # -- what changes from the cash table (hooks of PokerTable) -----------------------------
    def may_deal(self) -> bool:
        return self.go and not self.closing

    def seat_rules(self, seat: Seat) -> None:
        """No seat is vacated by the cash table's rules: the tournament eliminates."""
        return None

    def hand_over(
        self, owners: dict[int, str], before: dict[int, int], after: dict[int, int]
    ) -> None:
        """Players with no chips left are out: off the table, reported with their chips at
        the hand's start (places: server/tournaments/places.py); then the moves asked for
        during the hand; then the table waits for the tournament."""
        self.go = False
        busted: dict[str, int] = {}
        for number, account in owners.items():
            seat = self.seats.get(number)
            if after.get(number, 0) == 0 and seat is not None and seat.account == account:
                busted[account] = before[number]
                self.moving.pop(account, None)
                self.vacate(seat, "eliminated")
        chips = self.stacks()  # the players moving off included: the hand's chips
        self.move_off()
        self.report(HandDone(self.number, busted, chips, self.designated))

    def stacks(self) -> dict[str, int]:
        return {s.account: self.stake(s) for s in self.seats.values()}

    def expire_grace(self, now: float) -> None:
        """A player away past the grace keeps the seat and sits out (blinded, ACT 6.3)."""
        for member in self.members.values():
            if member.grace_until is not None and now >= member.grace_until:
                member.grace_until = None
                if isinstance(member, Seat):
                    member.sitting_out = True

    def stop_playing(self, member: Member) -> None:
        """Folds at its turn (now, if it is to act)."""
        if isinstance(member, Seat):
            member.sitting_out = True
            if self.round is not None and self.round.to_act == member.number:
                self._auto_fold(member)

    def on_leave_seat(self, cmd: TableCommand[wire.Leave]) -> None:
        """A tournament seat is not given up: the player sits out (still dealt in, folds)."""
        if cmd.conn.id in self.spectators:
            PokerTable.on_leave(self, cmd)
            return
        seat = self._seat(cmd, "leave")
        if seat is not None and not seat.sitting_out:
            self.stop_playing(seat)
            self.broadcast(SatOut(seat=seat.number))

    def on_buy_in(self, cmd: TableCommand[wire.BuyIn]) -> None:
        self.error(cmd.conn, errors.NOT_SUPPORTED, "tournament chips are not bought", "buy_in")

    def on_join_seat(self, cmd: TableCommand[wire.Join]) -> None:
        """The base's join (a held seat resumes); a player back at its seat plays again."""
        PokerTable.on_join(self, cmd)
        seat = self.members.get(cmd.conn.account or "")
        if isinstance(seat, Seat) and seat.conn is cmd.conn and seat.sitting_out:
            if cmd.message.role == "player":
                seat.sitting_out = False
                self.broadcast(SatIn(seat=seat.number, wait_for_blind=False))

    def view_for(self, member: Member | None) -> dict[str, Any]:
        return self.tournament_view(super().view_for(member))

    # -- the tournament's items ---------------------------------------------------------------
    def taken(self, seat: int) -> bool:
        return seat in self.seats

    def seat_member(self, item: SeatPlayer, conn: Connection) -> Member:
        seat = Seat(item.seat, conn, self.config.time_bank)
        seat.sitting_out = item.conn is not conn  # away: a stand-in connection
        self.broadcast(SeatTaken(seat=item.seat, name=item.name))
        self.seats[item.seat] = seat
        return seat

    def seated(self, member: Member) -> StakeChanged:
        """All the player's chips become the seat's stake."""
        assert isinstance(member, Seat)
        chips = self.chips.balance(member.account)
        self.books.buy_in(member.account, member.number, chips)
        self._gather()
        return StakeChanged(seat=member.number, stake=chips, added=chips)

    def on_proceed(self, item: Proceed) -> None:
        blinds = list(item.blinds)
        if blinds != list(self.rules.blinds):
            options = {**self.table.options, "blinds": blinds}
            self.staged_rules = rules_for(self.game, options)
        self.level = item.level
        self.go = True
        self._gather()


#: why an ante is refused, for people (the amounts go in the error's ``amounts``)
ANTE_REFUSALS = {
    "not_in_round": "you are not in this round",
    "limits": "an ante is within the table limits in tournament chips (r 17.14)",
    "chips": "you do not have that many tournament chips",
    "placed": "your ante is placed and can no longer change (r 17.15)",
}


class CanberraTournamentTable(TournamentSeats, BankedTable):
    """A Canberra Poker table of a tournament (2017 and 2004 r 17.13-17.16): the banked
    table in tournament chips, the house's bank included (it pays and collects chips, so
    a Canberra Poker session does not conserve chips: results are by chip count). Each
    player holds the box of its ballot seat. The betting window is the ante round: the
    players are asked in ante order from the starting marker (r 17.15,
    :func:`server.tournaments.canberra.ante_order`), one at a time (``ante_turn``); an
    opportunity ends when the next player is asked (r 17.16), which is as soon as the ante
    is placed, or when ``decision_seconds`` run out: then the table minimum is placed for
    the player (r 17.14: every player wagers at least the minimum each round; our reading).
    An ante out of order stands and the player is warned (``ante_warning``); a further one
    in the session is void (:class:`server.tournaments.canberra.AnteRound`). After each
    round the marker moves to the next occupied box and the table waits for the tournament,
    which eliminates the players below the table minimum before the next (r 17.14)."""

    kind = "banked"
    sends_balance = False

    def __init__(
        self,
        table: TableConfig,
        config: ServerConfig,
        ledger: Ledger,
        *,
        number: int,
        chips: Ledger,
        report: Callable[[object], None],
        limits: Limits,
        record: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(table, config, ledger)
        self.join_tournament(number, chips, report, record)
        self.limits = limits
        self.marker = 1  #: the starting marker's box (r 17.15)
        self.warned: set[str] = set()  #: out-of-order antes this session (r 17.15)
        self.antes: AnteRound | None = None
        self.ante_deadline = math.inf
        self.next_round_at = math.inf  # held until the tournament says go

    def boxes(self) -> dict[int, str]:
        return dict(sorted(self.owners.items()))

    # -- seats -------------------------------------------------------------------------------
    def taken(self, seat: int) -> bool:
        return seat in self.owners

    def seat_member(self, item: SeatPlayer, conn: Connection) -> Member:
        player = Player(conn)
        player.boxes.add(item.seat)
        self.owners[item.seat] = item.account
        self.broadcast({"type": "box_taken", "box": item.seat, "name": item.name})
        return player

    def expire_grace(self, now: float) -> None:
        """A player away keeps the box: it antes the minimum and folds (r 17.14; A8)."""
        for member in self.members.values():
            if member.grace_until is not None and now >= member.grace_until:
                member.grace_until = None

    def on_leave_seat(self, cmd: TableCommand[wire.Leave]) -> None:
        if cmd.conn.id in self.spectators:
            BankedTable.on_leave(self, cmd)
            return
        self.error(
            cmd.conn,
            errors.NOT_SUPPORTED,
            "a tournament box is kept for the session: away, you ante the table minimum",
            "leave",
        )

    def send_to(self, account: str, message: Any) -> None:
        if not isinstance(message, wire.Balance):  # chips are not the wallet's money
            super().send_to(account, message)

    def view_for(self, member: Member | None) -> dict[str, Any]:
        view = self.tournament_view(super().view_for(member))
        view["table"]["tournament"].update(
            marker=self.marker,
            ante_turn=self.antes.current if self.antes is not None else None,
            limits={"minimum": self.limits.minimum, "maximum": self.limits.maximum},
        )
        return view

    # -- the ante round (r 17.15-17.16) ----------------------------------------------------------
    def open_betting(self, now: float) -> None:
        super().open_betting(now)
        self.closes_at = math.inf  # the ante round, not a countdown, closes the betting
        order = canberra.ante_order(self.boxes(), self.marker)
        chips = {a: self.chips.balance(a) for a in order}
        self.antes = AnteRound(order, self.limits, chips, warned=self.warned)
        self.broadcast({"type": "starting_marker", "round": self.round_no, "box": self.marker})
        self._ask_next(now)

    def _ask_next(self, now: float) -> None:
        antes = self.antes
        assert antes is not None
        player = antes.ask_next()
        while player is not None and player in antes.antes:  # anted out of order: it stands
            player = antes.ask_next()
        if player is None:
            self.antes, self.ante_deadline = None, math.inf
            self.close_betting()
            return
        box = next(b for b, a in self.owners.items() if a == player)
        self.ante_deadline = now + self.table.decision_seconds
        self.broadcast(
            {
                "type": "ante_turn",
                "round": self.round_no,
                "box": box,
                "name": self.members[player].name if player in self.members else player,
                "time_ms": int(self.table.decision_seconds * 1000),
            }
        )

    def on_ante(self, cmd: TableCommand[wire.Wager]) -> None:
        player = self._player(cmd, "wager")
        if player is None or self.refuse_after_close(cmd.conn, "wager"):
            return
        m, antes = cmd.message, self.antes
        if m.wager != "ante" or m.box not in player.boxes or antes is None or m.behind:
            text = "in a tournament you ante on your own box (no other wager, r 17.3(a)(vii))"
            self.error(cmd.conn, errors.WAGER_REFUSED, text, "wager", "tournament")
            return
        try:
            outcome = antes.ante(player.account, m.amount)
        except AnteError as exc:
            text = ANTE_REFUSALS.get(exc.code, "that ante is refused")
            bounds = {"min": self.limits.minimum, "max": self.limits.maximum}
            self.error(cmd.conn, errors.WAGER_REFUSED, text, "wager", exc.code, bounds)
            return
        if outcome == "void":
            text = "a further ante out of order is void (r 17.15): wait to be asked"
            self.error(cmd.conn, errors.WAGER_REFUSED, text, "wager", "out_of_order")
            return
        if not self.lay_wager(player, cmd.conn, m.box, "ante", m.amount):
            antes.antes.pop(player.account, None)
            return
        if outcome == "out_of_order":
            self.broadcast({"type": "ante_warning", "box": m.box, "name": player.name})
        elif antes.current == player.account:
            self._ask_next(trio.current_time())  # the opportunity ends: the next is asked

    def other_deadline(self) -> float:
        return min(super().other_deadline(), self.ante_deadline)

    def on_other_time(self, now: float) -> None:
        super().on_other_time(now)
        antes = self.antes
        if antes is not None and now >= self.ante_deadline and antes.current is not None:
            account = antes.current
            member = self.members.get(account)
            box = next(b for b, a in self.owners.items() if a == account)
            minimum = self.limits.minimum
            if isinstance(member, Player) and account not in antes.antes:
                if antes.chips[account] >= minimum:  # (below it: out before the round)
                    antes.ante(account, minimum)
                    self.lay_wager(member, None, box, "ante", minimum)
            self._ask_next(now)

    def round_over(self) -> None:
        """The round is over: the marker moves on (r 17.15) and the tournament decides."""
        self.next_round_at = math.inf
        if self.owners:
            self.marker = canberra.next_marker(self.boxes(), self.marker)
        chips = {a: self.chips.balance(a) for a in self.members}  # before any moves off
        self.move_off()
        self.report(HandDone(self.number, {}, chips, self.marker))

    def on_proceed(self, item: Proceed) -> None:
        if self.between_rounds:
            self.next_round_at = trio.current_time()

    def stop_playing(self, member: Member) -> None:
        return None  # folds by the decision clock; off after the round


#: The tournament tables' handlers: their table's, and the tournament's items
#: (server/actor.py's typed maps).
PokerTournamentTable.handlers = (
    Handlers[PokerTournamentTable, None](PokerTable.handlers)
    .command(wire.Leave, PokerTournamentTable.on_leave_seat)
    .command(wire.BuyIn, PokerTournamentTable.on_buy_in)
    .command(wire.Join, PokerTournamentTable.on_join_seat)
    .item(SeatPlayer, PokerTournamentTable.on_seat_player)
    .item(MoveOut, PokerTournamentTable.on_move_out)
    .item(Proceed, PokerTournamentTable.on_proceed)
)
CanberraTournamentTable.handlers = (
    Handlers[CanberraTournamentTable, None](BankedTable.handlers)
    .command(wire.Leave, CanberraTournamentTable.on_leave_seat)
    .command(wire.Wager, CanberraTournamentTable.on_ante)
    .item(SeatPlayer, CanberraTournamentTable.on_seat_player)
    .item(MoveOut, CanberraTournamentTable.on_move_out)
    .item(Proceed, CanberraTournamentTable.on_proceed)
)


def chips_of(ledger: Ledger, account: str) -> int:
    """An account's tournament chips: its chips wallet and every stake it holds."""
    return ledger.balance(account) + sum(
        v for k, v in ledger.balances.items() if ":stake:" in k and k.split(":", 4)[4] == account
    )
