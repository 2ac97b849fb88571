"""A Canberra Poker tournament session as pure functions (2017 r 17.14-17.16; 2004 the same
numbers), and the ante round as a small state machine.

Theory of operation. Before each round of play, :func:`below_minimum` names the players who
cannot wager the table minimum: they are eliminated and vacate their seats (r 17.14); the
lifecycle books them out together, as players eliminated in the same round. The starting
marker (r 17.15) names the box that antes first; :func:`ante_order` lists the players from it
clockwise. Clockwise is increasing box number: box 1 is at the dealer's immediate left and is
dealt first (digest canberra-poker.md section 3). After each round the marker moves to the
next occupied box clockwise (:func:`next_marker`; the seeds say a marker is used, not how it
moves: our reading, docs/rulings.md). An :class:`AnteRound` asks each player in that order:
a player's opportunity to wager begins when asked and ends when the next player is asked
(r 17.16); an ante may be changed only during it. An ante placed out of order stands and the
player is warned; a further infringement by the same player in the session is void (r 17.15:
"may result in the ante being declared void"; our reading). At the end of a session the
results are by chip count (:func:`server.tournaments.places.by_chips`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from server.tournaments.conditions import Limits


def below_minimum(chips: Mapping[str, int], limits: Limits) -> list[str]:
    """The players who cannot wager the table minimum before a round: eliminated (r 17.14)."""
    return sorted(p for p, c in chips.items() if c < limits.minimum)


def ante_order(boxes: Mapping[int, str], marker: int) -> list[str]:
    """The players in ante order: from the box at the starting marker (or the next occupied
    box clockwise), clockwise = increasing box number, wrapping (r 17.15)."""
    ordered = sorted(boxes)
    first = next((i for i, b in enumerate(ordered) if b >= marker), 0)
    return [boxes[b] for b in ordered[first:] + ordered[:first]]


def next_marker(boxes: Mapping[int, str], marker: int) -> int:
    """The box the starting marker moves to for the next round: the next occupied box
    clockwise after ``marker`` (wrapping). ``boxes`` must not be empty."""
    ordered = sorted(boxes)
    return next((b for b in ordered if b > marker), ordered[0])


class AnteError(ValueError):
    """An ante the rules refuse: the message says why (one line); ``code`` for machines
    (``not_in_round``, ``limits``, ``chips``, ``placed``)."""

    def __init__(self, message: str, code: str = "ante") -> None:
        super().__init__(message)
        self.code = code


Outcome = Literal["placed", "changed", "out_of_order", "void"]


@dataclass
class AnteRound:
    """The antes of one round at one table, in :func:`ante_order` (r 17.15-17.16).

    :meth:`ask_next` asks the next player (ending the previous player's opportunity);
    :meth:`ante` places (or, during the player's own opportunity, changes) an ante, which
    must be within the table limits and the player's chips (r 17.13, 17.14). ``warned`` is
    carried from round to round of a session by the caller.
    """

    order: list[str]
    limits: Limits
    chips: Mapping[str, int]
    warned: set[str] = field(default_factory=set)
    antes: dict[str, int] = field(default_factory=dict)
    asked: int = -1  #: index in ``order`` of the player whose opportunity is open

    @property
    def current(self) -> str | None:
        return self.order[self.asked] if 0 <= self.asked < len(self.order) else None

    @property
    def done(self) -> bool:
        return self.asked >= len(self.order)

    def ask_next(self) -> str | None:
        """End the open opportunity and ask the next player (None: all were asked)."""
        self.asked += 1
        return self.current

    def ante(self, player: str, amount: int) -> Outcome:
        if player not in self.order:
            raise AnteError(f"{player} is not in this round", "not_in_round")
        if not self.limits.minimum <= amount <= self.limits.maximum:
            raise AnteError(
                f"an ante is {self.limits.minimum}..{self.limits.maximum} tournament chips",
                "limits",
            )
        if amount > self.chips[player]:
            raise AnteError(f"{player} has {self.chips[player]} tournament chips", "chips")
        if player == self.current:
            changed = player in self.antes
            self.antes[player] = amount
            return "changed" if changed else "placed"
        if player in self.antes:
            raise AnteError(
                f"{player}'s ante is placed and can no longer change (r 17.15)", "placed"
            )
        if player in self.warned:
            return "void"
        self.warned.add(player)
        self.antes[player] = amount
        return "out_of_order"
