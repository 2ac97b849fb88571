"""The operator channel: who may use which control, and the audit log.

Staff sessions (a token with a staff role) send ``operator`` messages on the same WebSocket
as players (protocol/README.md, "Operator channel"):

========================  ==========  =====================================================
control                   roles       effect
========================  ==========  =====================================================
``close_table``           sup., mgr.  notice to everyone; no new round; after the round in
                                      play every seat is vacated (stakes home)
``open_table``            sup., mgr.  the table takes players and starts rounds again
``set_limits``            sup., mgr.  new limits, announced now, in force from the next round
``void_round``            sup., mgr.  the round in play is void: every wager returned
``correct_result``        dealer,     a result corrected and re-settled (ETG s9, Sch 19
                          boxperson,  s10(2); stadium tables): no correction is
                          sup., mgr.  manager-only (general.md §4)
``approve_jackpot``       manager     jackpot wagers reopen after an outage (ACT 2017
                                      r 14.5; tables with ``jackpot_reopen = "approval"``)
``suspend``/``unsuspend`` manager     an account's tokens refused, its seats vacated
``start_tournament`` ...  tournament  a tournament's controls (``tournament``): start,
                          director,   pause / break / resume, move a player, disqualify,
                          manager     award places, cancel (refunds): TOURNAMENT_ACTIONS
========================  ==========  =====================================================

Each control is its own class (:class:`Control`: ``CloseTable``, ``Suspend``,
``StartTournament``...) declaring once the roles that may send it (``ROLES``) and where it
is applied (``SCOPE``); the router, the tables (``server/tables/controls.py``) and the
tournament runner (``server/tournaments/director.py``) dispatch them through handler maps
by class (``server/actor.py``), never by the action's string.

The audit log (GLI-11 and GLI-19 significant-event logs are the model): every staff act, done
or refused, is one entry of one shape (:func:`entry`; protocol/README.md "Operator channel",
docs/rulings.md "The audit log"): who asked (the staff member's own account and name from
the session token), the role, the reason, the target, what was asked, and the outcome,
``done`` with what was done or ``refused`` with the error's code and text. Whoever decides
the outcome writes the entry, in the same step that applies or refuses the act, through the
ledger's ``note`` (durable with the effect it reports): the router for role refusals and
account controls, the table for its controls, the tournament runner for the Tournament
Director's. Cashier calls and the staff commands at stadium tables (``result``,
``close_betting``) are entries too. ``croupier admin audit`` reads the log from either store.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from protocol.messages import Operator
from server.store.ledger import Ledger

if TYPE_CHECKING:
    from server.tables.connection import Connection

Scope = Literal["table", "account", "tournament"]
_SUPERVISION: Final = frozenset({"supervisor", "manager"})
#: table staff who may correct a result they (or a stickperson) entered (general.md §4)
_CORRECTION: Final = frozenset({"dealer", "boxperson", "supervisor", "manager"})
_MANAGER: Final = frozenset({"manager"})
#: the Tournament Director's controls (issue 15); a manager may use them too
_DIRECTION: Final = frozenset({"tournament_director", "manager"})


@dataclass(frozen=True, slots=True)
class Control:
    """One staff control: the ``operator`` message as it came (``message``), typed by its
    control. Each control is its own class declaring once the roles that may send it
    (``ROLES``: the table in the module's docstring) and what it acts on (``SCOPE``: a
    table's task, the router for an account, a tournament's runner); each actor dispatches
    the controls through a handler map by class (server/actor.py)."""

    ACTION: ClassVar[str]
    ROLES: ClassVar[frozenset[str]]
    SCOPE: ClassVar[Scope] = "table"
    message: Operator


class CloseTable(Control):
    ACTION, ROLES = "close_table", _SUPERVISION


class OpenTable(Control):
    ACTION, ROLES = "open_table", _SUPERVISION


class SetLimits(Control):
    ACTION, ROLES = "set_limits", _SUPERVISION


class VoidRound(Control):
    ACTION, ROLES = "void_round", _SUPERVISION


class CorrectResult(Control):
    ACTION, ROLES = "correct_result", _CORRECTION


class ApproveJackpot(Control):
    ACTION, ROLES = "approve_jackpot", _MANAGER


class Suspend(Control):
    ACTION, ROLES, SCOPE = "suspend", _MANAGER, "account"


class Unsuspend(Control):
    ACTION, ROLES, SCOPE = "unsuspend", _MANAGER, "account"


class StartTournament(Control):
    ACTION, ROLES, SCOPE = "start_tournament", _DIRECTION, "tournament"


class PauseTournament(Control):
    ACTION, ROLES, SCOPE = "pause_tournament", _DIRECTION, "tournament"


class BreakTournament(Control):
    ACTION, ROLES, SCOPE = "break_tournament", _DIRECTION, "tournament"


class ResumeTournament(Control):
    ACTION, ROLES, SCOPE = "resume_tournament", _DIRECTION, "tournament"


class MovePlayer(Control):
    ACTION, ROLES, SCOPE = "move_player", _DIRECTION, "tournament"


class Disqualify(Control):
    ACTION, ROLES, SCOPE = "disqualify", _DIRECTION, "tournament"


class AwardPlaces(Control):
    ACTION, ROLES, SCOPE = "award_places", _DIRECTION, "tournament"


class CancelTournament(Control):
    ACTION, ROLES, SCOPE = "cancel_tournament", _DIRECTION, "tournament"


#: every control by its wire name (``operator.action``)
CONTROLS: Final[dict[str, type[Control]]] = {
    c.ACTION: c
    for c in (
        CloseTable,
        OpenTable,
        SetLimits,
        VoidRound,
        CorrectResult,
        ApproveJackpot,
        Suspend,
        Unsuspend,
        StartTournament,
        PauseTournament,
        BreakTournament,
        ResumeTournament,
        MovePlayer,
        Disqualify,
        AwardPlaces,
        CancelTournament,
    )
}


def control_of(m: Operator) -> Control:
    """The typed control an ``operator`` message asks for."""
    return CONTROLS[m.action](m)


def _scope(scope: Scope) -> frozenset[str]:
    return frozenset(a for a, c in CONTROLS.items() if c.SCOPE == scope)


ACCOUNT_ACTIONS: Final = _scope("account")
TOURNAMENT_ACTIONS: Final = _scope("tournament")
#: role -> the controls it may use, from each control's ``ROLES``
ALLOWED: Final[dict[str, frozenset[str]]] = {
    role: frozenset(a for a, c in CONTROLS.items() if role in c.ROLES)
    for role in sorted({r for c in CONTROLS.values() for r in c.ROLES})
}


def allowed(role: str, action: str) -> bool:
    control = CONTROLS.get(action)
    return control is not None and role in control.ROLES


# -- the audit log (GLI-11/19 significant events) ---------------------------------------------
#: every audit entry's id starts so (the stores read the log by it)
AUDIT_PREFIX: Final = "audit:"
_numbers = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Staff:
    """Who asked: the staff member's own account and name, and the role, all from the
    session token (``server/room/accounts.py``); never a generic role name."""

    account: str
    name: str
    role: str

    @classmethod
    def of(cls, conn: Connection) -> Staff:
        return cls(conn.account or "", conn.name, conn.role)


@dataclass(frozen=True, slots=True)
class Done:
    """The act was applied: ``detail`` says what was done (the text of the reply),
    ``effect`` the same in figures (the new limits and the round they take effect from, what
    a voided round returned, a cancelled tournament's refunds...)."""

    detail: str
    effect: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """The act was refused: the ``error``'s code and text, as the staff member got them."""

    code: str
    text: str


Outcome = Done | Refusal
#: what a control did, as its deciding actor reports it: in words (the reply's ``detail``) and
#: in figures (the audit entry's ``effect``)
Applied = tuple[str, dict[str, Any]]
#: what an act may name, in this order (an entry has each: null when it names none)
TARGETS: Final = ("table", "account", "tournament", "round", "terminal")


def target_of(m: Operator, **more: Any) -> dict[str, Any]:
    """What an ``operator`` message names: its table, account, tournament and one terminal's
    limits (``limits.terminal``); ``more`` adds what the deciding actor knows (the id of
    the round a void stopped)."""
    named = {
        "table": m.table,
        "account": m.account,
        "tournament": m.tournament,
        "terminal": m.limits.get("terminal"),
        **more,
    }
    return {k: named[k] for k in TARGETS if named.get(k) is not None}


def control(
    ledger: Ledger,
    staff: Staff,
    m: Operator,
    outcome: Outcome,
    *,
    batch: str | None = None,
    **target: Any,
) -> None:
    """The audit entry of an ``operator`` control (:func:`entry`), written by whoever decides
    it (the router, the table, the tournament runner) in the step that applies or refuses
    it; ``target`` adds to what the message names (:func:`target_of`); ``batch``: the
    deciding table's id (:func:`entry`)."""
    asked = {k: dict(v) for k, v in (("limits", m.limits), ("result", m.result)) if v}
    entry(
        ledger,
        staff,
        m.action,
        reason=m.reason,
        target=target_of(m, **target),
        asked=asked,
        outcome=outcome,
        batch=batch,
    )


def entry(
    ledger: Ledger,
    staff: Staff,
    action: str,
    *,
    reason: str | None,
    target: Mapping[str, Any],
    outcome: Outcome,
    asked: Mapping[str, Any] | None = None,
    batch: str | None = None,
) -> None:
    """Append one entry to the audit log: the one shape of every staff act (protocol/
    README.md "Operator channel"; docs/rulings.md "The audit log"). It goes through
    :meth:`Ledger.note` in the step that decided the outcome, so it is committed with the
    effect it reports (``batch``: the table whose batch carries that effect, in a
    deployment), and the reply that reports it waits for that commit (commit, then speak)."""
    if isinstance(outcome, Done):
        result, detail, code = "done", outcome.detail, None
        effect = dict(outcome.effect) if outcome.effect else None
    else:
        result, detail, code, effect = "refused", outcome.text, outcome.code, None
    ledger.note(
        {
            "id": f"{AUDIT_PREFIX}{ledger.instance}:{time.time_ns()}.{next(_numbers)}",
            "audit": True,
            "at": time.time(),
            "who": staff.account,
            "name": staff.name,
            "role": staff.role,
            "action": action,
            "reason": reason,
            **{k: target.get(k) for k in TARGETS},  # the target: what it names, else null
            "asked": dict(asked) if asked else None,
            "outcome": result,
            "detail": detail,
            "effect": effect,
            "code": code,
        },
        table=batch,
    )


# -- reading the log ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AuditQuery:
    """Which entries to read (``croupier admin audit``'s options; a staff console's
    filters): by person (account or name), control, table, outcome and time (unix seconds,
    ``since`` inclusive, ``until`` exclusive). None: any."""

    who: str | None = None
    action: str | None = None
    table: str | None = None
    outcome: str | None = None
    since: float | None = None
    until: float | None = None

    def matches(self, e: Mapping[str, Any]) -> bool:
        at = float(e.get("at", 0))
        return (
            (self.who is None or self.who in (e.get("who"), e.get("name")))
            and (self.action is None or e.get("action") == self.action)
            and (self.table is None or e.get("table") == self.table)
            and (self.outcome is None or e.get("outcome") == self.outcome)
            and (self.since is None or at >= self.since)
            and (self.until is None or at < self.until)
        )

    def select(self, entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The matching audit entries, oldest first."""
        picked = [dict(e) for e in entries if e.get("audit") and self.matches(e)]
        return sorted(picked, key=lambda e: (float(e.get("at", 0)), str(e.get("id"))))


def line(e: Mapping[str, Any]) -> str:
    """One entry as a line of ``croupier admin audit``: when (UTC), who, role, control,
    target, reason, outcome."""
    when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(float(e["at"])))
    ms = int(float(e["at"]) * 1000) % 1000
    target = " ".join(f"{k}={e[k]}" for k in TARGETS if e.get(k) is not None)
    outcome = (
        f"done: {e.get('detail')}"
        if e.get("outcome") == "done"
        else f"refused ({e.get('code')}): {e.get('detail')}"
    )
    reason = f' "{e["reason"]}"' if e.get("reason") else ""
    return (
        f"{when}.{ms:03d}Z {e.get('who')} ({e.get('name')}, {e.get('role')}) "
        f"{e.get('action')} {target}{reason} -> {outcome}"
    )
