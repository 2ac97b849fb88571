"""A stadium table's limits: the table's, each terminal's, and changes under notice.

QLD Sch 19 s8 and ETG-40 (a terminal's own limits, else the table's), Part 2 s12(1) (a
change takes effect after three rounds' notice, a higher minimum not before 20 minutes),
s12(2) (or a higher minimum at once, the players already playing keeping the old one until
they leave), general.md C-3 (a riding wager outside the limits now goes back to the meter
before betting opens).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import trio

from server.tables import window
from server.tables.stadium.events import LimitsChanged, LimitsNotice
from server.tables.stadium.terminals import Terminal

if TYPE_CHECKING:
    from server.tables.stadium.table import StadiumTable


@dataclass
class LimitChange:
    """A limit change under notice (Part 2 s12(1)): effective from ``round_no`` and not
    before ``not_before`` (a higher minimum: 20 minutes after the notice)."""

    terminal: int | None
    minimum: int
    maximum: int
    round_no: int
    not_before: float
    announced: int  # wall clock, ms


class Limits:
    """The limits in force and the changes staged (see the module's docstring)."""

    def __init__(self, table: StadiumTable, minimum: int, maximum: int) -> None:
        self.table = table
        self.limits = (minimum, maximum)
        self.terminal_limits: dict[int, tuple[int, int]] = {}
        self.grandfathered: dict[str, int] = {}  # account -> the minimum it keeps (s12(2))
        self.changes: list[LimitChange] = []

    def loosest_maximum(self) -> int:
        top: int = self.limits[1]
        return max([top, *(mx for _, mx in self.terminal_limits.values())])

    def of(self, terminal: Terminal | None) -> tuple[int, int]:
        """ETG-40: the terminal's own limits, else the table's; a grandfathered minimum
        (Part 2 s12(2)) is kept until the player leaves."""
        if terminal is None:
            return self.limits
        lo, hi = self.terminal_limits.get(terminal.number, self.limits)
        kept = self.grandfathered.get(terminal.account)
        return (min(lo, kept) if kept is not None else lo), hi

    def wire(self, terminal: Terminal | None) -> dict[str, int]:
        lo, hi = self.of(terminal)
        return {"minimum": lo, "maximum": hi}

    def forget(self, account: str) -> None:
        """The player left: a grandfathered minimum goes with it (s12(2))."""
        self.grandfathered.pop(account, None)

    def stage(self, limits: dict[str, int]) -> str | None:
        """The operator channel's ``set_limits`` (``minimum``, ``maximum``, and ``terminal``
        for one terminal's): a limit change after the notice of Part 2 s12(1), three rounds
        and 20 minutes for a higher minimum; the reason it is refused, or None."""
        t = self.table
        unknown = set(limits) - {"minimum", "maximum", "terminal"}
        if unknown:
            return f"a stadium table's limits are minimum, maximum and terminal, not {unknown}"
        terminal = limits.get("terminal")
        if terminal is not None and not 1 <= terminal <= t.max_terminals:
            return f"no terminal {terminal}: terminals are 1 to {t.max_terminals}"
        current = self.terminal_limits.get(terminal, self.limits) if terminal else self.limits
        minimum: int = limits["minimum"] if "minimum" in limits else current[0]
        maximum: int = limits["maximum"] if "maximum" in limits else current[1]
        if not 1 <= minimum <= maximum:
            return "limits need 1 <= minimum <= maximum"
        now = trio.current_time()
        higher = minimum > current[0]
        rounds = int(t.stadium["limit_notice_rounds"])
        wait = t.stadium["higher_minimum_notice_seconds"] if higher else 0
        if higher and t.stadium["min_increase_mode"] == "immediate_grandfathered":
            for member in t.members.values():  # s12(2): those playing keep the old minimum
                if isinstance(member, Terminal) and terminal in (None, member.number):
                    kept = self.grandfathered.get(member.account, current[0])
                    self.grandfathered[member.account] = min(kept, current[0])
            rounds, wait = 0, 0
        change = LimitChange(
            terminal,
            minimum,
            maximum,
            t.round_no + 1 + rounds,
            now + wait,
            window.wall_ms(),
        )
        self.changes.append(change)
        t.broadcast(self.notice(change))
        return None

    def detail(self) -> str:
        c = self.changes[-1]
        return f"new limits from round {c.round_no} (notice of Part 2 s12(1))"

    def applies_from(self) -> dict[str, Any]:
        """The notice of Part 2 s12(1): the round and the time (ms) the change waits for."""
        notice = self.notice(self.changes[-1])
        return {"from_round": notice.from_round, "not_before": notice.not_before}

    def notice(self, c: LimitChange) -> LimitsNotice:
        return LimitsNotice(
            terminal=c.terminal,
            minimum=c.minimum,
            maximum=c.maximum,
            from_round=c.round_no,
            not_before=c.announced + int(max(0.0, c.not_before - trio.current_time()) * 1000),
        )

    def notices(self) -> list[dict[str, Any]]:
        """The changes under notice, as their ``limits_notice`` events say them."""
        out = []
        for c in self.changes:
            wire_event = self.notice(c).to_wire()
            del wire_event["type"], wire_event["visible_to"]
            out.append(wire_event)
        return out

    def apply_changes(self, now: float) -> None:
        """The changes due by the next round and the clock, in force; each terminal they
        touch is told its limits."""
        t = self.table
        due = [c for c in self.changes if t.round_no + 1 >= c.round_no and now >= c.not_before]
        for c in due:
            self.changes.remove(c)
            if c.terminal is None:
                self.limits = (c.minimum, c.maximum)
            else:
                self.terminal_limits[c.terminal] = (c.minimum, c.maximum)
            for member in t.members.values():
                if isinstance(member, Terminal) and c.terminal in (None, member.number):
                    lo, hi = self.of(member)
                    event = LimitsChanged(minimum=lo, maximum=hi, visible_to=member.number)
                    t.event(member, event.to_wire())

    def enforce(self) -> None:
        """general.md C-3: a riding wager outside the terminal's limits now goes back to the
        meter before betting opens (a carried layout's wagers are the engine's to judge)."""
        t = self.table
        if t.spec.layout_carries:
            return
        for n, ws in list(t.play.layout().items()):
            account = t.terminals.numbers.get(n)
            member = t.members.get(account or "")
            lo, hi = self.of(member if isinstance(member, Terminal) else None)
            off = {w: a for w, a in ws.items() if not lo <= a <= hi}
            if account is None or not off:
                continue
            for w in off:
                del ws[w]
            if not ws:
                t.play.layout_pop(n)
            t.books.release(account, n, sum(off.values()))
            t.terminals.meter_to(account, "outside_limits")
