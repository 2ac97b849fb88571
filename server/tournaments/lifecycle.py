"""The tournament lifecycle as a pure state machine (2017 r 17, 2004 r 17, ACT r 19).

Theory of operation. A :class:`Tournament` is built from its checked
:class:`~server.tournaments.conditions.Conditions` and an injected
:class:`~server.cards.RandomSource`. Commands are methods; each returns a :class:`Step`: the
events (the one event family, :class:`server.games.events.Event`) and the money transfers the
ledger will book (:class:`server.store.model.Transfer`, ids ``tournament:ID:N`` numbered in
order, so booking a step twice moves money once). A refused command raises
:class:`TournamentError` and changes nothing. No clock: the caller says when (the start time,
the end of a level, a session's last round). Same conditions + same random source + same
commands = same events and transfers, so the commands are the journal.

Phases, one transition table (:data:`TRANSITIONS`)::

    ANNOUNCED -> REGISTERING -> SEATING -> RUNNING -> COMPLETE
                                  ^  |       |  ^
                                  |  v       v  |
                                  ON_BREAK <-+--+      (r 17.18: breaks)
                 RUNNING -> SEATING (the next session: a new ballot, r 17.7)
    any phase but COMPLETE -> CANCELLED (every fee and commission refunded, r 17.23)

* Entries (``REGISTERING``): one per player (r 17.6); a sit-and-go seats itself when the
  N-th enters. Each entry moves the fee from the player's wallet: ``entry_fee - commission``
  to ``tournament:ID:pool`` and ``commission`` to ``tournament:ID:commission`` (ACT r 19.4,
  2017 r 17.22). A buy-back is another entry by an eliminated player, as the conditions
  allow (r 17.3(a)(ii)(F)). Reserves queue for seats (r 17.10).
* Seating (``SEATING``): each session's players get a table and seat by ballot
  (:meth:`Tournament.ballot`, r 17.7), kept in :attr:`Tournament.draws`. Players take their
  seats; at the start, an entrant not seated forfeits and the fee stays in the pool (r 17.9);
  before the first session a reserve may take an absent entrant's seat on paying the fee
  (r 17.10-17.11). Every player in a session receives the entry's chips (r 17.3(a)(iv)).
* Play (``RUNNING``): the table layer reports each round's eliminations
  (:meth:`Tournament.eliminate`; for Canberra Poker :meth:`Tournament.before_round` finds
  them, r 17.14) and asks for the balancing moves between hands
  (:meth:`Tournament.rebalance`); at a session's end, the chip counts
  (:meth:`Tournament.end_session`): the best ``advance`` go on, a tie that decides
  something needs extra rounds when the conditions say so, and after the last session the
  places and prizes are awarded (:mod:`server.tournaments.places`) from the pool to the
  wallets. A poker tournament ends when one player is left.

Tournament chips are their own unit: they live in :attr:`Tournament.chips` and in the
events, never in a transfer.

Parts, one job each: the money (entries, fees, refunds, prizes) is the tournament's
:class:`~server.tournaments.purse.Purse`; the ballot and the seats are pure functions of the
session's tables (:mod:`server.tournaments.seating`); balancing between hands is
:mod:`server.tournaments.balancing`; a session's results by chips
:mod:`server.tournaments.results`; places and prizes :mod:`server.tournaments.places`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

from server.cards import RandomSource
from server.games.events import Event
from server.store.model import Transfer
from server.tournaments import balancing, canberra, places, results, seating
from server.tournaments.conditions import Conditions, problems
from server.tournaments.purse import Entry as Entry  # re-exported (an entry's record)
from server.tournaments.purse import Purse


class Phase(enum.Enum):
    """A tournament's phases (the values are the names on the wire)."""

    ANNOUNCED = "announced"
    REGISTERING = "registering"
    SEATING = "seating"
    RUNNING = "running"
    ON_BREAK = "on_break"
    COMPLETE = "complete"
    CANCELLED = "cancelled"


