"""Who is dealt in and where the button goes: the poker table's seat rules for a round.

A seat is dealt in unless it leaves, must top up first (ACT 12.3; QLD Sch 11 s31, Sch 5
s29) or, where absent players are skipped (QLD hold'em/Omaha), sits out. Among those, the
QLD rules for new and returning players (Sch 11 s21(3), s23A) and the button's movement
(ACT 6.2-6.3; QLD Sch 11 s17; Sch 5 s17) decide the button and the seats dealt in. These
are the poker table's methods of the same names (``server/tables/poker.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.games.poker import blind_posters, next_designated
from server.tables.poker_seat import Seat

if TYPE_CHECKING:
    from server.tables.poker import PokerTable


def must_top_up(table: PokerTable, seat: Seat) -> bool:
    """Whether the seat must top up before it is dealt in (ACT 12.3; QLD s31, Sch 5 s29)."""
    stake = table.stake(seat)
    if stake <= 0:
        return True
    rule = table.rules.top_up_below
    if rule == "min_wager":
        return stake < table.rules.minimum_wager  # Sch 11 s31(2)
    if rule == "min_stake" and stake < table.rules.min_buy_in:
        # ACT 12.3: required to top up, unless the player cannot
        return table.ledger.balance(seat.account) >= table.rules.min_buy_in - stake
    return False


def dealt_in(table: PokerTable, seat: Seat) -> bool:
    if seat.leaving or table._must_top_up(seat):
        return False
    return not (table.rules.absent_players and seat.sitting_out)


def eligible_count(table: PokerTable) -> int:
    """Seats that would be dealt in and are actually playing (not sitting out)."""
    return sum(1 for s in table.seats.values() if table._dealt_in(s) and not s.sitting_out)


def choose_players(table: PokerTable, candidates: list[int]) -> tuple[int, list[int]] | None:
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
    if all(table.seats[n].new for n in players):
        for n in players:  # nobody played the preceding round: a fresh start, no one new
            table.seats[n].new = False
    while True:
        if len(players) < 2:
            return None
        designated = table._next_designated(players)
        if not table.rules.absent_players:
            return designated, players
        waits = table._waiting_seats(designated, players)
        if not waits:
            return designated, players
        if len(players) - len(waits) >= 2:
            players = [n for n in players if n not in waits]
            continue
        ring = [n for n in players if n > designated] + [n for n in players if n <= designated]
        for button in ring:
            if not table._waiting_seats(button, players):
                return button, players
        return None


def waiting_seats(table: PokerTable, designated: int, players: list[int]) -> set[int]:
    blinds = blind_posters(table.rules, designated, players)
    first = blinds[0] if len(blinds) > 1 else None
    second = blinds[-1] if blinds else None
    out: set[int] = set()
    for n in players:
        seat = table.seats[n]
        if seat.new and n in (designated, first):
            out.add(n)  # s21(3)
        elif seat.wait_for_blind and seat.missed and n != second:
            out.add(n)  # s23A: waits for the second blind
    return out


def button_for(table: PokerTable, players: list[int]) -> int:
    """The buck / button for the next round (ACT 6.2-6.3; QLD Sch 11 s17; Sch 5 s17).

    First round: ACT and Manila give the buck to the lowest dealt-in seat (seat 1 posts
    the first blind); QLD hold'em/Omaha puts the button on the seat immediately right of
    the dealer, the highest dealt-in seat (s17(1)), so seat 1 again posts first.
    """
    if table.designated is None:
        return players[-1] if table.rules.absent_players else players[0]
    if not table.rules.dead_button:
        return next_designated(table.rules, table.designated, players)
    occupied = sorted(table.seats)
    absent = [n for n in occupied if n not in players]
    return next_designated(
        table.rules,
        table.designated,
        occupied,
        absent=absent,
        previous_blinds=table.last_blinds or None,
    )
