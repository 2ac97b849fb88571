"""Recalled rounds (the ``history`` reply) and the fairness events as lines of text.

``y`` (or ``history``) at any table asks for the player's last rounds there
(protocol/README.md, "Rounds on the record"); each comes back as the player was allowed to
see it and is printed as one line: when, the game, the seat or boxes and wagers, the
player's cards, the board, the hands shown, and the result in dollars.
"""

from __future__ import annotations

import datetime
from typing import Any

from clients.terminal.render import money


def round_line(r: dict[str, Any]) -> str:
    mine: list[str] = []
    board: list[str] = []
    shown: list[str] = []
    for ev in r.get("events", []):
        kind = ev.get("type")
        if kind == "hole_cards_dealt":
            mine += ev["cards"]
        elif kind == "board_dealt":
            board = list(ev.get("board") or ev["cards"])
        elif kind == "hand_shown" and "seat" in ev:
            shown.append(f"seat {ev['seat']} {' '.join(ev['cards'])}")
    when = datetime.datetime.fromtimestamp(r["at"] / 1000).strftime("%Y-%m-%d %H:%M:%S")
    parts = [f"{when} {r.get('game')}"]
    if r.get("seat") is not None:
        parts.append(f"seat {r['seat']}, stake {money(r['stake'])}")
    for box, wagers in (r.get("boxes") or {}).items():
        placed = ", ".join(f"{name} {money(c)}" for name, c in wagers.items())
        parts.append(f"box {box}: {placed}")
    if mine:
        parts.append("your cards " + " ".join(mine))
    if board:
        parts.append("board " + " ".join(board))
    if shown:
        parts.append("shown " + ", ".join(shown))
    net = int(r.get("net", 0))
    if r.get("state") == "voided":
        parts.append("voided: every wager returned")
    else:
        parts.append(f"won {money(net)}" if net >= 0 else f"lost {money(-net)}")
    return " | ".join(parts)


def history_lines(msg: dict[str, Any]) -> list[str]:
    """The ``history`` reply as lines, oldest round first."""
    rounds = msg.get("rounds") or []
    if not rounds:
        return ["no rounds of yours at this table yet"]
    return [f"your last {len(rounds)} rounds here:"] + [round_line(r) for r in rounds]


def fair_line(event: dict[str, Any]) -> str | None:
    """The fairness events (protocol/README.md "Rounds on the record") as a line, or None
    for another event: the next deal's server hash, our seed taken, a deal's commitment."""
    kind = event.get("type")
    if kind == "secret_committed":
        return f"next {event.get('for', 'round')}: server hash {event['server_hash'][:16]}..."
    if kind == "seed_taken":
        return f"your seed {event['seed']!r} joins the next {event.get('for', 'round')}'s deal"
    if kind == "commitment":
        what = f"shoe stack {event['stack']}" if "shoe" in event else "deal"
        seeds = len(event.get("seeds") or ())
        return (
            f"{what} committed: root {event['root'][:16]}... of {event['size']} cards, "
            f"{seeds} player seed{'s' if seeds != 1 else ''} (croupier verify checks it)"
        )
    if kind == "opened":
        return f"{len(event.get('open') or ())} more cards opened against the commitment"
    return None
