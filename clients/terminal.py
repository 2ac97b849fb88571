"""``croupier play``: sit at a table and play from a terminal.

    croupier play [--url ws://127.0.0.1:8765/ws] [--token T | --name NAME]
                  [--table ID] [--watch] [--seat N] [--buy-in AMOUNT]
    croupier play --bot [--hands N] [--table ID] [--seed S]

It speaks only the documented protocol (``protocol/README.md``) through ``clients/client.py``.
Commands, one per line on stdin:

    f  fold        k  check       c  call        a  all in
    b AMOUNT  bet (to AMOUNT)     r AMOUNT  raise to AMOUNT
    buy AMOUNT  buy in / top up (between rounds)      o / i  sit out / sit in
    t  show the table             h  help               q  leave the table and quit

At a banked table (players against the house) the commands are ``w BOX WAGER AMOUNT`` (a
wager in the betting window; 0 withdraws it), ``d BOX VERB [AMOUNT]`` or just ``VERB`` (the
decision a box owes), ``l`` (recall the last round), ``t``, ``h``, ``q``.

AMOUNT is in cents like everything in the protocol (``b 400`` bets $4.00); ``$4`` or ``4.00``
are read as dollars. A betting command, wager or decision typed before its moment waits for
it (and is checked against the legal actions then). On a terminal the table is a live
``rich`` display; with stdin/stdout piped every event is printed as a line, so the client
can be scripted.
``--bot`` plays random legal actions for ``--hands`` rounds, then leaves and prints a summary.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import trio
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from websockets.exceptions import ConnectionClosed

from clients.client import Client, ServerError, TableView

DEFAULT_URL = "ws://127.0.0.1:8765/ws"
VERBS = {"f": "fold", "k": "check", "c": "call", "a": "allin", "b": "bet", "r": "raise"}
SUIT_STYLE = {"s": ("\u2660", "bold white"), "h": ("\u2665", "bold red"),
              "d": ("\u2666", "bold blue"), "c": ("\u2663", "bold green")}
#: the engine's event names and the short names protocol/README.md lists: accept both
ALIASES = {"hole_cards": "hole_cards_dealt", "board": "board_dealt", "action": "action_taken",
           "commission": "commission_taken"}
#: the player-vs-player poker games this client plays (banked games are listed, not played)
POKER_GAME = re.compile(r"(holdem|omaha|manila)-(act|qld)$")
HELP = __doc__.split("Commands, one per line on stdin:")[1].split("AMOUNT is")[0].rstrip()


# -- money and cards -------------------------------------------------------------------------
def money(cents: int | None) -> str:
    """``12345`` -> ``$123.45`` (integer arithmetic only)."""
    if cents is None:
        return "-"
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


def parse_amount(text: str) -> int | None:
    """Cents from ``400`` (cents), ``$4``, ``4.00`` or ``$4.5`` (dollars); None if invalid."""
    text = text.strip().replace(",", "")
    m = re.fullmatch(r"(\$)?(\d+)(?:\.(\d{1,2}))?", text)
    if not m:
        return None
    dollars, whole, frac = m.groups()
    if dollars or frac is not None:
        return int(whole) * 100 + int((frac or "").ljust(2, "0"))
    return int(whole)


def card_text(cards: list[str] | None) -> Text:
    out = Text()
    for i, c in enumerate(cards or []):
        pip, style = SUIT_STYLE.get(c[1], (c[1], ""))
        if i:
            out.append(" ")
        out.append(f"{'10' if c[0] == 'T' else c[0]}{pip}", style=style)
    return out


def plain_cards(cards: list[str] | None) -> str:
    return " ".join(cards or [])


# -- commands --------------------------------------------------------------------------------
@dataclass
class Command:
    kind: str  # "act", "quit", "help", "table", "buy", "sit_out", "sit_in"
    verb: str | None = None
    amount: int | None = None


class BadCommand(ValueError):
    pass


def parse_command(line: str) -> Command | None:
    """One stdin line -> a :class:`Command` (None for a blank line); BadCommand if unknown."""
    parts = line.strip().split()
    if not parts:
        return None
    word, rest = parts[0].lower(), parts[1:]
    if word in ("q", "quit", "exit"):
        return Command("quit")
    if word in ("h", "help", "?"):
        return Command("help")
    if word in ("t", "table"):
        return Command("table")
    if word in ("o", "out"):
        return Command("sit_out")
    if word in ("i", "in"):
        return Command("sit_in")
    if word in ("buy", "topup"):
        amount = parse_amount(rest[0]) if rest else None
        if not amount:
            raise BadCommand("usage: buy AMOUNT (cents, or $dollars)")
        return Command("buy", amount=amount)
    verb = VERBS.get(word) or (word if word in VERBS.values() else None)
    if verb is None:
        raise BadCommand(f"unknown command {word!r} (h for help)")
    if verb in ("bet", "raise"):
        amount = parse_amount(rest[0]) if rest else None
        if amount is None:
            raise BadCommand(f"usage: {word} AMOUNT (cents, or $dollars)")
        return Command("act", verb, amount)
    if rest:
        raise BadCommand(f"{verb} takes no amount")
    return Command("act", verb)


def check_action(cmd: Command, legal: dict[str, Any]) -> str | None:
    """Why ``cmd`` is not among the ``legal`` actions the server sent (None: it is)."""
    assert cmd.verb is not None
    if cmd.verb not in legal:
        return f"{cmd.verb} is not possible now; you may: {legal_summary(legal)}"
    bounds = legal[cmd.verb]
    if cmd.verb in ("bet", "raise"):
        sizes = bounds.get("sizes")
        if sizes and cmd.amount not in sizes:
            return f"{cmd.verb} must be one of {', '.join(str(s) for s in sizes)}"
        lo, hi = bounds.get("min"), bounds.get("max")
        if lo is not None and cmd.amount is not None and not lo <= cmd.amount <= hi:
            return f"{cmd.verb} must be between {lo} and {hi} cents ({money(lo)}-{money(hi)})"
    return None


def legal_summary(legal: dict[str, Any]) -> str:
    keys = {"fold": "f", "check": "k", "call": "c", "bet": "b", "raise": "r", "allin": "a"}
    out = []
    for verb, bounds in legal.items():
        key = keys.get(verb, verb)
        if verb == "call":
            out.append(f"[{key}] call {money(bounds.get('amount'))}")
        elif verb == "allin":
            out.append(f"[{key}] all in {money(bounds.get('amount'))}")
        elif verb in ("bet", "raise"):
            word = "bet" if verb == "bet" else "raise to"
            if bounds.get("sizes"):
                out.append(f"[{key} N] {word} one of {'/'.join(map(str, bounds['sizes']))}")
            else:
                out.append(f"[{key} N] {word} {bounds['min']}..{bounds['max']} "
                           f"({money(bounds['min'])}-{money(bounds['max'])})")
        else:
            out.append(f"[{key}] {verb}")
    return "  ".join(out)


# -- the round as this client sees it -------------------------------------------------------
@dataclass
class SeatHand:
    stack: int = 0
    bet: int = 0
    in_pot: int = 0
    folded: bool = False
    allin: bool = False
    cards: list[str] | None = None
    category: str | None = None
    won: int = 0
    mucked: bool = False


@dataclass
class Hand:
    """One round folded from the round events (own hole cards, board, bets, pots, result)."""

    number: int = 0
    seats: dict[int, SeatHand] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    to_act: int | None = None
    commission: int = 0
    pots: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False
    voided: str | None = None

    @classmethod
    def from_view(cls, number: int, rnd: dict[str, Any]) -> Hand:
        hand = cls(number=number, board=list(rnd.get("board") or []), to_act=rnd.get("to_act"))
        for k, v in (rnd.get("seats") or {}).items():
            hand.seats[int(k)] = SeatHand(stack=v["stack"], bet=v["bet"], in_pot=v["in_pot"],
                                          folded=v["folded"], allin=v["allin"],
                                          cards=v.get("cards"))
        return hand

    @property
    def pot(self) -> int:
        return sum(s.in_pot for s in self.seats.values())

    def apply(self, ev: dict[str, Any]) -> None:
        kind = ALIASES.get(ev.get("type", ""), ev.get("type"))
        s = self.seats.get(ev.get("seat", -1)) if isinstance(ev.get("seat"), int) else None
        if kind == "blind_posted" and s:
            s.stack, s.bet, s.in_pot = ev["stack"], s.bet + ev["amount"], s.in_pot + ev["amount"]
        elif kind == "fee_charged" and s:
            s.stack -= ev["amount"]
        elif kind in ("hole_cards_dealt", "hand_shown") and s:
            s.cards = list(ev["cards"])
            s.category = ev.get("category") or s.category
        elif kind == "board_dealt":
            self.board = list(ev.get("board") or self.board + list(ev.get("cards") or []))
        elif kind == "action_taken" and s:
            s.in_pot += ev["amount"]
            s.bet, s.stack = ev["total"], ev["stack"]
            s.folded = s.folded or ev["verb"] == "fold"
            s.allin = not s.folded and (ev["verb"] == "allin" or ev["stack"] == 0)
        elif kind == "betting_round_ended":
            for h in self.seats.values():
                h.bet = 0
        elif kind == "uncalled_returned" and s:
            s.stack += ev["amount"]
            s.bet = max(0, s.bet - ev["amount"])
            s.in_pot -= ev["amount"]
        elif kind == "hand_mucked" and s:
            s.mucked = True
        elif kind == "commission_taken":
            self.commission += ev["amount"]
        elif kind == "pot_awarded":
            self.pots.append(ev)
            for k, v in (ev.get("shares") or {}).items():
                if int(k) in self.seats:
                    self.seats[int(k)].won += v
        elif kind in ("round_ended", "round_voided"):
            self.ended = True
            self.to_act = None
            self.voided = ev.get("reason") if kind == "round_voided" else None
            for k, v in (ev.get("stacks") or {}).items():
                if int(k) in self.seats:
                    self.seats[int(k)].stack = v
                    self.seats[int(k)].bet = 0


def describe(ev: dict[str, Any], name: Any, me: int | None) -> str | None:
    """One log line for a table or round event (None: nothing worth a line)."""
    kind = ALIASES.get(ev.get("type", ""), ev.get("type"))
    seat = ev.get("seat")
    who = name(seat) if seat is not None else ""
    if kind == "seat_taken":
        return f"{ev.get('name')} sits at seat {seat}"
    if kind == "seat_vacated":
        return f"{who} leaves seat {seat} ({ev.get('reason')}; {money(ev.get('returned'))})"
    if kind == "stake":
        return f"{who} buys in {money(ev['added'])} (stake {money(ev['stake'])})"
    if kind in ("sat_out", "sat_in"):
        return f"{who} {'sits out' if kind == 'sat_out' else 'is back'}"
    if kind == "connection":
        return f"{who} {'reconnected' if ev.get('connected') else 'disconnected'}"
    if kind == "round_starting":
        return f"--- hand #{ev['hand']}: {name(ev['designated'])} holds the buck/button ---"
    if kind == "blind_posted":
        return f"{who} posts {ev['kind']} {money(ev['amount'])}"
    if kind == "fee_charged":
        return f"{who} pays a fee of {money(ev['amount'])}"
    if kind == "hole_cards_dealt":
        return f"your cards: {plain_cards(ev['cards'])}" if seat == me else None
    if kind == "board_dealt":
        return f"board: {plain_cards(ev.get('board') or ev.get('cards'))}"
    if kind == "action_taken":
        verb = ev["verb"]
        text = {"fold": "folds", "check": "checks", "call": f"calls {money(ev['amount'])}",
                "bet": f"bets {money(ev['total'])}", "raise": f"raises to {money(ev['total'])}",
                "allin": f"goes all in ({money(ev['total'])})"}.get(verb, verb)
        return f"{who} {text}"
    if kind == "uncalled_returned":
        return f"{money(ev['amount'])} uncalled returned to {who}"
    if kind == "hand_shown":
        return f"{who} shows {plain_cards(ev['cards'])} ({ev.get('category', '')})"
    if kind == "hand_mucked":
        return f"{who} mucks"
    if kind == "commission_taken":
        return f"commission {money(ev['amount'])}"
    if kind == "pot_awarded":
        pot = "pot" if not ev.get("pot") else f"side pot {ev['pot']}"
        winners = " and ".join(name(w) for w in ev.get("winners", []))
        return f"{pot} {money(ev['amount'])} to {winners}"
    if kind == "round_ended":
        return "hand over"
    if kind == "round_voided":
        return f"hand voided ({ev.get('reason')}): all wagers returned"
    if kind == "timed_out":
        return f"{who} timed out: {ev.get('verb')}"
    if kind == "table_closing":
        return "the table is closing"
    if kind == "betting_round_ended":
        return None
    return f"{kind} {ev}"


# -- the player ------------------------------------------------------------------------------
class Player:
    """One seat (or spectator) at one table: state, rendering and the message loop."""

    def __init__(self, client: Client, table: TableView, console: Console, *,
                 live: bool, bot: random.Random | None = None, hands: int = 0) -> None:
        self.client = client
        self.tv = table
        self.console = console
        self.live_mode = live
        self.live: Live | None = None
        self.bot = bot
        self.hands_wanted = hands
        self.hands_played = 0
        self.log: deque[str] = deque(maxlen=14)
        view = table.view
        self.hand: Hand | None = None
        if view.get("round"):
            self.hand = Hand.from_view(view.get("hand", 0), view["round"])
        self.turn: dict[str, Any] | None = None  # the last turn message
        self.turn_at = 0.0
        self.my_legal: dict[str, Any] = {}  # non-empty while it is our turn and we have not acted
        self.pending: deque[Command] = deque()  # betting commands waiting for our turn
        self.done = trio.Event()
        self.closed = False  # the server closed the connection
        self.returned: int | None = None
        self.dealt_in = False

    @staticmethod
    def parse(line: str) -> Command | None:
        return parse_command(line)

    # names
    @property
    def me(self) -> int | None:
        return self.tv.seat if self.tv.role == "player" else None

    def name(self, seat: int | None) -> str:
        info = self.tv.seat_info(seat) if seat is not None else None
        label = info["name"] if info else f"seat {seat}"
        return f"{label} (you)" if seat is not None and seat == self.me else label

    # output
    def say(self, line: str, style: str = "") -> None:
        self.log.append(line)
        if self.live is not None:
            self.refresh()
        else:
            self.console.print(Text(line, style=style))

    def refresh(self) -> None:
        if self.live is not None:
            self.live.update(self.render(), refresh=True)

    def render(self) -> Group:
        parts: list[Any] = [self.table_panel()]
        if self.live is not None:
            parts.append(Panel(Text("\n".join(self.log)), title="log", border_style="dim"))
        parts.append(self.prompt_text())
        return Group(*parts)

    def prompt_text(self) -> Text:
        if self.my_legal:
            return Text.assemble(("your turn", "bold yellow"), f" ({self.seconds_left()}s): ",
                                 legal_summary(self.my_legal))
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
            grid.add_column(col, justify="right" if col in ("stack", "bet") else "left",
                            header_style="dim")
        for s in view.get("seats", []):
            n = s["seat"]
            h = hand.seats.get(n) if hand else None
            stack = h.stack if h and not hand.ended else s["stake"]
            notes = []
            if view.get("designated") == n:
                notes.append("D")
            if hand and hand.to_act == n and not hand.ended:
                notes.append("<- to act")
            if h and h.folded:
                notes.append("folded")
            if h and h.allin and not hand.ended:
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
            grid.add_row(str(n), Text(self.name(n), style=style), money(stack),
                         money(h.bet) if h and h.bet else "", cards, " ".join(notes))
        lines: list[Any] = [grid]
        if hand:
            board = card_text(hand.board) if hand.board else Text("(no board yet)", style="dim")
            lines.append(Text.assemble("board  ", board, "    pot ", (money(hand.pot), "bold")))
            if hand.ended:
                res = "; ".join(
                    f"{'pot' if not p.get('pot') else 'side pot ' + str(p['pot'])} "
                    f"{money(p['amount'])} -> {', '.join(self.name(w) for w in p['winners'])}"
                    for p in hand.pots) or (f"voided ({hand.voided})" if hand.voided else "")
                if hand.commission:
                    res += f"; commission {money(hand.commission)}"
                lines.append(Text("result: " + res, style="green"))
        if self.turn and hand and not hand.ended:
            lines.append(Text(f"{self.name(self.turn['seat'])} to act, "
                              f"{self.seconds_left()}s left", style="yellow"))
        stakes = "/".join(money(v) for v in (info.get("stakes") or {}).values())
        title = f"{info.get('name', self.tv.table)}  {stakes}  hand #{view.get('hand', 0)}"
        balance = f"wallet {money(self.client.balance)}"
        return Panel(Group(*lines), title=title, subtitle=balance, border_style="green")

    def show_table(self) -> None:
        if self.live is None:
            self.console.print(self.table_panel())

    # the message loop
    async def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "error":
            self.say(f"refused: {msg.get('code')}: {msg.get('message')}", "red")
            if msg.get("ref") == "act" and self.turn and self.turn.get("seat") == self.me:
                self.my_legal = dict(self.turn.get("legal") or {})  # still our turn
                await self.maybe_act()
            return
        if kind == "balance":
            self.refresh()
            return
        if msg.get("table") != self.tv.table:
            return
        if kind == "left":
            self.returned = msg.get("returned")
            self.say(f"you left the table: {money(self.returned)} back to the wallet "
                     f"({msg.get('reason')})")
            self.done.set()
            return
        if kind == "snapshot":
            self.hand = Hand.from_view(msg["view"].get("hand", 0), msg["view"]["round"]) \
                if msg["view"].get("round") else None
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
                await self.client.send({"type": "buy_in", "table": self.tv.table,
                                        "amount": amount})

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

    async def leave(self) -> None:
        await self.client.send({"type": "leave", "table": self.tv.table})

    async def on_command(self, cmd: Command) -> bool:
        """Apply one typed command; False when the client should stop reading commands."""
        if cmd.kind == "quit":
            return False
        if cmd.kind == "help":
            self.console.print(HELP)
        elif cmd.kind == "table":
            self.show_table()
            self.console.print(self.prompt_text())
        elif cmd.kind == "buy":
            await self.client.send({"type": "buy_in", "table": self.tv.table,
                                    "amount": cmd.amount})
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
        return True


# -- banked tables (players against the house) -------------------------------------------------
@dataclass
class BankedCommand:
    kind: str  # "wager", "decide", "recall", "quit", "help", "table"
    box: int | None = None
    name: str | None = None  # the wager name, or the decision verb
    amount: int | None = None


BANKED_HELP = """
    w BOX WAGER AMOUNT   wager on a box while betting is open (AMOUNT 0 withdraws it)
    d BOX VERB [AMOUNT]  a box's decision (or just VERB [AMOUNT] when one box owes one)
    l  your last round (recall)    t  show the table    h  help    q  leave and quit"""


def parse_banked_command(line: str) -> BankedCommand | None:
    """One stdin line at a banked table -> a :class:`BankedCommand` (None for a blank line)."""
    parts = line.strip().split()
    if not parts:
        return None
    word, rest = parts[0].lower(), parts[1:]
    if word in ("q", "quit", "exit"):
        return BankedCommand("quit")
    if word in ("h", "help", "?"):
        return BankedCommand("help")
    if word in ("t", "table"):
        return BankedCommand("table")
    if word in ("l", "recall", "last"):
        return BankedCommand("recall")
    if word in ("w", "wager"):
        if len(rest) != 3 or not rest[0].isdigit() or parse_amount(rest[2]) is None:
            raise BadCommand("usage: w BOX WAGER AMOUNT (cents, or $dollars)")
        return BankedCommand("wager", int(rest[0]), rest[1].lower(), parse_amount(rest[2]))
    box = None
    if word in ("d", "decide"):
        if not rest or not rest[0].isdigit() or len(rest) < 2:
            raise BadCommand("usage: d BOX VERB [AMOUNT]")
        box, word, rest = int(rest[0]), rest[1].lower(), rest[2:]
    if not re.fullmatch(r"[a-z_]+", word) or len(rest) > 1:
        raise BadCommand(f"unknown command {word!r} (h for help)")
    amount = None
    if rest:
        amount = parse_amount(rest[0])
        if amount is None:
            raise BadCommand(f"{word}: bad amount {rest[0]!r}")
    return BankedCommand("decide", box, word, amount)


class BankedPlayer:
    """One player (or spectator) at a banked table: wagers on boxes, decisions, results."""

    def __init__(self, client: Client, table: TableView, console: Console, *,
                 live: bool, bot: random.Random | None = None, hands: int = 0) -> None:
        self.client, self.tv, self.console = client, table, console
        self.live_mode, self.live = live, None
        self.bot, self.hands_wanted, self.hands_played = bot, hands, 0
        self.log: deque[str] = deque(maxlen=14)
        self.done = trio.Event()
        self.closed = False
        self.returned: int | None = None
        self.pending: deque[BankedCommand] = deque()  # commands waiting for their moment
        view = table.view
        self.info: dict[str, Any] = view.get("table", {})
        self.status: str = view.get("status", "")
        self.round: int = view.get("round") or 0
        self.closes_at = trio.current_time() + view.get("closes_in_ms", 0) / 1000 \
            if self.status == "betting" else None
        self.boxes: dict[int, dict[str, Any]] = {
            b["box"]: {"player": b["player"], "wagers": dict(b.get("wagers") or {})}
            for b in view.get("boxes", [])}
        self.my_boxes: set[int] = set(view.get("my_boxes") or [])
        self.cards: dict[int, list[str]] = {}
        self.hands: dict[int, str] = {}
        self.dealer: dict[str, Any] = {"cards": [], "hand": None, "status": None}
        self.board: list[str] = []
        self.decisions: dict[int, dict[str, Any]] = {}
        self.result: dict[str, Any] | None = None
        self.jackpot: dict[str, Any] | None = view.get("jackpot")
        self.wagering: int | None = None
        for ev in view.get("round_events") or []:
            self.apply(ev)
        for d in view.get("pending") or []:
            self.decisions[d["box"]] = d

    @staticmethod
    def parse(line: str) -> BankedCommand | None:
        return parse_banked_command(line)

    @property
    def me(self) -> str:
        return str(self.client.welcome.get("name", ""))

    # output (as Player)
    say = Player.say
    refresh = Player.refresh

    def render(self) -> Group:
        parts: list[Any] = [self.table_panel()]
        if self.live is not None:
            parts.append(Panel(Text("\n".join(self.log)), title="log", border_style="dim"))
        parts.append(self.prompt_text())
        return Group(*parts)

    def show_table(self) -> None:
        if self.live is None:
            self.console.print(self.table_panel())

    def prompt_text(self) -> Text:
        mine = {b: d for b, d in self.decisions.items() if b in self.my_boxes}
        if mine:
            return Text.assemble(("your decision", "bold yellow"), ": ", "  ".join(
                f"box {b}: " + "/".join(choice_text(c) for c in d.get("legal", []))
                for b, d in mine.items()))
        if self.status == "betting" and self.closes_at is not None:
            left = max(0, math.ceil(self.closes_at - trio.current_time()))
            return Text(f"betting open, {left}s: w BOX WAGER AMOUNT", style="yellow")
        return Text("watching" if self.tv.role != "player" else "waiting  (h help, q quit)",
                    style="dim")

    def table_panel(self) -> Panel:
        grid = Table(box=None, padding=(0, 2), show_edge=False)
        for col in ("box", "player", "wagers", "cards", "hand", "result"):
            grid.add_column(col, header_style="dim")
        results = (self.result or {}).get("boxes") or {}
        for b in sorted(set(self.boxes) | set(self.cards)):
            info = self.boxes.get(b, {})
            res = results.get(str(b))
            net = (res["paid"] - res["bet"]) if res else None
            outcome = "" if net is None else f"+{money(net)}" if net > 0 else \
                f"-{money(-net)}" if net < 0 else "even"
            grid.add_row(f"{b}{' *' if b in self.my_boxes else ''}", info.get("player", ""),
                         ", ".join(f"{n} {money(a)}" for n, a in
                                   (info.get("wagers") or {}).items()),
                         card_text(self.cards.get(b)), self.hands.get(b, ""), outcome)
        lines: list[Any] = [grid]
        dealer = self.dealer
        if dealer["cards"] or dealer["status"]:
            lines.append(Text.assemble("dealer ", card_text(dealer["cards"]), "  ",
                                       dealer["status"] or dealer["hand"] or ""))
        if self.board:
            lines.append(Text.assemble("board  ", card_text(self.board)))
        if self.jackpot:
            lines.append(Text(f"jackpot {money(self.jackpot.get('meter'))}"
                              + ("" if self.jackpot.get("open") else " (unavailable)"),
                              style="yellow"))
        stakes = self.info.get("stakes") or {}
        title = (f"{self.info.get('name', self.tv.table)}  wagers {money(stakes.get('minimum'))}"
                 f"-{money(stakes.get('maximum'))}  round #{self.round}  {self.status}")
        return Panel(Group(*lines), title=title, subtitle=f"wallet {money(self.client.balance)}",
                     border_style="green")

    # events
    def apply(self, ev: dict[str, Any]) -> str | None:
        """Fold one event into the state; returns its log line (None: nothing to say)."""
        kind = ev.get("type")
        box = ev.get("box")
        if kind == "betting_open":
            self.status, self.round = "betting", ev.get("round", self.round)
            self.closes_at = trio.current_time() + ev.get("closes_in_ms", 0) / 1000
            self.cards, self.hands, self.board, self.decisions = {}, {}, [], {}
            self.dealer = {"cards": [], "hand": None, "status": None}
            self.result = None
            for info in self.boxes.values():
                info["wagers"] = {}
            return f"--- round #{self.round}: betting open ---"
        if kind == "wager_placed":
            self.boxes[box] = {"player": ev.get("name", ""), "wagers": ev.get("box_wagers") or {}}
            if self.wagering == box and ev.get("name") == self.me:
                self.my_boxes.add(box)
            return f"{ev.get('name')}: {ev.get('wager')} {money(ev.get('amount'))} on box {box}"
        if kind == "box_taken":
            self.boxes.setdefault(box, {"wagers": {}})["player"] = ev.get("name", "")
            if self.wagering == box and ev.get("name") == self.me:
                self.my_boxes.add(box)
            return None
        if kind == "no_more_bets":
            self.status, self.closes_at = "dealing", None
            for b, ws in (ev.get("boxes") or {}).items():
                self.boxes.setdefault(int(b), {"player": ""})["wagers"] = ws
            return "no more bets"
        if kind == "round_started":
            self.status = "deciding"
            return None
        if kind == "cards_dealt":
            cards = list(ev.get("cards") or [])
            if ev.get("to") == "box":
                self.cards[box] = self.cards.get(box, []) + cards
                return f"box {box}: {plain_cards(cards)}" if box in self.my_boxes else None
            if ev.get("to") == "dealer":
                self.dealer["cards"] = self.dealer["cards"] + cards
            else:
                self.board = self.board + cards
            return f"{ev.get('to')}: {plain_cards(cards)}"
        if kind == "decision":
            self.decisions[box] = ev
            return None
        if kind == "decision_made":
            self.decisions.pop(box, None)
            amount = f" {money(ev['amount'])}" if ev.get("amount") else ""
            cause = f" ({ev['cause']})" if ev.get("cause") not in (None, "player") else ""
            return f"box {box}: {ev.get('verb')}{amount}{cause}"
        if kind == "hand_shown":
            if box is None:
                self.dealer.update(cards=list(ev.get("cards") or []), hand=ev.get("hand"))
                return f"dealer shows {plain_cards(ev.get('cards'))} ({ev.get('hand')})"
            self.cards[box], self.hands[box] = list(ev.get("cards") or []), ev.get("hand", "")
            return f"box {box} shows {plain_cards(ev.get('cards'))} ({ev.get('hand')})"
        if kind == "dealer_declared":
            self.dealer["status"] = ev.get("status")
            return f"dealer {ev.get('status')}"
        if kind == "round_result":
            self.status, self.result, self.decisions = "settled", ev, {}
            out = []
            for b, r in sorted((ev.get("boxes") or {}).items(), key=lambda x: int(x[0])):
                net = r["paid"] - r["bet"]
                out.append(f"box {b} ({r['player']}): bet {money(r['bet'])}, paid "
                           f"{money(r['paid'])}, {'+' if net >= 0 else '-'}{money(abs(net))}")
            return "result: " + ("; ".join(out) or "no boxes played")
        if kind == "round_voided":
            self.status, self.decisions = "settled", {}
            return f"round voided ({ev.get('reason')}): wagers returned"
        if kind == "meter" and self.jackpot is not None:
            self.jackpot["meter"] = ev.get("meter")
            return None
        if kind == "jackpot_status" and self.jackpot is not None:
            self.jackpot.update(open=ev.get("open"), status=ev.get("status"))
            return f"jackpot: {ev.get('status')}"
        if kind in ("wager_settled", "street_opened"):
            return None
        if kind == "player_joined":
            return f"{ev.get('name')} joins"
        if kind == "player_left":
            for b in ev.get("boxes") or []:
                self.boxes.pop(b, None)
            return f"{ev.get('name')} leaves"
        if kind == "table_closing":
            self.status = "closing"
            return "the table is closing"
        return f"{kind} {ev}"

    async def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "error":
            self.say(f"refused: {msg.get('code')}: {msg.get('message')}", "red")
            return
        if kind == "recall" and msg.get("table") == self.tv.table:
            self.say(recall_text(msg.get("last_round")))
            return
        if kind == "balance":
            self.refresh()
            return
        if msg.get("table") != self.tv.table:
            return
        if kind == "left":
            self.returned = msg.get("returned")
            self.say(f"you left the table ({msg.get('reason')})")
            self.done.set()
            return
        if kind != "event":
            return
        ev = msg["event"]
        line = self.apply(ev)
        if line:
            self.say(line, "bold" if ev.get("type") in ("betting_open", "round_result") else "")
        etype = ev.get("type")
        if etype == "round_result" and self.live is None and self.bot is None:
            self.show_table()
        if etype == "round_result" and any(int(b) in self.my_boxes
                                           for b in (ev.get("boxes") or {})):
            self.hands_played += 1
            if self.bot is not None and self.hands_played >= self.hands_wanted:
                await self.leave()
        if self.bot is not None:
            await self.bot_move(etype, ev)
        else:
            await self.flush()
        self.refresh()

    async def bot_move(self, etype: str | None, ev: dict[str, Any]) -> None:
        assert self.bot is not None
        if etype == "betting_open" and self.hands_played < self.hands_wanted:
            box = min(self.my_boxes) if self.my_boxes else next(
                (b for b in range(1, self.info.get("boxes", 1) + 1)
                 if not self.boxes.get(b, {}).get("player")), None)
            if box is None:
                return
            self.wagering = box
            minimum = (self.info.get("stakes") or {}).get("minimum", 0)
            specs = [w for w in self.info.get("wagers", []) if w.get("initial")]
            for w in [w for w in specs if w.get("required")] or specs[:1]:
                await self.client.send({"type": "wager", "table": self.tv.table, "box": box,
                                        "wager": w["name"], "amount": minimum})
        elif etype == "decision" and ev.get("box") in self.my_boxes:
            choice = self.bot.choice(ev.get("legal") or [{"verb": "stand"}])
            amounts = choice.get("amounts") or []
            msg = {"type": "decide", "table": self.tv.table, "box": ev["box"],
                   "verb": choice["verb"]}
            if len(amounts) > 1:
                msg["amount"] = self.bot.choice(amounts)
            await self.client.send(msg)

    async def flush(self) -> None:
        """Send the typed commands whose moment has come (betting open, a decision owed)."""
        while self.pending:
            cmd = self.pending[0]
            if cmd.kind == "wager":
                if self.status != "betting":
                    return
                self.pending.popleft()  # before any await: another flush may run meanwhile
                self.wagering = cmd.box
                await self.client.send({"type": "wager", "table": self.tv.table, "box": cmd.box,
                                        "wager": cmd.name, "amount": cmd.amount})
            else:
                owed = {b: d for b, d in self.decisions.items() if b in self.my_boxes}
                box = cmd.box if cmd.box is not None else (next(iter(owed)) if len(owed) == 1
                                                           else None)
                if box is None or box not in owed:
                    return
                legal = {c["verb"]: c for c in owed[box].get("legal", [])}
                self.pending.popleft()
                if cmd.name not in legal:
                    self.say(f"box {box} may: {', '.join(legal)}", "red")
                    continue
                msg = {"type": "decide", "table": self.tv.table, "box": box, "verb": cmd.name}
                if cmd.amount is not None:
                    msg["amount"] = cmd.amount
                self.decisions.pop(box, None)
                await self.client.send(msg)

    async def leave(self) -> None:
        await self.client.send({"type": "leave", "table": self.tv.table})

    async def on_command(self, cmd: Any) -> bool:
        if cmd.kind == "quit":
            return False
        if cmd.kind == "help":
            self.console.print(BANKED_HELP)
        elif cmd.kind == "table":
            self.show_table()
            self.console.print(self.prompt_text())
        elif cmd.kind == "recall":
            await self.client.send({"type": "recall", "table": self.tv.table})
        elif self.tv.role != "player":
            self.say("spectators cannot wager", "red")
        else:
            self.pending.append(cmd)
            await self.flush()
            if self.pending:
                self.say(f"{cmd.kind} {cmd.name} waits for its moment", "dim")
        return True


def choice_text(choice: dict[str, Any]) -> str:
    amounts = choice.get("amounts") or []
    if len(amounts) == 1:
        return f"{choice['verb']} {money(amounts[0])}"
    if amounts:
        return f"{choice['verb']} {'|'.join(str(a) for a in amounts)}"
    return str(choice["verb"])


def recall_text(last: dict[str, Any] | None) -> str:
    """The ``recall`` reply (QLD Sch 19 s3(2)): the previous round's bet, result and win."""
    if not last:
        return "no previous round at this table"
    net = last.get("net", 0)
    return (f"last round #{last.get('round')}: bet {money(last.get('bet_total'))}, paid "
            f"{money(last.get('paid_total'))}, {'won' if net >= 0 else 'lost'} {money(abs(net))}")


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


