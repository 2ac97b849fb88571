"""A seat (or spectator) at a player-vs-player poker table: turns, actions, the live hand."""

from __future__ import annotations

import math
import random
import re
from typing import Any

import trio
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.client import Client, TableView
from clients.terminal.commands import POKER_HELP, Command, check_action, parse_command
from clients.terminal.hand import ALIASES, Hand, SeatHand, describe
from clients.terminal.render import card_text, legal_summary, money
from clients.terminal.session import Session
from server.errors import ScenarioError
from server.games.poker.rules import rules_for
from server.hands.showdown import shown_hand_name

#: the player-vs-player poker games this client plays (banked games are listed, not played)
POKER_GAME = re.compile(r"(holdem|omaha|manila)-(act|qld)$")


class PokerSession(Session):
    """One seat (or spectator) at a poker table: the hand, our turn and the actions typed."""

    HELP = POKER_HELP
    HINT = "commands: f k c b r a buy o i t h q"
    ROUNDS = "hands"

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
        view = table.view
        self.hand: Hand | None = None
        if view.get("round"):
            self.hand = Hand.from_view(view.get("hand", 0), view["round"])
        self.turn: dict[str, Any] | None = None  # the last turn message
        self.turn_at = 0.0
        self.my_legal: dict[str, Any] = {}  # non-empty while it is our turn and we have not acted
        self.dealt_in = False

    @staticmethod
    def parse(line: str) -> Command | None:
        return parse_command(line)

    def hand_label(self, cards: list[str], category: str) -> str:
        """A shown hand named with its ranks (``two pair, kings and nines``), valued as the
        table's game values it; the event's category when the game is unknown here."""
        try:
            rules = rules_for(str(self.tv.view.get("table", {}).get("game")))
        except ScenarioError:
            return category
        board = self.hand.board if self.hand else []
        return shown_hand_name(cards, board, rules.exact_use, rules.ranking) or category

    # names
    @property
    def me(self) -> int | None:
        return self.tv.seat if self.tv.role == "player" else None

    def name(self, seat: int | None) -> str:
        info = self.tv.seat_info(seat) if seat is not None else None
        label = info["name"] if info else f"seat {seat}"
        return f"{label} (you)" if seat is not None and seat == self.me else label

    # output
    def prompt_text(self) -> Text:
        if self.my_legal:
            return Text.assemble(
                ("your turn", "bold yellow"),
                f" ({self.seconds_left()}s): ",
                legal_summary(self.my_legal),
            )
        if self.tv.role != "player":
            return Text("watching  (q to quit)", style="dim")
        return Text("waiting  (h help, q quit)", style="dim")

    def seconds_left(self) -> int:
        if not self.turn:
            return 0
        left = self.turn.get("time_ms", 0) / 1000 - (trio.current_time() - self.turn_at)
        return max(0, math.ceil(left))

    def table_panel(self) -> Panel:
        view = self.tv.view
        info = view.get("table", {})
        hand = self.hand
        grid = Table(expand=False, box=None, padding=(0, 2), show_edge=False)
        for col in ("seat", "player", "stack", "bet", "cards", ""):
            grid.add_column(
                col, justify="right" if col in ("stack", "bet") else "left", header_style="dim"
            )
        for s in view.get("seats", []):
            n = s["seat"]
            h = hand.seats.get(n) if hand else None
            ended = hand.ended if hand else False
            stack = h.stack if h and not ended else s["stake"]
            notes = []
            if view.get("designated") == n:
                notes.append("D")
            if hand and hand.to_act == n and not hand.ended:
                notes.append("<- to act")
            if h and h.folded:
                notes.append("folded")
            if h and h.allin and not ended:
                notes.append("all in")
            if h and h.category:
                notes.append(h.category.replace("_", " "))
            if h and h.won:
                notes.append(f"wins {money(h.won)}")
            if s.get("sitting_out"):
                notes.append("sitting out")
            if not s.get("connected", True):
                notes.append("away")
            if h is None:
                cards = Text("")
            elif h.cards:
                cards = card_text(h.cards)
            elif h.mucked:
                cards = Text("mucked", style="dim")
            else:
                cards = Text("" if h.folded else "## ##", style="dim")
            style = "bold" if n == self.me else ""
            grid.add_row(
                str(n),
                Text(self.name(n), style=style),
                money(stack),
                money(h.bet) if h and h.bet else "",
                cards,
                " ".join(notes),
            )
        lines: list[Any] = [grid]
        if hand:
            board = card_text(hand.board) if hand.board else Text("(no board yet)", style="dim")
            lines.append(Text.assemble("board  ", board, "    pot ", (money(hand.pot), "bold")))
            if hand.ended:
                res = "; ".join(
                    f"{'pot' if not p.get('pot') else 'side pot ' + str(p['pot'])} "
                    f"{money(p['amount'])} -> {', '.join(self.name(w) for w in p['winners'])}"
                    for p in hand.pots
                ) or (f"voided ({hand.voided})" if hand.voided else "")
                if hand.commission:
                    res += f"; commission {money(hand.commission)}"
                lines.append(Text("result: " + res, style="green"))
        if self.turn and hand and not hand.ended:
            lines.append(
                Text(
                    f"{self.name(self.turn['seat'])} to act, {self.seconds_left()}s left",
                    style="yellow",
                )
            )
        stakes = "/".join(money(v) for v in (info.get("stakes") or {}).values())
        title = f"{info.get('name', self.tv.table)}  {stakes}  hand #{view.get('hand', 0)}"
        balance = f"wallet {money(self.client.balance)}"
        return Panel(Group(*lines), title=title, subtitle=balance, border_style="green")

    # the message loop
    async def on_refused(self, msg: dict[str, Any]) -> None:
        if msg.get("ref") == "act" and self.turn and self.turn.get("seat") == self.me:
            self.my_legal = dict(self.turn.get("legal") or {})  # still our turn
            await self.maybe_act()

    def left_text(self, msg: dict[str, Any]) -> str:
        return (
            f"you left the table: {money(self.returned)} back to the wallet ({msg.get('reason')})"
        )

    async def on_table_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "snapshot":
            self.hand = (
                Hand.from_view(msg["view"].get("hand", 0), msg["view"]["round"])
                if msg["view"].get("round")
                else None
            )
            self.refresh()
            return
        if kind == "turn":
            self.turn, self.turn_at = msg, trio.current_time()
            if self.hand:
                self.hand.to_act = msg["seat"]
            if msg["seat"] == self.me and msg.get("legal"):
                self.my_legal = dict(msg["legal"])
                if self.live is None and self.bot is None and not self.pending:
                    self.show_table()
                    self.console.print(self.prompt_text())
                await self.maybe_act()
            self.refresh()
            return
        if kind != "event":
            return
        ev = msg["event"]
        etype = ALIASES.get(ev.get("type", ""), ev.get("type"))
        if etype == "hand_shown" and ev.get("cards"):
            ev = {**ev, "category": self.hand_label(ev["cards"], ev.get("category", ""))}
        if etype == "round_starting":
            self.hand = Hand(number=ev["hand"])
            for n in ev.get("seats", []):
                info = self.tv.seat_info(n)
                self.hand.seats[n] = SeatHand(stack=info["stake"] if info else 0)
            self.dealt_in = self.me in ev.get("seats", [])
        elif self.hand is not None:
            self.hand.apply(ev)
        if etype == "action_taken" and self.turn and ev.get("seat") == self.turn.get("seat"):
            self.turn = None
            if ev.get("seat") == self.me:
                self.my_legal = {}
        line = describe(ev, self.name, self.me)
        if line:
            self.say(line, "bold" if etype in ("round_starting", "pot_awarded") else "")
        if etype in ("round_ended", "round_voided"):
            self.turn, self.my_legal = None, {}
            if self.live is None and self.bot is None:
                self.show_table()
            if self.dealt_in:
                self.hands_played += 1
                self.dealt_in = False
            await self.after_round()
        self.refresh()

    async def after_round(self) -> None:
        if self.bot is None:
            return
        if self.hands_played >= self.hands_wanted:
            await self.leave()
            return
        info = self.tv.view.get("table", {})
        stake = self.tv.stake or 0
        low = info.get("min_buy_in") or 0
        if stake < low:
            amount = buy_in_amount(info, stake)
            if amount > 0 and amount <= (self.client.balance or 0):
                await self.client.send({"type": "buy_in", "table": self.tv.table, "amount": amount})

    async def maybe_act(self) -> None:
        """Act if it is our turn and an action is waiting (a typed command or the bot)."""
        if not self.my_legal:
            return
        if self.bot is not None:
            verb, amount = bot_choice(self.my_legal, self.bot)
            await self.act(Command("act", verb, amount))
            return
        while self.pending and self.my_legal:
            cmd = self.pending.popleft()
            problem = check_action(cmd, self.my_legal)
            if problem:
                self.say(problem, "red")
                continue
            await self.act(cmd)

    async def act(self, cmd: Command) -> None:
        self.my_legal = {}
        await self.client.act(self.tv.table, cmd.verb or "", cmd.amount)

    async def on_play_command(self, cmd: Command) -> None:
        if cmd.kind == "buy":
            await self.client.send({"type": "buy_in", "table": self.tv.table, "amount": cmd.amount})
        elif cmd.kind == "sit_out":
            await self.client.sit_out(self.tv.table)
        elif cmd.kind == "sit_in":
            await self.client.sit_in(self.tv.table)
        elif cmd.kind == "act":
            if self.tv.role != "player":
                self.say("spectators cannot act", "red")
            else:
                self.pending.append(cmd)
                if not self.my_legal:
                    self.say(f"{cmd.verb} will be played at your turn", "dim")
                await self.maybe_act()


def buy_in_amount(info: dict[str, Any], stake: int = 0, wanted: int | None = None) -> int:
    """A buy-in within the table's limits: ``wanted``, else five minimums (capped)."""
    low = info.get("min_buy_in") or 0
    high = info.get("max_buy_in")
    target = wanted if wanted is not None else max(low, 5 * low) - stake
    if high is not None:
        target = min(target, high - stake)
    return max(target, low - stake, 0)


def bot_choice(legal: dict[str, Any], rng: random.Random) -> tuple[str, int | None]:
    """A random legal action within the bounds the server sent (mostly passive)."""
    if "check" in legal and rng.random() < 0.6:
        return "check", None
    if "call" in legal and rng.random() < 0.6:
        return "call", None
    verb = rng.choice(sorted(legal))
    if verb in ("bet", "raise"):
        bounds = legal[verb]
        if bounds.get("sizes"):
            return verb, rng.choice(bounds["sizes"])
        lo, hi = bounds["min"], bounds["max"]
        return verb, lo if rng.random() < 0.7 else rng.randint(lo, min(hi, 4 * lo))
    return verb, None
