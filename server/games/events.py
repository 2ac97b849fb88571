"""The one event family: every engine event, poker and banked alike, is declared one way.

An event is a frozen :class:`msgspec.Struct` subclass of :class:`Event`, declared once with
its fields; its wire name is the class variable ``TYPE``; ``visible_to`` says who may see it
(:mod:`server.games.visibility`: everyone, nobody yet, or one seat or box). Events are
immutable, compare equal only to an event of the same type with the same values, and hash.
They are built positionally on the poker engine's hot path (``BoardDealt(2, new, board)``),
or by keyword (``WagerSettled(box=1, wager="ante", net=-500, outcome="lose")``);
``visible_to`` is always a keyword.

:meth:`Event.to_wire` is the one wire helper: a plain dict with ``"type"`` and every
field, ``visible_to`` included (a recipient only ever receives what it may see); cards held
as integers (the fields named in ``CARD_FIELDS``) become two-character strings (``"As"``),
mappings get string keys, tuples become lists. The view layer (``server/tables/views.py``)
decides who receives it.

Events hold only immutable values and plain containers, never a reference back to an
engine, so they are not tracked by the cyclic garbage collector (``gc=False``): a busy
server builds millions of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from server.cards import card_str
from server.games.visibility import EVERYONE, Visibility

__all__ = ["Event", "to_wire_value"]


def to_wire_value(v: Any) -> Any:
    """A field's value as plain msgpack/JSON data (nested ``to_wire``, lists, string keys)."""
    t = type(v)
    if t is int or t is str or v is None or t is bool:
        return v
    if hasattr(v, "to_wire"):  # before the tuple test: LegalActions is a named tuple
        return v.to_wire()
    if isinstance(v, Mapping):
        return {str(k): to_wire_value(x) for k, x in v.items()}
    if isinstance(v, tuple | list):
        return [to_wire_value(x) for x in v]
    return v


class Event(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Base of every engine event: a frozen record with its visibility."""

    #: The event's name on the wire (``{"type": TYPE, ...}``).
    TYPE: ClassVar[str] = "event"
    #: Fields holding cards as integers, sent as card strings.
    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset()

    visible_to: Visibility | None = EVERYONE

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        cards = self.CARD_FIELDS
        for name in self.__struct_fields__:
            v = getattr(self, name)
            if name in cards and v is not None:
                out[name] = [card_str(c) for c in v]
            else:
                out[name] = to_wire_value(v)
        return out