# -- stdin -------------------------------------------------------------------------------------
async def read_lines(send: trio.MemorySendChannel[str | None]) -> None:
    """Feed stdin lines into ``send`` (None at end of input); a thread does the blocking read."""
    async with send:
        while True:
            line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
            if not line:
                await send.send(None)
                return
            await send.send(line)


# -- the program -------------------------------------------------------------------------------
def lobby_table(tables: list[dict[str, Any]]) -> Table:
    grid = Table(title="Tables", title_justify="left", header_style="dim")
    for col in ("#", "id", "name", "stakes", "buy-in", "seats"):
        grid.add_column(col)
    for i, t in enumerate(tables, 1):
        blinds = "/".join(money(v) for v in (t.get("stakes") or {}).values())
        buy = ("wallet" if not POKER_GAME.match(t["game"])
               else f"{money(t['min_buy_in'])}-{money(t['max_buy_in'])}" if t.get("max_buy_in")
               else f"{money(t['min_buy_in'])}+")
        grid.add_row(str(i), t["id"], t["name"], blinds, buy, f"{t['taken']}/{t['seats']}")
    return grid


def pick_table(tables: list[dict[str, Any]], choice: str) -> dict[str, Any] | None:
    choice = choice.strip()
    if choice.isdigit() and 1 <= int(choice) <= len(tables):
        return tables[int(choice) - 1]
    return next((t for t in tables if t["id"] == choice), None)


