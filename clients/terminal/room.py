"""The poker room in the terminal: several tables on one connection, pre-actions, waiting
lists and seat offers (protocol/README.md, "The poker room").

:class:`RoomSession` is the first table's :class:`~clients.terminal.poker.PokerSession`
plus every other table joined from it (``join ID``), each a :class:`OtherTable` whose log
lines carry its table id. Typed commands go to the table in focus (``go ID`` switches); the
prompt lists the tables and marks those where it is your turn. Joins are sent without
waiting for the reply: the one message loop (``pump_messages``) receives the snapshot.
"""

from __future__ import annotations

import random
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from clients.client import Client, TableView
from clients.terminal.commands import POKER_HELP, BadCommand, Command, parse_amount, parse_command
from clients.terminal.poker import PokerSession, buy_in_amount
from clients.terminal.render import money

ROOM_HELP = """
Several tables, pre-actions, waiting lists:
    join ID [SEAT]   sit at another table too (bought in like the first)
    watch ID         watch another table       tables  list your tables (* = your turn)
    go ID            switch the table your commands and the display are for
    pre cf | k | c AMOUNT | ca | fa | x
                     before your turn: check/fold, check, call up to AMOUNT, call any,
                     fold to any bet; x clears it (applied by the server at your turn)
    blind wait | post
                     QLD: a new or returning seat waits for the second blind, or posts now
    wait ID [any]    join a full table's waiting list (any: every table like it)
    unwait ID        leave it          accept  take the seat you were offered"""

PRE_WORDS = {"cf": "check_fold", "k": "check", "c": "call", "ca": "call_any", "fa": "fold_any"}
ROOM_WORDS = ("join", "watch", "tables", "ls", "go", "pre", "blind", "wait", "unwait", "accept")


def parse_room_command(line: str) -> Command | None:
    """A typed line: a room command (``Command.kind`` is its word), else a table command."""
    parts = line.strip().split()
    if not parts or parts[0].lower() not in ROOM_WORDS:
        return parse_command(line)
    word, rest = parts[0].lower(), parts[1:]
    if word == "ls":
        word = "tables"
    if word == "pre":
        if not rest or rest[0].lower() not in (*PRE_WORDS, "x"):
            raise BadCommand("usage: pre cf | k | c AMOUNT | ca | fa | x")
        verb = PRE_WORDS.get(rest[0].lower())
        if verb == "call":
            if len(rest) != 2:
                raise BadCommand("usage: pre c AMOUNT (the most to call, in dollars)")
            return Command("pre", verb, parse_amount(rest[1]))
        return Command("pre", verb)
    if word in ("tables", "accept"):
        return Command(word)
    if word == "blind":
        if len(rest) != 1 or rest[0].lower() not in ("wait", "post"):
            raise BadCommand("usage: blind wait | blind post")
        return Command("blind", rest[0].lower())
    if not rest:
        raise BadCommand(f"usage: {word} ID")
    amount = None
    if word == "join" and len(rest) > 1:
        if not rest[1].isdigit():
            raise BadCommand("usage: join ID [SEAT]")
        amount = int(rest[1])  # the seat
    if word == "wait" and len(rest) > 1:
        amount = 1 if rest[1].lower() in ("any", "all") else 0  # first available
    return Command(word, rest[0], amount)


def entry_text(view: dict[str, Any]) -> str | None:
    """Before the first hand: what a new seat posts and the seat rules (``view.table.entry``)."""
    entry = (view.get("table") or {}).get("entry")
    if not entry:
        return None
    limits = f"buy-in {money(entry['min_buy_in'])}" + (
        f" to {money(entry['max_buy_in'])}" if entry.get("max_buy_in") else " or more"
    )
    if entry.get("post"):
        line = (
            f"{limits}; to be dealt in you post {money(entry['post'])} or wait for the second "
            "blind (QLD Sch 11 s23A: type blind wait); never dealt in on the button or the "
            "first blind (s21(3))"
        )
    else:
        line = f"{limits}; you are dealt in at the next hand, posting your position's blind"
    if entry.get("vacate_after"):
        line += f"; {entry['vacate_after']} hands without playing at a full table vacate the seat"
    return line


