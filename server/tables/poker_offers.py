"""Waiting lists at the poker table (``server/room/waiting.py``): a freed seat is held for the
list's first for ``seat_offer_time`` seconds (``seat_offer``), then offered to the next.
These are the poker table's methods of the same names (``server/tables/poker.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from protocol.messages import SeatOffer
from server.room.waiting import OfferSeat, OfferWithdrawn
from server.tables.poker_seat import Offer

if TYPE_CHECKING:
    from server.tables.poker import PokerTable


def on_offer_seat(table: PokerTable, item: OfferSeat) -> None:
    """Hold a free seat for the list's first for ``seat_offer_time`` seconds."""
    assert table.waiting is not None
    free = table._free_seat(set(table.offers))
    taken = item.account in table.members or any(
        o.account == item.account for o in table.offers.values()
    )
    if free is None or table.closing or taken:
        table.waiting.no_seat(table.id, item.account)
        return
    limit = table.config.seat_offer_time
    table.offers[free] = Offer(item.account, item.conn, trio.current_time() + limit)
    item.conn.send(SeatOffer(table.id, free, int(limit * 1000)))


def on_offer_withdrawn(table: PokerTable, item: OfferWithdrawn) -> None:
    for n, o in list(table.offers.items()):
        if o.account == item.account:
            del table.offers[n]
            if table.waiting is not None:
                table.waiting.seat_free(table.id)


def expire_offers(table: PokerTable, now: float) -> None:
    """An offer not taken in time lapses: the seat goes to the next on the list."""
    for n, o in list(table.offers.items()):
        if now >= o.expires:
            del table.offers[n]
            o.conn.send(SeatOffer(table.id, n, 0))
            if table.waiting is not None:
                table.waiting.lapsed(table.id, o.account)


def free_seat(table: PokerTable, held: set[int]) -> int | None:
    """The lowest seat neither taken nor in ``held`` (seats held for an offer)."""
    for n in range(1, table.rules.max_seats + 1):
        if n not in table.seats and n not in held:
            return n
    return None
