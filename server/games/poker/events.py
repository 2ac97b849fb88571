"""Events the poker engine emits: frozen records, each saying who may see it.

``visible_to`` is :data:`EVERYONE`, :data:`NOBODY` (burn cards and undealt cards: kept for
the audit log only) or a seat number (a player's own hole cards). The view layer filters on
that field alone. ``to_wire()`` gives a msgpack/JSON-friendly dict with a ``"type"`` key;
cards become two-character strings (``"As"``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from server.cards import card_str

#: Visible to every player and spectator (same value as ``server.games.visibility``).
EVERYONE = "everyone"
#: Visible to nobody yet (burn cards).
NOBODY = "nobody"

_CARD_FIELDS = frozenset({"cards", "board"})


def _wire(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _wire(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_wire(x) for x in v]
    if hasattr(v, "to_wire"):
        return v.to_wire()
    return v


class Event:
    """Base of every poker event."""

    __slots__ = ()
    TYPE: ClassVar[str] = "event"
    visible_to: Any

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            if f.name in _CARD_FIELDS and v is not None:
                v = [card_str(c) for c in v]
            out[f.name] = _wire(v)
        return out


@dataclass(frozen=True, slots=True)
class FeeCharged(Event):
    """QLD Sch 11 s19: a participation fee paid before the round."""

    TYPE: ClassVar[str] = "fee_charged"
    seat: int
    amount: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class BlindPosted(Event):
    """A blind (``kind`` "blind1".."blind3"), or a QLD s23A ``live``/``dead`` post."""

    TYPE: ClassVar[str] = "blind_posted"
    seat: int
    kind: str
    amount: int
    stack: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class HoleCardsDealt(Event):
    """A player's hole cards: visible to that seat only."""

    TYPE: ClassVar[str] = "hole_cards_dealt"
    seat: int
    cards: tuple[int, ...]
    visible_to: Any = None


@dataclass(frozen=True, slots=True)
class CardBurned(Event):
    """A burn card (ACT r 7.3, 8.4, 9.1; QLD Sch 11 s20): never shown to anyone."""

    TYPE: ClassVar[str] = "card_burned"
    cards: tuple[int, ...]
    visible_to: Any = NOBODY


@dataclass(frozen=True, slots=True)
class BoardDealt(Event):
    """Communal cards turned face up before betting round ``round`` (1-based)."""

    TYPE: ClassVar[str] = "board_dealt"
    round: int
    cards: tuple[int, ...]
    board: tuple[int, ...]
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class TurnToAct(Event):
    """Whose turn it is and what they may do (public: bounds hold no secrets).

    ``legal`` is a :class:`~server.games.poker.legal.LegalActions`; on the wire it is its
    list of ``{"verb": ..., bounds}``.
    """

    TYPE: ClassVar[str] = "turn_to_act"
    seat: int
    legal: Any
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    """``amount`` is what the action moved from the stack; ``total`` the round total after."""

    TYPE: ClassVar[str] = "action_taken"
    seat: int
    verb: str
    amount: int
    total: int
    stack: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class BettingRoundEnded(Event):
    TYPE: ClassVar[str] = "betting_round_ended"
    round: int
    pot: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class UncalledReturned(Event):
    """An uncalled wager returned, never part of a pot (ACT r 11.4, QLD s26(3)(a))."""

    TYPE: ClassVar[str] = "uncalled_returned"
    seat: int
    amount: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class HandShown(Event):
    TYPE: ClassVar[str] = "hand_shown"
    seat: int
    cards: tuple[int, ...]
    category: str
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class HandMucked(Event):
    """A hand not shown at the showdown (it was beaten); its cards stay secret."""

    TYPE: ClassVar[str] = "hand_mucked"
    seat: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class CommissionTaken(Event):
    """Commission on a group of pots with the same winners (``pots`` are indexes)."""

    TYPE: ClassVar[str] = "commission_taken"
    pots: tuple[int, ...]
    base: int
    amount: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    TYPE: ClassVar[str] = "pot_awarded"
    pot: int
    amount: int
    winners: tuple[int, ...]
    shares: dict[int, int]
    commission: int
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    """A misdeal or void round: every wager (and fee) returned."""

    TYPE: ClassVar[str] = "round_voided"
    reason: str
    stacks: dict[int, int]
    visible_to: Any = EVERYONE


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    TYPE: ClassVar[str] = "round_ended"
    stacks: dict[int, int]
    visible_to: Any = EVERYONE
