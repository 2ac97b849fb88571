"""Tournaments in the terminal client (protocol/README.md, "Tournaments"; issue 15).

At the lobby prompt (or with ``--tournament ID``): ``tournaments`` lists them with their
published conditions (2017 r 17.2(b)), ``register ID`` enters one (the fee leaves the
wallet), ``unregister ID`` withdraws (refunded in full). Once registered the client prints the
tournament's news until the tournament seats you: its table's snapshot arrives by itself.

Theory of operation. :class:`TournamentSession` is the poker room's session
(:class:`~clients.terminal.room.RoomSession`) at a tournament table, with three changes:

* **Chips.** Every amount at the table (stacks, bets, pots, blinds, typed bets) counts
  tournament chips: the session sets :data:`~clients.terminal.render.IN_CHIPS` while it
  draws, reads or types for its table, so ``money`` writes ``1,500`` and ``parse_amount``
  reads whole chips. The wallet and the prizes stay dollars.
* **The status line** over the table: the level and its blinds, the time left in the level
  (or the break), the players left, your table and seat, your place and prize.
* **It follows you.** A move between hands sends ``left`` (``reason`` ``moved``) from the
  old table and a ``snapshot`` of the new one: the session carries on at the new table. Out
  of chips (``eliminated``) or at the end, it waits for your place (and prize) and ends.
"""

from __future__ import annotations

import argparse
import contextlib
import random
from collections import deque
from collections.abc import Iterator
from typing import Any

import trio
from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from clients.client import Client, ServerError, TableView
from clients.terminal.commands import POKER_HELP, BadCommand, Command
from clients.terminal.render import IN_CHIPS, money
from clients.terminal.room import ROOM_HELP, RoomSession, parse_room_command
from clients.terminal.session import LineEditor, next_line, play_session

TOURNAMENT_HELP = """
Tournaments (amounts at a tournament table are tournament chips, typed as whole numbers):
    tournaments         list the tournaments and their conditions
    register ID         enter one (the entry fee leaves the wallet)
    unregister ID       withdraw before it starts (fee and commission refunded)
The tournament seats you and moves you between tables by itself; q sits you out (the seat
stays yours, blinded and folding) and quits."""

WORDS = ("tournaments", "register", "unregister")


def is_tournament_line(line: str) -> bool:
    """Whether a typed line is a tournament command (see :data:`TOURNAMENT_HELP`)."""
    parts = line.strip().split()
    return bool(parts) and parts[0].lower() in WORDS


def parse_tournament_command(line: str) -> Command:
    """``tournaments`` / ``register ID`` / ``unregister ID`` -> a :class:`Command` whose
    ``kind`` is the word and ``verb`` the tournament id."""
    parts = line.strip().split()
    word = parts[0].lower()
    if word == "tournaments":
        return Command(word)
    if len(parts) != 2:
        raise BadCommand(f"usage: {word} ID (the tournament's id: type tournaments)")
    return Command(word, parts[1])


@contextlib.contextmanager
def in_chips(on: bool = True) -> Iterator[None]:
    """Amounts shown and typed inside are tournament chips (see the module docstring)."""
    token = IN_CHIPS.set(on)
    try:
        yield
    finally:
        IN_CHIPS.reset(token)


def chips(n: int) -> str:
    with in_chips():
        return money(n)


def dollars(cents: int | None) -> str:
    """Money (the wallet, fees, prizes), in dollars even while a table's chips are shown."""
    with in_chips(False):
        return money(cents)


def is_tournament_view(view: dict[str, Any]) -> bool:
    return bool((view.get("table") or {}).get("tournament"))


# -- the list ----------------------------------------------------------------------------------
def start_text(c: dict[str, Any]) -> str:
    if c.get("sit_and_go"):
        return f"sit & go at {c['sit_and_go']}"
    return f"at {c['starts_at']}" if c.get("starts_at") else "by the director"


