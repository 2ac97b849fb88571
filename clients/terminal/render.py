"""Text for the terminal client: money, cards, legal actions, choices and recalls (``rich``)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

SUIT_STYLE = {
    "s": ("\u2660", "bold white"),
    "h": ("\u2665", "bold red"),
    "d": ("\u2666", "bold blue"),
    "c": ("\u2663", "bold green"),
}


def money(cents: int | None) -> str:
    """``12345`` -> ``$123.45`` (integer arithmetic only)."""
    if cents is None:
        return "-"
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


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
                out.append(
                    f"[{key} N] {word} {bounds['min']}..{bounds['max']} "
                    f"({money(bounds['min'])}-{money(bounds['max'])})"
                )
        else:
            out.append(f"[{key}] {verb}")
    return "  ".join(out)


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
    return (
        f"last round #{last.get('round')}: bet {money(last.get('bet_total'))}, paid "
        f"{money(last.get('paid_total'))}, {'won' if net >= 0 else 'lost'} {money(abs(net))}"
    )
