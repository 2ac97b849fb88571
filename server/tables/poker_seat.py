"""A poker table's seat holder (:class:`Seat`) and a seat held for a waiting list's first
(:class:`Offer`)."""

from __future__ import annotations

from dataclasses import dataclass

from server.tables.connection import Connection
from server.tables.preactions import PreAction
from server.tables.seating import Member


class Seat(Member):
    """A seat holder: its number, time bank, sit-out state, whether it is new (QLD s21(1))
    or waits for the second blind (s23A), and its private pre-action (its stake is in the
    books)."""

    __slots__ = (
        "abstained",
        "bank",
        "hands",
        "missed",
        "new",
        "number",
        "pre",
        "sitting_out",
        "wait_for_blind",
    )

    def __init__(self, number: int, conn: Connection, bank: float) -> None:
        super().__init__(conn)
        self.number = number
        self.sitting_out = False
        self.bank = bank
        self.abstained = 0  # consecutive rounds without wagering (ACT 18.8)
        self.missed = 0  # rounds missed while absent (QLD Sch 11 s23A)
        self.new = False  # not a player in the preceding round (QLD Sch 11 s21(1))
        self.wait_for_blind = False  # s23A: waits for the second blind instead of posting
        self.hands = 0  # rounds dealt in (time bank top-ups)
        self.pre: PreAction | None = None


@dataclass(frozen=True, slots=True)
class Offer:
    """A seat held for a waiting list's first (``seat_offer``) until ``expires``."""

    account: str
    conn: Connection
    expires: float
