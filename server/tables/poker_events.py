"""The poker table's own events (``server/tables/poker.py``, and the tournament's poker
tables, ``server/tournaments/tables.py``): seats, stakes, sitting out, the clock, the
pre-actions and the start of a hand. The engine's events are the engine's
(``server/games/poker/events.py``).

Each is a :class:`~server.tables.events.TableEvent` (its wire name ``TYPE``, its fields
declared once, one ``to_wire``); the wire shape is the one documented in protocol/README.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from server.tables.events import Audience, TableEvent
from server.tables.seat_events import TimedOut

__all__ = [
    "PreActionState",
    "RoundStarting",
    "SatIn",
    "SatOut",
    "SeatTaken",
    "SeatVacated",
    "StakeChanged",
    "TimeBankRunning",
    "TimedOut",
    "TurnStarted",
    "VacateWarning",
]


class SeatTaken(TableEvent, frozen=True, kw_only=True, gc=False):
    """A player took ``seat``."""

    TYPE: ClassVar[str] = "seat_taken"
    seat: int
    name: str


class SeatVacated(TableEvent, frozen=True, kw_only=True, gc=False):
    """The seat is free: why, and what went back to the player's wallet."""

    TYPE: ClassVar[str] = "seat_vacated"
    seat: int | None
    reason: str
    returned: int


class StakeChanged(TableEvent, frozen=True, kw_only=True, gc=False):
    """A buy-in or top-up (a tournament seat: its chips): the seat's stake now."""

    TYPE: ClassVar[str] = "stake"
    seat: int
    stake: int
    added: int


class SatOut(TableEvent, frozen=True, kw_only=True, gc=False):
    TYPE: ClassVar[str] = "sat_out"
    seat: int


class SatIn(TableEvent, frozen=True, kw_only=True, gc=False):
    """Playing again; ``wait_for_blind``: waits for the second blind (QLD Sch 11 s23A)."""

    TYPE: ClassVar[str] = "sat_in"
    seat: int
    wait_for_blind: bool


class RoundStarting(TableEvent, frozen=True, kw_only=True, gc=False):
    """Hand ``hand`` starts: the button (``designated``) and the seats dealt in."""

    TYPE: ClassVar[str] = "round_starting"
    hand: int
    designated: int
    seats: list[int]


class TurnStarted(TableEvent, frozen=True, kw_only=True, gc=False):
    """The engine's turn with the clock (turn time then time bank). ``legal``: the actions
    of the seat to act, shown to that seat only (an empty list to everyone else)."""

    TYPE: ClassVar[str] = "turn"
    seat: int
    legal: list[Any]
    time_ms: int
    time_bank_ms: int


class TimeBankRunning(TableEvent, frozen=True, kw_only=True, gc=False):
    """The seat to act used its turn time: its time bank runs."""

    TYPE: ClassVar[str] = "time_bank"
    seat: int
    time_bank_ms: int


class PreActionState(TableEvent, frozen=True, kw_only=True, gc=False):
    """A seat's queued pre-action (``verb`` None: none), told to that seat alone: ``set``,
    ``cleared``, ``changed``, ``applied`` or ``round_ended``."""

    TYPE: ClassVar[str] = "pre_action"
    AUDIENCE: ClassVar[Audience] = "private"
    verb: str | None
    amount: int | None
    reason: str


class VacateWarning(TableEvent, frozen=True, kw_only=True, gc=False):
    """ACT 18.8: the seat is vacated if it does not wager in the next ``rounds`` rounds."""

    TYPE: ClassVar[str] = "vacate_warning"
    AUDIENCE: ClassVar[Audience] = "private"
    seat: int
    rounds: int