async def run(args: argparse.Namespace, console: Console) -> int:
    interactive = not args.bot
    lines_send, lines = trio.open_memory_channel[str | None](64)
    async with trio.open_nursery() as nursery:
        if interactive:
            nursery.start_soon(read_lines, lines_send)
        name = args.name or ("bot" if args.bot else None)
        try:
            async with Client.connect(args.url, token=args.token, name=name) as client:
                status = await session(client, args, console, lines)
        except ServerError as exc:
            console.print(f"[red]croupier play: the server refused: {exc}[/red]")
            status = 1
        except OSError as exc:
            console.print(f"[red]croupier play: cannot connect to {args.url}: {exc}[/red]")
            status = 1
        except ConnectionClosed as exc:
            console.print(f"[red]croupier play: the connection closed ({exc})[/red]")
            status = 1
        nursery.cancel_scope.cancel()
    return status


async def next_line(lines: trio.MemoryReceiveChannel[str | None]) -> str | None:
    try:
        return await lines.receive()
    except trio.EndOfChannel:
        return None


async def session(client: Client, args: argparse.Namespace, console: Console,
                  lines: trio.MemoryReceiveChannel[str | None]) -> int:
    welcome = client.welcome
    console.print(f"connected as [bold]{welcome.get('name')}[/bold] ({welcome.get('account')}), "
                  f"wallet {money(client.balance)}" + ("  [dim]dev mode[/dim]"
                                                       if welcome.get("dev") else ""))
    if not args.token and not args.bot:
        console.print(f"session token (for --token): {client.token}", style="dim")
    tables = await client.lobby()
    console.print(lobby_table(tables))
    table_id = args.table or (welcome.get("seated") or [None])[0]
    chosen: dict[str, Any] | None = None
    if table_id:
        chosen = pick_table(tables, table_id)
    elif args.bot:
        chosen = next((t for t in tables if t["taken"] < t["seats"]
                       and POKER_GAME.match(t["game"])), None)
    while chosen is None:
        if table_id and not args.bot:
            console.print(f"[red]no table {table_id!r}[/red]")
        if args.bot:
            console.print("[red]no table to join[/red]")
            return 1
        console.print("table number or id (q to quit): ", end="")
        line = await next_line(lines)
        if line is None or line.strip().lower() in ("q", "quit"):
            return 0
        table_id = line.strip()
        chosen = pick_table(tables, table_id)
    role = "spectator" if args.watch else "player"
    view = await client.join(chosen["id"], role=role, seat=args.seat)
    console.print(f"joined [bold]{chosen['name']}[/bold] as "
                  + (f"seat {view.seat}" if view.seat is not None
                     else "a player" if view.role == "player" else "a spectator"))
    banked = isinstance(view.view.get("table", {}).get("wagers"), list)
    if role == "player" and not banked and not view.stake:
        wanted = parse_amount(args.buy_in) if args.buy_in else None
        amount = buy_in_amount(chosen, 0, wanted)
        try:
            balance = await client.buy_in(chosen["id"], amount)
            console.print(f"bought in for {money(amount)}; wallet {money(balance)}")
        except ServerError as exc:
            console.print(f"[red]buy-in refused: {exc}[/red]")
    rng = random.Random(args.seed) if args.bot else None
    live = (not args.bot and not args.plain and console.is_terminal
            and sys.stdin.isatty())
    kind = BankedPlayer if banked else Player
    player: Any = kind(client, client.tables[chosen["id"]], console, live=live, bot=rng,
                       hands=args.hands)
    if not live:
        player.show_table()
        if not args.bot:
            console.print("commands: w d l t h q (h for help)" if banked
                          else "commands: f k c b r a buy o i t h q", style="dim")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump_messages, client, player)
        if args.bot:
            await player.done.wait()
        else:
            await read_commands(player, lines, nursery)
        nursery.cancel_scope.cancel()
    if player.closed:
        return 1
    if args.bot:
        console.print(f"bot: played {player.hands_played} {'rounds' if banked else 'hands'}, "
                      f"{money(player.returned)} returned, wallet {money(client.balance)}")
    return 0