TRANSITIONS: Final[dict[Phase, frozenset[Phase]]] = {
    Phase.ANNOUNCED: frozenset({Phase.REGISTERING, Phase.CANCELLED}),
    Phase.REGISTERING: frozenset({Phase.SEATING, Phase.CANCELLED}),
    Phase.SEATING: frozenset({Phase.RUNNING, Phase.ON_BREAK, Phase.CANCELLED}),
    Phase.RUNNING: frozenset(
        {Phase.ON_BREAK, Phase.SEATING, Phase.COMPLETE, Phase.CANCELLED},
    ),
    Phase.ON_BREAK: frozenset({Phase.RUNNING, Phase.SEATING, Phase.CANCELLED}),
    Phase.COMPLETE: frozenset(),
    Phase.CANCELLED: frozenset(),
}


class TournamentError(Exception):
    """A command the rules or the phase refuse; ``code`` for machines, the message (one line)
    for people. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# -- events (the one event family) ------------------------------------------------------


class RegistrationOpened(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_registration_opened"
    tournament: str


class Entered(Event, frozen=True, kw_only=True):
    """An entry (r 17.6), a buy-back (r 17.3(a)(ii)(F)) or a reserve's (r 17.10) paid."""

    TYPE: ClassVar[str] = "tournament_entered"
    player: str
    entry: int
    fee: int
    commission: int
    how: Literal["entry", "buy_back", "reserve"]


class Unregistered(Event, frozen=True, kw_only=True):
    """An entry withdrawn before seating: its fee and commission refunded in full."""

    TYPE: ClassVar[str] = "tournament_unregistered"
    player: str
    refunded: int


