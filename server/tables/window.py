"""Tables whose rounds open with a betting window: banked boxes and stadium terminals.

Theory of operation: the round clock of QLD Sch 19 s5(4) and s3(2)(c)-(d), written once for
every kind that has it. :meth:`WindowTable.open_window` numbers the round (ids unique across
processes and restarts), opens it in the books and tells everyone ``betting_open`` with the
countdown (no window opens while the ledger's store is out); at ``closes_at`` the table's
:meth:`WindowTable.close_betting` runs ("no more bets", decided by the server, never by a
client); after the round, ``next_round_at`` opens the next window while anyone is at the
table. A kind writes what happens in between (a deal and decisions, or one shared outcome)
and its own timers (:meth:`WindowTable.other_deadline`, :meth:`WindowTable.on_other_time`).
The previous round of each player is kept for recall (s3(2)(f)-(h)).
"""

from __future__ import annotations

import math
import secrets
import time
from abc import abstractmethod
from typing import Any, ClassVar

import trio
from msgspec import UNSET, UnsetType

from protocol import errors
from protocol import messages as wire
from protocol.messages import RoundRecall
from server.config import ServerConfig, TableConfig
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.tables.base import BASE_HANDLERS, Handler, TableActor, TableCommand
from server.tables.connection import Connection
from server.tables.events import TableEvent
from server.tables.phases import Phase


class WindowEvent(TableEvent, frozen=True, kw_only=True, gc=False):
    """An event of a table with a betting window."""


class BettingOpen(WindowEvent, frozen=True, kw_only=True, gc=False):
    """A betting window opens (Sch 19 s5(4)): the countdown, and the server's wall clock
    for the client's offset; ``jackpot_open`` at a table with jackpot wagers."""

    TYPE: ClassVar[str] = "betting_open"
    round: int
    round_id: str
    closes_in_ms: int
    server_time: int
    closes_at: int
    jackpot_open: bool | UnsetType = UNSET


class NoMoreBets(WindowEvent, frozen=True, kw_only=True, gc=False):
    """The window closed (Sch 19 s3(2)(d)): the layout played (``boxes``, a banked table)
    or the server's wall clock (``server_time``, a stadium: the layout is frozen)."""

    TYPE: ClassVar[str] = "no_more_bets"
    round: int
    boxes: Any | UnsetType = UNSET
    server_time: int | UnsetType = UNSET


class RoundVoided(WindowEvent, frozen=True, kw_only=True, gc=False):
    """The round is void: every wager back (a shutdown, an operator, a no spin where the
    game voids it)."""

    TYPE: ClassVar[str] = "round_voided"
    round: int
    reason: str


class RoundResult(WindowEvent, frozen=True, kw_only=True, gc=False):
    """The round's result to everyone (Sch 19 s7(1); general.md C-6: only after no more
    bets). A banked table: every box's every wager with stake, net and outcome (``state``,
    ``dealer``, ``boxes``, ``jackpot_pending``); a stadium: the outcome and its call, who
    entered it, the openings of the cards it shows and, at a carried layout, the puck."""

    TYPE: ClassVar[str] = "round_result"
    round: int
    round_id: str
    state: str | UnsetType = UNSET
    dealer: Any | UnsetType = UNSET
    boxes: Any | UnsetType = UNSET
    jackpot_pending: Any | UnsetType = UNSET
    outcome: dict[str, Any] | UnsetType | None = UNSET
    call: str | UnsetType = UNSET
    source: str | UnsetType = UNSET
    approval: Any | UnsetType = UNSET
    puck: int | UnsetType | None = UNSET
    open: list[dict[str, Any]] | UnsetType = UNSET


def wall_ms() -> int:
    """The server's wall clock in ms (clients keep an offset to it for the countdown)."""
    return int(time.time() * 1000)