async def pump_messages(client: Client, player: Player | BankedPlayer) -> None:
    try:
        async for msg in client:
            await player.on_message(msg)
    except ConnectionClosed:
        pass
    if not player.done.is_set():
        code = getattr(client.ws, "close_code", None)
        if code == 1001:  # protocol/README.md: the server is shutting down, stakes cashed out
            player.say("the server shut down (1001): stakes go back to the wallets", "yellow")
        else:
            player.closed = True
            player.say(f"the server closed the connection ({code})", "red")
        player.done.set()


async def read_commands(player: Player | BankedPlayer, lines: trio.MemoryReceiveChannel[str | None],
                        nursery: trio.Nursery) -> None:
    """Read and apply commands until ``q``, end of input or the seat is gone; then leave."""
    ticker = None
    if player.live_mode:
        player.live = Live(player.render(), console=player.console, auto_refresh=False,
                           transient=False)
        player.live.start()
        ticker = trio.CancelScope()
        nursery.start_soon(tick, player, ticker)
    try:
        while not player.done.is_set():
            with trio.move_on_after(0.25):
                line = await next_line(lines)
                if line is None:
                    break
                try:
                    cmd = player.parse(line)
                except BadCommand as exc:
                    player.say(str(exc), "red")
                    continue
                if cmd is not None and not await player.on_command(cmd):
                    break
        await wait_for_pending(player)
        if not player.done.is_set():
            await player.leave()
            with trio.move_on_after(10):
                await player.done.wait()
    finally:
        if ticker is not None:
            ticker.cancel()
        if player.live is not None:
            player.live.stop()
            player.live = None


