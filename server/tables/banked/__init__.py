"""The banked table, composed of parts (issue 24): :mod:`.table` runs the round and owns
the parts; :mod:`.events` declares its typed table events."""

from server.tables.banked.jackpot_desk import (
    APPROVAL_TEXT,
    UNAVAILABLE_TEXT,
    JackpotAvailability,
)
from server.tables.banked.layout import with_wager
from server.tables.banked.table import _TABLE_SETTLED, BANKED_GAMES, BankedTable, Player

__all__ = [
    "APPROVAL_TEXT",
    "BANKED_GAMES",
    "UNAVAILABLE_TEXT",
    "_TABLE_SETTLED",
    "BankedTable",
    "JackpotAvailability",
    "Player",
    "with_wager",
]