def tournaments_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The tournaments and what their conditions publish, three lines each (money in
    dollars, chips as chips)."""
    if not rows:
        return ["no tournaments on this server"]
    out = []
    for r in rows:
        c = r.get("conditions") or {}
        levels = ", ".join(
            f"{'/'.join(chips(b) for b in lv['blinds'])} {lv['minutes']}m"
            for lv in c.get("levels") or []
        )
        if not levels and c.get("limits"):
            levels = f"limits {chips(c['limits']['minimum'])}-{chips(c['limits']['maximum'])}"
        breaks = "; ".join(
            f"{b['minutes']}m after "
            + (
                f"level {b['after_level']}"
                if b.get("after_level")
                else f"session {b['after_session']}"
            )
            for b in c.get("breaks") or []
        )
        prizes = "/".join(str(p) for p in c.get("prizes") or [])
        phase = r["phase"].replace("_", " ")
        out.append(f"{r['id']}  {r['name']}  ({r['game']}, {phase}, {start_text(c)})")
        out.append(
            f"    entry {dollars(c.get('entry_fee'))} ({dollars(c.get('commission'))} commission),"
            f" {chips(c.get('chips', 0))} chips; {r['entries']}/{c.get('max_players')} entered,"
            f" pool {dollars(r['pool'])}"
        )
        out.append(
            f"    players {c.get('min_players')}-{c.get('max_players')}; levels {levels}"
            + (f"; breaks {breaks}" if breaks else "")
            + f"; prizes {prizes}% of the pool; ties {c.get('ties')}"
        )
    return out


# -- the state messages --------------------------------------------------------------------------
def clock(ms: float) -> str:
    seconds = max(0, int(ms + 999) // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


def place_text(m: dict[str, Any]) -> str:
    text = f"you finished in place {m['place']}"
    return text + (f" and won {dollars(m['prize'])}" if m.get("prize") else "")


def status_text(m: dict[str, Any] | None, elapsed: float = 0.0) -> Text:
    """The status line: level, blinds, the clock, players left, your seat or place."""
    if m is None:
        return Text("tournament", style="bold")
    parts: list[str] = [f"{m['tournament']}: {m['phase'].replace('_', ' ')}"]
    if m.get("level"):
        parts.append(f"level {m['level']}, blinds {'/'.join(chips(b) for b in m['blinds'])}")
    if m["phase"] == "on_break":
        left = m.get("break_ms")
        parts.append("paused" if left is None else f"break {clock(left - elapsed * 1000)}")
    elif m.get("level_ms") is not None and m["phase"] == "running":
        parts.append(f"level ends in {clock(m['level_ms'] - elapsed * 1000)}")
    if m["phase"] in ("registering", "announced"):
        parts.append(f"{m['entries']} entered")
    else:
        parts.append(f"{m['players_left']}/{m['entries']} left")
    if m.get("table"):
        parts.append(f"you: table {str(m['table']).rsplit('.', 1)[-1]} seat {m['seat']}")
    if m.get("place"):
        parts.append(place_text(m))
    return Text("  |  ".join(parts), style="bold cyan")


def news(m: dict[str, Any], before: dict[str, Any] | None, me: str | None) -> list[str]:
    """What a ``tournament`` message tells this player, as log lines."""
    out: list[str] = []
    for ev in m.get("events") or []:
        kind = ev.get("type")
        if kind == "tournament_seated" and ev.get("player") == me:
            how = "moved to" if ev.get("how") == "moved" else "seated at"
            out.append(f"you were {how} table {ev['table']}, seat {ev['seat']}")
        elif kind == "tournament_session_started":
            out.append(
                f"the tournament starts: {ev['players']} players, {chips(ev['chips'])} chips"
            )
        elif kind == "tournament_break":
            out.append(f"break: {ev['minutes']} minutes once the hands in play are over")
        elif kind == "tournament_break_ended":
            out.append("the break is over")
        elif kind == "tournament_eliminated" and me not in (ev.get("players") or []):
            out.append(
                f"{len(ev.get('players') or [])} out (place {ev['first']}): "
                f"{m['players_left']} left"
            )
        elif kind == "tournament_cancelled":
            out.append(f"the tournament is cancelled ({ev.get('reason')}): entry fees refunded")
        elif kind == "tournament_complete":
            out.append("the tournament is complete")
    if before is not None and m.get("level") and m["level"] != before.get("level"):
        out.append(f"level {m['level']}: blinds {'/'.join(chips(b) for b in m['blinds'])}")
    if m.get("place") and (
        before is None or (before.get("place"), before.get("prize")) != (m["place"], m.get("prize"))
    ):
        out.append(place_text(m))
    return out


# -- at the table --------------------------------------------------------------------------------
class TournamentSession(RoomSession):
    """The poker room at a tournament table (see the module docstring)."""

    HELP = POKER_HELP + ROOM_HELP + TOURNAMENT_HELP
    HINT = RoomSession.HINT + "  tournaments (amounts are chips)"

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
        # a tournament seat has no entry terms: no buy-in, and the cash table's vacating rules
        # do not apply (server/tournaments/tables.py)
        (table.view.get("table") or {}).pop("entry", None)
        with in_chips():
            super().__init__(client, table, console, live=live, bot=bot, hands=hands)
        self.tournament = next(
            (t for t, m in client.tournament_state.items() if m.get("table") == table.table),
            table.table.rsplit(".", 1)[0],
        )
        self.state_at = trio.current_time()
        self.out = False  # off the tables: waiting for the place (and the prize)
        self.prizes = 0  # paid places (from the conditions, when the list was read)
        self.before: dict[str, Any] | None = None  # the previous tournament state message

    @property
    def state(self) -> dict[str, Any] | None:
        return self.client.tournament_state.get(self.tournament)

    def at_home(self) -> bool:
        """Whether the table in focus is the tournament's (amounts in chips)."""
        return self.focused() is self

    def parse(self, line: str) -> Command | None:  # type: ignore[override]  # chips
        if is_tournament_line(line):
            return parse_tournament_command(line)
        with in_chips(self.at_home()):
            return parse_room_command(line)

    # -- display ---------------------------------------------------------------------------
    def table_panel(self) -> Panel:
        with in_chips(self.at_home()):
            panel = super().table_panel()
        elapsed = trio.current_time() - self.state_at
        body = Group(status_text(self.state, elapsed), panel.renderable)
        title = f"{panel.title}  (tournament chips)" if self.at_home() else panel.title
        wallet = f"wallet {dollars(self.client.balance)}"
        return Panel(body, title=title, subtitle=wallet, border_style="green")

    def prompt_text(self) -> Text:
        if self.out:
            return Text("out of the tournament: waiting for the result  (q to quit)", style="dim")
        with in_chips(self.at_home()):
            return super().prompt_text()

    # -- messages --------------------------------------------------------------------------
    async def on_message(self, msg: dict[str, Any]) -> None:
        kind, tid = msg.get("type"), msg.get("table")
        if kind == "tournament":
            if msg["tournament"] == self.tournament:
                self.on_state(msg)
            return
        if kind == "tournaments":
            self.say_lines(msg["tournaments"])
            return
        if kind == "left" and tid == self.tv.table:
            if msg.get("reason") == "moved":
                self.say("moving to your new table...", "yellow")
            else:
                self.out = True
                self.say(f"you are off the table ({msg.get('reason')})", "yellow")
                self.finish_if_placed()
            return
        if kind == "snapshot" and tid != self.tv.table and is_tournament_view(msg["view"]):
            await self.move_to(msg)
            return
        event = msg.get("event") or {}
        if kind == "event" and tid == self.tv.table and event.get("type") == "stake":
            seat = event["seat"]  # no buy-in: the tournament seats a player with its chips
            self.say(f"{self.name(seat)} sits down with {chips(event['stake'])} chips")
            return
        with in_chips(tid == self.tv.table or (tid is None and self.at_home())):
            await super().on_message(msg)

    async def move_to(self, snapshot: dict[str, Any]) -> None:
        """The tournament seated this player at another table: play on there."""
        old = self.tv.table
        self.tv = self.client.tables[snapshot["table"]]
        if self.focus == old:
            self.focus = self.tv.table
        self.turn, self.my_legal, self.pending = None, {}, deque()
        self.say(f"you now play at {self.tv.table}, seat {snapshot['seat']}", "bold yellow")
        with in_chips():
            await self.on_table_message(snapshot)  # the hand in play there, if any
        if self.live is None and self.bot is None:
            self.show_table()

    def on_state(self, msg: dict[str, Any]) -> None:
        before, self.before = self.before, msg
        self.state_at = trio.current_time()
        for line in news(msg, before, self.client.account):
            self.say(line, "bold cyan")
        if msg["phase"] in ("complete", "cancelled"):
            self.out = True
        self.finish_if_placed()
        self.refresh()

    def finish_if_placed(self) -> None:
        """Off the tables with a place: the session ends (a paid place waits for its prize,
        paid when the tournament is complete)."""
        m = self.state
        if not self.out or m is None:
            return
        paid = m.get("prize") is not None or m["phase"] in ("complete", "cancelled")
        if m.get("place") and (paid or (self.prizes and m["place"] > self.prizes)):
            self.done.set()
        elif m["phase"] == "cancelled":
            self.done.set()

    def say_lines(self, rows: list[dict[str, Any]]) -> None:
        self.prizes = next(
            (len(r["conditions"].get("prizes") or []) for r in rows if r["id"] == self.tournament),
            self.prizes,
        )
        for line in tournaments_lines(rows):
            self.say(line, "cyan")

    async def after_round(self) -> None:
        """A tournament is played to its end (a bot does not leave after --hands)."""
        return None

    async def on_command(self, cmd: Any) -> bool:
        if cmd.kind == "tournaments":
            await self.client.send({"type": "tournaments"})
            return True
        if cmd.kind in ("register", "unregister"):
            await self.client.send({"type": cmd.kind, "tournament": cmd.verb})
            return True
        if cmd.kind == "quit" or self.focused() is not self:
            return await super().on_command(cmd)
        with in_chips():
            return await super().on_command(cmd)

    async def leave(self) -> None:
        """``q``: the tournament keeps the seat (sitting out, blinded and folding, ACT 6.3)."""
        for tid in list(self.others):
            await self.client.send({"type": "leave", "table": tid})
        if not self.out:
            await self.client.send({"type": "leave", "table": self.tv.table})
            self.say("you sit out: the tournament keeps your seat (come back with --token-file)")
        self.done.set()


