"""Text for the terminal client: money, cards, legal actions, choices and recalls (``rich``)."""

from __future__ import annotations

import re
from contextvars import ContextVar
from typing import Any

from rich.text import Text

#: a pai gow tile on the wire: its pips, low first (QLD Sch 6 s6)
TILE = re.compile(r"[1-6]-[1-6]")

#: True while a tournament table's amounts are shown or typed: they count tournament chips,
#: not cents (set by clients/terminal/tournaments.py; ``money`` and ``parse_amount`` follow it)
IN_CHIPS: ContextVar[bool] = ContextVar("in_chips", default=False)

SUIT_STYLE = {
    "s": ("\u2660", "bold white"),
    "h": ("\u2665", "bold red"),
    "d": ("\u2666", "bold blue"),
    "c": ("\u2663", "bold green"),
}


def money(cents: int | None) -> str:
    """``12345`` -> ``$123.45`` (integer arithmetic only); tournament chips: ``12,345``."""
    if cents is None:
        return "-"
    if IN_CHIPS.get():
        return f"{cents:,}"
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


def card_face(card: str) -> str:
    """``"Td"`` -> ``"10♦"``: the one way a card is written, in the panel and the log; a pai
    gow tile (its pips, ``"1-3"``) -> ``"[1-3]"``."""
    if TILE.fullmatch(card):
        return f"[{card}]"
    pip = SUIT_STYLE.get(card[1:], (card[1:], ""))[0]
    return f"{'10' if card[0] == 'T' else card[0]}{pip}"


def card_text(cards: list[str] | None) -> Text:
    out = Text()
    for i, c in enumerate(cards or []):
        if i:
            out.append(" ")
        out.append(card_face(c), style=SUIT_STYLE.get(c[1:], ("", ""))[1])
    return out


def plain_cards(cards: list[str] | None) -> str:
    """Cards for a log line: the same faces as :func:`card_text`, without colour."""
    return " ".join(card_face(c) for c in cards or [])


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
                sizes = " or ".join(money(s) for s in bounds["sizes"])
                out.append(f"[{key} $] {word} {sizes}")
            else:
                out.append(f"[{key} $] {word} {money(bounds['min'])} to {money(bounds['max'])}")
        else:
            out.append(f"[{key}] {verb}")
    return "  ".join(out)


def choice_text(choice: dict[str, Any]) -> str:
    amounts = choice.get("amounts") or []
    if choice.get("setting"):  # pai gow: the two tiles of the low hand, by position
        return f"{choice['verb']} I J"
    if len(amounts) == 1:
        return f"{choice['verb']} {money(amounts[0])}"
    if amounts:
        return f"{choice['verb']} {' or '.join(money(a) for a in amounts)}"
    return str(choice["verb"])


def numbered_tiles(tiles: list[str]) -> str:
    """A box's tiles with the positions ``set I J`` names: ``1 [6-6]  2 [1-3] ...``."""
    return "  ".join(f"{i} {card_face(t)}" for i, t in enumerate(tiles, 1))


def recall_text(last: dict[str, Any] | None) -> str:
    """The ``recall`` reply (QLD Sch 19 s3(2)): the previous round's bet, result and win."""
    if not last:
        return "no previous round at this table"
    net = last.get("net", 0)
    return (
        f"last round #{last.get('round')}: bet {money(last.get('bet_total'))}, paid "
        f"{money(last.get('paid_total'))}, {'won' if net >= 0 else 'lost'} {money(abs(net))}"
    )


#: event fields that hold money (integer cents), written as dollars by :func:`event_words`
AMOUNT_FIELDS = frozenset(
    {"amount", "net", "paid", "bet", "meter", "stake", "returned", "total", "added", "won"}
)


def event_words(ev: dict[str, Any]) -> str:
    """Any event in words, for the events no kind of table describes better:
    ``{"type": "jackpot_paid", "box": 2, "amount": 5000}`` -> ``jackpot paid: box 2, $50.00``."""
    from clients.terminal.history import fair_line  # a deal's commitment, our seed

    fair = fair_line(ev)
    if fair is not None:
        return fair
    details = []
    for key, value in ev.items():
        if key in ("type", "round", "seq", "table") or isinstance(value, dict):
            continue
        if key in AMOUNT_FIELDS and isinstance(value, int):
            details.append(money(value))
        elif isinstance(value, list):
            details.append(f"{key.replace('_', ' ')} {', '.join(map(str, value))}")
        else:
            details.append(f"{key.replace('_', ' ')} {value}")
    words = str(ev.get("type", "event")).replace("_", " ")
    return words + (": " + ", ".join(details) if details else "")
