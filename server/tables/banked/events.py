"""The banked table's own events (QLD Sch 19; jackpots.md; BJ s29), typed.

Each class is one wire name (``TYPE``) with its fields declared once; the wire shape is the
one the table sent as a dict before (``to_wire`` adds ``visible_to``). A field that only
some events of a name carry (a backer's ``place``, a decision's ``player``) is
:data:`msgspec.UNSET` when absent and left off the wire
(:class:`~server.tables.window.WindowEvent`), so one class carries both shapes of the name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from msgspec import UNSET, UnsetType

from server.games.banked.base import Decision
from server.tables.events import Audience
from server.tables.seat_events import TimedOut
from server.tables.window import NoMoreBets, RoundResult, RoundVoided, WindowEvent

__all__ = [
    "BackerReturned",
    "BankedEvent",
    "BoxTaken",
    "CardsOpened",
    "DecisionPrompt",
    "DevForced",
    "Insufficient",
    "JackpotPrizePaid",
    "JackpotStatus",
    "JackpotWagerReturned",
    "MeterMoved",
    "NoMoreBets",
    "PlayerJoined",
    "PlayerLeft",
    "RoundResult",
    "RoundVoided",
    "TimedOut",
    "WagerPlaced",
]


class BankedEvent(WindowEvent, frozen=True, kw_only=True, gc=False):
    """A banked table event (a field left :data:`~msgspec.UNSET` is not on the wire)."""


# -- players and boxes ------------------------------------------------------------------------
class PlayerJoined(BankedEvent, frozen=True, kw_only=True, gc=False):
    TYPE: ClassVar[str] = "player_joined"
    name: str
    boxes: Sequence[int]


class BoxTaken(BankedEvent, frozen=True, kw_only=True, gc=False):
    """A box taken by a player's first wager on it (Sch 19 s5(2))."""

    TYPE: ClassVar[str] = "box_taken"
    box: int
    name: str


class PlayerLeft(BankedEvent, frozen=True, kw_only=True, gc=False):
    TYPE: ClassVar[str] = "player_left"
    name: str
    boxes: Sequence[int]
    reason: str
    returned: int


# -- the betting window -----------------------------------------------------------------------
class WagerPlaced(BankedEvent, frozen=True, kw_only=True, gc=False):
    """A wager made, changed or withdrawn (``amount`` 0; Sch 19 s5(2)); ``place``: a backer's
    (BJ s29), absent for the box's player."""

    TYPE: ClassVar[str] = "wager_placed"
    round: int
    box: int
    place: str | UnsetType = UNSET
    wager: str
    amount: int
    name: str
    box_wagers: Mapping[str, int]


class BackerReturned(BankedEvent, frozen=True, kw_only=True, gc=False):
    """A backer's wagers returned (a box with no wager at no more bets; BJ s29)."""

    TYPE: ClassVar[str] = "backer_returned"
    round: int
    box: int
    place: str
    amount: int
    reason: str


class DevForced(BankedEvent, frozen=True, kw_only=True, gc=False):
    """Dev mode: the round whose cards were forced (SCENARIOS.md)."""

    TYPE: ClassVar[str] = "dev_forced"
    AUDIENCE: ClassVar[Audience] = "private"
    round: int


# -- decisions --------------------------------------------------------------------------------
class DecisionPrompt(BankedEvent, frozen=True, kw_only=True, gc=False):
    """A decision owed, to the one who owes it, with its clock (``decision_seconds``);
    ``player``: the engine's other player on the box, when the decision names one."""

    TYPE: ClassVar[str] = "decision"
    AUDIENCE: ClassVar[Audience] = "private"
    box: int
    street: str
    legal: Sequence[Mapping[str, Any]]
    player: str | UnsetType = UNSET
    round: int
    time_ms: int

    @classmethod
    def of(cls, decision: Decision, round_no: int, time_ms: int) -> DecisionPrompt:
        w = decision.to_wire()
        return cls(
            box=w["box"],
            street=w["street"],
            legal=w["legal"],
            player=w.get("player", UNSET),
            round=round_no,
            time_ms=time_ms,
        )


class Insufficient(BankedEvent, frozen=True, kw_only=True, gc=False):
    """The wallet could not fund a decision's wager: the engine's ``insufficient``."""

    TYPE: ClassVar[str] = "insufficient"
    round: int
    box: int


class CardsOpened(BankedEvent, frozen=True, kw_only=True, gc=False):
    """Cards a shoe dealt that no event showed, opened all the same (BJ s17(1), s49);
    ``round`` is the round's id."""

    TYPE: ClassVar[str] = "opened"
    round: str
    open: Sequence[Any]


# -- settlement and jackpot -------------------------------------------------------------------
class JackpotPrizePaid(BankedEvent, frozen=True, kw_only=True, gc=False):
    """A jackpot prize committed by the pool and paid (QLD s23(3): after ante and bet)."""

    TYPE: ClassVar[str] = "jackpot_paid"
    round: int
    box: int
    hand: str
    amount: int


class JackpotWagerReturned(BankedEvent, frozen=True, kw_only=True, gc=False):
    """A jackpot wager the pool could not take, returned (QLD Sch 3 s34; ACT 2017 r 4.2)."""

    TYPE: ClassVar[str] = "jackpot_wager_returned"
    round: int
    box: int
    amount: int
    reason: str


class JackpotStatus(BankedEvent, frozen=True, kw_only=True, gc=False):
    """Jackpot wagers open or closed, and why (QLD s34; ACT 2017 r 4.2, r 14.5)."""

    TYPE: ClassVar[str] = "jackpot_status"
    open: bool
    status: str


class MeterMoved(BankedEvent, frozen=True, kw_only=True, gc=False):
    """A commit on the linked pool, from any process (QLD s9(2)(c); ACT 2017 r 10.3)."""

    TYPE: ClassVar[str] = "meter"
    pool: str
    meter: int
    version: int
    op: str