# -- the lobby prompt ----------------------------------------------------------------------------
async def tournament_line(
    client: Client,
    args: argparse.Namespace,
    console: Console,
    lines: trio.MemoryReceiveChannel[str | None],
    editor: LineEditor | None,
    line: str,
) -> int | None:
    """A tournament command typed at the lobby prompt. ``register ID`` then waits for the
    seat and plays the tournament (the exit status); otherwise None: back to the prompt."""
    try:
        cmd = parse_tournament_command(line)
    except BadCommand as exc:
        console.print(f"[red]{exc}[/red]")
        return None
    rows = await client.tournaments()
    if cmd.kind == "tournaments":
        for text in tournaments_lines(rows):
            console.print(text, style="cyan")
        return None
    try:
        if cmd.kind == "unregister":
            await client.unregister(cmd.verb or "")
            console.print(f"unregistered from {cmd.verb}; wallet {dollars(client.balance)}")
            return None
        state = await client.register(cmd.verb or "")
    except ServerError as exc:
        console.print(f"[red]{cmd.kind} refused: {exc}[/red]")
        return None
    console.print(
        f"registered for {cmd.verb}: {state['entries']} entered; the tournament seats you "
        "when it starts (unregister ID to withdraw, q to quit)"
    )
    prizes = next(
        (len(r["conditions"].get("prizes") or []) for r in rows if r["id"] == cmd.verb), 0
    )
    table = await wait_for_seat(client, console, lines, cmd.verb or "")
    if table is None or isinstance(table, int):
        return table  # back to the prompt (withdrawn, cancelled), or quit
    return await play(client, args, console, lines, editor, table, prizes)


