"""Dealing: how a banked table's round gets its cards, and how its deal goes on the record.

Theory of operation (``server/fair.py``). By default every round is one deal: its random
source is the secret the table committed to for the round with the seeds of its players
(:meth:`Dealing.source`), and its engine is built on the frozen layout drawing from it
(:meth:`Dealing.new_round`); the record opens the deal with the round. A game whose cards
outlive a round (blackjack's shoe, dealt over many rounds) passes its own subclass: the
hooks below let it put its deal on the record (:meth:`Dealing.journal_opened`), open the
cards each step dealt (:meth:`Dealing.opening`, :meth:`Dealing.opened`), say where it stood
(:meth:`Dealing.record`, :meth:`Dealing.view`) and retire it (:meth:`Dealing.settled`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from protocol import errors
from protocol import messages as wire
from server.cards import CardError, RandomSource, card
from server.games.banked.base import BankedRound, Forced, JackpotState
from server.tables.banked import events as ev
from server.tables.base import Recipient, TableCommand
from server.tables.phases import Phase

if TYPE_CHECKING:
    from server.tables.banked.table import BankedTable


class Dealing:
    """One deal per round (see the module docstring)."""

    #: the table's record opens a round's deal with the round (a shoe opens its own)
    deal_per_round = True

    def __init__(self, table: BankedTable) -> None:
        self.table = table

    async def start(self, nursery: trio.Nursery) -> None:
        """Before the first round (a shoe left in play by a stop is found here)."""
        return None

    def source(self) -> RandomSource:
        """The round's random source: the secret committed for its deal with the seeds of
        its players (server/fair.py); it fixes the round's cards or outcome."""
        t = self.table
        return t.journal.begin(sorted(set(t.round_owners.values())))

    def new_round(
        self,
        wagers: dict[int, dict[str, Any]],
        forced: Forced | None,
        jackpot: JackpotState | None,
        rng: RandomSource,
    ) -> BankedRound:
        """The engine for the round on the frozen layout ``wagers``, drawing from ``rng``."""
        t = self.table
        return t.round_cls(t.options, wagers, rng, forced=forced, jackpot=jackpot)

    def journal_opened(self) -> None:
        """After the round went on the record: the deal's own records."""
        return None

    def opening(self, wires: list[dict[str, Any]]) -> None:
        """Before a step's events go on the record: anything their openings need."""
        return None

    def opened(self) -> None:
        """After a step's events: cards dealt that no event showed."""
        return None

    def record(self) -> dict[str, Any]:
        """What else the round's record starts with (where the deal stood)."""
        return {}

    def view(self) -> dict[str, Any]:
        """What else a snapshot shows of the deal."""
        return {}

    def settled(self) -> None:
        """After the round's settlement (a shoe reshuffled in the round is retired)."""
        return None

    def force(self, cmd: TableCommand[wire.DevForce]) -> None:
        """Dev mode only: the next round's cards (SCENARIOS.md forced outcome)."""
        t = self.table
        if not t.config.dev:
            t.error(cmd.conn, errors.DEV_ONLY, "forced cards exist only in dev mode", "dev_force")
            return
        m = cmd.message
        try:
            boxes: dict[int, list[int]] = {}
            for key, cs in m.boxes.items():
                box = int(key)
                if not 1 <= box <= t.num_boxes:
                    raise CardError(f"no box {key}")
                boxes[box] = [card(c) for c in cs]
            dealer = [card(c) for c in m.dealer]
            board = [card(c) for c in m.board]
            shoe = [card(c) for c in m.shoe]
        except (CardError, ValueError) as exc:
            t.error(cmd.conn, errors.BAD_CARDS, str(exc), "dev_force")
            return
        every = [c for cs in boxes.values() for c in cs] + dealer + board
        if (
            len(set(every)) != len(every)
            or any(c not in t.spec.deck for c in every + shoe)
            or any(shoe.count(c) > t.options.get("decks", 1) for c in shoe)
        ):
            t.error(
                cmd.conn, errors.BAD_CARDS, "a card is used twice or not in the deck", "dev_force"
            )
            return
        who: Recipient | None = t.spectators.get(cmd.conn.id)
        if t.holds_seat(cmd.conn):
            who = t.members[cmd.conn.account or ""]
        if who is None:
            t.error(cmd.conn, errors.NOT_AT_TABLE, "join the table first", "dev_force")
            return
        t.forced = Forced(boxes, dealer, board, shoe)
        # dealt at this window's "no more bets", else at the next window's
        upcoming = t.round_no if t.phase is Phase.BETTING else t.round_no + 1
        t.event(who, ev.DevForced(round=upcoming).to_wire())