async def wait_for_pending(player: Player | BankedPlayer) -> None:
    """Input ended: give queued betting commands up to one turn to be played."""
    with trio.move_on_after(60):
        while player.pending and not player.done.is_set():
            await trio.sleep(0.05)


async def tick(player: Player | BankedPlayer, scope: trio.CancelScope) -> None:
    with scope:
        while True:
            await trio.sleep(0.5)
            player.refresh()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="croupier play",
                                     description=__doc__.split("\n")[0].replace("``", ""),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=HELP)
    parser.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    parser.add_argument("--token", help="session token (from a previous session's welcome)")
    parser.add_argument("--name", help="display name for a guest session (dev servers)")
    parser.add_argument("--table", help="table id (or its number in the lobby list)")
    parser.add_argument("--seat", type=int, help="seat number (default: lowest free)")
    parser.add_argument("--watch", action="store_true", help="join as a spectator")
    parser.add_argument("--buy-in", help="buy-in amount, cents or $dollars "
                                         "(default: five minimum buy-ins, within the limits)")
    parser.add_argument("--plain", action="store_true",
                        help="print lines instead of the live display")
    parser.add_argument("--bot", action="store_true",
                        help="play random legal actions without reading stdin")
    parser.add_argument("--hands", type=int, default=10, help="--bot: rounds to play (10)")
    parser.add_argument("--seed", type=int, help="--bot: seed for its choices")
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    try:
        return trio.run(run, args, console)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
