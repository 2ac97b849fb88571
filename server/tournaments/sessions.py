"""The start of a tournament's session: the seats drawn, the chips issued, the tables open.

At the start (a scheduled time, the N-th entry of a sit-and-go, or the director's control)
the entrants here take the seats the ballot drew (the others forfeit, r 17.9; a reserve
here takes an absent entrant's seat, r 17.10-17.11), the chips are issued into each
player's chips wallet, and every table of the ballot opens on the one table layer
(:class:`~server.tournaments.tables.PokerTournamentTable` or
:class:`~server.tournaments.tables.CanberraTournamentTable`) with its players seated.
These are the runner's methods of the same names (``server/tournaments/runner.py``).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import trio

from server.config import TableConfig
from server.store.model import CASHIER, wallet
from server.tournaments.conditions import banked_options, hand_record, table_options
from server.tournaments.lifecycle import (
    Step,
    TournamentError,
)
from server.tournaments.tables import (
    CanberraTournamentTable,
    PokerTournamentTable,
    TournamentSeats,
)

if TYPE_CHECKING:
    from server.tournaments.runner import TournamentRunner


def begin(runner: TournamentRunner) -> None:
    """Seats drawn: the players here take them (the others forfeit, r 17.9), the chips
    are issued, the tables open and deal."""
    t = runner.tournament
    for player in [p for p, s in t.status.items() if s == "entered"]:
        if runner._here(player):
            runner._apply(t.take_seat(player))
        elif t.session == 1:  # r 17.10-17.11: a reserve here takes the absent's seat
            reserve = next((r for r in t.reserves if runner._may_pay(r)), None)
            if reserve is not None:
                runner._apply(t.substitute(player, reserve))
    try:
        runner._apply(t.start())
    except TournamentError as exc:
        runner._apply(t.cancel(str(exc)))
        return
    for name, left in list(runner.chips.balances.items()):  # last session's chips: back
        if name.startswith("wallet:") and left > 0:
            runner.chips.move(name, CASHIER, left, "chips_returned", None)
    for player, chips in t.chips.items():
        runner.chips.move(CASHIER, wallet(player), chips, "tournament_chips", None)
    runner.stacks, runner.buttons = dict(t.chips), {}
    runner.rounds = 0
    runner.time_up = False
    spec = runner.conditions.sessions[t.session - 1]
    minutes = spec.minutes * runner.minute if spec.minutes else math.inf
    runner.session_ends = trio.current_time() + minutes
    for table in t.tables:
        actor = runner._table(table.number, table.seats)
        runner.tables[table.number] = actor
        runner.host.open_tournament_table(actor)
        for seat, player in sorted(table.players.items()):
            runner.at[player] = table.number
            runner._seat(player, table.number, seat)
    runner.level = 0
    runner.level_ends = trio.current_time() + runner._level_seconds()
    runner._moves(t.rebalance())
    runner._publish(Step(), everyone=True)
    for number in runner.tables:
        runner._proceed(number)


def open_table(runner: TournamentRunner, number: int, seats: int) -> TournamentSeats:
    """A table of the session on the one table layer: poker in chips with the level's
    blinds, or Canberra Poker in chips at the session's table limits."""
    c, session = runner.conditions, runner.tournament.session
    ident = f"{runner.id}.{number}" if session == 1 else f"{runner.id}.{session}.{number}"
    name = f"{c.name} table {number}"
    turn = runner.config.turn_time
    limits = c.session_limits(session)
    record = {**hand_record(c), "session": session, "started_at": time.time()}
    if limits is None:
        options = table_options(c, runner.blinds, seats)
        config = TableConfig(id=ident[:32], game=c.game, name=name, options=options)
        return PokerTournamentTable(
            config,
            runner.config,
            runner.ledger,
            number=number,
            chips=runner.chips,
            report=runner.submit,
            record=record,
        )
    options = banked_options(c, session, seats)
    config = TableConfig(
        id=ident[:32], game=c.game, name=name, options=options, decision_seconds=turn
    )
    return CanberraTournamentTable(
        config,
        runner.config,
        runner.ledger,
        number=number,
        chips=runner.chips,
        report=runner.submit,
        limits=limits,
        record=record,
    )


def here(runner: TournamentRunner, account: str) -> bool:
    conn = runner.host.connection(account)
    return conn is not None and not conn.closing.is_set()


def may_pay(runner: TournamentRunner, account: str) -> bool:
    """A reserve connected now whose wallet covers the entry fee."""
    return runner._here(account) and runner.ledger.balance(account) >= runner.conditions.entry_fee
