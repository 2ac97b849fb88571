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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from protocol import errors
from protocol import messages as wire
from server.config import ServerConfig, TableConfig
from server.games.poker import rules_for
from server.store.ledger import Ledger
from server.tables.base import Handler, Member, TableCommand
from server.tables.books import Books
from server.tables.connection import Connection
from server.tables.poker import PokerTable, Seat

__all__ = [
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
    """Deal the next hand, at these blinds."""

    blinds: tuple[int, ...]


# -- table -> tournament ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HandDone:
    """Table ``number`` settled a hand: ``busted`` players (chips at the hand's start) are
    off the table; ``chips``: every remaining seat's chips."""

    number: int
    busted: Mapping[str, int]
    chips: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Released:
    """``account`` left table ``number`` (its chips are in its chips wallet)."""

    number: int
    account: str
    reason: str


class PokerTournamentTable(PokerTable):
    """A poker table of a tournament (see the module docstring)."""

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
    ) -> None:
        super().__init__(table, config, ledger)
        self.number = number
        self.chips = chips
        self.books = Books(table.id, chips)  # tournament chips: the chips ledger, never money
        self.report = report
        self.go = False  # the tournament lets the next hand be dealt
        self.moving: dict[str, str] = {}  # accounts to take off after the hand: reason
        self.arriving: list[SeatPlayer] = []  # seats still taken by a player moving off

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
        self._move_off()
        self.report(HandDone(self.number, busted, self.stacks()))

    def stacks(self) -> dict[str, int]:
        return {s.account: self.stake(s) for s in self.seats.values()}

    def expire_grace(self, now: float) -> None:
        """A player away past the grace keeps the seat and sits out (blinded, ACT 6.3)."""
        for member in self.members.values():
            if member.grace_until is not None and now >= member.grace_until:
                member.grace_until = None
                if isinstance(member, Seat):
                    member.sitting_out = True

    def on_leave_seat(self, cmd: TableCommand[wire.Leave]) -> None:
        """A tournament seat is not given up: the player sits out (still dealt in, folds)."""
        if cmd.conn.id in self.spectators:
            PokerTable.on_leave(self, cmd)
            return
        seat = self._seat(cmd, "leave")
        if seat is not None and not seat.sitting_out:
            seat.sitting_out = True
            self.broadcast({"type": "sat_out", "seat": seat.number})
            if self.round is not None and self.round.to_act == seat.number:
                self._auto_fold(seat)

    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        self.error(
            conn, errors.NOT_AUTHORIZED, "the tournament seats its players (watch instead)", "join"
        )
        return None

    def on_buy_in(self, cmd: TableCommand[wire.BuyIn]) -> None:
        self.error(cmd.conn, errors.NOT_SUPPORTED, "tournament chips are not bought", "buy_in")

    def money(self) -> dict[str, int]:
        """No money is held here (tournament chips are not money)."""
        return {
            "stakes": 0,
            "commission": 0,
            "house": 0,
            "jackpot_contributed": 0,
            "jackpot_paid": 0,
        }

    def view_for(self, member: Member | None) -> dict[str, Any]:
        view = super().view_for(member)
        view["table"]["tournament"] = {"number": self.number, "chips": True}
        return view

    # -- the tournament's items ---------------------------------------------------------------
    def on_seat_player(self, item: SeatPlayer) -> None:
        """Seat a player the tournament placed here, with all its chips (between hands for
        the seat's own sake: a seat taken by a player still moving off waits)."""
        if item.seat in self.seats:
            self.arriving.append(item)
            return
        conn = item.conn if item.conn is not None and not item.conn.closing.is_set() else None
        stand_in = conn or Connection(1)
        if conn is None:
            stand_in.account, stand_in.name = item.account, item.name
        seat = Seat(item.seat, stand_in, self.config.time_bank)
        seat.name = item.name
        if conn is None:
            seat.conn, seat.connected, seat.sitting_out = None, False, True
        self.broadcast({"type": "seat_taken", "seat": item.seat, "name": item.name})
        self.seats[item.seat] = seat
        self.members[item.account] = seat
        self.seat_index.setdefault(item.account, set()).add(self.id)
        chips = self.chips.balance(item.account)
        self.books.buy_in(item.account, item.seat, chips)
        if conn is not None:
            conn.tables.add(self.id)
            self.snapshot(seat, "player", seat)
        self.broadcast({"type": "stake", "seat": item.seat, "stake": chips, "added": chips})
        self._gather()

    def on_move_out(self, item: MoveOut) -> None:
        waiting = [a for a in self.arriving if a.account == item.account]
        if waiting:  # not seated yet (its seat was still taken): it goes on at once
            self.arriving = [a for a in self.arriving if a.account != item.account]
            self.report(Released(self.number, item.account, item.reason))
            return
        if item.account not in self.members:
            return
        self.moving[item.account] = item.reason
        if self.round is None:
            self._move_off()
        elif item.reason == "disqualified":
            seat = self.members[item.account]
            if isinstance(seat, Seat):  # folds at its turn; off after the hand
                seat.sitting_out = True
                if self.round.to_act == seat.number:
                    self._auto_fold(seat)

    def _move_off(self) -> None:
        """Between hands: players the tournament moves (or disqualified) leave with their
        chips to their chips wallet; then any player waiting for one of those seats sits."""
        for account, reason in list(self.moving.items()):
            member = self.members.get(account)
            del self.moving[account]
            if member is not None:
                self.vacate(member, reason)
                self.report(Released(self.number, account, reason))
        waiting, self.arriving = self.arriving, []
        for item in waiting:
            self.on_seat_player(item)

    def on_proceed(self, item: Proceed) -> None:
        blinds = list(item.blinds)
        if blinds != list(self.rules.blinds):
            options = {**self.table.options, "blinds": blinds}
            self.staged_rules = rules_for(self.game, options)
        self.go = True
        self._gather()

    handlers: ClassVar[Mapping[type, Handler]] = {
        **PokerTable.handlers,
        wire.Leave: on_leave_seat,
        wire.BuyIn: on_buy_in,
        SeatPlayer: on_seat_player,
        MoveOut: on_move_out,
        Proceed: on_proceed,
    }


def chips_of(ledger: Ledger, account: str) -> int:
    """An account's tournament chips: its chips wallet and every stake it holds."""
    return ledger.balance(account) + sum(
        v for k, v in ledger.balances.items() if ":stake:" in k and k.split(":", 4)[4] == account
    )