class PreActionLines(PokerSession):
    """Says the room's own events in words: the seat's ``pre_action`` (set, applied,
    changed...), a ``time_bank`` in use and a ``vacate_warning``."""

    async def on_table_message(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "event" and msg["event"].get("type") == "pre_action":
            ev = msg["event"]
            what = ev["verb"] or "none"
            if ev["amount"] is not None:
                what += f" {money(ev['amount'])}"
            self.say(f"pre-action {ev['reason']}: {what}", "dim")
            return
        if msg.get("type") == "event" and msg["event"].get("type") == "time_bank":
            ev = msg["event"]
            self.say(
                f"{self.name(ev['seat'])} is using the time bank ({ev['time_bank_ms'] // 1000} s)"
            )
            return
        if msg.get("type") == "event" and msg["event"].get("type") == "vacate_warning":
            self.say("one more hand without playing and your seat is vacated (ACT 18.8)", "yellow")
            return
        await super().on_table_message(msg)


class OtherTable(PreActionLines):
    """A table besides the first: its lines go to the room's log with its id."""

    def __init__(self, room: RoomSession, table: TableView) -> None:
        super().__init__(room.client, table, room.console, live=False, bot=room.bot)
        self.room = room

    def say(self, line: str | Text, style: str = "") -> None:
        text = line.plain if isinstance(line, Text) else line
        self.room.say(f"[{self.tv.table}] {text}", style)

    def refresh(self) -> None:
        self.room.refresh()

    def own_seed(self) -> str | None:
        return self.room.seed  # the seed set in the room is for every table

    def show_table(self) -> None:
        return None


class RoomSession(PreActionLines):
    """The first table, and the room around it (see the module docstring)."""

    HELP = POKER_HELP + ROOM_HELP
    HINT = PokerSession.HINT + "  join go pre wait tables"

    def __init__(
        self,
        client: Client,
        table: TableView,
        console: Console,
        *,
        live: bool,
        bot: random.Random | None = None,
        hands: int = 0,
    ) -> None:
        super().__init__(client, table, console, live=live, bot=bot, hands=hands)
        self.others: dict[str, OtherTable] = {}
        self.focus = table.table
        self.offer: dict[str, Any] | None = None
        self.buy_ins: dict[str, int] = {}  # tables joined as a player: buy in on the snapshot
        terms = entry_text(table.view) if table.role == "player" else None
        if terms:
            self.say(terms, "dim")

    @staticmethod
    def parse(line: str) -> Command | None:
        return parse_room_command(line)

    def tables(self) -> dict[str, PokerSession]:
        return {self.tv.table: self, **self.others}

    def focused(self) -> PokerSession:
        return self.others.get(self.focus, self)

    # -- display: the table in focus, and the list of tables -----------------------------
    def table_panel(self) -> Panel:
        focused = self.focused()
        return super().table_panel() if focused is self else focused.table_panel()

    def prompt_text(self) -> Text:
        focused = self.focused()
        prompt = super().prompt_text() if focused is self else focused.prompt_text()
        if not self.others:
            return prompt
        names = [
            f"{'>' if tid == self.focus else ''}{tid}{'*' if s.my_legal else ''}"
            for tid, s in self.tables().items()
        ]
        return Text.assemble(prompt, ("   tables: " + " ".join(names), "cyan"))

    # -- messages ------------------------------------------------------------------------
    async def on_message(self, msg: dict[str, Any]) -> None:
        kind, tid = msg.get("type"), str(msg.get("table") or "")
        if kind == "waiting":
            where = ", ".join(f"{t} #{n}" for t, n in msg["positions"].items()) or "none"
            self.say(f"waiting lists: {where}", "cyan")
            return
        if kind == "seat_offer":
            if msg["expires_ms"]:
                self.offer = msg
                seconds = msg["expires_ms"] // 1000
                self.say(
                    f"seat {msg['seat']} at {tid} is yours for {seconds} s: type accept",
                    "bold green",
                )
            else:
                self.offer = None
                self.say(f"the seat offered at {tid} passed to the next player", "yellow")
            return
        if kind == "snapshot" and tid != self.tv.table and tid not in self.others:
            other = self.others[tid] = OtherTable(self, self.client.tables[tid])
            self.say(
                f"joined {tid} as " + (f"seat {msg['seat']}" if msg["seat"] else "a spectator")
            )
            terms = entry_text(other.tv.view) if other.tv.role == "player" else None
            if terms:
                other.say(terms, "dim")
            wanted = self.buy_ins.pop(tid, None)
            if wanted is not None and not other.tv.stake:
                info = other.tv.view.get("table", {})
                amount = buy_in_amount(info, 0)
                await self.client.send({"type": "buy_in", "table": tid, "amount": amount})
                self.say(f"[{tid}] buying in for {money(amount)}")
            self.refresh()
            return
        found = self.others.get(tid)
        if found is None or kind == "error":
            await super().on_message(msg)
            return
        other = found
        was_turn = bool(other.my_legal)
        await other.on_message(msg)
        if other.done.is_set():
            del self.others[other.tv.table]
            if self.focus == other.tv.table:
                self.focus = self.tv.table
        elif other.my_legal and not was_turn and self.focus != other.tv.table:
            self.say(f"your turn at {other.tv.table} (go {other.tv.table})", "bold yellow")
        self.refresh()

    async def leave(self) -> None:
        for tid in list(self.others):
            await self.client.send({"type": "leave", "table": tid})
        await super().leave()

    # -- commands ------------------------------------------------------------------------
    async def on_command(self, cmd: Any) -> bool:
        kind = cmd.kind
        if kind not in ROOM_WORDS:
            focused = self.focused()
            if focused is self or kind in ("quit", "help"):
                return await super().on_command(cmd)
            return await focused.on_command(cmd)
        if kind == "tables":
            for tid, s in self.tables().items():
                cue = "  <- your turn" if s.my_legal else ""
                mark = ">" if tid == self.focus else " "
                self.say(f"{mark} {tid}: seat {s.tv.seat} ({s.tv.role}){cue}")
        elif kind == "go":
            if cmd.verb not in self.tables():
                self.say(f"you are not at {cmd.verb!r} (join it first)", "red")
            else:
                self.focus = cmd.verb
                self.say(f"now at {cmd.verb}")
                if self.live is None:
                    self.console.print(self.table_panel())
        elif kind in ("join", "watch"):
            msg: dict[str, Any] = {"type": "join", "table": cmd.verb}
            if kind == "watch":
                msg["role"] = "spectator"
            else:
                self.buy_ins[cmd.verb] = 1
                if cmd.amount:
                    msg["seat"] = cmd.amount
            await self.client.send(msg)
        elif kind == "accept":
            if self.offer is None:
                self.say("no seat is offered to you", "red")
            else:
                self.buy_ins[self.offer["table"]] = 1
                await self.client.send({"type": "join", "table": self.offer["table"]})
                self.offer = None
        elif kind == "pre":
            pre: dict[str, Any] = {"type": "pre_action", "table": self.focus, "verb": cmd.verb}
            if cmd.amount is not None:
                pre["amount"] = cmd.amount
            await self.client.send(pre)
        elif kind == "blind":
            wait = cmd.verb == "wait"
            await self.client.send({"type": "sit_in", "table": self.focus, "wait_for_blind": wait})
        elif kind == "wait":
            first = bool(cmd.amount)
            await self.client.send({"type": "wait", "table": cmd.verb, "first_available": first})
        elif kind == "unwait":
            await self.client.send({"type": "unwait", "table": cmd.verb})
        return True
