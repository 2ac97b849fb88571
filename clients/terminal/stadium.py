"""A terminal at a stadium table (QLD Sch 19, electronic table games) with typed wagers.

Commands (see :data:`STADIUM_HELP`): ``b POSITION AMOUNT`` sets a wager on a layout
position (0 withdraws it; typed while betting is closed it waits for the next window),
``$ AMOUNT`` buys credits, ``c`` collects the riding wagers, ``x`` cashes out, ``m POSITION
on|off`` sets a craps marker, ``l`` recalls the previous round. Positions are the protocol's
(``straight_17``, ``split_17_20``, ``dozen_2``, ``total_10``, ``win``, ``win_odds``, ``b``...)
or their names as the page shows them (``pass line``, ``any seven``: clients/labels.py); the
terminal shows wagers by those names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import trio
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.labels import label
from clients.terminal.commands import BadCommand, parse_amount, parse_line
from clients.terminal.render import money
from clients.terminal.session import Session

STADIUM_HELP = """
    b POSITION AMOUNT   set a wager (AMOUNT 0 withdraws it); POSITION is its id or its
                        name: b 17 $5, b red 500, b pass line 5, b any seven 1
    $ AMOUNT            buy credits from the wallet      c  collect the riding wagers
    x                   cash out the credit meter        m POSITION on|off  craps marker
    l  your last round (recall)    t  show the table    h  help    q  leave and quit"""


@dataclass(frozen=True)
class StadiumCommand:
    kind: str  # "place", "credit", "collect", "cash_out", "marker", "recall", or shared
    position: str | None = None
    amount: int | None = None
    on: bool | None = None


def parse_stadium_command(line: str) -> StadiumCommand | None:
    """One stdin line at a stadium table -> a :class:`StadiumCommand` (None: blank)."""
    return parse_line(line, StadiumCommand, stadium_command)


def stadium_command(word: str, rest: list[str]) -> StadiumCommand:
    if word in ("l", "recall", "last"):
        return StadiumCommand("recall")
    if word in ("c", "collect"):
        return StadiumCommand("collect")
    if word in ("x", "cashout", "cash_out"):
        return StadiumCommand("cash_out")
    if word in ("$", "credit", "credits"):
        amount = parse_amount(rest[0]) if len(rest) == 1 else None
        if not amount:
            raise BadCommand("usage: $ AMOUNT (dollars: 50, 6.50 or $6.50)")
        return StadiumCommand("credit", amount=amount)
    if word in ("b", "bet", "place"):
        amount = parse_amount(rest[-1]) if len(rest) >= 2 else None
        if amount is None:
            raise BadCommand("usage: b POSITION AMOUNT (dollars: 5, 6.50 or $6.50; 0 withdraws)")
        return StadiumCommand("place", "_".join(rest[:-1]).lower(), amount)
    if word in ("m", "marker"):
        if len(rest) < 2 or rest[-1].lower() not in ("on", "off"):
            raise BadCommand("usage: m POSITION on|off")
        return StadiumCommand("marker", "_".join(rest[:-1]).lower(), on=rest[-1].lower() == "on")
    raise BadCommand(f"unknown command {word!r} (h for help)")


def positions(layout: dict[str, Any]) -> list[str]:
    """Every position id the layout config names (roulette: the outside wagers and numbers)."""
    if layout.get("kind") == "roulette":
        return [
            *(f"straight_{n}" for n in range(1, 37)),
            "red",
            "black",
            "odd",
            "even",
            "low",
            "high",
            *(f"dozen_{k}" for k in (1, 2, 3)),
        ]
    out: list[str] = []
    for key in ("positions", "line", "numbers", "props"):
        out += [p["id"] for p in layout.get(key, [])]
    return out


#: a refusal's opening position id, as the page finds it (clients/web/app.js errorText)
_LEADING_ID = re.compile(r"([a-z][a-z0-9_]*)(?=:| \$)")


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def resolve(typed: str, layout: dict[str, Any]) -> str:
    """A typed position as the protocol's id: the id itself, or a position's name as the page
    shows it, in any case and spacing (``pass_line``, ``Pass line``, ``any seven``), or at
    roulette a number alone (``17``, ``0``, ``zero``: a straight up); anything
    else as typed (the server says why it is refused)."""
    ids = positions(layout)
    if typed in ids:
        return typed
    if layout.get("kind") == "roulette":  # a number alone (or "zero") is a straight up
        number = "0" if typed == "zero" else typed
        if number in layout.get("zeros", []) or (number.isdigit() and 1 <= int(number) <= 36):
            return f"straight_{number}"
    by_name = {_plain(label(p)): p for p in ids} | {_plain(p): p for p in ids}
    return by_name.get(_plain(typed), typed)


def named(position: str) -> str:
    """A position as the terminal shows it: its name, with the id to type where they differ
    (``Pass line [win]``, ``Red``)."""
    name = label(position)
    return name if name.lower() == position.replace("_", " ") else f"{name} [{position}]"


class StadiumSession(Session):
    """One terminal (or a spectator) at a stadium table."""

    HELP = STADIUM_HELP
    HINT = "commands: b $ c x m l t h q (h for help)"

    def __init__(self, client: Any, table: Any, console: Any, **kw: Any) -> None:
        super().__init__(client, table, console, **kw)
        view = table.view
        self.info: dict[str, Any] = view.get("table", {})
        self.config: dict[str, Any] = view.get("game_config", {})
        self.status: str = view.get("status", "")
        self.round: int = view.get("round") or 0
        self.closes_at = (
            trio.current_time() + view.get("closes_in_ms", 0) / 1000
            if self.status == "betting_open"
            else None
        )
        self.wagers: dict[str, int] = dict(view.get("wagers") or {})
        self.credits: int = view.get("credit_meter") or 0
        self.last: dict[str, Any] | None = view.get("last_round")
        self.history: list[dict[str, Any]] = list(view.get("history") or [])
        self.puck = view.get("puck")

    @staticmethod
    def parse(line: str) -> StadiumCommand | None:
        return parse_stadium_command(line)

    # output
    def clock_text(self) -> str:
        if self.status == "betting_open" and self.closes_at is not None:
            left = max(0.0, self.closes_at - trio.current_time())
            return f"place your bets: {left:.0f} s"
        return "no more bets"  # Sch 19 s3(2)(d): whenever betting is closed

    def prompt_text(self) -> Text:
        return Text.assemble((self.clock_text(), "bold"), f"  credits {money(self.credits)}")

    def table_panel(self) -> Panel:
        grid = Table.grid(padding=(0, 2))
        limits = self.config.get("limits", {})
        grid.add_row("round", f"#{self.round}  {self.clock_text()}")
        grid.add_row("credits", money(self.credits))
        grid.add_row("limits", f"{money(limits.get('minimum'))} - {money(limits.get('maximum'))}")
        if self.puck is not None or self.config.get("game") == "craps":
            grid.add_row("puck", f"ON {self.puck}" if self.puck else "OFF (come-out roll)")
        grid.add_row("wagers", Text(self.wagers_text()))  # "[win]" is text, not markup
        if self.last:
            grid.add_row(
                "last round",
                f"#{self.last['round']} {self.last['call']}: bet {money(self.last['bet_total'])}, "
                f"won {money(self.last['won_total'])}",
            )
        grid.add_row("results", " | ".join(h["call"] for h in self.history[:8]) or "none")
        return Panel(grid, title=self.info.get("name", self.tv.table), border_style="green")

    def wagers_text(self) -> str:
        """The riding wagers by their names (``Pass line $5.00, Big 6 $1.00``; the ids are
        what ``b`` takes, shown after the name where they differ)."""
        return ", ".join(f"{named(p)} {money(a)}" for p, a in self.wagers.items()) or "none"

    def refusal_text(self, msg: dict[str, Any]) -> str:
        """A refusal that opens with a position id (``any7: ...``) opens with its name."""
        text = str(msg.get("message"))
        found = _LEADING_ID.match(text)
        return f"{label(found.group(1))}{text[found.end(1) :]}" if found else text

    def left_text(self, msg: dict[str, Any]) -> str:
        return f"you left the table; {money(msg.get('returned'))} back to the wallet"

    # events
    def apply(self, ev: dict[str, Any]) -> str | None:
        kind = ev.get("type")
        if kind == "betting_open":
            self.status, self.round = "betting_open", ev["round"]
            self.closes_at = trio.current_time() + ev["closes_in_ms"] / 1000
            return f"round #{self.round}: place your bets"
        if kind == "no_more_bets":
            self.status, self.closes_at = "no_more_bets", None
            return "no more bets"
        if kind == "round_result":
            self.status = "settled"
            if ev.get("outcome") is not None:
                self.history.insert(0, {"round": ev["round"], "call": ev["call"]})
            self.puck = ev.get("puck")
            return f"result: {ev['call']}"
        if kind == "settlement":
            self.credits, self.wagers, self.last = ev["credits"], dict(ev["riding"]), ev
            return f"you bet {money(ev['bet_total'])}, won {money(ev['won_total'])}"
        if kind in ("bet_ack", "credit_meter", "round_adjusted"):
            self.credits = ev["credits"]
            if kind == "bet_ack":  # the answer to a typed wager
                self.wagers = dict(ev["wagers"])
                return f"wagers: {self.wagers_text()}" if self.bot is None else None
            return f"credits {money(self.credits)}"
        if kind == "cashed_out":
            self.credits = 0
            return f"cashed out {money(ev['amount'])}"
        if kind in ("no_spin", "round_voided", "result_corrected", "limits_notice"):
            return f"{kind.replace('_', ' ')}: " + ", ".join(
                f"{k} {v}" for k, v in ev.items() if k != "type"
            )
        if kind == "limits_changed":
            self.config["limits"] = {"minimum": ev["minimum"], "maximum": ev["maximum"]}
            return f"limits now {money(ev['minimum'])} - {money(ev['maximum'])}"
        return None

    async def on_table_message(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "recall":
            last = msg.get("last_round")
            self.say(
                "no previous round"
                if not last
                else f"last round #{last['round']}: {last['call']}; bet "
                f"{money(last['bet_total'])}, won {money(last['won_total'])}"
            )
            return
        if msg.get("type") != "event":
            return
        ev = msg["event"]
        line = self.apply(ev)
        if line:
            self.say(line, "bold" if ev.get("type") in ("betting_open", "round_result") else "")
        if ev.get("type") == "settlement":
            self.hands_played += 1
            if self.bot is not None and self.hands_played >= self.hands_wanted:
                await self.leave()
        if self.bot is not None and ev.get("type") == "betting_open":
            await self.bot_move()
        elif self.bot is None:
            await self.flush()
        self.refresh()

    async def bot_move(self) -> None:
        """A random wager of the minimum on a random position of the layout."""
        assert self.bot is not None
        if self.hands_played >= self.hands_wanted:
            return
        if self.credits < 10 * self.config.get("limits", {}).get("minimum", 100):
            await self.send_command(StadiumCommand("credit", amount=10_000))
        choices = positions(self.config.get("layout", {}))
        if choices:
            minimum = self.config.get("limits", {}).get("minimum", 100)
            await self.send_command(StadiumCommand("place", self.bot.choice(choices), minimum))

    async def send_command(self, cmd: StadiumCommand) -> None:
        await self.client.send(self.message(cmd))

    def message(self, cmd: StadiumCommand) -> dict[str, Any]:
        """The protocol message of a typed command (protocol/README.md, stadium tables)."""
        if cmd.kind == "place":
            msg: dict[str, Any] = {"position": cmd.position, "amount": cmd.amount}
        elif cmd.kind == "marker":
            msg = {"position": cmd.position, "on": cmd.on}
        elif cmd.kind == "credit":
            msg = {"amount": cmd.amount}
        else:
            msg = {}
        kind = {"credit": "credit_in"}.get(cmd.kind, cmd.kind)
        return {"type": kind, "table": self.tv.table, **msg}

    def moment(self, cmd: StadiumCommand) -> dict[str, Any] | bool:
        """Wagers and markers wait for an open betting window (Sch 19 s5(2)); the rest go."""
        if cmd.kind in ("place", "marker") and self.status != "betting_open":
            return True
        return self.message(cmd)

    async def on_play_command(self, cmd: StadiumCommand) -> None:
        if self.tv.role != "player" and cmd.kind != "recall":
            self.say("spectators cannot wager", "red")
            return
        if cmd.position is not None:  # a position typed by its name: its id
            cmd = replace(cmd, position=resolve(cmd.position, self.config.get("layout", {})))
        self.pending.append(cmd)
        await self.flush()
        if any(c is cmd for c in self.pending):
            self.say(
                f"{cmd.kind} {named(cmd.position or '')} waits for the next betting window", "dim"
            )