async def wait_for_seat(
    client: Client,
    console: Console,
    lines: trio.MemoryReceiveChannel[str | None],
    tournament: str,
) -> TableView | int | None:
    """Registered: the tournament's news until its table's snapshot arrives (that table);
    None when the player withdraws or the tournament is cancelled (back to the lobby
    prompt); 0 when the player quits (still registered)."""
    seated: TableView | int | None = None
    async with trio.open_nursery() as nursery:

        async def messages() -> None:
            nonlocal seated
            before: dict[str, Any] | None = None
            while True:
                msg = await client.recv()
                kind = msg.get("type")
                if kind == "snapshot" and is_tournament_view(msg["view"]):
                    seated = client.tables[msg["table"]]
                    nursery.cancel_scope.cancel()
                    return
                if kind == "tournament" and msg["tournament"] == tournament:
                    for text in news(msg, before, client.account):
                        console.print(text, style="cyan")
                    before = msg
                    if msg["phase"] == "cancelled" or not msg["registered"]:
                        wallet = dollars(client.balance)
                        console.print(f"you are not in {tournament} any more; wallet {wallet}")
                        nursery.cancel_scope.cancel()
                        return
                elif kind == "tournaments":
                    for text in tournaments_lines(msg["tournaments"]):
                        console.print(text, style="cyan")
                elif kind == "error":
                    console.print(f"[red]refused: {msg.get('message')}[/red]")

        async def typed() -> None:
            nonlocal seated
            while True:
                line = await next_line(lines)
                if line is None:
                    await trio.sleep_forever()  # no more input: wait for the seat all the same
                assert line is not None
                if line.strip().lower() in ("q", "quit"):
                    console.print("you stay registered: the tournament seats you when it starts")
                    seated = 0
                    nursery.cancel_scope.cancel()
                    return
                if is_tournament_line(line):
                    try:
                        cmd = parse_tournament_command(line)
                    except BadCommand as exc:
                        console.print(f"[red]{exc}[/red]")
                        continue
                    msg: dict[str, Any] = {"type": cmd.kind}
                    if cmd.verb:
                        msg["tournament"] = cmd.verb
                    await client.send(msg)
                elif line.strip():
                    console.print("waiting for the tournament: tournaments, unregister ID, q")

        nursery.start_soon(messages)
        nursery.start_soon(typed)
    return seated


async def play(
    client: Client,
    args: argparse.Namespace,
    console: Console,
    lines: trio.MemoryReceiveChannel[str | None],
    editor: LineEditor | None,
    table: TableView,
    prizes: int = 0,
) -> int:
    """Play the tournament from the table it seated this player at, to the player's place."""
    rng = random.Random(args.seed) if args.bot else None
    player = TournamentSession(client, table, console, live=editor is not None, bot=rng)
    player.editor = editor
    player.prizes = prizes
    player.say(f"the tournament seats you at {table.table}, seat {table.seat}", "bold yellow")
    await play_session(player, lines, bot=bool(args.bot))
    m = player.state or {}
    if m.get("place"):
        console.print(f"{m['tournament']}: {place_text(m)}; wallet {dollars(client.balance)}")
    return 1 if player.closed else 0
