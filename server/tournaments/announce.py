"""What players see of a tournament: its lobby row and each entrant's ``tournament`` state.

A ``tournament`` message (:class:`protocol.messages.TournamentState`) goes to every entrant
when what all see changed (the phase, the level, the players left, the entries), else to
the players a step's events name (and to whoever asked). These are the runner's methods of
the same names (``server/tournaments/runner.py``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import msgspec
import trio

from protocol import messages as wire
from server.tables.connection import Connection
from server.tournaments.lifecycle import (
    Phase,
    Step,
)

if TYPE_CHECKING:
    from server.tournaments.runner import TournamentRunner


def info(runner: TournamentRunner) -> wire.TournamentInfo:
    t, c = runner.tournament, runner.conditions
    return wire.TournamentInfo(
        id=runner.id,
        name=c.name,
        game=c.game,
        phase=t.phase.value,
        entries=len(t.entries),
        players_left=len(t.playing) if t.phase is not Phase.REGISTERING else len(t.status),
        pool=t.pool,
        conditions=msgspec.to_builtins(c),
    )


def entered(runner: TournamentRunner, account: str) -> bool:
    """Whether ``account`` entered (or finished) this tournament."""
    return account in runner.tournament.status or account in runner.places


def state_for(
    runner: TournamentRunner, account: str, events: list[dict[str, Any]]
) -> wire.TournamentState:
    t = runner.tournament
    now = trio.current_time()
    number = runner.at.get(account) if t.status.get(account) == "playing" else None
    table = runner.tables.get(number) if number is not None else None
    seat = None
    if number is not None:
        seat = next(
            (
                s
                for tb in t.tables
                if tb.number == number
                for s, p in tb.players.items()
                if p == account
            ),
            None,
        )
    place, prize = runner.places.get(account, (None, None))
    return wire.TournamentState(
        tournament=runner.id,
        phase=t.phase.value,
        level=runner.level + 1 if t.session else 0,
        blinds=runner.blinds,
        level_ms=None if math.isinf(runner.level_ends) else int((runner.level_ends - now) * 1000),
        break_ms=None if math.isinf(runner.break_ends) else int((runner.break_ends - now) * 1000),
        players_left=len(t.playing),
        entries=len(t.entries),
        pool=t.pool,
        registered=account in t.status,
        table=table.id if table is not None else None,
        seat=seat,
        place=place,
        prize=prize,
        events=events,
    )


def publish(
    runner: TournamentRunner, step: Step, to: Connection | None = None, everyone: bool = False
) -> None:
    """A ``tournament`` message to every entrant when what all see changed, else to the
    players the step's events name (and to ``to``, who asked)."""
    t = runner.tournament
    public = (t.phase, runner.level, len(t.playing), len(t.entries))
    events = [ev.to_wire() for ev in step.events]
    if everyone or public != runner._public:
        runner._public = public
        accounts = set(t.status)
    else:
        accounts = set()
        for ev in events:
            accounts |= {v for k, v in ev.items() if k == "player" and isinstance(v, str)}
            accounts |= {p for p in ev.get("players", ()) if isinstance(p, str)}
    if to is not None and to.account:
        accounts.add(to.account)
    for account in sorted(accounts):
        conn = to if to is not None and to.account == account else None
        conn = conn or runner.host.connection(account)
        if conn is not None:
            conn.send(runner.state_for(account, events))
