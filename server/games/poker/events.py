"""Events the poker engine emits, on the one event family of :mod:`server.games.events`.

``visible_to`` is :data:`EVERYONE`, :data:`NOBODY` (burn cards and undealt cards: kept for
the audit log only) or a seat number (a player's own hole cards). The view layer filters on
that field alone. ``to_wire()`` gives a msgpack/JSON-friendly dict with a ``"type"`` key;
cards (the ``cards`` and ``board`` fields, integers here) become two-character strings
(``"As"``). Each event is declared once, frozen; the engine builds them positionally on its
hot path, with ``visible_to`` as a keyword where it is not everyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Literal

from server.games.events import Event as _Base
from server.games.poker.legal import LegalActions
from server.games.visibility import EVERYONE, NOBODY, Visibility

__all__ = [
    "EVERYONE",
    "NOBODY",
    "ActionTaken",
    "BettingRoundEnded",
    "BlindKind",
    "BlindPosted",
    "BoardDealt",
    "CardBurned",
    "CommissionTaken",
    "Event",
    "FeeCharged",
    "HandMucked",
    "HandShown",
    "HoleCardsDealt",
    "PotAwarded",
    "RoundEnded",
    "RoundVoided",
    "TurnToAct",
    "UncalledReturned",
]


class Event(_Base, frozen=True):
    """Base of every poker event: cards travel as integers, on the wire as strings."""

    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset({"cards", "board"})


class FeeCharged(Event, frozen=True):
    """QLD Sch 11 s19: a participation fee paid before the round."""

    TYPE: ClassVar[str] = "fee_charged"

    seat: int
    amount: int


#: a blind (ACT r 7.1, QLD s23, Sch 5 s23), or a QLD Sch 11 s23A live or dead post
BlindKind = Literal["blind1", "blind2", "blind3", "live", "dead"]


class BlindPosted(Event, frozen=True):
    """A blind (``kind`` "blind1".."blind3"), or a QLD s23A ``live``/``dead`` post."""

    TYPE: ClassVar[str] = "blind_posted"

    seat: int
    kind: BlindKind
    amount: int
    stack: int


class HoleCardsDealt(Event, frozen=True, kw_only=True):
    """A player's hole cards: visible to that seat only."""

    TYPE: ClassVar[str] = "hole_cards_dealt"

    seat: int
    cards: tuple[int, ...]
    visible_to: Visibility | None = None


class CardBurned(Event, frozen=True, kw_only=True):
    """A burn card (ACT r 7.3, 8.4, 9.1; QLD Sch 11 s20): never shown to anyone."""

    TYPE: ClassVar[str] = "card_burned"

    cards: tuple[int, ...]
    visible_to: Visibility | None = NOBODY


class BoardDealt(Event, frozen=True):
    """Communal cards turned face up before betting round ``round`` (1-based)."""

    TYPE: ClassVar[str] = "board_dealt"

    round: int
    cards: tuple[int, ...]
    board: tuple[int, ...]


class TurnToAct(Event, frozen=True):
    """Whose turn it is and what they may do (public: bounds hold no secrets).

    ``legal`` is a :class:`~server.games.poker.legal.LegalActions`; on the wire it is its
    list of ``{"verb": ..., bounds}``.
    """

    TYPE: ClassVar[str] = "turn_to_act"

    seat: int
    legal: LegalActions


class ActionTaken(Event, frozen=True):
    """``amount`` is what the action moved from the stack; ``total`` the round total after."""

    TYPE: ClassVar[str] = "action_taken"

    seat: int
    verb: str
    amount: int
    total: int
    stack: int


class BettingRoundEnded(Event, frozen=True):
    TYPE: ClassVar[str] = "betting_round_ended"

    round: int
    pot: int


class UncalledReturned(Event, frozen=True):
    """An uncalled wager returned, never part of a pot (ACT r 11.4, QLD s26(3)(a))."""

    TYPE: ClassVar[str] = "uncalled_returned"

    seat: int
    amount: int


class HandShown(Event, frozen=True):
    TYPE: ClassVar[str] = "hand_shown"

    seat: int
    cards: tuple[int, ...]
    category: str


class HandMucked(Event, frozen=True):
    """A hand not shown at the showdown (it was beaten); its cards stay secret."""

    TYPE: ClassVar[str] = "hand_mucked"

    seat: int


class CommissionTaken(Event, frozen=True):
    """Commission on a group of pots with the same winners (``pots`` are indexes)."""

    TYPE: ClassVar[str] = "commission_taken"

    pots: tuple[int, ...]
    base: int
    amount: int


class PotAwarded(Event, frozen=True):
    TYPE: ClassVar[str] = "pot_awarded"

    pot: int
    amount: int
    winners: tuple[int, ...]
    shares: Mapping[int, int]
    commission: int


class RoundVoided(Event, frozen=True):
    """A misdeal or void round: every wager (and fee) returned."""

    TYPE: ClassVar[str] = "round_voided"

    reason: str
    stacks: Mapping[int, int]


class RoundEnded(Event, frozen=True):
    TYPE: ClassVar[str] = "round_ended"

    stacks: Mapping[int, int]
