"""A player (or spectator) at a blackjack-family table (seed 004: BJ, SP, SW, CH).

:class:`BlackjackSession` is the banked session (``clients/terminal/banked.py``: wagers,
decisions at their moment, results, recall) with what blackjack adds: each box's hands
(split hands, switch areas) with their totals, and a prompt that lists every verb of the
game -- the legal ones with their amounts, the others as "not now". A verb that takes an
amount may be typed without one: the full double, insurance in whole dollars' worth (always
within BJ s23(4)), follow hand 1. Commands: ``hit``, ``stand``, ``double [AMOUNT]``,
``split``, ``insurance [AMOUNT]``, ``even_money``, ``surrender``, ``rescue``, ``switch``,
``cover``, ``follow 1|2`` (or ``d BOX VERB [AMOUNT]`` with several boxes); ``b BOX WAGER
AMOUNT`` backs a box another player holds (a ``wager`` with ``behind``, BJ s29): its offers
are then this player's decisions too.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.terminal.banked import BankedSession
from clients.terminal.commands import (
    BANKED_HELP,
    BadCommand,
    BankedCommand,
    parse_amount,
    parse_banked_command,
)
from clients.terminal.render import card_text, choice_text, money

#: The family's decision verbs in the order they are listed (the game's own subset is shown).
VERBS = (
    "hit",
    "stand",
    "double",
    "split",
    "insurance",
    "even_money",
    "surrender",
    "rescue",
    "switch",
    "cover",
    "follow",
)
GAMES = re.compile(r"^(spanish-)?blackjack(-switch|-challenge)?$")


def is_blackjack(game: str) -> bool:
    return bool(GAMES.match(game or ""))


def total(cards: list[str]) -> tuple[int, bool]:
    """BJ s5: 2-10 face value, J/Q/K 10, one ace 11 while that keeps the hand at 21 or under."""
    hard = sum(1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0]) for c in cards)
    soft = any(c[0] == "A" for c in cards) and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


def hand_text(cards: list[str]) -> str:
    value, soft = total(cards)
    if value > 21:
        return f"bust {value}"
    return f"{'soft ' if soft else ''}{value}"


def default_amount(choice: dict[str, Any]) -> int | None:
    """An amount within the bounds the server sent, for a verb typed without one."""
    amounts = choice.get("amounts") or []
    if len(amounts) == 1:
        return None  # the server takes the single amount as the default
    if "min" not in choice:
        return None
    low, high = int(choice["min"]), int(choice["max"])
    if choice["verb"] == "insurance":
        return max(low, high // 50 * 50)
    if choice["verb"] == "follow":
        return low
    return high


class BlackjackSession(BankedSession):
    """A blackjack-family table (see the module docstring)."""

    HINT = "commands: w b hit stand double split insurance surrender switch l t h q"
    HELP = (
        BANKED_HELP.rstrip()
        + "\n    b BOX WAGER AMOUNT   back a box another player holds (blackjack s29)\n"
        + "    hit stand double [AMOUNT] split insurance [AMOUNT] even_money surrender\n"
        + "    rescue switch cover follow 1|2   blackjack decisions (amounts optional)\n"
    )

    @staticmethod
    def parse(line: str) -> BankedCommand | None:
        words = line.split()
        if words and words[0].lower() in ("b", "back"):
            amount = parse_amount(words[3]) if len(words) == 4 else None
            if amount is None or not words[1].isdigit():
                raise BadCommand("usage: b BOX WAGER AMOUNT (cents, or $dollars)")
            return BankedCommand("back", int(words[1]), words[2].lower(), amount)
        return parse_banked_command(line)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.split_hands: dict[int, list[dict[str, Any]]] = {}
        super().__init__(*args, **kwargs)

    def _hand(self, box: int, label: str | None) -> dict[str, Any]:
        n = int(re.sub(r"\D+", "", label or "") or 1)
        hands = self.split_hands.setdefault(box, [])
        while len(hands) < n:
            hands.append({"cards": [], "doubled": False})
        return hands[n - 1]

    def apply(self, ev: dict[str, Any]) -> str | None:
        kind = ev.get("type")
        box = ev.get("box")
        if kind == "betting_open":
            self.split_hands = {}
        elif kind == "cards_dealt" and ev.get("to") == "box" and box is not None:
            self._hand(box, ev.get("street"))["cards"].extend(ev.get("cards") or [])
        elif (
            kind == "decision_made"
            and box is not None
            and str(ev.get("street", "")).startswith("hand ")
        ):
            hands = self.split_hands.get(box, [])
            i = int(re.sub(r"\D+", "", ev["street"]) or 1) - 1
            if ev.get("verb") == "split" and i < len(hands):  # s25: a new hand of the 2nd card
                hands.insert(i + 1, {"cards": [hands[i]["cards"].pop()], "doubled": False})
            elif ev.get("verb") == "double" and i < len(hands):
                hands[i]["doubled"] = True
        elif (
            kind == "hand_shown" and box is not None and str(ev.get("hand", "")).startswith("area")
        ):
            self._hand(box, ev.get("hand"))["cards"] = list(ev.get("cards") or [])  # SW s17
        elif kind == "wager_placed" and ev.get("place") and box is not None:
            if ev.get("name") == self.me:
                self.my_boxes.add(box)  # a box this player backs: its offers are his to answer
            amount = money(ev.get("amount"))
            return f"{ev.get('name')} behind box {box} ({ev['place']}): {ev.get('wager')} {amount}"
        elif kind == "backer_returned":
            return f"box {box} has no wager: {ev.get('place')} gets {money(ev.get('amount'))} back"
        return super().apply(ev)

    def hands_text(self, box: int) -> Text:
        parts: list[Any] = []
        for i, h in enumerate(self.split_hands.get(box, [])):
            if i:
                parts.append(" | ")
            parts += [card_text(h["cards"]), f" {hand_text(h['cards'])}"]
            if h["doubled"]:
                parts.append(" doubled")
        return Text.assemble(*parts)

    def verbs(self) -> list[str]:
        game = set(self.info.get("verbs") or VERBS)
        return [v for v in VERBS if v in game]

    def prompt_text(self) -> Text:
        mine = {b: d for b, d in self.decisions.items() if b in self.my_boxes}
        if not mine:
            return super().prompt_text()
        lines = []
        for b, d in mine.items():
            legal = {c["verb"]: c for c in d.get("legal", [])}
            shown = [choice_text(legal[v]) + self._bounds(legal[v]) for v in legal]
            later = [v for v in self.verbs() if v not in legal]
            lines.append(
                f"box {b} {d.get('street')}: "
                + " / ".join(shown)
                + (f"   (not now: {', '.join(later)})" if later else "")
            )
        return Text.assemble(("your decision", "bold yellow"), ": ", "  ".join(lines))

    @staticmethod
    def _bounds(choice: dict[str, Any]) -> str:
        if "min" in choice and not choice.get("amounts"):
            if choice["verb"] == "follow":
                return " 1|2"
            return f" {money(choice['min'])}-{money(choice['max'])}"
        return ""

    def table_panel(self) -> Panel:
        panel = super().table_panel()
        grid = Table(box=None, padding=(0, 2), show_edge=False)
        grid.add_column("box", header_style="dim")
        grid.add_column("hands", header_style="dim")
        for b in sorted(self.split_hands):
            grid.add_row(f"{b}{' *' if b in self.my_boxes else ''}", self.hands_text(b))
        if self.split_hands:
            panel.renderable = Group(panel.renderable, Text("hands", style="dim"), grid)
        return panel

    def moment(self, cmd: BankedCommand) -> dict[str, Any] | bool:
        """A backing wager goes while betting is open; a range verb typed without an amount
        gets the default (module docstring)."""
        if cmd.kind == "back":
            if self.status != "betting":
                return True
            return {
                "type": "wager",
                "table": self.tv.table,
                "box": cmd.box,
                "wager": cmd.name,
                "amount": cmd.amount,
                "behind": True,
            }
        if cmd.kind == "decide" and cmd.amount is None:
            owed = {b: d for b, d in self.decisions.items() if b in self.my_boxes}
            box = cmd.box if cmd.box is not None else (next(iter(owed)) if len(owed) == 1 else None)
            if box in owed:
                choice = next(
                    (c for c in owed[box].get("legal", []) if c["verb"] == cmd.name), None
                )
                amount = default_amount(choice) if choice else None
                if amount is not None:
                    cmd = replace(cmd, amount=amount)
        return super().moment(cmd)

    async def bot_move(self, etype: str | None, ev: dict[str, Any]) -> None:
        if etype == "decision" and ev.get("box") in self.my_boxes and self.bot is not None:
            choice = self.bot.choice(ev.get("legal") or [{"verb": "stand"}])
            msg: dict[str, Any] = {
                "type": "decide",
                "table": self.tv.table,
                "box": ev["box"],
                "verb": choice["verb"],
            }
            amount = default_amount(choice)
            if amount is not None:
                msg["amount"] = amount
            await self.client.send(msg)
            return
        await super().bot_move(etype, ev)
