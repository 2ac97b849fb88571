"""Table events: the table layer's own events, declared like the engines' (one family).

A table event (a seat taken, a wager refused, a round voided, a jackpot paid) is a frozen
:class:`server.games.events.Event` subclass: its wire name is ``TYPE``, its fields are
declared once, ``to_wire`` is the one wire helper, and ``visible_to`` says who may see it
(on the server: unlike an engine event's, it is not sent, since a recipient only ever gets
what it may see, and a table event's bytes go to every seat).
``AUDIENCE`` declares on the class who hears it at all:

- ``"table"``: every member and spectator allowed by ``visible_to`` (the default); a table
  event of a round in play is journalled;
- ``"private"``: only the member named by ``visible_to`` (a refund, a private notice); it
  is still journalled, so a history shows it to that member alone;
- ``"staff"``: only spectators (staff screens) hear it, and it is never journalled (a
  terminal of a stadium joining or leaving);
- ``"quiet"``: sent to the allowed recipients but never journalled (the state of a link to a
  jackpot service, a meter tick: facts of the table, not of a round).

One wire name has one shape: a class per name (a subclass may only change the audience),
optional fields left :data:`~msgspec.UNSET` are not on the wire, and the protocol
document's test walks the subclasses of :class:`TableEvent` (``all_table_events``).
The names several table kinds share are declared once: ``connection`` and ``timed_out`` in
:mod:`server.tables.seat_events`; ``no_more_bets``, ``round_voided`` and ``round_result``
in :mod:`server.tables.window`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from msgspec import UNSET

from server.cards import card_str
from server.games.events import Event, to_wire_value

__all__ = ["Audience", "TableEvent", "all_table_events"]

Audience = Literal["table", "private", "staff", "quiet"]


class TableEvent(Event, frozen=True, kw_only=True, gc=False):
    """Base of every table event (see the module's docstring)."""

    TYPE: ClassVar[str] = "table_event"
    AUDIENCE: ClassVar[Audience] = "table"

    def to_wire(self) -> dict[str, Any]:
        """The engine events' wire form (:meth:`Event.to_wire`) without ``visible_to`` and
        without the fields left :data:`~msgspec.UNSET` (one class carries a name whose events
        differ by an optional field). Written out here, not filtered after: a table builds
        one per step."""
        out: dict[str, Any] = {"type": self.TYPE}
        cards = self.CARD_FIELDS
        for name in self.__struct_fields__:
            if name == "visible_to":  # a recipient only ever gets what it may see; the
                continue  # bytes go to every seat (docs/perf.md, "Typed table events")
            v = getattr(self, name)
            t = type(v)
            if t is int or t is str or v is None or t is bool:
                out[name] = v
            elif v is UNSET:
                continue
            elif name in cards:
                out[name] = [card_str(c) for c in v]
            else:
                out[name] = to_wire_value(v)
        return out


def all_table_events() -> list[type[TableEvent]]:
    """Every table event class declared so far (the modules declaring them imported)."""
    out: list[type[TableEvent]] = []
    todo: list[type[TableEvent]] = [TableEvent]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            out.append(sub)
            todo.append(sub)
    return sorted(out, key=lambda c: c.TYPE)