class WindowTable(TableActor):
    """A table kind whose rounds open with a betting window (see the module docstring)."""

    def __init__(self, table: TableConfig, config: ServerConfig, ledger: Ledger) -> None:
        super().__init__(table, config, ledger)
        self.instance = secrets.token_hex(4)  # round ids unique across processes and restarts
        self.round_no = 0
        self.round_id = ""
        self.closes_at = math.inf
        self.next_round_at = math.inf
        #: account -> its previous round at this table (s3(2)(f)-(h))
        self.last_round: dict[str, dict[str, Any]] = {}

    def limits_from(self) -> dict[str, Any]:
        """Staged limits apply from the next betting window (the round after this one)."""
        return {"from_round": self.round_no + 1}

    @classmethod
    def check_config(cls, table: TableConfig) -> None:
        """Raise ConfigError if ``table`` cannot be tabled (``croupier serve`` exit 2)."""
        cls(table, ServerConfig(), Ledger(MemoryStore()))

    def open_window(self, now: float, jackpot_open: bool | UnsetType = UNSET) -> None:
        """A new round: numbered, opened in the books, ``betting_open`` with the countdown
        of ``betting_seconds`` (s5(4)) to everyone (and whether jackpot wagers are open, at
        a table that has them)."""
        self.phases.to(Phase.BETTING)
        self.round_no += 1
        self.round_id = f"{self.id}.{self.instance}.{self.round_no}"
        self.books.open_round(self.round_id)
        self.closes_at = now + self.table.betting_seconds
        self.next_round_at = math.inf
        wall = wall_ms()
        window = int(self.table.betting_seconds * 1000)
        self.broadcast(
            BettingOpen(
                round=self.round_no,
                round_id=self.round_id,
                closes_in_ms=window,
                server_time=wall,
                closes_at=wall + window,
                jackpot_open=jackpot_open,
            )
        )

    @abstractmethod
    def open_betting(self, now: float) -> None:
        """Open the next round's window (reset the round's state, then :meth:`open_window`)."""

    @abstractmethod
    def close_betting(self) -> None:
        """No more bets (s3(2)(d), s3(3)): the server closes the window."""

    def other_deadline(self) -> float:
        """The kind's own timer inside a round (a decision clock), ``math.inf``: none."""
        return math.inf

    def on_other_time(self, now: float) -> None:
        """Run the kind's own timer when due."""
        return None

    def round_deadline(self) -> float:
        deadline = min(self.closes_at, self.other_deadline())
        if self.phase in (Phase.IDLE, Phase.PAUSE) and self.members and not self.closing:
            deadline = min(deadline, self.next_round_at)
        return deadline

    def on_round_time(self, now: float) -> None:
        if self.phase is Phase.BETTING and now >= self.closes_at:
            self.close_betting()
        self.on_other_time(now)
        if (
            self.phase in (Phase.IDLE, Phase.PAUSE)
            and not self.closing
            and self.members
            and now >= self.next_round_at
        ):
            if self.books.can_move:
                self.open_betting(now)
            else:
                self.next_round_at = now + 1.0  # no round starts while the ledger is out
        if self.phase is Phase.PAUSE and not self.members:
            self.phases.to(Phase.IDLE)

    def reopen(self) -> None:
        """An operator reopened the table: the next window opens now."""
        if self.members and self.phase in (Phase.IDLE, Phase.PAUSE):
            self.next_round_at = trio.current_time()

    def refuse_money(self, conn: Connection, ref: str) -> bool:
        """While the ledger's store is out no money moves (``store_unavailable``): True
        when refused."""
        if self.books.can_move:
            return False
        self.error(conn, errors.STORE_UNAVAILABLE, self.books.why_not(), ref)
        return True

    def refuse_after_close(self, conn: Connection, ref: str) -> bool:
        """Outside the betting window (or while the store is out) a wager is refused
        (``betting_closed``, s3(3)), whenever the client sent it: True when refused."""
        if self.refuse_money(conn, ref):
            return True
        if self.phase is Phase.BETTING:
            return False
        self.error(
            conn,
            errors.BETTING_CLOSED,
            "no more bets: wait for the next betting window (Sch 19 s3(3))",
            ref,
        )
        return True

    def on_recall(self, cmd: TableCommand[wire.Recall]) -> None:
        """This player's previous round: bet, result and win (s3(2)(f)-(h))."""
        cmd.conn.send(RoundRecall(self.id, self.last_round.get(cmd.conn.account or "")))


#: The base's handlers and recall.
WINDOW_HANDLERS: dict[type, Handler] = {**BASE_HANDLERS, wire.Recall: WindowTable.on_recall}
