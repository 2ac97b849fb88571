"""A player (or spectator) at a banked table (players against the house): boxes and wagers."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any

import trio
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.client import Client, TableView
from clients.terminal.commands import (
    BANKED_HELP,
    SERVER_VERBS,
    BankedCommand,
    game_help,
    parse_banked_command,
)
from clients.terminal.render import (
    card_text,
    choice_text,
    event_words,
    money,
    numbered_tiles,
    plain_cards,
    recall_text,
)
from clients.terminal.session import Session
from server.games.banked.pai_gow import BANK_STREET, settings_of


def takes_setting(decision: dict[str, Any]) -> bool:
    """Whether the decision offers a verb that sets the box's tiles (pai gow ``set``)."""
    return any(c.get("setting") for c in decision.get("legal") or [])


class BankedSession(Session):
    """One player (or spectator) at a banked table: wagers on boxes, decisions, results."""

    HELP = BANKED_HELP
    HINT = "commands: w BOX WAGER AMOUNT, then the decision your box owes; h lists the wagers"

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
        self.info: dict[str, Any] = view.get("table", {})
        self.status: str = view.get("status", "")
        self.round: int = view.get("round") or 0
        self.closes_at = (
            trio.current_time() + view.get("closes_in_ms", 0) / 1000
            if self.status == "betting"
            else None
        )
        self.boxes: dict[int, dict[str, Any]] = {
            b["box"]: {"player": b["player"], "wagers": dict(b.get("wagers") or {})}
            for b in view.get("boxes", [])
        }
        self.my_boxes: set[int] = set(view.get("my_boxes") or [])
        self.cards: dict[int, list[str]] = {}
        self.hands: dict[int, str] = {}
        self.dealer: dict[str, Any] = {"cards": [], "hand": None, "status": None}
        self.board: list[str] = []
        self.decisions: dict[int, dict[str, Any]] = {}
        #: boxes whose hand was shown this round
        self.shown: set[int] = set()
        #: decisions sent and not yet answered (owed again if the server refuses one)
        self.sent: dict[int, dict[str, Any]] = {}
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

    def help_text(self) -> str:
        return f"{BANKED_HELP}\n{game_help(self.info)}"

    @property
    def me(self) -> str:
        return str(self.client.welcome.get("name", ""))

    # output
    def prompt_text(self) -> Text:
        mine = {b: d for b, d in self.decisions.items() if b in self.my_boxes}
        if mine:
            return Text.assemble(
                ("your decision", "bold yellow"),
                ": ",
                "  ".join(
                    f"box {b}: "
                    + "/".join(choice_text(c) for c in d.get("legal", []))
                    + (f" ({numbered_tiles(self.tiles_for(b, d))})" if takes_setting(d) else "")
                    for b, d in mine.items()
                ),
            )
        if self.status == "betting" and self.closes_at is not None:
            left = max(0, math.ceil(self.closes_at - trio.current_time()))
            return Text(f"betting open, {left}s: w BOX WAGER AMOUNT", style="yellow")
        return Text(
            "watching" if self.tv.role != "player" else "waiting  (h help, q quit)", style="dim"
        )

    def table_panel(self) -> Panel:
        grid = Table(box=None, padding=(0, 2), show_edge=False)
        for col in ("box", "player", "wagers", "cards", "hand", "result"):
            grid.add_column(col, header_style="dim")
        results = (self.result or {}).get("boxes") or {}
        for b in sorted(set(self.boxes) | set(self.cards)):
            info = self.boxes.get(b, {})
            res = results.get(str(b))
            net = (res["paid"] - res["bet"]) if res else None
            outcome = (
                ""
                if net is None
                else f"+{money(net)}"
                if net > 0
                else f"-{money(-net)}"
                if net < 0
                else "even"
            )
            grid.add_row(
                f"{b}{' *' if b in self.my_boxes else ''}",
                info.get("player", ""),
                ", ".join(f"{n} {money(a)}" for n, a in (info.get("wagers") or {}).items()),
                card_text(self.cards.get(b)),
                self.hands.get(b, ""),
                outcome,
            )
        lines: list[Any] = [grid]
        dealer = self.dealer
        if dealer["cards"] or dealer["status"]:
            lines.append(
                Text.assemble(
                    "dealer ",
                    card_text(dealer["cards"]),
                    "  ",
                    dealer["status"] or dealer["hand"] or "",
                )
            )
        if self.board:
            lines.append(Text.assemble("board  ", card_text(self.board)))
        if self.jackpot:
            lines.append(
                Text(
                    f"jackpot {money(self.jackpot.get('meter'))}"
                    + ("" if self.jackpot.get("open") else " (unavailable)"),
                    style="yellow",
                )
            )
        stakes = self.info.get("stakes") or {}
        title = (
            f"{self.info.get('name', self.tv.table)}  wagers {money(stakes.get('minimum'))}"
            f"-{money(stakes.get('maximum'))}  round #{self.round}  {self.status}"
        )
        return Panel(
            Group(*lines),
            title=title,
            subtitle=f"wallet {money(self.client.balance)}",
            border_style="green",
        )

    # events
    def apply(self, ev: dict[str, Any]) -> str | None:
        """Fold one event into the state; returns its log line (None: nothing to say)."""
        kind = ev.get("type")
        # An int; None for events without a box and the dealer's hand_shown. An event that
        # needs a box and has none falls through to the last line, like an unknown event.
        box: int | None = ev.get("box")
        if kind == "betting_open":
            self.status, self.round = "betting", ev.get("round", self.round)
            self.closes_at = trio.current_time() + ev.get("closes_in_ms", 0) / 1000
            self.cards, self.hands, self.board, self.decisions = {}, {}, [], {}
            self.shown = set()
            self.dealer = {"cards": [], "hand": None, "status": None}
            self.result = None
            for info in self.boxes.values():
                info["wagers"] = {}
            return f"--- round #{self.round}: betting open ---"
        if kind == "wager_placed" and box is not None:
            self.boxes[box] = {"player": ev.get("name", ""), "wagers": ev.get("box_wagers") or {}}
            if self.wagering == box and ev.get("name") == self.me:
                self.my_boxes.add(box)
            return f"{ev.get('name')}: {ev.get('wager')} {money(ev.get('amount'))} on box {box}"
        if kind == "box_taken" and box is not None:
            self.boxes.setdefault(box, {"wagers": {}})["player"] = ev.get("name", "")
            if self.wagering == box and ev.get("name") == self.me:
                self.my_boxes.add(box)
            return f"{ev.get('name')} takes box {box}"
        if kind == "no_more_bets":
            self.status, self.closes_at = "dealing", None
            for b, ws in (ev.get("boxes") or {}).items():
                self.boxes.setdefault(int(b), {"player": ""})["wagers"] = ws
            return "no more bets"
        if kind == "round_started":
            self.status = "deciding"
            return "the round starts"
        if kind == "cards_dealt":
            cards = list(ev.get("cards") or [])
            if box is not None and ev.get("to") == "box":
                self.cards[box] = self.cards.get(box, []) + cards
                return f"box {box}: {plain_cards(cards)}" if box in self.my_boxes else None
            if ev.get("to") == "dealer":
                self.dealer["cards"] = self.dealer["cards"] + cards
            else:
                self.board = self.board + cards
            return f"{ev.get('to')}: {plain_cards(cards)}"
        if kind == "decision" and box is not None:
            self.decisions[box] = ev
            whose = "your decision" if box in self.my_boxes else "decision"
            legal = " or ".join(choice_text(c) for c in ev.get("legal") or [])
            tiles = self.tiles_for(box, ev)
            if box in self.my_boxes and takes_setting(ev) and tiles:
                legal += f"; tiles {numbered_tiles(tiles)}"
            return f"box {box}: {whose} ({legal})"
        if kind == "decision_made" and box is not None:
            self.decisions.pop(box, None)
            self.sent.pop(box, None)
            amount = f" {money(ev['amount'])}" if ev.get("amount") else ""
            cause = f" ({ev['cause']})" if ev.get("cause") not in (None, "player") else ""
            return f"box {box}: {ev.get('verb')}{amount}{cause}"
        if kind == "hand_shown":
            cards, hand = list(ev.get("cards") or []), str(ev.get("hand", ""))
            if box is None:
                if self.dealer.get("shown"):  # several hands (baccarat's two, pai gow's)
                    cards, hand = self.dealer["cards"] + cards, f"{self.dealer['hand']}; {hand}"
                self.dealer.update(cards=cards, hand=hand, shown=True)
                return f"dealer shows {plain_cards(ev.get('cards'))} ({ev.get('hand')})"
            if box in self.shown:  # a box's second hand (pai gow: high, then low)
                cards, hand = self.cards[box] + cards, f"{self.hands[box]}; {hand}"
            self.shown.add(box)
            self.cards[box], self.hands[box] = cards, hand
            return f"box {box} shows {plain_cards(ev.get('cards'))} ({ev.get('hand')})"
        if kind == "dealer_declared":
            self.dealer["status"] = ev.get("status")
            return f"dealer {ev.get('status')}"
        if kind == "round_result":
            self.status, self.result, self.decisions = "settled", ev, {}
            out = []
            for b, r in sorted((ev.get("boxes") or {}).items(), key=lambda x: int(x[0])):
                net = r["paid"] - r["bet"]
                out.append(
                    f"box {b} ({r['player']}): bet {money(r['bet'])}, paid "
                    f"{money(r['paid'])}, {'+' if net >= 0 else '-'}{money(abs(net))}"
                )
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
        if kind == "wager_settled":
            net = ev.get("net", 0)
            sign = "+" if net > 0 else "-" if net < 0 else ""
            return f"box {box}: {ev.get('wager')} {ev.get('outcome')} {sign}{money(abs(net))}"
        if kind == "street_opened":
            return f"{ev.get('street')}: boxes {', '.join(map(str, ev.get('boxes') or []))}"
        if kind == "jackpot_wager_accepted":
            return f"box {box}: jackpot wager of {money(ev.get('amount'))} accepted"
        if kind == "jackpot_wager_returned":
            amount, reason = money(ev.get("amount")), ev.get("reason")
            return f"box {box}: jackpot wager of {amount} returned ({reason})"
        if kind == "jackpot_paid":
            return f"box {box}: the jackpot pays {money(ev.get('amount'))} ({ev.get('hand')})"
        if kind == "insufficient":
            return f"box {box}: not enough in the wallet for that decision"
        if kind == "timed_out":
            return f"box {box}: no decision in time"
        if kind == "outcome_declared":
            return f"result: {ev.get('call')}"
        if kind == "round_settled":
            return None  # the round_result that follows says it per box
        if kind == "dev_forced":
            return f"round #{ev.get('round')}: the outcome is fixed (dev server)"
        if kind == "player_joined":
            return f"{ev.get('name')} joins"
        if kind == "player_left":
            for b in ev.get("boxes") or []:
                self.boxes.pop(b, None)
            return f"{ev.get('name')} leaves"
        if kind == "table_closing":
            self.status = "closing"
            return "the table is closing"
        if kind == "meter":
            return None  # shown in the panel
        return event_words(ev)

    def left_text(self, msg: dict[str, Any]) -> str:
        return f"you left the table ({msg.get('reason')})"

    async def on_table_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "recall":
            self.say(recall_text(msg.get("last_round")))
            return
        if kind != "event":
            return
        ev = msg["event"]
        line = self.apply(ev)
        if line:
            self.say(line, "bold" if ev.get("type") in ("betting_open", "round_result") else "")
        etype = ev.get("type")
        if etype in ("round_result", "round_voided"):
            self.round_over()
        if etype == "round_result" and self.live is None and self.bot is None:
            self.show_table()
        if etype == "round_result" and any(
            int(b) in self.my_boxes for b in (ev.get("boxes") or {})
        ):
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
            box = (
                min(self.my_boxes)
                if self.my_boxes
                else next(
                    (
                        b
                        for b in range(1, self.info.get("boxes", 1) + 1)
                        if not self.boxes.get(b, {}).get("player")
                        and b != self.info.get("bank_box")
                    ),
                    None,
                )
            )
            if box is None:
                return
            self.wagering = box
            minimum = (self.info.get("stakes") or {}).get("minimum", 0)
            specs = [w for w in self.info.get("wagers", []) if w.get("initial")]
            for w in [w for w in specs if w.get("required")] or specs[:1]:
                await self.client.send(
                    {
                        "type": "wager",
                        "table": self.tv.table,
                        "box": box,
                        "wager": w["name"],
                        "amount": minimum,
                    }
                )
        elif etype == "decision" and ev.get("box") in self.my_boxes:
            choice = self.bot.choice(ev.get("legal") or [{"verb": "stand"}])
            amounts = choice.get("amounts") or []
            msg = {
                "type": "decide",
                "table": self.tv.table,
                "box": ev["box"],
                "verb": choice["verb"],
            }
            if len(amounts) > 1:
                msg["amount"] = self.bot.choice(amounts)
            if choice.get("setting"):  # pai gow: one of the three ways to set its tiles
                tiles = self.tiles_for(ev["box"], ev)
                msg["setting"] = self.bot.choice(settings_of(tiles)).wire()
            await self.client.send(msg)

    def moment(self, cmd: BankedCommand) -> dict[str, Any] | bool:
        """A wager goes while betting is open; a decision when its box owes one (and is
        checked against what the box may do then); until then each waits, holding up none."""
        if cmd.kind == "wager":
            if self.status != "betting":
                return True
            self.wagering = cmd.box
            return {
                "type": "wager",
                "table": self.tv.table,
                "box": cmd.box,
                "wager": cmd.name,
                "amount": cmd.amount,
            }
        owed = {b: d for b, d in self.decisions.items() if b in self.my_boxes}
        box = cmd.box if cmd.box is not None else (next(iter(owed)) if len(owed) == 1 else None)
        if box is None or box not in owed:
            return True
        legal = {c["verb"]: c for c in owed[box].get("legal", [])}
        if cmd.name not in legal:
            self.say(f"{cmd.name}: box {box} may {', '.join(legal)}", "red")
            return False
        msg: dict[str, Any] = {
            "type": "decide",
            "table": self.tv.table,
            "box": box,
            "verb": cmd.name,
        }
        if cmd.amount is not None:
            msg["amount"] = cmd.amount
        if cmd.low is not None:  # a pai gow setting: the box's tiles split high and low
            tiles = self.tiles_for(box, owed[box])
            if len(tiles) != 4:
                self.say(f"box {box} has no four tiles to set", "red")
                return False
            msg["setting"] = cmd.setting(tiles)
        self.sent[box] = self.decisions.pop(box)  # owed again if the server refuses it
        return msg

    def refusal(self, cmd: BankedCommand) -> str | None:
        """Why a typed command cannot be played at this table at all (None: it can)."""
        boxes = int(self.info.get("boxes") or 0)
        if cmd.box is not None and boxes and not 1 <= cmd.box <= boxes:
            return f"no box {cmd.box} at this table (boxes 1 to {boxes})"
        verbs = [v for v in self.info.get("verbs") or [] if v not in SERVER_VERBS]
        if cmd.kind == "decide" and self.info.get("verbs") is not None and cmd.name not in verbs:
            return (
                f"unknown command {cmd.name!r} (decisions here: "
                f"{', '.join(verbs) or 'none'}; h for help)"
            )
        return None

    def round_over(self) -> None:
        """A round ended: the decisions typed for it and never owed are dropped, said."""
        for cmd in [c for c in self.pending if c.kind == "decide" and c.round <= self.round]:
            self.pending.remove(cmd)
            self.say(f"{cmd.name} not played: round #{self.round} ended without it", "yellow")

    def tiles_for(self, box: int, decision: dict[str, Any]) -> list[str]:
        """The cards a decision sets: the box's own, or on the bank street the bank's (dealt
        to this player/banker only)."""
        if decision.get("street") == BANK_STREET:
            return list(self.dealer["cards"])
        return list(self.cards.get(box, []))

    async def on_refused(self, msg: dict[str, Any]) -> None:
        """A refused decision is still owed: type it again (e.g. a pai gow setting whose
        high hand ranks below its low hand, Sch 6 s2)."""
        if msg.get("ref") == "decide" and msg.get("code") != "no_decision" and self.sent:
            self.decisions.update(self.sent)
            self.sent = {}
            self.say("your decision is still owed: " + self.prompt_text().plain, "yellow")

    async def on_play_command(self, cmd: BankedCommand) -> None:
        if cmd.kind == "recall":
            await self.client.send({"type": "recall", "table": self.tv.table})
            return
        if self.tv.role != "player":
            self.say("spectators cannot wager", "red")
            return
        problem = self.refusal(cmd)
        if problem:
            self.say(problem, "red")
            return
        if cmd.kind == "decide":  # for the round in play, else the next one
            between = self.status not in ("betting", "coin_in", "dealing", "deciding")
            cmd = replace(cmd, round=self.round + between)
        self.pending.append(cmd)
        await self.flush()
        if any(c is cmd for c in self.pending):
            when = "betting opens" if cmd.kind != "decide" else "your box owes it"
            self.say(f"{cmd.kind} {cmd.name} waits until {when} (q drops it)", "dim")
