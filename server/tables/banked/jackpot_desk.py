"""The jackpot desk: a banked table's part that deals with its linked pool.

Theory of operation. A table whose config names a ``jackpot_pool`` is linked to the pool
service (:class:`~server.tables.jackpot_link.JackpotLink`); the desk is the only part of the
table that talks to it, and the only one that knows whether jackpot wagers are taken:

* **Availability** is a phase (:class:`DeskPhase`), changed only through the transition
  table :data:`TRANSITIONS` by the tables' :class:`~server.tables.phases.StateMachine` (a
  transition not in it is a bug: its ``PhaseError`` names both phases)::

      UNLINKED ──> CLOSED ──> OPEN ──> OUTAGE ──> OPEN                       (auto)
                                       OUTAGE ──> AWAITING_APPROVAL ──> OPEN (approval)

  ``CLOSED``: linked, the pool not reachable yet (or on other terms: the link's
  ``mismatch``); ``OUTAGE``: closed because the service went away; jackpot wagers on the
  layout go back (QLD Sch 3 s34; ACT 2017 r 4.2). At a table whose game (its spec's
  ``jackpot_reopen``) or config asks for it, wagers reopen after an outage only when a
  manager approves (ACT 2017 r 14.5: ``AWAITING_APPROVAL``).
* **Coin-in** at no more bets (jackpots.md 5.2): the round's jackpot wagers go to the pool
  as a job of the table; until its answer (:class:`CoinedIn`) they are ``in_flight`` on
  their boxes; those the pool took are ``coined`` (off the box, on the books' jackpot).
* **Reversal** of a void round's coin-in (jackpots.md 5.6, :class:`CoinInReversed`).
* **Award** (jackpots.md 5.5, 5.8): the prizes are computed on the live pool by the link;
  while the award is owed the ledger keeps it (``AWARD_OWED``), so a stop between the pool's
  commit and the payment pays at the next start (:class:`JackpotAwarded`).
* **Meter** (QLD s9(2)(c); ACT 2017 r 10.3): every commit on the pool, from any process.

The desk's jobs answer through the table's inbox (typed items below); only the table task
books them.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import trio

from protocol.messages import Balance
from server.games.banked.base import JackpotState
from server.jackpots.model import MeterUpdate
from server.jackpots.reconcile import POOL_OF
from server.jackpots.service import JackpotService
from server.tables.banked import events as ev
from server.tables.jackpot_link import AWARD_OWED, CoinInResult, JackpotLink
from server.tables.phases import Phase, StateMachine

if TYPE_CHECKING:
    from server.tables.banked.settlement import SettledRound
    from server.tables.banked.table import BankedTable

UNAVAILABLE_TEXT = "jackpot system unavailable: no jackpot wagers (QLD Sch 3 s34; ACT 2017 r 4.2)"
APPROVAL_TEXT = "jackpot system back: wagers reopen when a manager approves (ACT 2017 r 14.5)"


# -- results of the desk's jobs and watchers (the table's inbox items) --------------------------
@dataclass(frozen=True)
class CoinedIn:
    """The pool's answer to a round's coin-in."""

    round_no: int
    round_id: str
    result: CoinInResult


@dataclass(frozen=True)
class CoinInReversed:
    """A void round's coin-in taken back by the pool (jackpots.md 5.6)."""

    amount: int


@dataclass(frozen=True)
class MeterChanged:
    update: MeterUpdate


@dataclass(frozen=True)
class JackpotAvailability:
    open: bool


@dataclass(frozen=True)
class JackpotAwarded:
    round_no: int
    round_id: str
    owners: dict[int, str]
    hands: dict[int, str]
    stakes: dict[int, int]
    paid: dict[int, int]


# -- availability as a phase ----------------------------------------------------------------------
class DeskPhase(enum.Enum):
    """Whether the table takes jackpot wagers, and why not (module docstring)."""

    UNLINKED = "unlinked"
    CLOSED = "closed"
    OPEN = "open"
    OUTAGE = "outage"
    AWAITING_APPROVAL = "awaiting_approval"


