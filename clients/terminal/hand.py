"""One poker round as this client sees it, folded from the round events, and its log lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients.terminal.render import event_words, money, plain_cards

ALIASES = {
    "hole_cards": "hole_cards_dealt",
    "board": "board_dealt",
    "action": "action_taken",
    "commission": "commission_taken",
}


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
            hand.seats[int(k)] = SeatHand(
                stack=v["stack"],
                bet=v["bet"],
                in_pot=v["in_pot"],
                folded=v["folded"],
                allin=v["allin"],
                cards=v.get("cards"),
            )
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
        text = {
            "fold": "folds",
            "check": "checks",
            "call": f"calls {money(ev['amount'])}",
            "bet": f"bets {money(ev['total'])}",
            "raise": f"raises to {money(ev['total'])}",
            "allin": f"goes all in ({money(ev['total'])})",
        }.get(verb, verb)
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
    return event_words(ev)
