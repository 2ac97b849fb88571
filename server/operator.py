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

Every operator message, applied or refused, is appended to the audit log in the ledger's
store (who, role, when, what, why, and the outcome): ``croupier admin audit`` prints it.
Staff commands at stadium tables (``result``, ``close_betting``) are entered there too.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

from protocol.messages import Operator
from server.store.ledger import Ledger

SUPERVISOR_ACTIONS: Final = frozenset({"close_table", "open_table", "set_limits", "void_round"})
MANAGER_ACTIONS: Final = SUPERVISOR_ACTIONS | {
    "correct_result",
    "approve_jackpot",
    "suspend",
    "unsuspend",
}
#: table staff who may correct a result they (or a stickperson) entered (general.md §4)
CORRECTION_ONLY: Final = frozenset({"correct_result"})
ALLOWED: Final[dict[str, frozenset[str]]] = {
    "dealer": CORRECTION_ONLY,
    "boxperson": CORRECTION_ONLY,
    "supervisor": SUPERVISOR_ACTIONS | CORRECTION_ONLY,
    "manager": MANAGER_ACTIONS,
}
ACCOUNT_ACTIONS: Final = frozenset({"suspend", "unsuspend"})
#: the Tournament Director's controls (issue 15; server/tournaments/runner.py), sent with
#: ``tournament``; a manager may use them too
TOURNAMENT_ACTIONS: Final = frozenset(
    {
        "start_tournament",
        "pause_tournament",
        "break_tournament",
        "resume_tournament",
        "move_player",
        "disqualify",
        "award_places",
        "cancel_tournament",
    }
)
ALLOWED["tournament_director"] = TOURNAMENT_ACTIONS
ALLOWED["manager"] = MANAGER_ACTIONS | TOURNAMENT_ACTIONS


def allowed(role: str, action: str) -> bool:
    return action in ALLOWED.get(role, frozenset())


def audit(ledger: Ledger, who: str, role: str, m: Operator, outcome: str) -> None:
    """Append one entry to the audit log (kept in the ledger's store with the next batch)."""
    entry(
        ledger,
        who,
        role,
        m.action,
        table=m.table,
        account=m.account,
        why=m.reason,
        limits=dict(m.limits) or None,
        result=dict(m.result) or None,
        outcome=outcome,
    )


def entry(
    ledger: Ledger,
    who: str,
    role: str,
    action: str,
    *,
    why: str,
    outcome: str,
    table: str | None = None,
    account: str | None = None,
    limits: dict[str, int] | None = None,
    result: Mapping[str, Any] | None = None,
) -> None:
    """One audit entry: an operator control, or a staff command at a table (a stadium
    result entered, "no more bets" called)."""
    ledger.note(
        {
            "id": f"audit:{ledger.instance}:{time.time_ns()}",
            "audit": True,
            "at": time.time(),
            "who": who,
            "role": role,
            "action": action,
            "table": table,
            "account": account,
            "why": why,
            "limits": limits,
            "result": dict(result) if result is not None else None,
            "outcome": outcome,
        }
    )
