"""The stadium table's own events (QLD Sch 19; protocol/README.md "Stadium tables").

Each is a :class:`~server.tables.events.TableEvent`: its wire name is ``TYPE``, its fields
are its wire fields in order. ``AUDIENCE`` says who hears it: ``"table"`` events go to every
terminal and spectator (and are journalled with the round in play); ``"private"`` events go
to one terminal alone (its meter, its wagers, its settlement: ETG-15, s7), sent straight to
it and never journalled; ``"staff"`` events (a terminal's comings and goings) go to staff
screens only, since a thousand terminals do not need each other's.
"""

from __future__ import annotations

from typing import Any, ClassVar

from server.tables.events import Audience, TableEvent
from server.tables.seat_events import ConnectionChanged
from server.tables.window import NoMoreBets, RoundResult, RoundVoided

__all__ = [
    "AwaitingResult",
    "BetAck",
    "CashedOut",
    "CreditMeter",
    "LimitsChanged",
    "LimitsNotice",
    "NoMoreBets",
    "NoSpin",
    "ResultCorrected",
    "RoundAdjusted",
    "RoundResult",
    "RoundVoided",
    "Settlement",
    "TerminalConnection",
    "TerminalLeft",
]


# -- the round, to everyone ---------------------------------------------------------------------
class AwaitingResult(TableEvent, frozen=True, kw_only=True, gc=False):
    """The result is awaited from a dealer or a device (ETG-05)."""

    TYPE: ClassVar[str] = "awaiting_result"
    round: int


class NoSpin(TableEvent, frozen=True, kw_only=True, gc=False):
    """A no spin / misdeal entered: the wagers stand for the re-spin (the spec's
    ``on_invalid`` ``"stand"``); ``by`` is the role that entered it."""

    TYPE: ClassVar[str] = "no_spin"
    round: int
    reason: str
    by: str


class ResultCorrected(TableEvent, frozen=True, kw_only=True, gc=False):
    """A kept round re-settled on the corrected result (s10(2)), by whom."""

    TYPE: ClassVar[str] = "result_corrected"
    round: int
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    call: str
    by: str
    role: str


class LimitsNotice(TableEvent, frozen=True, kw_only=True, gc=False):
    """A limit change under notice (Part 2 s12(1)): from which round, not before when (ms)."""

    TYPE: ClassVar[str] = "limits_notice"
    terminal: int | None
    minimum: int
    maximum: int
    from_round: int
    not_before: int


# -- to one terminal ------------------------------------------------------------------------------
class BetAck(TableEvent, frozen=True, kw_only=True, gc=False):
    """ETG §3: the terminal's wagers as the server holds them, and its meter."""

    TYPE: ClassVar[str] = "bet_ack"
    AUDIENCE: ClassVar[Audience] = "private"
    round: int
    position: str | None
    wagers: dict[str, int]
    credits: int


class CreditMeter(TableEvent, frozen=True, kw_only=True, gc=False):
    """The terminal's credit meter (ETG-15) and why it moved."""

    TYPE: ClassVar[str] = "credit_meter"
    AUDIENCE: ClassVar[Audience] = "private"
    credits: int
    why: str


class CashedOut(TableEvent, frozen=True, kw_only=True, gc=False):
    """The credit meter paid to the player's account (s9(3)): how much, and how (to the
    account's wallet)."""

    TYPE: ClassVar[str] = "cashed_out"
    AUDIENCE: ClassVar[Audience] = "private"
    amount: int
    method: str


class Settlement(TableEvent, frozen=True, kw_only=True, gc=False):
    """The terminal's wagers and what they came to (s7), its recall and its meter."""

    TYPE: ClassVar[str] = "settlement"
    AUDIENCE: ClassVar[Audience] = "private"
    round: int
    round_id: str
    result: dict[str, Any] | None
    call: str
    bet_total: int
    won_total: int
    net: int
    wagers: dict[str, dict[str, Any]]
    riding: dict[str, int]
    credits: int


class RoundAdjusted(TableEvent, frozen=True, kw_only=True, gc=False):
    """A correction's difference posted to the meter (s10(2)); what it could not take is
    ``owed`` (s10(3))."""

    TYPE: ClassVar[str] = "round_adjusted"
    AUDIENCE: ClassVar[Audience] = "private"
    round: int
    amount: int
    owed: int
    credits: int
    wagers: dict[str, dict[str, Any]]


class LimitsChanged(TableEvent, frozen=True, kw_only=True, gc=False):
    """The terminal's limits now (ETG-11, -40): its own, else the table's, with a
    grandfathered minimum (Part 2 s12(2))."""

    TYPE: ClassVar[str] = "limits_changed"
    AUDIENCE: ClassVar[Audience] = "private"
    minimum: int
    maximum: int


# -- to staff screens -----------------------------------------------------------------------------
class TerminalLeft(TableEvent, frozen=True, kw_only=True, gc=False):
    """A terminal left the table, and why (staff screens only: a thousand terminals do not
    need each other's comings and goings)."""

    TYPE: ClassVar[str] = "terminal_left"
    AUDIENCE: ClassVar[Audience] = "staff"
    terminal: int | None
    reason: str


class TerminalConnection(ConnectionChanged, frozen=True, kw_only=True, gc=False):
    """A terminal's connection lost or back: the base's ``connection`` event (same shape),
    heard at a stadium by staff alone."""

    AUDIENCE: ClassVar[Audience] = "staff"
