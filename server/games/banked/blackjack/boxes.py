"""The blackjack round's pieces of play: a box, its hands, each player's stake, an offer.

A box (:class:`BoxPlay`) holds its players' wagers (the controller, ``None``, and others on
the box: BJ s29, SP s30, CH s29, SW s28), the hands formed on it in play order
(:class:`Hand`: split hands in the order formed, BJ s25, CH digest A6; SW's two areas, s6),
its insurance and first cards, and each player's result figures. A :class:`Stake` is one
player's money on one hand. An :class:`Offer` is a choice open to one player beside the
hand in play (insurance and even money, BJ s22-s23; others' double, surrender, cover or
follow, BJ s30(6),(7); Spanish rescue, SP s25(7),(8)). Money moves only through the
round's ledger, between ``house`` and :func:`party` names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from server.cards import Card
from server.errors import IllegalAction
from server.games.banked.base import Choice

Player = str | None  # None: the box's controller; "P2": another player on the box


@dataclass(frozen=True)
class RangeChoice(Choice):
    """A verb taking any amount from ``lo`` to ``hi`` cents (double for less, insurance), or
    any of ``allowed`` (a hand number to follow)."""

    lo: int = 0
    hi: int = 0
    check: str = ""

    def resolve(self, amount: int | None) -> int | None:
        if isinstance(amount, bool) or not isinstance(amount, int):
            if amount is None and self.lo == self.hi:
                return self.lo
            raise IllegalAction("amount_required", f"{self.verb} needs an amount")
        if not self.lo <= amount <= self.hi:
            raise IllegalAction(
                "bad_amount", f"{self.verb} {amount}: allowed {self.lo} to {self.hi}"
            )
        if self.check:  # BJ s23(4), digest A8: over half only for a whole-dollar win
            wager = int(self.check)
            if 2 * amount > wager and (2 * amount) % 100:
                raise IllegalAction(
                    "bad_amount",
                    f"insurance {amount}: over half the wager only for a whole-dollar win",
                )
        return amount

    def to_wire(self) -> dict[str, Any]:
        return {"verb": self.verb, "min": self.lo, "max": self.hi}


@dataclass
class Stake:
    """One player's money on one hand."""

    player: Player
    main: int
    double: int = 0
    net: int | None = None  # settled: the player's net on main + double
    rescued: bool = False
    surrendered: bool = False


@dataclass(eq=False)
class Hand:
    """One hand on a box (an area of it, SW s6): its cards, its stakes by player, its state."""

    box: int
    area: int
    cards: list[Card]
    formed: int  # formation order within the area (0: the original hand)
    stakes: dict[Player, Stake]
    split: bool = False
    split_aces: bool = False
    doubled: bool = False
    fixed_aces: int = 0
    switched: bool = False
    acted: bool = False
    stood: bool = False
    #: SP s26(6): a hand formed by splitting two 7s of one suit earns no super bonus
    suited_sevens_split: bool = False
    #: "play" (in play or standing), "bust", "blackjack", "paid" (a 21 or five card trick
    #: paid at once); a blackjack is paid before the dealer's second card when ``early``
    status: str = "play"
    early: bool = False

    def stake_list(self) -> list[Stake]:
        return list(self.stakes.values())


#: what an offer is for (module docstring)
OfferKind = Literal["insurance", "double", "surrender", "rescue", "split"]


@dataclass(eq=False)
class Offer:
    """A choice open to ``player`` on ``box`` beside the hand in play (module docstring)."""

    box: int
    player: Player
    kind: OfferKind
    hand: Hand | None = None
    new_hand: Hand | None = None


@dataclass
class BoxPlay:
    """A box in the round: its players' wagers, its hands in play order, insurance, figures."""

    box: int
    wagers: dict[Player, dict[str, int]]
    hands: list[Hand] = field(default_factory=list)
    acted: bool = False  # any play decision on the box (SW: switch only before, s17(5))
    insurance: dict[Player, int] = field(default_factory=dict)
    first_cards: list[Card] = field(default_factory=list)
    figures: dict[Player, dict[str, int]] = field(default_factory=dict)


def party(box: int, player: Player) -> str:
    """The ledger party of ``player`` on ``box``: ``box:N``, or ``box:N:P2`` for a backer."""
    return f"box:{box}" if player is None else f"box:{box}:{player}"