TRANSITIONS: Final[dict[DeskPhase, frozenset[DeskPhase]]] = {
    DeskPhase.UNLINKED: frozenset({DeskPhase.CLOSED}),
    DeskPhase.CLOSED: frozenset({DeskPhase.OPEN}),
    DeskPhase.OPEN: frozenset({DeskPhase.OUTAGE}),
    DeskPhase.OUTAGE: frozenset({DeskPhase.OPEN, DeskPhase.AWAITING_APPROVAL}),
    DeskPhase.AWAITING_APPROVAL: frozenset({DeskPhase.OPEN}),
}


class JackpotDesk:
    """A banked table's jackpot part (see the module docstring)."""

    def __init__(self, table: BankedTable, reopen_needs_approval: bool) -> None:
        self.table = table
        self.reopen_needs_approval = reopen_needs_approval
        self.phases = StateMachine(TRANSITIONS, DeskPhase.UNLINKED)
        self.link: JackpotLink | None = None
        self.meter: int | None = None
        #: jackpot wagers sent to the pool whose answer has not come back, by box
        self.in_flight: dict[int, int] = {}
        #: jackpot wagers of the round in play that the pool accepted, by box
        self.coined: dict[int, int] = {}
        self.wagers = 0  # jackpot wagers the pool took here
        self.wager_total = 0
        self.held = 0  # awards owed and not yet paid

    @property
    def phase(self) -> DeskPhase:
        return self.phases.phase

    def to(self, new: DeskPhase) -> None:
        self.phases.to(new)

    @property
    def open(self) -> bool:
        """Whether jackpot wagers are taken now (QLD s13(2), s34; ACT 2017 r 4.2)."""
        return self.phase is DeskPhase.OPEN

    @property
    def awaiting_approval(self) -> bool:
        return self.phase is DeskPhase.AWAITING_APPROVAL

    # -- wiring ------------------------------------------------------------------------------
    def attach(self, service: JackpotService, pool: str) -> None:
        """Link to ``pool`` in ``service``; the ledger keeps which pool (:data:`POOL_OF`)."""
        t = self.table
        self.link = JackpotLink(service, pool, t.game, t.options)
        self.to(DeskPhase.CLOSED)
        if t.ledger.meta.get(POOL_OF + t.id) != pool:
            t.ledger.remember(POOL_OF + t.id, pool)

    async def start(self, nursery: trio.Nursery) -> None:
        """The link's meter and availability watchers (they only submit to the inbox), and
        the awards owed since before a stop (paid now)."""
        link, t = self.link, self.table
        if link is None:
            return
        with trio.move_on_after(1):  # a pool service that is down only closes the wagers
            await link.ensure_pool()
        if link.open:
            self.to(DeskPhase.OPEN)
        nursery.start_soon(link.watch, lambda u: t.submit(MeterChanged(u)))
        nursery.start_soon(link.watch_availability, lambda ok: t.submit(JackpotAvailability(ok)))
        prefix = f"{AWARD_OWED}{t.id}|"
        for fact, value in sorted(t.ledger.meta.items()):
            if value and fact.startswith(prefix):
                owed = json.loads(value)
                self.held += 1
                t.spawn(
                    _award_job,
                    link,
                    int(owed["round_no"]),
                    fact[len(prefix) :],
                    {int(b): a for b, a in owed["owners"].items()},
                    {int(b): h for b, h in owed["hands"].items()},
                    {int(b): v for b, v in owed["stakes"].items()},
                )

    # -- views -------------------------------------------------------------------------------
    def status(self) -> str:
        if self.open:
            return "open"
        if self.awaiting_approval:
            return APPROVAL_TEXT
        if self.link is not None and self.link.mismatch:
            return "no jackpot wagers: " + self.link.mismatch
        return UNAVAILABLE_TEXT

    def view(self) -> dict[str, Any] | None:
        if self.link is None:
            return None
        return {
            "pool": self.link.pool,
            "meter": self.meter,
            "open": self.open,
            "wager": self.table.options.get("jackpot_wager"),
            "status": self.status(),
        }

    def info(self) -> dict[str, Any]:
        """For ``/health``: the link's state and this table's jackpot counts."""
        t = self.table
        m = t.books.money()
        return {
            "table": t.id,
            "pool": self.link.pool if self.link else None,
            "open": self.open,
            "meter": self.meter,
            "wagers": self.wagers,
            "wager_total": self.wager_total,
            "contributed": m["jackpot_contributed"],
            "paid": m["jackpot_paid"],
            "held": self.held,
        }

    # -- availability and meter ----------------------------------------------------------------
    def on_availability(self, item: JackpotAvailability) -> None:
        """The service came or went: open or close the wagers (module docstring); closing
        in the betting window returns the jackpot wagers on the layout (s34)."""
        t, phase = self.table, self.phase
        if item.open:
            if phase is DeskPhase.OUTAGE and self.reopen_needs_approval:
                self.to(DeskPhase.AWAITING_APPROVAL)  # ACT 2017 r 14.5: a manager approves
                t.broadcast(ev.JackpotStatus(open=False, status=self.status()))
                return
            if phase not in (DeskPhase.CLOSED, DeskPhase.OUTAGE):
                return
            self.to(DeskPhase.OPEN)
        else:
            if phase is not DeskPhase.OPEN:
                return
            self.to(DeskPhase.OUTAGE)
            if t.phase is Phase.BETTING:
                for box, ws in sorted(t.layout.items()):  # not accepted: returned (s34)
                    amount = ws.pop("jackpot", 0)
                    if amount:
                        account = t.owners[box]
                        balance = t.books.return_wager(account, box, amount)
                        t.send_to(account, Balance(balance))
                        t.broadcast(
                            ev.JackpotWagerReturned(
                                round=t.round_no, box=box, amount=amount, reason=UNAVAILABLE_TEXT
                            )
                        )
        t.broadcast(ev.JackpotStatus(open=item.open, status=self.status()))

    def approve(self) -> str | None:
        """A manager approves jackpot wagers again after an outage (ACT 2017 r 14.5)."""
        if not self.awaiting_approval:
            return None
        self.to(DeskPhase.OPEN)
        self.table.broadcast(ev.JackpotStatus(open=True, status="open"))
        return "jackpot wagers open again"

    def on_meter(self, item: MeterChanged) -> None:
        u = item.update
        self.meter = u.meter
        self.table.broadcast(ev.MeterMoved(pool=u.pool, meter=u.meter, version=u.version, op=u.op))

    # -- coin-in and reversal --------------------------------------------------------------------
    def coin_in(self, jackpots: dict[int, int]) -> bool:
        """No more bets: send the round's jackpot wagers to the pool (True: sent; the deal
        waits for :meth:`on_coined_in`)."""
        t = self.table
        if not jackpots or self.link is None:
            return False
        self.in_flight = dict(jackpots)
        t.spawn(_coin_in_job, self.link, t.round_no, t.round_id, jackpots)
        return True

    def on_coined_in(self, item: CoinedIn) -> tuple[bool, JackpotState | None]:
        """The pool's answer: book each accepted wager's parts; a round voided meanwhile (a
        shutdown) has its coin-in reversed (``(False, None)``: nothing to deal); otherwise
        the refused ones go back and the round is dealt on the pool's figures (``(True,
        state)``)."""
        link, t = self.link, self.table
        assert link is not None
        self.in_flight = {}
        current = item.round_no == t.round_no and t.phase is Phase.NO_MORE_BETS
        for box, amount in sorted(item.result.accepted.items()):
            prize, reserve, operator = link.split(amount)
            t.books.coin_in(box, prize + reserve, operator)
            self.wagers += 1
            self.wager_total += amount
            if current:
                self.coined[box] = amount
        if not current:  # the round was voided while the pool answered: house pays back
            for box, amount in sorted(item.result.returned.items()):
                t.books.house_recovers(box, amount)
            if item.result.accepted:
                self.reverse(item.round_id)
            return False, None
        for box, amount in sorted(item.result.returned.items()):
            t.layout[box].pop("jackpot", None)
            account = t.round_owners[box]
            t.send_to(account, Balance(t.books.return_wager(account, box, amount)))
            t.broadcast(
                ev.JackpotWagerReturned(
                    round=t.round_no, box=box, amount=amount, reason=UNAVAILABLE_TEXT
                )
            )
        before = item.result.before
        return True, None if before is None else JackpotState(before.meter, before.reserve)

    def reverse(self, round_id: str) -> None:
        """Take a void round's coin-in back from the pool (jackpots.md 5.6)."""
        assert self.link is not None
        self.table.spawn(_void_job, self.link, round_id)

    def on_reversed(self, item: CoinInReversed) -> None:
        self.table.books.coin_in_reversed(item.amount)

    # -- awards ----------------------------------------------------------------------------------
    def award(
        self,
        round_no: int,
        owners: dict[int, str],
        hands: dict[int, str],
        stakes: dict[int, int],
    ) -> None:
        """The round's winning jackpot hands: owed in the same commit as the round's close
        (paid after any stop, ``AWARD_OWED``), then computed and committed by the pool."""
        t = self.table
        assert self.link is not None
        self.held += 1
        owed = {"round_no": round_no, "owners": owners, "hands": hands, "stakes": stakes}
        t.ledger.remember(f"{AWARD_OWED}{t.id}|{t.round_id}", json.dumps(owed))
        t.spawn(_award_job, self.link, round_no, t.round_id, owners, hands, stakes)

    def settled(self, done: SettledRound, void: bool) -> None:
        """After a round's settlement: a void round's coin-in is reversed; the winning
        jackpot hands are awarded by the pool."""
        if self.link is None:
            return
        if void and done.jackpot_stakes:
            self.reverse(self.table.round_id)
        elif done.jackpot_pending:
            owners = self.table.round_owners
            pending = done.jackpot_pending
            self.award(
                self.table.round_no,
                {b: owners[b] for b in pending},
                {b: done.facts.jackpot_hands[b] for b in pending},
                {b: done.jackpot_stakes.get(b, 0) for b in pending},
            )

    def on_awarded(self, item: JackpotAwarded) -> list[tuple[int, str, int]]:
        """The pool committed this round's prizes: pay them (QLD s23(3): after ante and bet);
        the award is no longer owed (in the same commit). The prizes paid, by box, highest
        box first: ``(box, account, amount)``."""
        t = self.table
        self.held -= 1
        t.ledger.remember(f"{AWARD_OWED}{t.id}|{item.round_id}", "")
        paid = []
        for box, amount in sorted(item.paid.items(), reverse=True):
            account = item.owners[box]
            t.send_to(account, Balance(t.books.jackpot_prize(account, amount)))
            t.broadcast(
                ev.JackpotPrizePaid(
                    round=item.round_no, box=box, hand=item.hands.get(box, ""), amount=amount
                )
            )
            paid.append((box, account, amount))
        return paid


async def _coin_in_job(
    link: JackpotLink, round_no: int, round_id: str, wagers: dict[int, int]
) -> CoinedIn:
    return CoinedIn(round_no, round_id, await link.coin_in(round_id, wagers))


async def _void_job(link: JackpotLink, round_id: str) -> CoinInReversed:
    return CoinInReversed(await link.void(round_id))


async def _award_job(
    link: JackpotLink,
    round_no: int,
    round_id: str,
    owners: dict[int, str],
    hands: dict[int, str],
    stakes: dict[int, int],
) -> JackpotAwarded:
    paid = await link.award(round_id, hands)
    return JackpotAwarded(round_no, round_id, owners, hands, stakes, paid)
