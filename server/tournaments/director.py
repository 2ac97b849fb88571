"""The Tournament Director's controls (role ``tournament_director``; a manager's too).

Theory of operation. The router checked the control's roles (``server/room/operator.py``: one
class per control) and sent the ``operator`` message to the tournament's runner
(``server/tournaments/runner.py``); :func:`on_director`, the runner's handler of it, types
it (:func:`operator.control_of`) and applies it through :data:`DIRECTOR_CONTROLS` (control
class -> what it does, returning what was done in words and in figures), all in the
runner's step. A control the rules or the phase refuse raises
:class:`~server.tournaments.lifecycle.TournamentError`. Either way the audit entry is
written in the same step through the ledger's ``note``, with the effect it reports, and
the director is answered (``operator_done`` or the error).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from protocol import errors
from protocol import messages as wire
from server.actor import Command, Handlers
from server.room import operator
from server.room.operator import Applied
from server.tournaments.lifecycle import Phase, TournamentError
from server.tournaments.tables import MoveOut

if TYPE_CHECKING:
    from server.tournaments.runner import TournamentRunner

__all__ = ["DIRECTOR_CONTROLS", "on_director"]


def on_director(runner: TournamentRunner, cmd: Command[wire.Operator]) -> None:
    """A Tournament Director's control: applied or refused, and audited, in this step."""
    conn, m = cmd.conn, cmd.message
    staff = operator.Staff.of(conn)
    control = operator.control_of(m)
    try:
        apply = DIRECTOR_CONTROLS.get(type(control))
        if apply is None:
            raise TournamentError("not_supported", f"{m.action} is not a tournament control")
        detail, effect = apply(runner, Command(conn, control))
    except TournamentError as exc:
        text = f"{exc} ({exc.code})"
        refusal = operator.Refusal(errors.TOURNAMENT_REFUSED, text)
        operator.control(runner.ledger, staff, m, refusal, tournament=runner.id)
        runner._refuse(conn, "operator", errors.TOURNAMENT_REFUSED, str(exc), exc.code)
        return
    done = operator.Done(detail, effect)
    operator.control(runner.ledger, staff, m, done, tournament=runner.id)
    conn.send(wire.OperatorDone(m.action, None, m.account, detail, effect or None))


def start(runner: TournamentRunner, cmd: Command[operator.StartTournament]) -> Applied:
    t = runner.tournament
    if t.phase not in (Phase.REGISTERING, Phase.SEATING):
        raise TournamentError("wrong_phase", f"the tournament is {t.phase.value}")
    if t.phase is Phase.REGISTERING:
        runner.starts = math.inf
        runner._apply(t.close_registration())
    runner._begin()
    return f"started with {len(t.playing)} players", {"players": len(t.playing)}


def _pause(runner: TournamentRunner, m: wire.Operator, scheduled: bool) -> Applied:
    minutes = int(m.limits.get("minutes", 0)) or 1
    if runner.tournament.phase is not Phase.RUNNING or runner.pausing is not None:
        raise TournamentError("wrong_phase", "no session is being played")
    runner._break(minutes, scheduled)
    if scheduled:
        return f"a break of {minutes} minutes", {"minutes": minutes}
    return "paused until resumed", {}


def pause(runner: TournamentRunner, cmd: Command[operator.PauseTournament]) -> Applied:
    return _pause(runner, cmd.message.message, scheduled=False)


def take_break(runner: TournamentRunner, cmd: Command[operator.BreakTournament]) -> Applied:
    return _pause(runner, cmd.message.message, scheduled=True)


def resume(runner: TournamentRunner, cmd: Command[operator.ResumeTournament]) -> Applied:
    if runner.tournament.phase is not Phase.ON_BREAK:
        raise TournamentError("wrong_phase", "the tournament is not on a break")
    runner._resume()
    return "play resumes", {}


def move_player(runner: TournamentRunner, cmd: Command[operator.MovePlayer]) -> Applied:
    m = cmd.message.message
    player, table, seat = m.account or "", m.limits.get("table"), m.limits.get("seat")
    if table is None or seat is None:
        raise TournamentError("bad_move", "give limits {table, seat}")
    runner._moves(runner.tournament.move(player, table, seat))
    return f"{player} moves to table {table} seat {seat}", {}


def disqualify(runner: TournamentRunner, cmd: Command[operator.Disqualify]) -> Applied:
    player = cmd.message.message.account or ""
    if runner.tournament.status.get(player) != "playing" or player not in runner.at:
        raise TournamentError("not_playing", f"{player} is not playing")
    runner.tables[runner.at[player]].submit(MoveOut(player, "disqualified"))
    runner.disqualifying.add(player)  # in the snapshot: a stop does not lose it
    return f"{player} is disqualified after the hand in play", {}


def award_places(runner: TournamentRunner, cmd: Command[operator.AwardPlaces]) -> Applied:
    if runner.tournament.phase not in (Phase.RUNNING, Phase.ON_BREAK):
        raise TournamentError("wrong_phase", "no session is being played")
    runner.awarding = True
    runner._award_if_ready()
    return "places by chip count once every table is between hands", {}


def cancel(runner: TournamentRunner, cmd: Command[operator.CancelTournament]) -> Applied:
    step = runner.tournament.cancel(cmd.message.message.reason)
    refunds = [tr for tr in step.transfers if tr.target.startswith("wallet:")]
    effect = {"refunded": sum(tr.amount for tr in refunds), "refunds": len(refunds)}
    runner._apply(step)
    runner._close_tables()
    return "cancelled: every entry fee and commission refunded", effect


#: The director's controls (server/actor.py's dispatch style: control class -> what it does).
DIRECTOR_CONTROLS: Handlers[TournamentRunner, Applied] = (
    Handlers["TournamentRunner", Applied]()
    .command(operator.StartTournament, start)
    .command(operator.PauseTournament, pause)
    .command(operator.BreakTournament, take_break)
    .command(operator.ResumeTournament, resume)
    .command(operator.MovePlayer, move_player)
    .command(operator.Disqualify, disqualify)
    .command(operator.AwardPlaces, award_places)
    .command(operator.CancelTournament, cancel)
)
