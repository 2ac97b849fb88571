"""The players' entry messages to a tournament: register, unregister, reserve, buy back.

Each is a handler of the runner (``server/tournaments/runner.py``), run in its step; a
:class:`~server.tournaments.lifecycle.TournamentError` a handler raises is the refusal
(the runner's ``dispatch`` sends it). The money moves as the lifecycle's steps say
(entry fees from the wallet to the tournament's pool and commission).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import errors
from protocol import messages as wire
from server.store.model import CASHIER, InsufficientFunds, wallet
from server.tables.base import TableCommand
from server.tables.connection import Connection
from server.tournaments.lifecycle import (
    Phase,
    Seated,
)

if TYPE_CHECKING:
    from server.tournaments.runner import TournamentRunner


def on_register(runner: TournamentRunner, cmd: TableCommand[wire.Register]) -> None:
    conn, account, t = cmd.conn, cmd.conn.account or "", runner.tournament
    if not runner.ledger.can_move:
        runner._refuse(conn, "register", errors.STORE_UNAVAILABLE, runner.ledger.why_not())
        return
    fee = runner.conditions.entry_fee
    if runner.ledger.balance(account) < fee:
        exc = InsufficientFunds(
            "the wallet does not cover the entry fee", runner.ledger.balance(account), fee
        )
        conn.send(
            wire.Error(
                code=errors.INSUFFICIENT_FUNDS,
                message=str(exc),
                ref="register",
                amounts=exc.amounts(),
            )
        )
        return
    runner.names[account] = conn.name
    runner._apply(t.register(account), conn)
    if t.phase is Phase.SEATING:
        runner._begin()


def on_unregister(runner: TournamentRunner, cmd: TableCommand[wire.Unregister]) -> None:
    runner._apply(runner.tournament.unregister(cmd.conn.account or ""), cmd.conn)


def on_buy_back(runner: TournamentRunner, cmd: TableCommand[wire.BuyBack]) -> None:
    runner.buy_back(cmd.conn, cmd.conn.account or "")


def on_reserve(runner: TournamentRunner, cmd: TableCommand[wire.Reserve]) -> None:
    account = cmd.conn.account or ""
    runner.names[account] = cmd.conn.name
    runner._apply(runner.tournament.reserve(account), cmd.conn)


def buy_back(runner: TournamentRunner, conn: Connection, account: str) -> None:
    """An eliminated player re-enters as the conditions allow (2017 r 17.3(a)(ii)(F)):
    the fee from the wallet, the entry's chips, the seat the lifecycle drew."""
    fee = runner.conditions.entry_fee
    if runner.ledger.balance(account) < fee or not runner.ledger.can_move:
        text = "the wallet does not cover the entry fee"
        code = errors.INSUFFICIENT_FUNDS if runner.ledger.can_move else errors.STORE_UNAVAILABLE
        runner._refuse(conn, "buy_back", code, text)
        return
    t = runner.tournament
    step = t.buy_back(account, runner.level + 1 if runner.conditions.levels else None)
    seat = next(e for e in step.events if type(e) is Seated)
    runner.chips.move(CASHIER, wallet(account), t.chips[account], "tournament_chips", None)
    runner.places.pop(account, None)
    runner.stacks[account] = t.chips[account]
    runner.at[account] = seat.table
    runner.names[account] = conn.name
    runner._seat(account, seat.table, seat.seat)
    runner._apply(step, conn)
