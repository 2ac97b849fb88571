"""The table layer's own events of every kind of table (``server/tables/base.py``): the
seat lifecycle, the fairness commitments, the store's state and the operator's notices.

Each is a :class:`~server.tables.events.TableEvent` (its wire name ``TYPE``, its fields
declared once, one ``to_wire``); the wire shape is the one documented in protocol/README.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
from msgspec import UNSET, UnsetType

from server.tables.events import Audience, TableEvent

__all__ = [
    "ConnectionChanged",
    "SecretCommitted",
    "SeedTaken",
    "StoreState",
    "TableClosing",
    "TableNotice",
    "TimedOut",
]


class SecretCommitted(TableEvent, frozen=True, kw_only=True, gc=False):
    """The hash of the next deal's secret (server/fair.py): seeds sent from now on join
    that deal (``for``: ``round``, or ``shoe`` at blackjack)."""

    TYPE: ClassVar[str] = "secret_committed"
    server_hash: str
    for_: str = msgspec.field(name="for")

    def to_wire(self) -> dict[str, Any]:
        return _for(super().to_wire())


class SeedTaken(TableEvent, frozen=True, kw_only=True, gc=False):
    """A player's seed for the next deal was taken (told to that player alone)."""

    TYPE: ClassVar[str] = "seed_taken"
    AUDIENCE: ClassVar[Audience] = "private"
    seed: str
    server_hash: str
    for_: str = msgspec.field(name="for")

    def to_wire(self) -> dict[str, Any]:
        return _for(super().to_wire())


def _for(out: dict[str, Any]) -> dict[str, Any]:
    """The wire's ``for`` (a Python keyword: the field is ``for_``)."""
    out["for"] = out.pop("for_")
    return out


class ConnectionChanged(TableEvent, frozen=True, kw_only=True, gc=False):
    """A seat holder's connection dropped (its seat held for the grace) or came back."""

    TYPE: ClassVar[str] = "connection"
    seat: int | None
    connected: bool


class TimedOut(TableEvent, frozen=True, kw_only=True, gc=False):
    """A decision's clock ran out and the table acted: a poker seat's (``seat``, ``verb``:
    check, else fold) or a banked box's (``round``, ``box``; ``place``: a backer's)."""

    TYPE: ClassVar[str] = "timed_out"
    seat: int | UnsetType = UNSET
    verb: str | UnsetType = UNSET
    round: int | UnsetType = UNSET
    box: int | UnsetType = UNSET
    place: str | UnsetType = UNSET


class TableClosing(TableEvent, frozen=True, kw_only=True, gc=False):
    """The server stops: the round in play is void, everyone is cashed out."""

    TYPE: ClassVar[str] = "table_closing"


class StoreState(TableEvent, frozen=True, kw_only=True, gc=False):
    """The ledger's store went out (no round starts: ``status`` says why) or came back."""

    TYPE: ClassVar[str] = "store_status"
    ok: bool
    status: str


class TableNotice(TableEvent, frozen=True, kw_only=True, gc=False):
    """An operator's control was applied (server/tables/controls.py): the control, its
    reason, what was done; ``limits``: the new limits of a ``set_limits`` (absent from the
    wire for any other control)."""

    TYPE: ClassVar[str] = "table_notice"
    action: str
    reason: str
    limits: dict[str, int] | None = None
    detail: str

    def to_wire(self) -> dict[str, Any]:
        out = super().to_wire()
        if self.limits is None:
            del out["limits"]
        return out
