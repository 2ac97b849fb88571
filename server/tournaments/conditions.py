"""Tournament conditions as data: a TOML file per tournament, checked against the rules.

The conditions are what 2017 r 17.3 says they shall include (and 2004 r 17.4 and ACT r 19.2
say they may): the start (a date and time, or a sit-and-go that starts when N have entered,
r 17.3(a)(i), (ii)(B)); the sessions, their number and duration, the tables per session and
the players per table, and the progression between them (r 17.3(a)(ii)(A)-(C)); buy-backs
(r 17.3(a)(ii)(F)); the entry fee and the tournament commission (r 17.3(a)(iii); ACT r 19.4);
the tournament chips per entry (r 17.3(a)(iv)); the minimum and maximum players
(r 17.3(a)(v)); restrictions on player groups (r 17.3(a)(vi)); the jackpot-wager restrictions
(r 17.3(a)(vii); 2004 r 17.18); the table limits (r 17.3(a)(viii)), or the blind levels and
their durations for poker; the tie rules for places (r 17.3(a)(ix)(B), (xii)); the prize
breakdown (r 17.3(a)(xi)).

Money is integer cents, as everywhere in croupier (``entry_fee = 5500`` is $55.00). The
``commission`` is the part of each entry fee the operator keeps (ACT r 19.4, 2017 r 17.22: the
prize money is "the entry fees less any commission"); the rest of the fee goes to the prize
pool. Prize shares are percentages of the pool with at most two decimals (``"33.34"``), kept
as basis points. Tournament chips are their own unit: ``chips``, the blinds and the table
limits count tournament chips, never cents.

:func:`load` reads and checks a file; :func:`problems` lists every way a decoded
:class:`Conditions` breaks the rules, one line each (``croupier tournament validate``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from server.errors import ScenarioError
from server.games.poker.rules import STRUCTURES, rules_for
from server.games.poker.rules import defaults as poker_defaults
from server.money import dollars

Ties = Literal["share", "extra_rounds"]
SameRound = Literal["share", "by_chips"]
JackpotWagers = Literal["none", "allowed"]

#: 100% of the prize pool in basis points (2017 r 17.21, 2004 r 17.22).
WHOLE: Final = 10_000


class ConditionsError(ValueError):
    """The conditions cannot be used: the message is one line saying what to fix."""


@dataclass(frozen=True)
class Rulebook:
    """What the rules themselves say about a game's tournaments (the conditions prevail over
    the game's rules, ACT r 19.3, 2004 r 17.5, 2017 r 17.1, but not over these)."""

    title: str
    poker: bool  #: blind levels (player-vs-player poker) rather than table limits
    commission_cap_percent: int | None  #: ACT r 19.4: "up to 10% of the total entry fees"
    jackpot_wagers: bool  #: 2004 r 17.18: no jackpot wagers during a tournament
    buy_backs: bool  #: 2004 r 17.6: "one entry only", with no exception
    ties: Ties | None  #: 2004 r 17.23: equal chips at the end of a session -> extra rounds
    same_round: SameRound | None  #: 2004 r 17.24: eliminated in the same round share
    #: a Canberra Poker sit-and-go may move players between tables (2017 r 17.3(a)(ii)(B))
    sit_and_go_moves: bool = False
    #: an entrant may withdraw before seating, the commission kept (ACT r 19.4: "whether an
    #: entrant withdraws or not"); Canberra Poker entries are non-refundable (r 17.23/17.26)
    withdrawals: bool = False


_ACT_POKER = Rulebook(
    "ACT poker, seed 001 r 19", True, 10, False, True, None, None, withdrawals=True
)
RULEBOOKS: Final[dict[str, Rulebook]] = {
    "holdem-act": _ACT_POKER,
    "omaha-act": _ACT_POKER,
    "manila-act": _ACT_POKER,
    "canberra-poker-2004": Rulebook(
        "Canberra Poker 2004, seed 000 r 17", False, None, False, False, "extra_rounds", "share"
    ),
    "canberra-poker-2017": Rulebook(
        "Canberra Poker 2017, seed 002 r 17", False, None, True, True, None, None, True
    ),
}


