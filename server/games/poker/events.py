"""Events the poker engine emits: immutable records, each saying who may see it.

``visible_to`` is :data:`EVERYONE`, :data:`NOBODY` (burn cards and undealt cards: kept for
the audit log only) or a seat number (a player's own hole cards). The view layer filters on
that field alone. ``to_wire()`` gives a msgpack/JSON-friendly dict with a ``"type"`` key;
cards become two-character strings (``"As"``).

Each event is a :class:`typing.NamedTuple` (with :class:`Event` mixed in first): built at
C speed on the engine's hot path, and immutable like a frozen dataclass (assigning a field
raises ``AttributeError``). Equality and hashing also compare the event type, so two events
of different types with the same field values are not equal (as with dataclasses).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from server.cards import card_str
from server.games.visibility import EVERYONE, NOBODY

_CARD_FIELDS = frozenset({"cards", "board"})


def _wire(v: Any) -> Any:
    t = type(v)
    if t is int or t is str or v is None:
        return v
    if hasattr(v, "to_wire"):  # before the tuple test: LegalActions is a named tuple
        return v.to_wire()
    if isinstance(v, dict):
        return {str(k): _wire(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_wire(x) for x in v]
    return v


class Event:
    """Base of every poker event (mixed into each event's named tuple)."""

    __slots__ = ()
    TYPE: ClassVar[str] = "event"
    _fields: ClassVar[tuple[str, ...]]
    visible_to: Any

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for name, v in zip(self._fields, self, strict=True):  # type: ignore[call-overload]
            if name in _CARD_FIELDS and v is not None:
                v = [card_str(c) for c in v]
            out[name] = _wire(v)
        return out

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(self, other)  # type: ignore[operator]

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self), tuple.__hash__(self)))  # type: ignore[arg-type]


class _FeeCharged(NamedTuple):
    seat: int
    amount: int
    visible_to: Any = EVERYONE


class FeeCharged(Event, _FeeCharged):
    """QLD Sch 11 s19: a participation fee paid before the round."""

    __slots__ = ()
    TYPE: ClassVar[str] = "fee_charged"


class _BlindPosted(NamedTuple):
    seat: int
    kind: str
    amount: int
    stack: int
    visible_to: Any = EVERYONE


class BlindPosted(Event, _BlindPosted):
    """A blind (``kind`` "blind1".."blind3"), or a QLD s23A ``live``/``dead`` post."""

    __slots__ = ()
    TYPE: ClassVar[str] = "blind_posted"


class _HoleCardsDealt(NamedTuple):
    seat: int
    cards: tuple[int, ...]
    visible_to: Any = None


class HoleCardsDealt(Event, _HoleCardsDealt):
    """A player's hole cards: visible to that seat only."""

    __slots__ = ()
    TYPE: ClassVar[str] = "hole_cards_dealt"


class _CardBurned(NamedTuple):
    cards: tuple[int, ...]
    visible_to: Any = NOBODY


class CardBurned(Event, _CardBurned):
    """A burn card (ACT r 7.3, 8.4, 9.1; QLD Sch 11 s20): never shown to anyone."""

    __slots__ = ()
    TYPE: ClassVar[str] = "card_burned"


class _BoardDealt(NamedTuple):
    round: int
    cards: tuple[int, ...]
    board: tuple[int, ...]
    visible_to: Any = EVERYONE


class BoardDealt(Event, _BoardDealt):
    """Communal cards turned face up before betting round ``round`` (1-based)."""

    __slots__ = ()
    TYPE: ClassVar[str] = "board_dealt"


class _TurnToAct(NamedTuple):
    seat: int
    legal: Any
    visible_to: Any = EVERYONE


class TurnToAct(Event, _TurnToAct):
    """Whose turn it is and what they may do (public: bounds hold no secrets).

    ``legal`` is a :class:`~server.games.poker.legal.LegalActions`; on the wire it is its
    list of ``{"verb": ..., bounds}``.
    """

    __slots__ = ()
    TYPE: ClassVar[str] = "turn_to_act"


class _ActionTaken(NamedTuple):
    seat: int
    verb: str
    amount: int
    total: int
    stack: int
    visible_to: Any = EVERYONE


class ActionTaken(Event, _ActionTaken):
    """``amount`` is what the action moved from the stack; ``total`` the round total after."""

    __slots__ = ()
    TYPE: ClassVar[str] = "action_taken"


class _BettingRoundEnded(NamedTuple):
    round: int
    pot: int
    visible_to: Any = EVERYONE


class BettingRoundEnded(Event, _BettingRoundEnded):
    __slots__ = ()
    TYPE: ClassVar[str] = "betting_round_ended"


class _UncalledReturned(NamedTuple):
    seat: int
    amount: int
    visible_to: Any = EVERYONE


class UncalledReturned(Event, _UncalledReturned):
    """An uncalled wager returned, never part of a pot (ACT r 11.4, QLD s26(3)(a))."""

    __slots__ = ()
    TYPE: ClassVar[str] = "uncalled_returned"


class _HandShown(NamedTuple):
    seat: int
    cards: tuple[int, ...]
    category: str
    visible_to: Any = EVERYONE


class HandShown(Event, _HandShown):
    __slots__ = ()
    TYPE: ClassVar[str] = "hand_shown"


class _HandMucked(NamedTuple):
    seat: int
    visible_to: Any = EVERYONE


class HandMucked(Event, _HandMucked):
    """A hand not shown at the showdown (it was beaten); its cards stay secret."""

    __slots__ = ()
    TYPE: ClassVar[str] = "hand_mucked"


class _CommissionTaken(NamedTuple):
    pots: tuple[int, ...]
    base: int
    amount: int
    visible_to: Any = EVERYONE


class CommissionTaken(Event, _CommissionTaken):
    """Commission on a group of pots with the same winners (``pots`` are indexes)."""

    __slots__ = ()
    TYPE: ClassVar[str] = "commission_taken"


class _PotAwarded(NamedTuple):
    pot: int
    amount: int
    winners: tuple[int, ...]
    shares: dict[int, int]
    commission: int
    visible_to: Any = EVERYONE


class PotAwarded(Event, _PotAwarded):
    __slots__ = ()
    TYPE: ClassVar[str] = "pot_awarded"


class _RoundVoided(NamedTuple):
    reason: str
    stacks: dict[int, int]
    visible_to: Any = EVERYONE


class RoundVoided(Event, _RoundVoided):
    """A misdeal or void round: every wager (and fee) returned."""

    __slots__ = ()
    TYPE: ClassVar[str] = "round_voided"


class _RoundEnded(NamedTuple):
    stacks: dict[int, int]
    visible_to: Any = EVERYONE


class RoundEnded(Event, _RoundEnded):
    __slots__ = ()
    TYPE: ClassVar[str] = "round_ended"
