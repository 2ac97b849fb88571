"""The operator channel at a table: a staff control applied (or refused) and audited.

Theory of operation. The router checked the control's roles (``server/room/operator.py``: one
class per control, its ``ROLES``) and sent the ``operator`` message to the table's inbox;
:func:`on_operator` (the table's handler of it) types it (:func:`operator.control_of`),
applies it through :data:`TABLE_CONTROLS` (control class -> what it does, each returning
what was done in words and in figures, or raising :class:`Refused`), and writes its audit
entry in this same step through the ledger's ``note``, with the effect it reports
(GLI-11 significant events), then tells the table (``table_notice``) and the staff member
(``operator_done``). What a control does to a kind's own state are the table's hooks
(:meth:`~server.tables.base.TableActor.stage_limits`, ``reopen``, ``approve_jackpot``,
``correct_result``, ``void_round``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import errors
from protocol import messages as wire
from server.actor import Command, Handlers
from server.room import operator
from server.room.operator import Applied
from server.tables.phases import Phase
from server.tables.seat_events import TableNotice

if TYPE_CHECKING:
    from server.tables.base import TableActor

__all__ = ["TABLE_CONTROLS", "Refused", "on_operator"]


class Refused(Exception):
    """A kind hook of the operator channel refuses: the error ``code`` and its text."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text


def on_operator(table: TableActor, cmd: Command[wire.Operator]) -> None:
    """A staff control of this table (its role was checked by the router): applied or
    refused here, and its audit entry written in this same step (see the module docstring)."""
    m = cmd.message
    control = operator.control_of(m)
    staff = operator.Staff.of(cmd.conn)
    # the round a void stops
    voided = table.books.round if isinstance(control, operator.VoidRound) else None
    try:
        apply = TABLE_CONTROLS.get(type(control))
        if apply is None:
            raise Refused(errors.NOT_SUPPORTED, f"{m.action} is not a table control")
        detail, effect = apply(table, Command(cmd.conn, control))
    except Refused as exc:
        refusal = operator.Refusal(exc.code, exc.text)
        operator.control(table.ledger, staff, m, refusal, batch=table.id, round=voided)
        table.error(cmd.conn, exc.code, exc.text, "operator")
        return
    done = operator.Done(detail, effect)
    operator.control(table.ledger, staff, m, done, batch=table.id, round=voided)
    limits = dict(m.limits) if isinstance(control, operator.SetLimits) else None
    table.broadcast(TableNotice(action=m.action, reason=m.reason, limits=limits, detail=detail))
    cmd.conn.send(wire.OperatorDone(m.action, table.id, None, detail, effect or None))


def close_table(table: TableActor, cmd: Command[operator.CloseTable]) -> Applied:
    """No new round; the seats are vacated after the round in play (an open betting window
    goes back now)."""
    table.closing = table.closed_by_operator = True
    returned: dict[str, int] = {}
    if table.phase is Phase.BETTING:
        returned = table.books_moved(lambda: table.void_round("the table is closing"))
    detail = "closing: no new round; seats vacated after the round in play"
    return detail, {"closed": True, "returned": returned}


def open_table(table: TableActor, cmd: Command[operator.OpenTable]) -> Applied:
    if not table.closed_by_operator:
        raise Refused(errors.NOT_SUPPORTED, "the table is open")
    table.closing = table.closed_by_operator = False
    table.reopen()
    return "open", {"open": True}


def set_limits(table: TableActor, cmd: Command[operator.SetLimits]) -> Applied:
    limits = cmd.message.message.limits
    refused = table.stage_limits(dict(limits))
    if refused is not None:
        raise Refused(errors.BAD_LIMITS, refused)
    return table.limits_detail(), {"limits": dict(limits), **table.limits_from()}


def approve_jackpot(table: TableActor, cmd: Command[operator.ApproveJackpot]) -> Applied:
    approved = table.approve_jackpot()
    if approved is None:
        raise Refused(errors.NOT_SUPPORTED, "no jackpot awaits approval")
    return approved, {"jackpot_open": True}


def void_round(table: TableActor, cmd: Command[operator.VoidRound]) -> Applied:
    if not table.phases.in_round and table.phase is not Phase.BETTING:
        raise Refused(errors.NO_ROUND, "no round is in play")
    moved = table.books_moved(lambda: table.void_round(cmd.message.message.reason))
    return "the round in play is void: every wager returned", {"returned": moved}


def correct_result(table: TableActor, cmd: Command[operator.CorrectResult]) -> Applied:
    by = (cmd.conn.account or "", cmd.conn.role)
    outcome = table.correct_result(dict(cmd.message.message.result), by)
    if outcome is None:
        raise Refused(errors.NOT_SUPPORTED, f"a {table.kind} table has no result to correct")
    return outcome, {}


#: The table's controls (server/actor.py's dispatch style: control class -> what it does).
TABLE_CONTROLS: Handlers[TableActor, Applied] = (
    Handlers["TableActor", Applied]()
    .command(operator.CloseTable, close_table)
    .command(operator.OpenTable, open_table)
    .command(operator.SetLimits, set_limits)
    .command(operator.ApproveJackpot, approve_jackpot)
    .command(operator.VoidRound, void_round)
    .command(operator.CorrectResult, correct_result)
)