# Every table of a conditions file refuses unknown keys (a typo is an error).
class Limits(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Table limits in tournament chips (r 17.3(a)(viii)); every player must wager at least
    ``minimum`` each round or be eliminated (r 17.14)."""

    minimum: int
    maximum: int


class Level(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """A blind level for poker: the blinds (two for hold'em and Omaha, one for Manila) in
    tournament chips, and how long it lasts."""

    blinds: list[int]
    minutes: int


class Session(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """One session (2017 r 17.3(a)(ii)): its tables (the most it opens, or ``"by_entries"``:
    as many as the entries need), players per table, duration (minutes and/or rounds; the
    last may play to a winner), and how many progress to the next (``advance``, by chip
    count: r 17.3(a)(ii)(C)); ``limits`` overrides the tournament's."""

    name: str
    tables: int | Literal["by_entries"]
    players_per_table: int
    minutes: int | None = None
    rounds: int | None = None
    advance: int = 0
    limits: Limits | None = None


class BuyBacks(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Buy-backs (2017 r 17.3(a)(ii)(F)): how many an eliminated player may make, and until
    which session (and, for poker, which blind level). A buy-back costs the entry fee and
    gives the entry's chips."""

    per_player: int = 0
    last_session: int = 1
    last_level: int | None = None


class Break(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """A scheduled break (2017 r 17.18, 2004 r 17.19): after a session or a blind level."""

    minutes: int
    after_session: int | None = None
    after_level: int | None = None


class Conditions(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """One tournament's conditions (see the module docstring for the rule of each field)."""

    id: str
    name: str
    game: str
    entry: str  #: how to enter and who may (r 17.3(a)(i))
    starts_at: datetime | None = None
    sit_and_go: int | None = None
    entry_fee: int
    commission: int
    chips: int
    min_players: int
    max_players: int
    sessions: list[Session]
    progression: str = ""  #: r 17.3(a)(ii)(C)-(E) in words (repechage, points, ...)
    buy_backs: BuyBacks = BuyBacks()
    levels: list[Level] = []
    #: poker: the betting structure of the tournament's tables (None: the game's default)
    structure: str | None = None
    limits: Limits | None = None
    jackpot_wagers: JackpotWagers = "none"
    player_groups: str = "none"
    ties: Ties
    same_round: SameRound = "share"
    #: move players between tables as they are eliminated (None: poker yes, Canberra Poker
    #: no, r 17.7 keeps a seat for the session; a 2017 sit-and-go may, r 17.3(a)(ii)(B))
    balance_tables: bool | None = None
    keep_position: bool = False  #: moves between tables keep the position to the marker
    breaks: list[Break] = []
    prizes: list[int | str]

    @property
    def rulebook(self) -> Rulebook:
        return RULEBOOKS[self.game]

    @property
    def pool_per_entry(self) -> int:
        """Cents of each entry fee that go to the prize pool (ACT r 19.4, 2017 r 17.22)."""
        return self.entry_fee - self.commission

    @property
    def shares(self) -> list[int]:
        """The prize breakdown in basis points, place 1 first (raises on a bad share)."""
        return [percent(p) for p in self.prizes]

    @property
    def balances(self) -> bool:
        """Whether tables are balanced and broken during a session."""
        return self.rulebook.poker if self.balance_tables is None else self.balance_tables

    def session_limits(self, session: int) -> Limits | None:
        """The table limits of session ``session`` (1-based)."""
        return self.sessions[session - 1].limits or self.limits


_PERCENT = re.compile(r"(\d+)(?:\.(\d{1,2}))?%?")


def percent(value: int | str) -> int:
    """``50`` or ``"33.34"`` or ``"12.5%"`` -> basis points (5000, 3334, 1250), exactly."""
    if isinstance(value, int):
        return value * 100
    m = _PERCENT.fullmatch(value.strip())
    if not m:
        raise ConditionsError(f"prize share {value!r} is not a percentage like 50 or '33.34'")
    return int(m.group(1)) * 100 + int((m.group(2) or "").ljust(2, "0"))


def decode(text: bytes | str) -> Conditions:
    """TOML text -> :class:`Conditions` (types only; :func:`problems` checks the rules)."""
    try:
        return msgspec.toml.decode(text, type=Conditions)
    except msgspec.ValidationError as exc:
        raise ConditionsError(str(exc).replace("`", "")) from None
    except msgspec.DecodeError as exc:
        raise ConditionsError(f"not TOML: {exc}") from None


def load(path: Path | str) -> Conditions:
    """Read, decode and check a conditions file; :class:`ConditionsError` on the first
    problem."""
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise ConditionsError(f"cannot read {path}: {exc.strerror}") from None
    conditions = decode(text)
    found = problems(conditions)
    if found:
        raise ConditionsError(found[0])
    return conditions


def problems(c: Conditions) -> list[str]:
    """Every way ``c`` breaks the rules, one line each (empty: the conditions are good)."""
    book = RULEBOOKS.get(c.game)
    if book is None:
        return [f"game {c.game!r} has no tournament rules (one of: {', '.join(RULEBOOKS)})"]
    out: list[str] = []
    out += _start(c)
    out += _money(c, book)
    out += _players(c)
    out += _sessions(c)
    out += _play(c, book)
    out += _restrictions(c, book)
    out += _prizes(c)
    out += _breaks(c)
    return out


def _start(c: Conditions) -> list[str]:
    if (c.starts_at is None) == (c.sit_and_go is None):
        return ["give exactly one of starts_at (a date and time) or sit_and_go (r 17.3(a)(i))"]
    if c.starts_at is not None and c.starts_at.tzinfo is None:
        return ["starts_at needs a UTC offset, e.g. 2026-12-05T19:00:00+11:00"]
    if c.sit_and_go is not None and not c.min_players <= c.sit_and_go <= c.max_players:
        return [f"sit_and_go {c.sit_and_go} is outside min_players..max_players"]
    if not c.entry.strip():
        return ["entry: say how to enter and who may (r 17.3(a)(i))"]
    return []


def _money(c: Conditions, book: Rulebook) -> list[str]:
    if c.entry_fee < 0 or c.commission < 0:
        return ["entry_fee and commission are cents, never negative"]
    if c.commission > c.entry_fee:
        return [
            f"commission {dollars(c.commission)} is more than the entry fee "
            f"{dollars(c.entry_fee)} (it is part of the fee, 2017 r 17.22)"
        ]
    cap = book.commission_cap_percent
    if cap is not None and c.commission * 100 > c.entry_fee * cap:
        return [
            f"commission {dollars(c.commission)} is over {cap}% of the entry fee "
            f"{dollars(c.entry_fee)} (ACT r 19.4: at most {dollars(c.entry_fee * cap // 100)})"
        ]
    if c.chips <= 0:
        return ["chips: the tournament chips per entry must be positive (r 17.3(a)(iv))"]
    return []


def _players(c: Conditions) -> list[str]:
    if c.min_players < 2:
        return ["min_players must be at least 2"]
    if c.max_players < c.min_players:
        return [f"max_players {c.max_players} is below min_players {c.min_players}"]
    return []


def _seat_limit(game: str) -> int | None:
    """Seats a table of ``game`` has at most (None: the rules set no number)."""
    if RULEBOOKS[game].poker:
        seats: int = poker_defaults(game)["max_seats"]
        return seats
    return None


def _sessions(c: Conditions) -> list[str]:
    if not c.sessions:
        return ["sessions: at least one [[sessions]] (r 17.3(a)(ii)(A))"]
    out: list[str] = []
    limit = _seat_limit(c.game)
    entering = c.max_players
    for n, s in enumerate(c.sessions, 1):
        last = n == len(c.sessions)
        where = f"session {n} ({s.name})"
        if s.players_per_table < 2 or (limit is not None and s.players_per_table > limit):
            most = f"..{limit}" if limit is not None else " or more"
            out.append(f"{where}: players_per_table must be 2{most}")
            continue
        if isinstance(s.tables, int):
            if s.tables < 1:
                out.append(f"{where}: tables must be at least 1 (or 'by_entries')")
                continue
            seats = s.tables * s.players_per_table
            if seats < entering:
                out.append(
                    f"{where}: {s.tables} tables of {s.players_per_table} seat {seats}, "
                    f"fewer than the {entering} players it may have"
                )
        for name, value in (("minutes", s.minutes), ("rounds", s.rounds)):
            if value is not None and value < 1:
                out.append(f"{where}: {name} must be positive")
        if not last and s.minutes is None and s.rounds is None:
            out.append(f"{where}: give its minutes or rounds (only the last plays to a winner)")
        if last and s.advance:
            out.append(f"{where}: the last session has no advance (nobody progresses)")
        if not last and not 1 <= s.advance < entering:
            out.append(f"{where}: advance must be 1..{entering - 1} (r 17.3(a)(ii)(C))")
        if not last:
            entering = s.advance
    return out


def _play(c: Conditions, book: Rulebook) -> list[str]:
    if book.poker:
        if c.limits is not None or any(s.limits for s in c.sessions):
            return [f"{c.game}: poker plays blind levels, not table limits"]
        if not c.levels:
            return [f"{c.game}: give the blind levels ([[levels]] blinds and minutes)"]
        if c.structure is not None and c.structure not in STRUCTURES:
            return [f"structure {c.structure!r} is not one of {', '.join(STRUCTURES)}"]
        count = len(poker_defaults(c.game)["blinds"])
        before = [0] * count
        for n, level in enumerate(c.levels, 1):
            b = level.blinds
            if len(b) != count or any(x <= 0 for x in b) or b != sorted(b):
                return [f"level {n}: {c.game} has {count} blind(s), positive, small first"]
            if level.minutes < 1:
                return [f"level {n}: minutes must be positive"]
            if any(x < y for x, y in zip(b, before, strict=True)):
                return [f"level {n}: the blinds go down (levels only rise)"]
            before = b
        if c.chips < c.levels[0].blinds[-1]:
            return ["chips: fewer than the first level's big blind"]
        for n, level in enumerate(c.levels, 1):
            try:
                rules_for(c.game, table_options(c, level.blinds))
            except ScenarioError as exc:
                return [f"level {n}: {exc}"]
        return []
    if c.levels:
        return [f"{c.game}: Canberra Poker plays table limits, not blind levels"]
    out: list[str] = []
    for n in range(1, len(c.sessions) + 1):
        lim = c.session_limits(n)
        if lim is None:
            out.append(f"session {n}: no table limits (r 17.3(a)(viii)): give [limits]")
        elif not 0 < lim.minimum <= lim.maximum:
            out.append(f"session {n}: table limits need 0 < minimum <= maximum")
        elif c.chips < lim.minimum:
            out.append(f"session {n}: chips below the table minimum (r 17.14 eliminates)")
    return out


def _restrictions(c: Conditions, book: Rulebook) -> list[str]:
    out: list[str] = []
    if c.jackpot_wagers == "allowed" and not book.jackpot_wagers:
        why = "2004 r 17.18" if not book.poker else "the game has no jackpot wager"
        out.append(f"jackpot_wagers must be 'none' ({why})")
    if book.ties is not None and c.ties != book.ties:
        out.append(f"ties must be {book.ties!r} under {book.title} (2004 r 17.23)")
    if book.same_round is not None and c.same_round != book.same_round:
        out.append(f"same_round must be {book.same_round!r} under {book.title} (2004 r 17.24)")
    if c.balance_tables and not book.poker and not (book.sit_and_go_moves and c.sit_and_go):
        out.append(
            "balance_tables: a player keeps the balloted seat for the session (r 17.7); "
            "only a 2017 sit-and-go may say otherwise (r 17.3(a)(ii)(B))"
        )
    bb = c.buy_backs
    if bb.per_player < 0:
        out.append("buy_backs.per_player is never negative")
    if bb.per_player and not book.buy_backs:
        out.append(f"no buy-backs under {book.title} (2004 r 17.6: one entry only)")
    if bb.per_player and not 1 <= bb.last_session <= len(c.sessions):
        out.append(f"buy_backs.last_session must be 1..{len(c.sessions)}")
    if bb.last_level is not None and not 1 <= bb.last_level <= len(c.levels):
        out.append(f"buy_backs.last_level must be 1..{len(c.levels)} (a blind level)")
    return out


def _prizes(c: Conditions) -> list[str]:
    if not c.prizes:
        return ["prizes: give the breakdown of the prize pool (r 17.3(a)(xi))"]
    try:
        shares = c.shares
    except ConditionsError as exc:
        return [str(exc)]
    if any(s <= 0 for s in shares):
        return ["prizes: every paid place has a positive share"]
    if sum(shares) != WHOLE:
        total = f"{sum(shares) // 100}.{sum(shares) % 100:02d}%"
        return [f"prizes sum to {total}, not 100% of the pool (2017 r 17.21, 2004 r 17.22)"]
    if len(shares) > c.min_players:
        return [f"prizes: {len(shares)} paid places but min_players is {c.min_players}"]
    return []


def _breaks(c: Conditions) -> list[str]:
    out: list[str] = []
    for n, b in enumerate(c.breaks, 1):
        if b.minutes < 1:
            out.append(f"break {n}: minutes must be positive (r 17.18)")
        if (b.after_session is None) == (b.after_level is None):
            out.append(f"break {n}: give exactly one of after_session or after_level")
        elif b.after_session is not None and not 1 <= b.after_session < len(c.sessions):
            out.append(f"break {n}: after_session must be 1..{len(c.sessions) - 1}")
        elif b.after_level is not None and not 1 <= b.after_level < len(c.levels):
            out.append(f"break {n}: after_level must be 1..{max(len(c.levels) - 1, 0)}")
    return out


def table_options(c: Conditions, blinds: list[int], seats: int | None = None) -> dict[str, Any]:
    """The poker options of a tournament table at a level with ``blinds``: tournament chips
    (a chip is the unit, and texts name amounts in chips), no commission on pots (ACT r 19:
    the operator's share is the tournament commission), any stake of one chip or more plays
    (no top-up, no buy-in)."""
    options: dict[str, Any] = {
        "blinds": list(blinds),
        "commission": "none",
        "chip_unit": 1,
        "amounts": "chips",
        "min_table_stake": 1,
        "max_seats": seats or c.sessions[0].players_per_table,
    }
    if c.structure is not None:
        options["structure"] = c.structure
    return options


def hand_record(c: Conditions) -> dict[str, Any]:
    """What a tournament table writes in each hand's journal record (``tournament``), for
    the hand histories trackers read (``server/records/histories.py``): the tournament's id and
    name, the entry fee split into its prize-pool part (the "buy-in") and the commission (the
    "fee", ACT r 19.4), in cents, the chips per entry, sit-and-go or scheduled, and the
    level length in minutes. The table adds its number and the level of each hand."""
    return {
        "id": c.id,
        "name": c.name,
        "buy_in": c.pool_per_entry,
        "fee": c.commission,
        "currency": "USD",
        "chips": c.chips,
        "sit_and_go": c.sit_and_go is not None,
        "level_minutes": c.levels[0].minutes if c.levels else None,
    }


def banked_options(c: Conditions, session: int, seats: int) -> dict[str, Any]:
    """The banked options of a Canberra Poker tournament table in session ``session``:
    the session's table limits in tournament chips (r 17.3(a)(viii)), a box per seat, no
    jackpot wager (r 17.3(a)(vii); 2004 r 17.18) and no payout cap in chips."""
    limits = c.session_limits(session)
    assert limits is not None
    return {
        "minimum": limits.minimum,
        "maximum": limits.maximum,
        "num_boxes": seats,
        "max_payout": None,
    }


def tables_for(entries: int, session: Session) -> int:
    """Tables a session opens for ``entries`` players: as few as seat them all, as the
    balancing keeps them (r 17.8: the Tournament Director sets the players per table); a
    number in the conditions is the most it may open (checked against ``max_players``)."""
    return max(1, math.ceil(entries / session.players_per_table))
