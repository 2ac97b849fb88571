"""Corrections at a stadium table: a kept round re-settled on the right result.

QLD Sch 19 s10: staff re-settle a kept round on the actual outcome (``correct_result``,
s10(2)); the difference is posted to each meter as an adjustment, never overwritten, and
what a meter cannot cover is recorded as owed (s10(3)). The staff console's
``resettlement`` query computes a correction without applying it, so the staff member sees
it before confirming. A carried layout (the spec's ``layout_carries``) is corrected only on
its last throw, before the next betting window, and its re-throw runs on the live engine,
so it has no preview.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol import errors
from protocol import messages as wire
from server.errors import IllegalAction
from server.games.banked.base import InvalidRound
from server.money import dollars
from server.tables import books
from server.tables.base import Refused, TableCommand
from server.tables.phases import Phase
from server.tables.stadium.events import ResultCorrected, RoundAdjusted
from server.tables.stadium.plays import Played, Rolls, RoundRecord, nets
from server.tables.stadium.terminals import Terminal

if TYPE_CHECKING:
    from server.tables.stadium.table import StadiumTable


class Corrections:
    """Corrections of kept rounds and what they owe (see the module's docstring)."""

    def __init__(self, table: StadiumTable) -> None:
        self.table = table
        self.owed: dict[str, int] = {}  # account -> cents a correction could not take back

    def kept_round(self, result: dict[str, Any]) -> tuple[RoundRecord, dict[str, Any]]:
        """The kept round a correction names (``result["round"]``, default the last) and
        the corrected outcome (the rest of ``result``); :class:`Refused` when there is no
        such round, or a carried layout's throw that may no longer be corrected."""
        t = self.table
        outcome = {k: v for k, v in result.items() if k != "round"}
        wanted = result.get("round", t.records[-1].round_no if t.records else None)
        record = next((r for r in t.records if r.round_no == wanted), None)
        if record is None:
            raise Refused(errors.NO_SUCH_ROUND, f"no kept round {wanted}")
        carries = t.spec.layout_carries
        if carries and (record is not t.records[-1] or t.phase is not Phase.PAUSE):
            raise Refused(errors.NO_SUCH_ROUND, carries)
        return record, outcome

    def resettled(self, record: RoundRecord, outcome: dict[str, Any]) -> Played:
        try:
            return self.table.play.resettle(record, outcome)
        except (InvalidRound, IllegalAction) as exc:
            text = exc.message if isinstance(exc, IllegalAction) else str(exc)
            raise Refused(errors.BAD_RESULT, text) from None

    def on_resettlement(self, cmd: TableCommand[wire.Staff]) -> None:
        """The staff console's ``resettlement`` query: what ``correct_result`` would do to a
        kept round, computed and not applied, so the staff member sees the re-settlement
        before confirming it (Sch 19 s10(2)-(3)): per terminal, what the house paid it
        net, what it pays on the corrected outcome, and the difference its meter gets. A
        carried layout's throw is re-thrown on the table's live engine, so it has no
        preview."""
        t = self.table
        try:
            if isinstance(t.play, Rolls):
                text = f"a {t.spec.title.lower()} correction has no preview"
                raise Refused(errors.NOT_SUPPORTED, text)
            record, outcome = self.kept_round(dict(cmd.message.result))
            played = self.resettled(record, outcome)
        except Refused as exc:
            t.error(cmd.conn, exc.code, exc.text, "staff")
            return
        now = nets(played.transfers)
        terminals = [
            {
                "terminal": n,
                "account": account,
                "was": record.house_net.get(n, 0),
                "now": now.get(books.box(n), 0),
                "difference": now.get(books.box(n), 0) - record.house_net.get(n, 0),
            }
            for n, account in sorted(record.owners.items())
        ]
        data = {
            "table": t.id,
            "round": record.round_no,
            "old": record.outcome,
            "new": played.outcome,
            "call": played.call,
            "terminals": terminals,
        }
        cmd.conn.send(wire.StaffAnswer("resettlement", data))

    def correct(self, result: dict[str, Any], by: tuple[str, str]) -> str | None:
        """The operator channel's ``correct_result`` (roles: server/room/operator.py): re-settle
        a kept round (``result["round"]``, default the last) on the actual outcome (the rest
        of ``result``, as in ``result``; s10(2)); each meter gets the difference as an
        adjustment, and what it cannot cover is recorded as owed (s10(3))."""
        t = self.table
        record, outcome = self.kept_round(result)
        was = t.play.layout()
        played = self.resettled(record, outcome)
        old = record.outcome
        in_play = t.books.round  # a window may be open meanwhile: it goes on after this
        record.corrections.append({"old": old, "new": played.outcome, "by": by[0], "role": by[1]})
        t.books.open_round(f"{record.round_id}.correction{len(record.corrections)}")
        adjustments: dict[int, int] = {}
        moved = nets(played.transfers)
        for n, account in sorted(record.owners.items()):
            new_net = moved.get(books.box(n), 0)
            diff = new_net - record.house_net.get(n, 0)
            if isinstance(t.play, Rolls):  # the standing layout is the corrected one
                had = sum(was.get(n, {}).values())
                self.rebox(account, n, diff, had, sum(played.standing.get(n, {}).values()))
            else:
                self.adjust(account, diff)
            record.house_net[n] = new_net
            adjustments[n] = diff
        t.books.close_round("settled")
        t.books.round = in_play
        record.outcome, record.call = played.outcome, played.call
        t.broadcast(
            ResultCorrected(
                round=record.round_no,
                old=old,
                new=played.outcome,
                call=played.call,
                by=by[0],
                role=by[1],
            )
        )
        for n, diff in adjustments.items():
            self.tell(record, played, n, diff)
        total = sum(abs(d) for d in adjustments.values())
        return (
            f"round {record.round_no} re-settled on {played.call}: {len(adjustments)} "
            f"terminal(s) adjusted, {dollars(total)} moved"
        )

    def tell(self, record: RoundRecord, played: Played, n: int, diff: int) -> None:
        """Terminal ``n``'s recall re-settled, and its adjustment to it (or its meter home,
        if it has gone)."""
        t = self.table
        account = record.owners[n]
        rec = t.last_round.get(account)
        if rec is not None and rec["round"] == record.round_no:
            rec.update(result=played.outcome, call=played.call, net=record.house_net[n])
            rec["wagers"] = played.wagers.get(n, {})
            rec["won_total"] = sum(w["net"] for w in rec["wagers"].values() if w["net"] > 0)
        terminal = t.members.get(account)
        if isinstance(terminal, Terminal):
            event = RoundAdjusted(
                round=record.round_no,
                amount=diff,
                owed=self.owed.get(account, 0),
                credits=t.terminals.meter(account),
                wagers=played.wagers.get(n, {}),
                visible_to=terminal.number,
            )
            t.event(terminal, event.to_wire())
        else:
            t.terminals.home(account)

    def adjust(self, account: str, diff: int) -> None:
        """Post ``diff`` to the meter; a shortfall (the credits were cashed out) is owed."""
        t = self.table
        if diff < 0:
            take = min(-diff, t.terminals.meter(account))
            if take < -diff:
                self.owed[account] = self.owed.get(account, 0) + (-diff - take)
            diff = -take
        t.books.adjust(account, diff)

    def rebox(self, account: str, n: int, diff: int, was: int, now: int) -> None:
        """A carried layout: the house's corrected net on the box, and the box squared from
        the standing layout it had to the corrected one, through the meter."""
        t = self.table
        self.adjust(account, diff)
        meter = t.terminals.meter
        if now > was and meter(account) < now - was:
            self.owed[account] = self.owed.get(account, 0) + (now - was - meter(account))
            t.books.adjust(account, now - was - meter(account))
        t.wagering.square(account, n, was, now)