class Reserved(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_reserved"
    player: str


#: how a player came to a seat
How = Literal["ballot", "reserve", "buy_back", "moved"]


class Seated(Event, frozen=True, kw_only=True):
    """The ballot's draw for one player (r 17.7), or a move between tables."""

    TYPE: ClassVar[str] = "tournament_seated"
    session: int
    player: str
    table: int
    seat: int
    how: How


class SeatTaken(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_seat_taken"
    player: str


class Forfeited(Event, frozen=True, kw_only=True):
    """An entrant not seated at the start forfeits; the fee stays in the pool (r 17.9)."""

    TYPE: ClassVar[str] = "tournament_forfeited"
    player: str


class SessionStarted(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_session_started"
    session: int
    players: int
    chips: int  #: tournament chips each player received (r 17.3(a)(iv))


class BreakStarted(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_break"
    minutes: int


class BreakEnded(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_break_ended"


class Eliminated(Event, frozen=True, kw_only=True):
    """Players out together, sharing places ``first .. first+len(players)-1`` for now."""

    TYPE: ClassVar[str] = "tournament_eliminated"
    players: tuple[str, ...]
    first: int


class Disqualified(Event, frozen=True, kw_only=True):
    """The Tournament Director disqualified ``player``: out now, chips out of play."""

    TYPE: ClassVar[str] = "tournament_disqualified"
    player: str
    chips: int


class ExtraRounds(Event, frozen=True, kw_only=True):
    """Equal chips that decide a place or progression: play on (2004 r 17.23)."""

    TYPE: ClassVar[str] = "tournament_extra_rounds"
    players: tuple[str, ...]


class SessionEnded(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_session_ended"
    session: int
    advancing: tuple[str, ...]


class Finished(Event, frozen=True, kw_only=True):
    """A place (or a tied group's places) and the prize each of its players receives."""

    TYPE: ClassVar[str] = "tournament_place"
    first: int
    players: tuple[str, ...]
    prizes: tuple[int, ...]


class Completed(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_complete"
    pool: int


class Cancelled(Event, frozen=True, kw_only=True):
    TYPE: ClassVar[str] = "tournament_cancelled"
    reason: str
    refunded: int


@dataclass
class Step:
    """What one command did: events in order, and the transfers the ledger books."""

    events: list[Event] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)


Status = Literal["entered", "present", "playing", "out", "forfeited"]


class Tournament:
    """One tournament's state; see the module docstring."""

    def __init__(self, conditions: Conditions, rng: RandomSource) -> None:
        found = problems(conditions)
        if found:
            raise TournamentError("bad_conditions", found[0])
        self.conditions = conditions
        self.id = conditions.id
        self.rng = rng
        self.phase = Phase.ANNOUNCED
        self._resume = Phase.RUNNING  #: the phase a break returns to
        self.purse = Purse(conditions)  #: the entries and the money
        self.status: dict[str, Status] = {}
        self.buy_backs: dict[str, int] = {}
        self.reserves: list[str] = []
        self.session = 0
        self.tables: list[balancing.Table] = []
        self.draws: list[Seated] = []  #: every ballot draw and move, in order (r 17.7)
        self.chips: dict[str, int] = {}  #: tournament chips at the session's start
        self.issued = 0  #: tournament chips issued in the session
        self.out: list[list[str]] = []  #: tie groups in the order they went out

    # -- the money (server/tournaments/purse.py) ------------------------------------------

    @property
    def entries(self) -> list[Entry]:
        return self.purse.entries

    @property
    def pool_account(self) -> str:
        return self.purse.pool_account

    @property
    def commission_account(self) -> str:
        return self.purse.commission_account

    @property
    def pool(self) -> int:
        """The prize pool: every entry's fee less commission, forfeits included (r 17.9)."""
        return self.purse.pool

    def _to(self, phase: Phase) -> None:
        if phase is not self.phase and phase not in TRANSITIONS[self.phase]:
            raise TournamentError(
                "wrong_phase", f"the tournament is {self.phase.value}: cannot go {phase.value}"
            )
        self.phase = phase

    def _require(self, *phases: Phase) -> None:
        if self.phase not in phases:
            names = " or ".join(p.value for p in phases)
            raise TournamentError(
                "wrong_phase", f"the tournament is {self.phase.value}, not {names}"
            )

    def _enter(self, step: Step, player: str, how: Literal["entry", "buy_back", "reserve"]) -> None:
        entry = self.purse.enter(step.transfers, player)
        step.events.append(
            Entered(
                player=player,
                entry=entry.number,
                fee=entry.fee,
                commission=entry.commission,
                how=how,
            )
        )

    # -- registration ---------------------------------------------------------------------

    def open_registration(self) -> Step:
        """Entries open; the conditions were published first (2017 r 17.2(b))."""
        self._require(Phase.ANNOUNCED)
        self._to(Phase.REGISTERING)
        return Step([RegistrationOpened(tournament=self.id)])

    def register(self, player: str) -> Step:
        """One entry per player (r 17.6); a sit-and-go seats itself at N entries."""
        self._require(Phase.REGISTERING)
        if player in self.status:
            raise TournamentError("entered", f"{player} has entered already (one entry, r 17.6)")
        if len(self.status) >= self.conditions.max_players:
            raise TournamentError("full", f"the tournament is full ({len(self.status)} players)")
        step = Step()
        if player in self.reserves:  # a reserve who enters is a reserve no more
            self.reserves.remove(player)
        self.status[player] = "entered"
        self._enter(step, player, "entry")
        if self.conditions.sit_and_go == len(self.status):
            self._seat(step, list(self.status))
        return step

    def unregister(self, player: str) -> Step:
        """Withdraw an entry while entries are open, where the rules allow it: under ACT
        r 19.4 the operator keeps the commission "whether an entrant withdraws or not", so
        the fee less the commission goes back to the wallet (our reading: docs/rulings.md);
        Canberra Poker entries are non-refundable (2017 r 17.23, 2004 r 17.26)."""
        self._require(Phase.REGISTERING)
        if not self.conditions.rulebook.withdrawals:
            raise TournamentError(
                "non_refundable", "entries are non-refundable (2017 r 17.23, 2004 r 17.26)"
            )
        if self.status.get(player) != "entered":
            raise TournamentError("not_entered", f"{player} has no entry to withdraw")
        step = Step()
        del self.status[player]
        refunded = self.purse.withdraw(step.transfers, player)
        step.events.append(Unregistered(player=player, refunded=refunded))
        return step

    def reserve(self, player: str) -> Step:
        """Put ``player`` on the reserve list: they pay only when given a seat (r 17.10)."""
        self._require(Phase.REGISTERING, Phase.SEATING)
        if player in self.status or player in self.reserves:
            raise TournamentError("entered", f"{player} has entered or is a reserve already")
        self.reserves.append(player)
        return Step([Reserved(player=player)])

    def close_registration(self) -> Step:
        """Entries close; the first session's seats are drawn (r 17.7)."""
        self._require(Phase.REGISTERING)
        if len(self.status) < self.conditions.min_players:
            raise TournamentError(
                "too_few",
                f"{len(self.status)} entered, fewer than the minimum "
                f"{self.conditions.min_players}: cancel the tournament (r 17.23)",
            )
        step = Step()
        self._seat(step, list(self.status))
        return step

    # -- seating --------------------------------------------------------------------------

    def _seat(self, step: Step, players: list[str]) -> None:
        """The ballot for the next session (r 17.7): tables per the conditions (r 17.8),
        players spread within one of each other, tables and seats drawn at random."""
        self.session += 1
        spec = self.conditions.sessions[self.session - 1]
        self.tables = seating.ballot(players, spec, self.rng)
        for table in self.tables:
            for seat, player in sorted(table.players.items()):
                self.status[player] = "entered"
                self._seated(step, player, table.number, seat, "ballot")
        self._to(Phase.SEATING)

    def _seated(self, step: Step, player: str, table: int, seat: int, how: How) -> None:
        """A draw of this session (the ballot, a move, a reserve, a buy-back), journalled in
        :attr:`draws` (r 17.7)."""
        event = Seated(session=self.session, player=player, table=table, seat=seat, how=how)
        self.draws.append(event)
        step.events.append(event)

    def take_seat(self, player: str) -> Step:
        """``player`` sits at their allocated seat before the start (r 17.9)."""
        self._require(Phase.SEATING, Phase.ON_BREAK)
        if seating.where(self.tables, player) is None or self.status.get(player) != "entered":
            raise TournamentError("no_seat", f"{player} has no seat waiting in this session")
        self.status[player] = "present"
        return Step([SeatTaken(player=player)])

    def substitute(self, absent: str, reserve: str) -> Step:
        """Before the first session, a reserve takes an absent entrant's seat on paying the
        entry fee (r 17.10-17.11); the absent entrant forfeits and their fee stays (r 17.9)."""
        self._require(Phase.SEATING)
        where = seating.where(self.tables, absent)
        if self.session != 1 or where is None or self.status.get(absent) != "entered":
            raise TournamentError(
                "no_seat", f"{absent} has no untaken seat before the first session (r 17.10)"
            )
        if reserve not in self.reserves:
            raise TournamentError("not_reserve", f"{reserve} is not on the reserve list")
        step = Step()
        self.reserves.remove(reserve)
        self.status[absent] = "forfeited"
        step.events.append(Forfeited(player=absent))
        self.tables = seating.replaced(self.tables, absent, reserve)
        self.status[reserve] = "present"
        self._enter(step, reserve, "reserve")
        table, seat = where
        self._seated(step, reserve, table, seat, "reserve")  # session 1
        return step

    def start(self) -> Step:
        """The session starts: absent entrants forfeit (r 17.9); everyone seated receives the
        entry's chips (r 17.3(a)(iv))."""
        self._require(Phase.SEATING)
        present = [p for p, s in self.status.items() if s == "present"]
        if len(present) < 2:
            raise TournamentError("too_few", "fewer than two players seated: cancel (r 17.23)")
        step = Step()
        for player in [p for p, s in self.status.items() if s == "entered"]:
            self.status[player] = "forfeited"
            self.tables = seating.replaced(self.tables, player, None)
            step.events.append(Forfeited(player=player))
        self.tables = [t for t in self.tables if t.players]
        for player in present:
            self.status[player] = "playing"
        self.chips = dict.fromkeys(present, self.conditions.chips)
        self.issued = self.conditions.chips * len(present)
        step.events.append(
            SessionStarted(session=self.session, players=len(present), chips=self.conditions.chips)
        )
        self._to(Phase.RUNNING)
        return step

    # -- play -----------------------------------------------------------------------------

    @property
    def playing(self) -> list[str]:
        """The players still in the session, in ballot order."""
        return [p for p in self._ballot_order() if self.status.get(p) == "playing"]

    def _ballot_order(self) -> list[str]:
        """Every player once, in the order the ballot first drew them (tie-breaks for odd
        cents, :mod:`server.tournaments.places`)."""
        return list(dict.fromkeys(d.player for d in self.draws))

    def mark(self, table: int, marker: int) -> None:
        """Table ``table``'s marker is now at seat ``marker`` (the button after a hand, or
        the Canberra Poker starting marker): moves that keep position use it."""
        self.tables = seating.marked(self.tables, table, marker)

    def rebalance(self) -> Step:
        """Between hands: break surplus tables and balance the rest
        (:mod:`server.tournaments.balancing`); the moves are journalled as draws. Nothing
        moves where the conditions keep the seats for the session (Canberra Poker, r 17.7)."""
        self._require(Phase.RUNNING)
        if not self.conditions.balances:
            return Step()  # r 17.7: seats are kept for the session
        moves = balancing.plan(self.tables, self.rng, self.conditions.keep_position)
        self.tables = balancing.apply(self.tables, moves)
        step = Step()
        for m in moves:
            self._seated(step, m.player, m.target, m.to_seat, "moved")
        return step

    def eliminate(self, started_with: Mapping[str, int]) -> Step:
        """The players out in one round of play, with their chips at its start (r 17.14 for
        Canberra Poker: below the table minimum). They finish below everyone still in, tied
        or ranked per ``same_round`` (2004 r 17.24). A poker tournament (a last session
        played to a winner) completes when one player is left."""
        self._require(Phase.RUNNING)
        gone = list(started_with)
        if not gone or any(self.status.get(p) != "playing" for p in gone):
            raise TournamentError("not_playing", "eliminate only players still in the session")
        if len(gone) == len(self.playing):
            raise TournamentError("everyone", "a round cannot eliminate every player left")
        step = Step()
        groups = places.eliminated_in_round(
            started_with, self.conditions.same_round, self._ballot_order()
        )
        left = len(self.playing) - len(gone)
        self._eliminated(step, groups, left + 1)
        for group in reversed(groups):
            self.out.append(group)
        for player in gone:
            self.status[player] = "out"
            self.tables = seating.replaced(self.tables, player, None)
        self.tables = [t for t in self.tables if t.players]
        last = self.session == len(self.conditions.sessions)
        if last and left == 1:
            self._complete(step, [self.playing])
        return step

    def move(self, player: str, table: int, seat: int) -> Step:
        """The Tournament Director moves ``player`` to a free ``seat`` of ``table`` (between
        hands); journalled as a draw like the balancing moves."""
        self._require(Phase.RUNNING, Phase.ON_BREAK)
        where = seating.where(self.tables, player)
        target = next((t for t in self.tables if t.number == table), None)
        if where is None or self.status.get(player) != "playing":
            raise TournamentError("not_playing", f"{player} is not playing in this session")
        if target is None or not 1 <= seat <= target.seats or seat in target.players:
            raise TournamentError("no_seat", f"table {table} has no free seat {seat}")
        move = balancing.Move(player, where[0], where[1], table, seat)
        self.tables = balancing.apply(self.tables, [move])
        step = Step()
        self._seated(step, player, table, seat, "moved")
        return step

    def disqualify(self, player: str, chips: int) -> Step:
        """The Tournament Director disqualifies ``player``, who held ``chips``: out now, as
        if eliminated in a round of their own, and the chips leave play (our reading of the
        conditions prevailing, ACT r 19.3; docs/rulings.md)."""
        self._require(Phase.RUNNING, Phase.ON_BREAK)
        if self.status.get(player) != "playing" or len(self.playing) < 2:
            raise TournamentError("not_playing", f"{player} cannot be disqualified now")
        resume = self.phase
        self.phase = Phase.RUNNING  # an elimination, on a break too
        try:
            step = self.eliminate({player: chips})
        finally:
            if self.phase is Phase.RUNNING:
                self.phase = resume
        self.issued -= chips
        self.chips.pop(player, None)
        step.events.insert(0, Disqualified(player=player, chips=chips))
        return step

    def before_round(self, chips: Mapping[str, int]) -> Step:
        """Canberra Poker, before each round of play with every remaining player's chips:
        those who cannot wager the table minimum are eliminated together (r 17.14). If that
        is everyone, nobody can play on: the session ends on these chip counts."""
        self._require(Phase.RUNNING)
        limits = self.conditions.session_limits(self.session)
        if limits is None:
            raise TournamentError("no_limits", "poker has blind levels, not a table minimum")
        if sorted(chips) != sorted(self.playing):
            raise TournamentError("bad_chips", "give the chips of every player still in")
        out = canberra.below_minimum(chips, limits)
        if not out:
            return Step()
        if len(out) == len(chips):  # nobody can play another round, extra ones neither
            return self.end_session(chips, extra_rounds=False)
        return self.eliminate({p: chips[p] for p in out})

    def buy_back(self, player: str, level: int | None = None) -> Step:
        """An eliminated player re-enters for the entry fee and gets the entry's chips, as the
        conditions allow (2017 r 17.3(a)(ii)(F)); ``level`` is the blind level in play. Their
        place is void; they take a free seat at the shortest table, drawn by ballot."""
        self._require(Phase.RUNNING, Phase.ON_BREAK)
        bb = self.conditions.buy_backs
        used = self.buy_backs.get(player, 0)
        if self.status.get(player) != "out":
            raise TournamentError("not_out", f"{player} is not out of the tournament")
        if used >= bb.per_player or self.session > bb.last_session:
            raise TournamentError("no_buy_back", f"{player} has no buy-back left (conditions)")
        if bb.last_level is not None and (level is None or level > bb.last_level):
            raise TournamentError("no_buy_back", f"buy-backs end after level {bb.last_level}")
        found = seating.free_seat(self.tables, self.rng)
        if found is None:
            raise TournamentError("no_seat", "every seat is taken: no buy-back now")
        shortest, seat = found
        step = Step()
        self.buy_backs[player] = used + 1
        self.out = [g for g in ([p for p in grp if p != player] for grp in self.out) if g]
        self._enter(step, player, "buy_back")
        self.tables = seating.sit(self.tables, shortest, seat, player)
        self.status[player] = "playing"
        self.chips[player] = self.conditions.chips
        self.issued += self.conditions.chips
        self._seated(step, player, shortest.number, seat, "buy_back")
        return step

    def pause(self, minutes: int) -> Step:
        """A break (2017 r 17.18, 2004 r 17.19) of ``minutes``; :meth:`resume` ends it."""
        self._require(Phase.RUNNING, Phase.SEATING)
        if minutes < 1:
            raise TournamentError("bad_break", "a break lasts at least a minute")
        self._resume = self.phase
        self._to(Phase.ON_BREAK)
        return Step([BreakStarted(minutes=minutes)])

    def resume(self) -> Step:
        self._require(Phase.ON_BREAK)
        self._to(self._resume)
        return Step([BreakEnded()])

    def end_session(self, chips: Mapping[str, int], extra_rounds: bool = True) -> Step:
        """The session's end with every remaining player's tournament chips: results by chip
        count (2017 r 17.3(a)(ix)). The best ``advance`` progress to the next session's
        ballot; the rest are out, tied where their chips are equal. A tie that decides
        progression, or (with ``ties = "extra_rounds"``) a paid place, needs extra rounds:
        :class:`ExtraRounds`, and the session goes on (2004 r 17.23, 2017 r 17.3(a)(xii)(D)).
        Without ``extra_rounds`` (nobody can wager the table minimum, r 17.14) tied players
        share: a tied group across the progression cut progresses whole (our reading)."""
        self._require(Phase.RUNNING)
        playing = self.playing
        if sorted(chips) != sorted(playing) or any(v < 0 for v in chips.values()):
            raise TournamentError("bad_chips", "give the chips of every player still in")
        if self.conditions.rulebook.poker and sum(chips.values()) != self.issued:
            raise TournamentError(
                "chips_not_conserved",
                f"the chips sum to {sum(chips.values())}, not the {self.issued} issued",
            )
        groups = places.by_chips(chips, self._ballot_order())
        spec = self.conditions.sessions[self.session - 1]
        last = self.session == len(self.conditions.sessions)
        tied = (
            results.deciding_tie(groups, spec.advance, last, self.conditions)
            if extra_rounds
            else []
        )
        if tied:
            return Step([ExtraRounds(players=tuple(tied))])
        step = Step()
        if last:
            self._complete(step, groups)
            return step
        advancing, behind = results.cut(groups, spec.advance)
        for group in behind:
            self.status.update(dict.fromkeys(group, "out"))
        self._eliminated(step, behind, len(advancing) + 1)
        self.out += list(reversed(behind))
        step.events.append(SessionEnded(session=self.session, advancing=tuple(advancing)))
        self._seat(step, advancing)
        return step

    def _eliminated(self, step: Step, groups: list[list[str]], first: int) -> None:
        """The groups out, best first, from place ``first`` on."""
        for group in groups:
            step.events.append(Eliminated(players=tuple(group), first=first))
            first += len(group)

    def _complete(self, step: Step, left: list[list[str]]) -> None:
        """Award the places and pay 100% of the pool (2017 r 17.21, 2004 r 17.22)."""
        for group in left:
            for player in group:
                self.status[player] = "out"
        standing = places.standings(left, self.out)
        paid = places.prizes(self.pool, self.conditions.shares, standing)
        for place in standing:
            amounts = tuple(paid.get(p, 0) for p in place.players)
            step.events.append(Finished(first=place.first, players=place.players, prizes=amounts))
            for player, amount in zip(place.players, amounts, strict=True):
                self.purse.prize(step.transfers, player, amount)
        step.events.append(Completed(pool=self.pool))
        self.tables = []
        self._to(Phase.COMPLETE)

    # -- a durable record (server/tournaments/runner.py: a tournament survives a stop) ------

    def snapshot(self) -> dict[str, Any]:
        """Everything this state machine holds, as plain JSON-able data (:meth:`restore`
        rebuilds it). The random source is not part of it: a restored tournament draws from
        the source it is given (docs/rulings.md, "Interrupted tournament play")."""
        return {
            "phase": self.phase.value,
            "resume": self._resume.value,
            "entries": [[e.number, e.player, e.fee, e.commission] for e in self.purse.entries],
            "withdrawn": [[e.number, e.player, e.fee, e.commission] for e in self.purse.withdrawn],
            "status": dict(self.status),
            "buy_backs": dict(self.buy_backs),
            "reserves": list(self.reserves),
            "session": self.session,
            "tables": [
                [t.number, t.seats, sorted(t.players.items()), t.marker] for t in self.tables
            ],
            "draws": [[d.session, d.player, d.table, d.seat, d.how] for d in self.draws],
            "chips": dict(self.chips),
            "issued": self.issued,
            "out": [list(g) for g in self.out],
            "transfers": self.purse.transfers,
        }

    @classmethod
    def restore(
        cls, conditions: Conditions, rng: RandomSource, data: Mapping[str, Any]
    ) -> Tournament:
        """The tournament a :meth:`snapshot` recorded, under the same conditions."""
        t = cls(conditions, rng)
        t.phase = Phase(data["phase"])
        t._resume = Phase(data["resume"])
        t.purse.entries = [Entry(*e) for e in data["entries"]]
        t.purse.withdrawn = [Entry(*e) for e in data["withdrawn"]]
        t.status = dict(data["status"])
        t.buy_backs = dict(data["buy_backs"])
        t.reserves = list(data["reserves"])
        t.session = int(data["session"])
        t.tables = [
            balancing.Table(n, seats, {int(s): p for s, p in players}, marker)
            for n, seats, players, marker in data["tables"]
        ]
        t.draws = [
            Seated(session=s, player=p, table=n, seat=seat, how=how)
            for s, p, n, seat, how in data["draws"]
        ]
        t.chips = dict(data["chips"])
        t.issued = int(data["issued"])
        t.out = [list(g) for g in data["out"]]
        t.purse.transfers = int(data["transfers"])
        return t

    # -- cancellation ---------------------------------------------------------------------

    def cancel(self, reason: str) -> Step:
        """Cancel: every entry fee and commission is refunded in full (2017 r 17.23, 2004
        r 17.26), buy-backs, reserves' and forfeited entries included."""
        if self.phase in (Phase.COMPLETE, Phase.CANCELLED):
            raise TournamentError("wrong_phase", f"the tournament is {self.phase.value}")
        step = Step()
        refunded = self.purse.refund_all(step.transfers)
        step.events.append(Cancelled(reason=reason, refunded=refunded))
        self.tables = []
        self._to(Phase.CANCELLED)
        return step
