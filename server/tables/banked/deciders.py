"""Deciders: who owes each open decision of a banked round, and how it is applied.

Theory of operation. The engine's ``pending()`` lists the decisions open now; the table
prompts each to the account that owes it, on its own clock (``decision_seconds``), and a
clock that runs out applies the engine's rule (:meth:`~server.games.banked.base.BankedRound.
timeout`, Sch 19; ``insufficient`` when the wallet cannot fund the decision's wager). This
part answers the questions the table asks about a decision:

* which are open to the players now (:meth:`Deciders.promptable`),
* which one a ``decision_made`` event answered (:meth:`Deciders.decided`),
* who owes it (:meth:`Deciders.decider`) and from which books account he pays
  (:meth:`Deciders.place_of`: ``None``, the box's own; a backer's place),
* what he has on the layout (:meth:`Deciders.held`: the decision's new money is the
  difference it makes), and
* how a decision (a time-out, a refusal for want of funds) goes to the engine and on the
  record (:meth:`Deciders.decide`).

A game whose decisions are owed by several people on a box, one hand at a time with offers
in between (blackjack), passes its own subclass to the table.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import trio
from msgspec import UNSET

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance
from server.errors import IllegalAction
from server.games.banked.base import Argument, BankedRound, Decision, DecisionMade, Event
from server.tables.banked import events as ev
from server.tables.base import TableCommand
from server.tables.phases import Phase
from server.tables.views import ms_left

if TYPE_CHECKING:
    from server.tables.banked.table import BankedTable, Player


class Deciders:
    """Each box's player owes the box's decisions (see the module docstring)."""

    def __init__(self, table: BankedTable) -> None:
        self.table = table

    def promptable(self, engine: BankedRound) -> list[Decision]:
        """The decisions open to the players now (the engine's pending ones)."""
        return engine.pending()

    def decided(self, made: DecisionMade) -> tuple[int, str]:
        """The decision (box, street) that ``made`` answered."""
        return (made.box, made.street)

    def decider(self, decision: Decision) -> str | None:
        """The account that owes ``decision``: the box's player in the round."""
        return self.table.round_owners.get(decision.box)

    def place_of(self, decision: Decision) -> str | None:
        """The books' sub-account of the one deciding (``None``: the box's player)."""
        return None

    def held(self, engine: BankedRound, box: int, decision: Decision) -> int:
        """What the one deciding ``decision`` has on the layout now."""
        return sum(engine.stakes[box].values())

    def decide(
        self, engine: BankedRound, decision: Decision, verb: str, amount: Argument
    ) -> list[Event]:
        """Apply a decision (``timeout``/``insufficient`` included) for whoever owes it, and
        put the engine command on the record once the engine took it."""
        box, journal = decision.box, self.table.journal
        if verb == "timeout":
            events = engine.timeout(box)
        elif verb == "insufficient":
            events = engine.insufficient(box)
        else:
            events = engine.decide(box, verb, amount)
        if verb in ("timeout", "insufficient"):
            journal.command(verb, box=box)
        else:
            journal.command("decide", box=box, verb=verb, amount=amount)
        return events


class DecisionClock:
    """The table's prompts and their clocks: each open decision is prompted to the one who
    owes it with ``decision_seconds`` on its own clock; a decision made is checked and
    applied with its money; a clock run out applies the engine's rule (module docstring)."""

    def __init__(self, table: BankedTable) -> None:
        self.table = table
        self.deadline = math.inf
        #: the decisions prompted and not yet made, (box, street) -> when their clock runs out
        self.prompted: dict[tuple[int, str], float] = {}

    def stop(self) -> None:
        self.deadline = math.inf
        self.prompted = {}

    def pending_for(self, account: str, now: float) -> list[dict[str, Any]]:
        """The decisions ``account`` owes now, for a snapshot, with the time left on each."""
        t = self.table
        engine, deciders = t.engine, t.deciders
        if engine is None or engine.complete:
            return []
        return [
            {
                **d.to_wire(),
                "round": t.round_no,
                "time_ms": ms_left(self.prompted.get((d.box, d.street), self.deadline), now),
            }
            for d in deciders.promptable(engine)
            if deciders.decider(d) == account
        ]

    def prompt(self, engine: BankedRound, events: list[Event]) -> None:
        """Prompt every decision the step opened, each on its own clock: a new street's
        decisions, and (a game deciding one hand at a time) the next hand's or the same
        hand's next decision (a hand that drew a card decides again)."""
        t, deciders = self.table, self.table.deciders
        now = trio.current_time()
        decided = {deciders.decided(e) for e in events if type(e) is DecisionMade}
        time_ms = int(t.table.decision_seconds * 1000)
        prompted: dict[tuple[int, str], float] = {}
        for d in deciders.promptable(engine):
            key = (d.box, d.street)
            deadline = self.prompted.get(key)
            if deadline is None or key in decided:
                deadline = now + t.table.decision_seconds
                account = deciders.decider(d)
                member = t.members.get(account) if account is not None else None
                if member is not None:
                    t.event(member, ev.DecisionPrompt.of(d, t.round_no, time_ms).to_wire())
            prompted[key] = deadline
        self.prompted = prompted
        self.deadline = min(prompted.values(), default=math.inf)

    def decision_for(self, account: str, box: int, verb: str) -> Decision | str:
        """The open decision of ``account`` on ``box`` that ``verb`` answers, or why none."""
        t, deciders = self.table, self.table.deciders
        assert t.engine is not None
        owed = [
            d
            for d in deciders.promptable(t.engine)
            if d.box == box and deciders.decider(d) == account
        ]
        if not owed:
            if t.round_owners.get(box) != account:
                return f"box {box} is not yours this round"
            return f"box {box} owes no decision now"
        return next((d for d in owed if any(c.verb == verb for c in d.choices)), owed[0])

    def on_decide(self, player: Player, cmd: TableCommand[wire.Decide]) -> None:
        """A decision made: checked against the open one, its wager funded from the wallet
        (else the engine's ``insufficient``), applied, and the step played."""
        t, deciders = self.table, self.table.deciders
        m = cmd.message
        engine = t.engine
        if t.phase is not Phase.DECIDING or engine is None or engine.complete:
            t.error(cmd.conn, errors.NO_DECISION, "no decision is open now", "decide")
            return
        found = self.decision_for(player.account, m.box, m.verb)
        if isinstance(found, str):
            t.error(cmd.conn, errors.NO_DECISION, found, "decide")
            return
        choice = next((c for c in found.choices if c.verb == m.verb), None)
        argument: Argument = m.amount
        try:
            if choice is None:
                raise IllegalAction(
                    "illegal_verb",
                    f"box {m.box} may {', '.join(c.verb for c in found.choices)} now",
                )
            if choice.setting != (m.setting is not None):
                raise IllegalAction(
                    "setting_required" if choice.setting else "unexpected_setting",
                    f"{m.verb} {'needs' if choice.setting else 'takes no'} setting of the tiles"
                    + (' {"high": [2 tiles], "low": [2 tiles]}' if choice.setting else ""),
                )
            if m.setting is not None:
                argument = m.setting.to_engine()
            cost = choice.resolve(m.amount) or 0
            if cost > t.books.wallet_balance(player.account):
                events = deciders.decide(engine, found, "insufficient", None)
                t.broadcast(ev.Insufficient(round=t.round_no, box=m.box))
            else:
                before = deciders.held(engine, m.box, found)
                events = deciders.decide(engine, found, m.verb, argument)
                added = deciders.held(engine, m.box, found) - before
                if added > 0:  # the wager the decision put on the layout (bet, play, war...)
                    place = deciders.place_of(found)
                    balance = t.books.wager(player.account, m.box, added, place)
                    if t.sends_balance:
                        cmd.conn.send(Balance(balance))
        except IllegalAction as exc:
            t.error(cmd.conn, errors.ILLEGAL_ACTION, exc.message, "decide", exc.code, exc.amounts)
            return
        t.play(events)

    def on_time(self, engine: BankedRound, now: float) -> None:
        """A decision clock ran out: the engine's rule for each decision still owed."""
        t, deciders = self.table, self.table.deciders
        for d in deciders.promptable(engine):
            key = (d.box, d.street)
            if engine.complete:
                return
            if self.prompted.get(key, math.inf) > now:
                continue  # not due, or prompted again by an earlier time-out's step
            if any((o.box, o.street) == key for o in deciders.promptable(engine)):
                place = deciders.place_of(d)  # None: the box's player; else a backer
                t.broadcast(
                    ev.TimedOut(
                        round=t.round_no, box=d.box, place=UNSET if place is None else place
                    )
                )
                t.play(deciders.decide(engine, d, "timeout", None))
        if not engine.complete:
            self.prompt(engine, [])
