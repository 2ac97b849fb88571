"""What a seat (or a spectator) may see of a round of play now: the pots as they stand, the
seats, the board, and the seat to act's options.

A player sees their own hole cards and any hand shown at the showdown; nobody sees another
player's hole cards or the cards not yet turned (ACT r 9.2, QLD s27; the events carry the
same rule in their ``visible_to``: :mod:`server.games.visibility`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from server.cards import card_str
from server.games.poker.events import Event
from server.games.visibility import may_see

if TYPE_CHECKING:
    from server.games.poker.engine import PokerRound


class PotLayer(TypedDict):
    """One pot of :func:`current_pots` (the view's ``round.pots``)."""

    amount: int
    eligible: list[int]


def current_pots(rnd: PokerRound) -> list[PotLayer]:
    """The pots as they stand now: a layer at each tapped-out player's contribution, then
    the pot the players still able to bet are building (ACT r 12.1, QLD s29(5))."""
    live = [s for s in rnd.seats if s not in rnd.folded]
    levels = sorted({rnd.contrib[s] for s in live if s in rnd.allin})
    out: list[PotLayer] = []
    prev = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, prev) for c in rnd.contrib.values())
        out.append(
            {
                "amount": amount,  # players still able to bet may yet reach it
                "eligible": [s for s in live if rnd.contrib[s] >= level or s not in rnd.allin],
            }
        )
        prev = level
    rest = sum(c - min(c, prev) for c in rnd.contrib.values())
    active = [s for s in live if s not in rnd.allin]
    if rest or not out:
        out.append({"amount": rest, "eligible": active or live})
    if out:
        out[0]["amount"] += rnd.dead
    return [p for p in out if p["amount"] or len(out) == 1]


def view(rnd: PokerRound, viewer: int | None) -> dict[str, Any]:
    """Everything ``viewer`` (a seat, or None for a spectator) may see now."""
    seats = {}
    for s in rnd.seats:
        d: dict[str, Any] = {
            "stack": rnd.stacks[s],
            "bet": rnd.bet[s],
            "in_pot": rnd.contrib[s],
            "folded": s in rnd.folded,
            "allin": s in rnd.allin,
        }
        if s in rnd.shown:
            d["cards"] = [card_str(c) for c in rnd.shown[s]]
        elif s == viewer and s in rnd.hole:
            d["cards"] = [card_str(c) for c in rnd.hole[s]]
        seats[str(s)] = d
    out: dict[str, Any] = {
        "game": rnd.rules.game,
        "designated": rnd.designated,
        "round": rnd.street + 1,
        "seats": seats,
        "pot": rnd.pot,
        "pots": current_pots(rnd),
        "board": [card_str(c) for c in rnd.board],
        "to_act": rnd.to_act,
        "complete": rnd.complete,
    }
    if viewer is not None and viewer == rnd.to_act and rnd._legal is not None:
        out["legal"] = rnd._legal.to_wire()
    if rnd.result is not None:
        res = rnd.result.to_scenario()
        out["result"] = {
            k: res[k] for k in ("stacks", "commission", "fees", "pots", "uncalled", "showdown")
        }
    return out


def visible(events: Sequence[Event], viewer: int | None) -> list[dict[str, Any]]:
    """The wire form of the events ``viewer`` may see (a convenience for tests and demos)."""
    out = []
    for e in events:
        if may_see(e.visible_to, viewer):
            out.append(e.to_wire())
    return out
