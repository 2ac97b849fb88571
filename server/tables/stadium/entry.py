"""Staff at a stadium table: "no more bets" called and results entered, audited.

QLD Sch 19 s6 (only staff of the roles below), ETG-05 (a dealer or an automated wheel or
tumbler enters the result; Sch 7 s5(2), Sch 8 s15-s16, Sch 10 s4A-s5), general.md §3
R-VOID (an invalid result, a no spin or a misdeal, is handled as the game's spec says in
``on_invalid``). Each staff command goes into the audit log (``server/room/operator.py``) in the
step that decided it, refused or done.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from protocol import errors
from protocol import messages as wire
from server.errors import IllegalAction
from server.games.banked.base import InvalidRound
from server.room import operator
from server.tables.base import TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.stadium.events import NoSpin, RoundVoided

if TYPE_CHECKING:
    from server.tables.stadium.table import StadiumTable

#: Staff roles (session tokens, server/room/accounts.py) that may enter a result (Sch 8 s16,
#: Sch 10 s5: the dealer or a supervisor at the entry terminal; Sch 4 s24: the
#: stickperson's call). Who may correct one or change limits: the operator channel
#: (server/room/operator.py; general.md §4: no correction is manager-only).
ENTRY_ROLES = frozenset({"dealer", "stickperson", "boxperson", "supervisor"})


class ResultEntry:
    """The staff's ``close_betting`` and ``result`` (see the module's docstring)."""

    def __init__(self, table: StadiumTable) -> None:
        self.table = table

    def on_close_betting(self, cmd: TableCommand[wire.CloseBetting]) -> None:
        """Staff call "no more bets" now (the ball about to rest, the dice thrown)."""
        t = self.table
        if self.staff(cmd, "close_betting") is None:
            return
        if t.phase is not Phase.BETTING:
            text = "betting is not open"
            t.error(cmd.conn, errors.BETTING_CLOSED, text, "close_betting")
            self.audit(cmd.conn, "close_betting", operator.Refusal(errors.BETTING_CLOSED, text))
            return
        round_no, round_id = t.round_no, t.round_id
        t.close_betting()
        done = operator.Done(f"no more bets: round {round_no}")
        self.audit(cmd.conn, "close_betting", done, round_id=round_id)

    def on_result(self, cmd: TableCommand[wire.EnterResult]) -> None:
        """A dealer or device enters the result (Sch 8 s15, s16; Sch 10 s4A, s5)."""
        t = self.table
        staff = self.staff(cmd, "result")
        if staff is None:
            return
        outcome = cmd.message.outcome
        round_no, round_id = t.round_no, t.round_id
        refused = self.enter(outcome, staff)
        asked = {"outcome": dict(outcome)}
        if refused is not None:
            t.error(cmd.conn, errors.BAD_RESULT, refused, "result")
            audited: operator.Outcome = operator.Refusal(errors.BAD_RESULT, refused)
        elif set(outcome) == {"invalid"}:
            audited = operator.Done(f"round {round_no}: no spin ({outcome['invalid']})")
        else:
            audited = operator.Done(f"round {round_no}: result entered")
        self.audit(cmd.conn, "result", audited, asked, round_id)

    def enter(self, outcome: Mapping[str, Any], staff: tuple[str, str]) -> str | None:
        """Apply an entered result; why it is refused (``bad_result``), or None."""
        t = self.table
        if t.phase is not Phase.NO_MORE_BETS or t.source.name != "dealer":
            return "no result is awaited now"
        if set(outcome) == {"invalid"}:
            if t.spec.on_invalid != "roll":
                self.invalid(str(outcome["invalid"]), staff)
                return None
            refuse = t.spec.refuse_invalid
            why = refuse(str(outcome["invalid"])) if refuse is not None else None
            if why is not None:
                return why
        try:
            t.rounds.result(outcome)
        except (InvalidRound, IllegalAction) as exc:
            return exc.message if isinstance(exc, IllegalAction) else str(exc)
        return None

    def invalid(self, reason: str, staff: tuple[str, str]) -> None:
        """A no spin / misdeal: the wagers stand for the re-spin, or (the spec's
        ``on_invalid`` ``"void"``, Sch 10 s13(4)) every wager is void and
        returned."""
        t = self.table
        if t.spec.on_invalid == "void":
            t.rounds.return_all(t.frozen)
            t.broadcast(RoundVoided(round=t.round_no, reason=f"no spin: {reason}"))
            t.rounds.end("voided")
            return
        t.broadcast(NoSpin(round=t.round_no, reason=reason, by=staff[1]))

    def staff(self, cmd: TableCommand[Any], ref: str) -> tuple[str, str] | None:
        """The account and role (from its session token, server/room/accounts.py) of a staff
        command, or ``not_authorized`` (Sch 19 s6), audited."""
        account = cmd.conn.account or ""
        role = cmd.conn.role
        if role not in ENTRY_ROLES:
            text = f"{ref} needs the role {' or '.join(sorted(ENTRY_ROLES))} (QLD Sch 19 s6)"
            self.table.error(cmd.conn, errors.NOT_AUTHORIZED, text, ref)
            self.audit(cmd.conn, ref, operator.Refusal(errors.NOT_AUTHORIZED, text))
            return None
        return account, role

    def audit(
        self,
        conn: Connection,
        action: str,
        outcome: operator.Outcome,
        asked: Mapping[str, Any] | None = None,
        round_id: str | None = None,
    ) -> None:
        """A staff command at this table (``result``, ``close_betting``: no reason on the
        wire) into the audit log (server/room/operator.py), in the step that decided it."""
        t = self.table
        operator.entry(
            t.ledger,
            operator.Staff.of(conn),
            action,
            reason=None,
            target={"table": t.id, "round": round_id or t.round_id or None},
            asked=asked,
            outcome=outcome,
            batch=t.id,
        )
