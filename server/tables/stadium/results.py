"""A stadium round from "no more bets" to its end: the record, the result, the settlement.

QLD Sch 19 s3(2)(d) (no more bets: the layout is frozen), ETG-05 (the result comes from one
:class:`ResultSource`: the CSPRNG, or a dealer or an automated wheel or tumbler entering
it), s7 (settlement: the result to everyone, each terminal its own wagers' figures and its
meter; winnings to the meter at once, s7(3)(b); a winning stake rides until collected,
s7(3)(c), s7(4), general.md C-2), s3(2)(f)-(h) (each terminal's round kept for recall).

The round goes on the record (``server/store/journal.py``) at no more bets, before the
result, and the deal the result came from is committed before its cards are shown.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import trio

from server.games.visibility import EVERYONE
from server.store.model import RoundState
from server.tables import books, window
from server.tables.phases import Phase
from server.tables.stadium.events import (
    AwaitingResult,
    NoMoreBets,
    RoundResult,
    RoundVoided,
    Settlement,
)
from server.tables.stadium.plays import OneShot, Played, Rolls, RoundRecord, nets
from server.tables.stadium.terminals import Terminal

if TYPE_CHECKING:
    from server.tables.stadium.table import StadiumTable


# -- the result source (ETG-05) ---------------------------------------------------------------
class ResultSource(ABC):
    """Where a round's result comes from: decided at "no more bets", or awaited from a
    dealer or an automated device through the staff ``result`` message."""

    name: ClassVar[str]

    @abstractmethod
    def at_no_more_bets(self) -> tuple[bool, Mapping[str, Any] | None]:
        """``(True, outcome)``: settle now on ``outcome`` (``None``: the engine draws from
        its injected random source); ``(False, None)``: wait for an entered result."""


class RngSource(ResultSource):
    """The OS CSPRNG through the engine's injected random source: one unbiased draw per die,
    wheel or card (the engines' ``randbelow``)."""

    name = "rng"

    def at_no_more_bets(self) -> tuple[bool, Mapping[str, Any] | None]:
        return True, None


class EnteredSource(ResultSource):
    """A dealer, an automated wheel or tumbler (Sch 7 s5(2), Sch 10 s3(2)) or a live table
    (Sch 8 s2(4)) enters the result with ``result``; nothing is drawn here."""

    name = "dealer"

    def at_no_more_bets(self) -> tuple[bool, Mapping[str, Any] | None]:
        return False, None


RESULT_SOURCES: dict[str, type[ResultSource]] = {"rng": RngSource, "dealer": EnteredSource}


class Rounds:
    """The round from no more bets to its end (see the module's docstring)."""

    def __init__(self, table: StadiumTable) -> None:
        self.table = table
        #: the openings of the cards the round's result shows (sent with ``round_result``)
        self.shown: list[dict[str, Any]] = []

    def close_betting(self) -> None:
        """No more bets (s3(2)(d)): the layout is frozen; the result source decides or is
        awaited."""
        t = self.table
        t.closes_at = math.inf
        t.phases.to(Phase.NO_MORE_BETS)
        t.frozen = {n: dict(ws) for n, ws in t.play.layout().items() if ws}
        if not t.frozen and not isinstance(t.play, Rolls):
            t.broadcast(NoMoreBets(round=t.round_no, server_time=window.wall_ms()))
            self.announce(None, "no wagers: no spin", "none")
            self.end()
            return
        self.open_record()
        t.broadcast(NoMoreBets(round=t.round_no, server_time=window.wall_ms()))
        now, outcome = t.source.at_no_more_bets()
        if now:
            self.result(outcome)
        else:
            t.broadcast(AwaitingResult(round=t.round_no))

    def open_record(self) -> None:
        """Put the round on the record (``server/store/journal.py``) at no more bets, before
        the result: the frozen layout and its owners, the window's commands with their
        times, and the commitment to the round's secret (``server/fair.py``), which is the
        random source of the round's draws from here on (the engine's die, wheel or card)."""
        t = self.table
        numbers = t.terminals.numbers
        # the round's deal: the committed secret with the seeds of the terminals in it
        source = t.journal.begin(sorted({numbers[n] for n in t.frozen}))
        t.rng = source  # OneShot rounds are built on it at the result
        before = None
        if isinstance(t.play, Rolls):
            engine = t.play.live_engine()
            engine.rng = source
            before = engine.layout.to_json()
            rules_used = t.engine_options()
        else:
            assert isinstance(t.play, OneShot)
            rules_used = t.play.round_options()
        t.open_journal(
            t.round_id,
            {
                "options": dict(t.table.options),
                "rules": rules_used,
                "round_no": t.round_no,
                "result_source": t.source.name,
                "approval": t.stadium["approval"],
                "boxes": {
                    str(n): {"account": numbers[n], "wagers": ws}
                    for n, ws in sorted(t.frozen.items())
                },
                "before": before,
            },
            deal=False,  # committed at the result, before its cards (:meth:`result`)
        )
        for p in t.wagering.places_made:
            t.journal.command("place" if "position" in p else "marker", **p)

    def result(self, outcome: Mapping[str, Any] | None) -> None:
        """Settle the frozen layout on ``outcome`` (``None``: the engine's random source); a
        malformed outcome raises ``InvalidRound`` with nothing changed."""
        t = self.table
        played = t.play.play(outcome)  # InvalidRound: nothing changed
        if outcome is not None:
            t.journal.command("result", outcome=dict(outcome))
        # the deal the result came from (nothing, for a result entered: it draws nothing),
        # committed before its cards; the cards the result shows are opened with it
        t.broadcast(t.journal.commit(), engine=True)
        wires = [ev.to_wire() for ev in played.events]
        t.journal.events(played.events, wires)
        self.shown = [
            opening
            for w in wires
            if w.get("visible_to", EVERYONE) == EVERYONE
            for opening in w.get("open", ())
        ]
        owners = {n: t.terminals.numbers[n] for n in set(t.frozen) | set(played.wagers)}
        holds = {n: sum(ws.values()) for n, ws in t.frozen.items()}
        house_net = self.book(played, holds, owners)
        t.journal.settlement(
            {
                "state": "settled",
                "outcome": played.outcome,
                "call": played.call,
                "dealer": None,
                "boxes": {
                    str(n): {
                        "player": owners[n],
                        "wagers": played.wagers.get(n, {}),
                        "bet": holds.get(n, 0),
                        "paid": holds.get(n, 0) + house_net[n],
                    }
                    for n in sorted(owners)
                },
            }
        )
        t.play.keep_riding(played.standing)
        record = RoundRecord(
            t.round_no,
            t.round_id,
            played.outcome,
            played.call,
            t.frozen,
            owners,
            house_net,
            t.carried_before if isinstance(t.play, Rolls) else None,
        )
        t.records.append(record)
        self.announce(played.outcome, played.call, t.source.name if outcome is None else "entered")
        for n in sorted(owners):
            self.settle(record, played, n)
            if owners[n] not in t.members and not t.play.wagers(n):
                t.terminals.numbers.pop(n, None)  # a gone terminal's last standing wager
        self.end()

    def announce(self, outcome: dict[str, Any] | None, call: str, source: str) -> None:
        """The round's result to everyone (s7(1); general.md C-6: only after no more bets)."""
        t = self.table
        t.broadcast(
            RoundResult(
                round=t.round_no,
                round_id=t.round_id,
                outcome=outcome,
                call=call,
                source=source,
                approval=t.stadium["approval"],
                puck=t.play.puck() if isinstance(t.play, Rolls) else None,
                open=self.shown,
            )
        )
        self.shown = []

    def book(self, played: Played, holds: dict[int, int], owners: dict[int, str]) -> dict[int, int]:
        """The engine's transfers through the books, then each box squared to what stands
        on it: winnings and returned stakes to the meter (s7(3)(b))."""
        t = self.table
        for src, dst, amount in played.transfers:
            t.books.engine_transfer(src, dst, amount)
        house_net: dict[int, int] = {}
        moved = nets(played.transfers)
        for n, account in owners.items():
            net = moved.get(books.box(n), 0)
            house_net[n] = net
            stands = sum(played.standing.get(n, {}).values())
            t.wagering.square(account, n, holds.get(n, 0) + net, stands)
        return house_net

    def settle(self, record: RoundRecord, played: Played, n: int) -> None:
        """Terminal ``n``'s wagers and what they came to, to it alone (s7), and its recall."""
        t = self.table
        account = record.owners[n]
        wagers = played.wagers.get(n, {})
        bet = sum(record.frozen.get(n, {}).values())
        won = sum(w["net"] for w in wagers.values() if w["net"] > 0)
        rec = {
            "round": record.round_no,
            "round_id": record.round_id,
            "result": played.outcome,
            "call": played.call,
            "bet_total": bet,
            "won_total": won,
            "net": record.house_net.get(n, 0),
            "wagers": wagers,
            "riding": dict(played.standing.get(n, {})),
        }
        t.last_round[account] = rec
        terminal = t.members.get(account)
        if isinstance(terminal, Terminal):
            credits = t.terminals.meter(account)
            event = Settlement(**rec, credits=credits, visible_to=terminal.number)
            t.event(terminal, event.to_wire())
        else:
            t.terminals.home(account)

    def end(self, state: RoundState = "settled") -> None:
        """The round closes in the books; the pause, then the next window; the terminals
        that asked to leave during it go."""
        t = self.table
        t.books.close_round(state)
        t.frozen = {}
        t.closes_at = math.inf
        t.phases.to(Phase.PAUSE)
        t.next_round_at = trio.current_time() + t.config.round_pause
        for member in list(t.members.values()):
            if member.leaving:
                t.vacate(member, t.leave_reason(member))

    def void(self, reason: str) -> None:
        """A shutdown or an operator's ``void_round``: the round's wagers go back to the
        meters (the round is void); a carried layout's wagers standing from earlier throws
        too (at a shutdown: in any phase)."""
        t = self.table
        numbers = t.terminals.numbers
        in_window = t.phase in (Phase.BETTING, Phase.NO_MORE_BETS)
        if isinstance(t.play, Rolls):
            for n, ws in sorted(t.play.layout().items()):
                t.books.release(numbers[n], n, sum(ws.values()))
                t.terminals.meter_to(numbers[n], "void")
            t.play.reset()
        elif in_window:
            voided = t.frozen if t.phase is Phase.NO_MORE_BETS else t.play.layout()
            self.return_all(voided)
        if in_window:
            t.broadcast(RoundVoided(round=t.round_no, reason=reason))
            self.end("voided")

    def return_all(self, voided: Mapping[int, dict[str, int]]) -> None:
        """Every wager of ``voided`` off the layout, back to its meter."""
        t = self.table
        for n, ws in sorted(dict(voided).items()):
            account = t.terminals.numbers[n]
            t.play.layout_pop(n)
            t.books.release(account, n, sum(ws.values()))
            t.terminals.meter_to(account, "void")
