"""The banked table: players against the house, boxes, a betting window, decisions on a timer.

One trio task owns the table (:class:`~server.tables.base.TableActor`); a banked engine
(``server/games/banked``) plays each round. Theory of operation, one round:

1. **Betting window** (QLD Sch 19 s5(4)): ``betting_open`` with a countdown of
   ``betting_seconds``. A player makes, changes or withdraws wagers on boxes (s5(2)); the
   first wager on a free box takes the box for that player, who may hold several. Every
   change moves money between the wallet (the terminal's credit meter, s4(2)) and the layout
   at once, and is checked against the game's rules and limits (s5(3)), the whole layout
   too (the engine's ``check_layout``: at pai gow nobody wagers on the bank's box, Sch 6
   s18(13)), so that no round is voided at the deal for a wager the window took.
2. **No more bets** (s3(2)(d), s3(3)): at the deadline the server, not the client, closes
   the window; from then on every wager message for the round is refused
   (``betting_closed``). The layout frozen here is what is played.
3. **Coin-in** of the jackpot wagers (only at a table linked to a pool,
   :mod:`server.tables.jackpot_link`): contributed to the pool service under
   ``(round id, box)``. If the jackpot system is unreachable the jackpot wager is returned
   and the rest of the round goes on (QLD Sch 3 s13(2), s34; ACT 2017 r 4.2).
4. **Deal and decisions**: the engine deals; each street's decisions are prompted to their
   box's player with ``decision_seconds`` on the clock; a box that has not decided when the
   clock runs out gets the engine's :meth:`~server.games.banked.base.BankedRound.timeout`,
   a decision whose verb sets the box's cards (pai gow's ``set``) carries the ``setting``,
   and a player whose wallet cannot fund the wager a decision needs gets
   :meth:`~server.games.banked.base.BankedRound.insufficient`.
5. **Settlement** (Sch 19 s7): ``round_result`` shows every box's every wager with its
   stake, net and outcome to everyone; winnings and returned stakes go to the wallets at
   once. Jackpot prizes are computed on the live pool and committed to the service
   (compare-and-set, commit order across linked tables); while the service is down the
   jackpot payment is held and retried, ante and bet having settled (jackpots.md 5.8).
6. **Recall** (s3(2)(f)-(h)): every player can ask for the previous round's bet, result and
   win (``recall``); it is part of the snapshot as well.

Money moves only through the table's books (``server/tables/books.py``): ``box:N`` is what
a box has on the layout, ``house`` the house's net (lost wagers less winnings, plus the
operator's part of each jackpot wager), ``jackpot`` what went to the pool (prize and reserve
parts) less the prizes it paid: ``issued == wallets + layout + house + jackpot_contributed -
jackpot_paid`` in every process, and across processes the pool's own invariant
(jackpots.md 5.9) closes the books. Calls to the pool service run as jobs of the table
(:meth:`~server.tables.base.TableActor.spawn`); their answers come back through the inbox as
typed results (:class:`CoinedIn`, :class:`CoinInReversed`, :class:`JackpotAwarded`) and only
the table task books them.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar

import trio
from msgspec import UNSET

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance, TableInfo
from server.cards import CardError, RandomSource, card, random_source
from server.config import ConfigError, ServerConfig, TableConfig
from server.errors import IllegalAction
from server.games.banked.base import (
    EVERYONE,
    Argument,
    BankedRound,
    DealerDeclared,
    Decision,
    DecisionMade,
    Event,
    Forced,
    HandShown,
    InvalidRound,
    JackpotPaid,
    JackpotState,
    PastRound,
    RoundSettled,
    WagerSettled,
    validate_wagers,
)
from server.games.banked.scenario import round_class
from server.games.registry import tabled
from server.games.replay import forced_json
from server.games.visibility import Visibility, may_see
from server.jackpots.model import JackpotError, check_pool_name
from server.jackpots.service import JackpotService
from server.store.ledger import Ledger
from server.store.model import InsufficientFunds, RoundState
from server.tables import books
from server.tables.banked import events as ev
from server.tables.banked.jackpot_desk import (
    UNAVAILABLE_TEXT,
    CoinedIn,
    CoinInReversed,
    JackpotAvailability,
    JackpotAwarded,
    JackpotDesk,
    MeterChanged,
)
from server.tables.base import Handler, Member, Recipient, TableCommand
from server.tables.connection import Connection
from server.tables.jackpot_link import JackpotLink, LinkError, pool_config_for
from server.tables.phases import Phase
from server.tables.views import ms_left
from server.tables.window import WINDOW_HANDLERS, WindowTable

log = logging.getLogger("croupier.tables.banked")

#: Every banked game id the server can table.
BANKED_GAMES: tuple[str, ...] = tabled("banked")

#: Engine events the table replaces by its own (settled on the pool's figures).
_TABLE_SETTLED = ("jackpot_paid", "round_settled")


def with_wager(old: dict[str, int], wager: str, amount: int) -> dict[str, int]:
    """A box's wagers after one is made, changed, or withdrawn (``amount`` 0; Sch 19 s5(2))."""
    new = dict(old)
    if amount:
        new[wager] = amount
    else:
        new.pop(wager, None)
    return new


class Player(Member):
    """A player at the table: the boxes it holds (it may hold several, or none yet)."""

    __slots__ = ("boxes",)

    def __init__(self, conn: Connection) -> None:
        super().__init__(conn)
        self.boxes: set[int] = set()


class BankedTable(WindowTable):
    """A table of one banked game (see the module docstring)."""

    kind = "banked"
    #: a wager's reply includes the wallet balance (not at a table played in tournament chips)
    sends_balance: ClassVar[bool] = True

    def __init__(self, table: TableConfig, config: ServerConfig, ledger: Ledger) -> None:
        super().__init__(table, config, ledger)
        self.game = table.game
        try:
            self.round_cls: type[BankedRound] = round_class(table.game)
        except Exception as exc:
            raise ConfigError(f"table {table.id}: {exc}") from None
        self.spec = self.round_cls.spec
        raw = dict(table.options)
        if table.jackpot_pool is None and "jackpot_wager" in self.spec.all_options():
            raw["jackpot_wager"] = None  # no pool, no jackpot wager (2017 r 4.2; s13(2))
        try:
            self.options = self.spec.validate_options(raw)
            if table.jackpot_pool is not None:
                check_pool_name(table.jackpot_pool)
                pool_config_for(table.game, self.options)
                if self.options.get("jackpot_wager") is None:
                    raise LinkError("a linked table needs a jackpot_wager")
        except (InvalidRound, LinkError, JackpotError) as exc:
            raise ConfigError(f"table {table.id}: {exc}") from None
        self.num_boxes: int = self.options["num_boxes"]
        self.rng: RandomSource = random_source(table.seed)
        self.owners: dict[int, str] = {}  # box -> account, while the player is at the table
        self.layout: dict[int, dict[str, int]] = {}
        self.round_owners: dict[int, str] = {}
        self.round_events: list[tuple[dict[str, Any], Visibility | None]] = []
        #: the window's wager commands, journalled with their times when the round is dealt
        self.wagers_made: list[dict[str, Any]] = []
        self.engine: BankedRound | None = None
        self.decision_deadline = math.inf
        #: the decisions prompted and not yet made, (box, street) -> when their clock runs out
        self.prompted: dict[tuple[int, str], float] = {}
        self.forced: Forced | None = None
        self.staged_options: dict[str, Any] | None = None  # new limits, next window
        reopen = table.jackpot_reopen or self.spec.jackpot_reopen
        if reopen not in ("auto", "approval"):
            raise ConfigError(f"table {table.id}: jackpot_reopen must be auto or approval")
        self.desk = JackpotDesk(self, reopen_needs_approval=reopen == "approval")
        #: the last rounds played here, oldest first (an empty one: a break in play), for the
        #: game's rules about earlier rounds (check_layout; pai gow's bank rotation, s18)
        self.past_rounds: deque[PastRound] = deque(maxlen=4)

    # -- wiring ------------------------------------------------------------------------------
    def use_jackpots(self, service: JackpotService) -> None:
        """Link this table's jackpot to its pool in ``service`` (``croupier serve``)."""
        pool = self.table.jackpot_pool
        if pool is not None:
            self.desk.attach(service, pool)

    async def start_services(self, nursery: trio.Nursery) -> None:
        """The jackpot desk's watchers, and its awards owed since before a stop."""
        await self.desk.start(nursery)

    @property
    def link(self) -> JackpotLink | None:
        """The table's link to its jackpot pool (``None``: not linked)."""
        return self.desk.link

    @property
    def meter(self) -> int | None:
        return self.desk.meter

    @property
    def jackpot_open(self) -> bool:
        return self.desk.open

    # -- lobby, views ------------------------------------------------------------------------
    def seat_minimum(self) -> int:
        """The table minimum of a wager (a box is taken by wagering on it)."""
        minimum: int = self.options["minimum"]
        return minimum

    def info(self) -> TableInfo:
        stakes = {"minimum": self.options["minimum"], "maximum": self.options["maximum"]}
        if self.options.get("jackpot_wager") is not None:
            stakes["jackpot_wager"] = self.options["jackpot_wager"]
        bank = self.bank_box
        return self.lobby_row(
            f"{self.spec.title} ({self.spec.rules})",
            stakes,
            self.num_boxes - (bank is not None),
            len(self.owners),
            bank_box=bank,
        )

    @property
    def bank_box(self) -> int | None:
        """The box the house's bank sits on (the game's spec; pai gow s18(13)), if the table
        has it: nobody takes or wagers on it."""
        bank = self.spec.bank_box
        return bank if bank is not None and bank <= self.num_boxes else None

    def view_for(self, member: Member | None) -> dict[str, Any]:
        player = member if isinstance(member, Player) else None
        info = self.info()
        now = trio.current_time()
        mine = self._boxes_of(player)
        pending = []
        if self.engine is not None and not self.engine.complete and player is not None:
            for d in self._promptable(self.engine):
                if self._decider(d) == player.account:
                    deadline = self.prompted.get((d.box, d.street), self.decision_deadline)
                    pending.append(
                        {
                            **d.to_wire(),
                            "round": self.round_no,
                            "time_ms": ms_left(deadline, now),
                        }
                    )
        betting = self.phase is Phase.BETTING
        return {
            "table": self.table_view(
                info,
                boxes=self.num_boxes,
                betting_seconds=self.table.betting_seconds,
                decision_seconds=self.table.decision_seconds,
                wagers=[
                    w
                    for w, spec in zip(
                        self.spec.describe()["wagers"], self.spec.wagers, strict=True
                    )
                    if spec.offered(self.options)
                ],
                verbs=list(self.spec.verbs),
                bank_box=self.bank_box,
            ),
            "status": "closing" if self.closing else self.phase.value,
            "no_more_bets": not betting,
            "round": self.round_no,
            "round_id": self.round_id,
            "closes_in_ms": ms_left(self.closes_at, now) if betting else 0,
            "boxes": [
                {"box": b, "player": self._name(a), "wagers": dict(self.layout.get(b, {}))}
                for b, a in sorted(self.owners.items())
            ],
            "my_boxes": sorted(mine),
            "jackpot": self.desk.view(),
            "round_events": [w for w, vis in self.round_events if self._may_see(vis, player)],
            "pending": pending,
            "last_round": self.last_round.get(player.account) if player else None,
        }

    def _name(self, account: str) -> str:
        p = self.members.get(account)
        return p.name if p is not None else ""

    def _boxes_of(self, player: Player | None) -> set[int]:
        if player is None:
            return set()
        in_round = {b for b, a in self.round_owners.items() if a == player.account}
        return in_round | player.boxes

    def _may_see(self, visible_to: Visibility | None, player: Player | None) -> bool:
        if visible_to == EVERYONE:
            return True
        return any(may_see(visible_to, b) for b in self._boxes_of(player))

    def sees(self, member: Member, visible_to: Visibility | None) -> bool:
        return self._may_see(visible_to, member if isinstance(member, Player) else None)

    def seat_of(self, member: Member) -> int | None:
        boxes = member.boxes if isinstance(member, Player) else set()
        return min(boxes) if boxes else None

    def where_money_is(self) -> dict[str, int]:
        """``box:N`` holds the box's wagers (the layout, then the engine's stakes), less the
        jackpot wager once the pool accepted it; jackpot wagers awaiting the pool's answer
        stay on their box until it comes."""
        phase = self.phase
        held: dict[int, int] = {}
        if phase is Phase.BETTING or phase is Phase.NO_MORE_BETS:
            held = {b: self._layout_money(ws) for b, ws in self.layout.items()}
        elif phase is Phase.DECIDING and self.engine is not None:
            held = {b: sum(ws.values()) for b, ws in self.engine.stakes.items()}
        coined = self.desk.coined
        out = {books.box(b): amount - coined.get(b, 0) for b, amount in held.items()}
        if phase is not Phase.NO_MORE_BETS:
            for b, amount in self.desk.in_flight.items():
                out[books.box(b)] = out.get(books.box(b), 0) + amount
        return out

    def floor_more(self) -> dict[str, Any]:
        """The floor's jackpot meter, and whether jackpot wagers await a manager's approval
        (ACT 2017 r 14.5)."""
        if self.link is None:
            return {}
        return {
            "jackpot": {**self.jackpot_info(), "awaiting_approval": self.desk.awaiting_approval}
        }

    def jackpot_info(self) -> dict[str, Any]:
        """For ``/health``: the link's state and this table's jackpot counts."""
        return self.desk.info()

    def _player(self, cmd: TableCommand[Any], ref: str) -> Player | None:
        member = self.member_for(cmd.conn, ref)
        return member if isinstance(member, Player) else None

    # -- joining and leaving (the base runs the lifecycle) ----------------------------------
    def admit(self, conn: Connection, join: wire.Join) -> Member | None:
        if join.seat is not None and join.seat == self.bank_box:
            self.error(conn, errors.BAD_BOX, f"box {join.seat} is the bank's", "join")
            return None
        if join.seat is not None and not self._box_free(conn, join.seat, "join"):
            return None
        player = Player(conn)
        if join.seat is not None:
            self._take_box(player, join.seat)
        return player

    def after_admit(self, member: Member) -> None:
        assert isinstance(member, Player)
        self.broadcast(ev.PlayerJoined(name=member.name, boxes=sorted(member.boxes)), skip=member)
        if self.phase is Phase.IDLE:
            self.next_round_at = trio.current_time()

    def _layout_money(self, wagers: Mapping[str, int]) -> int:
        """The money a box's wagers put on the layout (one stake per wager here)."""
        return sum(wagers.values())

    def _box_free(self, conn: Connection, box: int, ref: str) -> bool:
        if not 1 <= box <= self.num_boxes:
            self.error(conn, errors.BAD_BOX, f"boxes are 1 to {self.num_boxes}", ref)
            return False
        owner = self.owners.get(box)
        if owner is not None and owner != conn.account:
            self.error(conn, errors.BOX_TAKEN, f"box {box} is another player's", ref)
            return False
        return True

    def _take_box(self, player: Player, box: int) -> None:
        if self.owners.get(box) != player.account:
            self.owners[box] = player.account
            player.boxes.add(box)
            self.broadcast(ev.BoxTaken(box=box, name=player.name))

    def in_round(self, member: Member) -> bool:
        return self.phases.in_round and member.account in self.round_owners.values()

    def release(self, member: Member) -> int:
        """Free the player's boxes; wagers still in the betting window go back to the wallet."""
        assert isinstance(member, Player)
        returned = 0
        for box in sorted(member.boxes):
            if self.phase is Phase.BETTING and box in self.layout:
                amount = self._layout_money(self.layout.pop(box))
                self.books.return_wager(member.account, box, amount)
                returned += amount
            self.owners.pop(box, None)
        return returned

    def vacated_event(self, member: Member, reason: str, returned: int) -> dict[str, Any]:
        boxes = member.boxes if isinstance(member, Player) else set()
        return ev.PlayerLeft(
            name=member.name, boxes=sorted(boxes), reason=reason, returned=returned
        ).to_wire()

    # -- the betting window ------------------------------------------------------------------
    def stage_limits(self, limits: dict[str, int]) -> str | None:
        """A new table ``minimum`` / ``maximum`` (or other amounts of the game's options),
        validated by the game's spec, in force from the next betting window."""
        try:
            self.staged_options = self.spec.validate_options({**self.options, **limits})
        except InvalidRound as exc:
            return str(exc)
        return None

    def approve_jackpot(self) -> str | None:
        """A manager approves jackpot wagers again after an outage (ACT 2017 r 14.5)."""
        return self.desk.approve()

    def open_betting(self, now: float) -> None:
        if self.staged_options is not None:  # limits changed with notice: between rounds
            self.options, self.staged_options = self.staged_options, None
        self.layout = {}
        self.round_owners = {}
        self.round_events = []
        self.wagers_made = []
        self.desk.coined = {}
        self.engine = None
        self.prompted = {}
        self.open_window(now, jackpot_open=self.desk.open)

    def on_wager(self, cmd: TableCommand[wire.Wager]) -> None:
        """Make, change or withdraw a wager (Sch 19 s5(2)); refused after no more bets (s3(3))."""
        player = self._player(cmd, "wager")
        if player is None:
            return
        m = cmd.message
        if self.refuse_after_close(cmd.conn, "wager"):
            return
        if not self._box_free(cmd.conn, m.box, "wager"):
            return
        spec = self.spec.wager(m.wager)
        if spec is None or not spec.initial:
            names = [w.name for w in self.spec.wagers if w.initial]
            self.error(
                cmd.conn,
                errors.WAGER_REFUSED,
                f"wagers placed before the deal here: {', '.join(names)}",
                "wager",
                "unknown_wager",
            )
            return
        if spec.limits == "jackpot" and self.link is None:
            self.error(
                cmd.conn,
                errors.WAGER_REFUSED,
                "no jackpot wager at this table",
                "wager",
                "no_jackpot",
            )
            return
        if spec.limits == "jackpot" and m.amount and not self.desk.open:
            self.error(cmd.conn, errors.JACKPOT_UNAVAILABLE, UNAVAILABLE_TEXT, "wager")
            return
        self.lay_wager(player, cmd.conn, m.box, m.wager, m.amount)

    def lay_wager(
        self, player: Player, conn: Connection | None, box: int, wager: str, amount: int
    ) -> bool:
        """Put a wager checked for the window on the layout (or change or withdraw it):
        the rules' limits, then the money; refusals go to ``conn``. True when laid."""
        old = self.layout.get(box, {})
        new = with_wager(old, wager, amount)
        after = {b: ws for b, ws in self.layout.items() if b != box}
        if new:
            after[box] = new
        owners = {b: self.owners.get(b, "") for b in after}
        owners[box] = player.account
        try:
            if new:  # a withdrawal is always allowed (Sch 19 s5(2))
                validate_wagers(self.spec, self.options, {box: new})
                self.round_cls.check_layout(self.options, after, owners, tuple(self.past_rounds))
        except IllegalAction as exc:
            if conn is not None:
                self.error(conn, errors.WAGER_REFUSED, exc.message, "wager", exc.code, exc.amounts)
            return False
        try:
            delta = self._layout_money(new) - self._layout_money(old)
            balance = self.books.wager(player.account, box, delta)
        except InsufficientFunds as exc:
            if conn is not None:
                self.error(
                    conn, errors.INSUFFICIENT_FUNDS, str(exc), "wager", amounts=exc.amounts()
                )
            return False
        if new:
            self.layout[box] = new
            self._take_box(player, box)
        else:
            self.layout.pop(box, None)
        if conn is not None and self.sends_balance:
            conn.send(Balance(balance))
        self.wagers_made.append({"box": box, "wager": wager, "amount": amount, "at": time.time()})
        self.broadcast(
            ev.WagerPlaced(
                round=self.round_no,
                box=box,
                wager=wager,
                amount=amount,
                name=player.name,
                box_wagers=dict(new),
            )
        )
        return True

    def close_betting(self) -> None:
        """No more bets: the layout is frozen; coin-in, then the deal."""
        self.closes_at = math.inf
        self.broadcast(
            ev.NoMoreBets(
                round=self.round_no,
                boxes={str(b): dict(ws) for b, ws in sorted(self.layout.items())},
            )
        )
        if not self.layout:
            self.past_rounds.append(PastRound())  # no round: a break in play
            self._pause()
            return
        self.round_owners = {b: self.owners[b] for b in self.layout}
        jackpots = {b: ws["jackpot"] for b, ws in self.layout.items() if "jackpot" in ws}
        if self.desk.coin_in(jackpots):
            self.phases.to(Phase.NO_MORE_BETS)
            return
        self._deal(None)

    def on_coined_in(self, item: CoinedIn) -> None:
        """The pool answered the coin-in: deal on its figures (unless voided meanwhile)."""
        deal, state = self.desk.on_coined_in(item)
        if deal:
            self._deal(state)

    # -- the round ---------------------------------------------------------------------------
    def _deal(self, jackpot: JackpotState | None) -> None:
        forced, self.forced = self.forced, None
        if forced is not None:
            forced = Forced(
                {b: cs for b, cs in forced.boxes.items() if b in self.layout},
                forced.dealer,
                forced.board,
                forced.shoe,
                forced.outcome,
            )
        try:
            rng = self.round_source()
            self.engine = self._new_round(forced, jackpot, rng)
            events = self.engine.start()
        except (IllegalAction, InvalidRound) as exc:
            log.error("table %s round %s could not start: %s", self.id, self.round_id, exc)
            self.engine = None
            self._return_layout("the round could not be dealt")
            return
        self.phases.to(Phase.DECIDING)
        self.open_journal(
            self.round_id,
            {
                "options": dict(self.table.options),
                "rules": dict(self.options),
                "round_no": self.round_no,
                "boxes": {
                    str(b): {
                        "account": self.round_owners[b],
                        "name": self._name(self.round_owners[b]),
                        "wagers": ws,
                    }
                    for b, ws in sorted(self.layout.items())
                },
                "forced": None if forced is None else forced_json(forced),
                "jackpot": None if jackpot is None else [jackpot.pool, jackpot.reserve],
                **self.round_record(),
            },
        )
        for w in self.wagers_made:  # the betting window's commands (the layout is in start)
            self.journal.command("wager", **w)
        self._after(events)

    def round_record(self) -> dict[str, Any]:
        """What else the round's record starts with (a blackjack table: its shoe)."""
        return {}

    def round_source(self) -> RandomSource:
        """The round's random source: the secret committed for its deal with the seeds of
        its players (server/fair.py); it fixes the round's cards or outcome."""
        return self.journal.begin(sorted(set(self.round_owners.values())))

    def opening(self, wires: list[dict[str, Any]]) -> None:
        """Before a step's events go on the record: anything their openings need (a
        blackjack table: the cards its shoe dealt, a new stack's commitment)."""
        return None

    def opened(self) -> None:
        """After a step's events: cards dealt that no event showed (a blackjack table)."""
        return None

    def _new_round(
        self, forced: Forced | None, jackpot: JackpotState | None, rng: RandomSource
    ) -> BankedRound:
        """The engine for the round, on the frozen layout, drawing from ``rng`` (the round's
        committed secret: server/fair.py)."""
        wagers = {b: dict(ws) for b, ws in self.layout.items()}
        return self.round_cls(self.options, wagers, rng, forced=forced, jackpot=jackpot)

    def _return_layout(self, reason: str) -> None:
        """Give every wager of a round that never started back (nothing was coined in)."""
        for box, ws in sorted(self.layout.items()):
            account = self.round_owners.get(box) or self.owners.get(box)
            if account:
                balance = self.books.return_wager(account, box, self._layout_money(ws))
                self.send_to(account, Balance(balance))
        self.layout = {}
        self.past_rounds.append(PastRound())  # not played: a break in play
        self.broadcast(ev.RoundVoided(round=self.round_no, reason=reason))
        self._pause("voided")

    def _after(self, events: list[Event]) -> None:
        """Deliver engine events; prompt the decisions the step opened; settle a finished
        round."""
        engine = self.engine
        assert engine is not None
        wires = [e.to_wire() for e in events]
        self.opening(wires)
        self.journal.events(events, wires)  # the openings go on the events (server/fair.py)
        for e, wire_ev in zip(events, wires, strict=True):
            if type(e) in (JackpotPaid, RoundSettled) or (
                type(e) is WagerSettled and e.wager == "jackpot"
            ):
                continue  # the table's round_result / jackpot_paid carry the real figures
            self.round_events.append((wire_ev, e.visible_to))
            self.broadcast(wire_ev, e.visible_to, engine=True)
        self.opened()
        if engine.complete:
            self._settle(engine)
        else:
            self._prompt(engine, events)

    def _prompt(self, engine: BankedRound, events: list[Event]) -> None:
        """Prompt every decision the step opened, each on its own clock: a new street's
        decisions, and (a game deciding one hand at a time) the next hand's or the same
        hand's next decision (a hand that drew a card decides again)."""
        now = trio.current_time()
        decided = {self._decided(e) for e in events if type(e) is DecisionMade}
        time_ms = int(self.table.decision_seconds * 1000)
        prompted: dict[tuple[int, str], float] = {}
        for d in self._promptable(engine):
            key = (d.box, d.street)
            deadline = self.prompted.get(key)
            if deadline is None or key in decided:
                deadline = now + self.table.decision_seconds
                account = self._decider(d)
                member = self.members.get(account) if account is not None else None
                if member is not None:
                    self.event(member, ev.DecisionPrompt.of(d, self.round_no, time_ms).to_wire())
            prompted[key] = deadline
        self.prompted = prompted
        self.decision_deadline = min(prompted.values(), default=math.inf)

    def _decided(self, made: DecisionMade) -> tuple[int, str]:
        """The decision (box, street) that ``made`` answered."""
        return (made.box, made.street)

    def _promptable(self, engine: BankedRound) -> list[Decision]:
        """The decisions open to the players now (the engine's pending ones)."""
        return engine.pending()

    def _decider(self, decision: Decision) -> str | None:
        """The account that owes ``decision``: the box's player in the round."""
        return self.round_owners.get(decision.box)

    def _decision_for(self, account: str, box: int, verb: str) -> Decision | str:
        """The open decision of ``account`` on ``box`` that ``verb`` answers, or why none."""
        assert self.engine is not None
        owed = [
            d for d in self._promptable(self.engine) if d.box == box and self._decider(d) == account
        ]
        if not owed:
            if self.round_owners.get(box) != account:
                return f"box {box} is not yours this round"
            return f"box {box} owes no decision now"
        return next((d for d in owed if any(c.verb == verb for c in d.choices)), owed[0])

    def _held(self, engine: BankedRound, box: int, decision: Decision) -> int:
        """What the one deciding ``decision`` has on the layout now."""
        return sum(engine.stakes[box].values())

    def _engine_decide(
        self, engine: BankedRound, decision: Decision, verb: str, amount: Argument
    ) -> list[Event]:
        """Apply a decision (``timeout``/``insufficient`` included) for whoever owes it, and
        put the engine command on the record once the engine took it."""
        box = decision.box
        if verb == "timeout":
            events = engine.timeout(box)
        elif verb == "insufficient":
            events = engine.insufficient(box)
        else:
            events = engine.decide(box, verb, amount)
        if verb in ("timeout", "insufficient"):
            self.journal.command(verb, box=box)
        else:
            self.journal.command("decide", box=box, verb=verb, amount=amount)
        return events

    def _place_of(self, decision: Decision) -> str | None:
        """The books' sub-account of the one deciding (``None``: the box's player)."""
        return None

    def on_decide(self, cmd: TableCommand[wire.Decide]) -> None:
        player = self._player(cmd, "decide")
        if player is None:
            return
        m = cmd.message
        engine = self.engine
        if self.phase is not Phase.DECIDING or engine is None or engine.complete:
            self.error(cmd.conn, errors.NO_DECISION, "no decision is open now", "decide")
            return
        found = self._decision_for(player.account, m.box, m.verb)
        if isinstance(found, str):
            self.error(cmd.conn, errors.NO_DECISION, found, "decide")
            return
        choice = next((c for c in found.choices if c.verb == m.verb), None)
        argument: Argument = m.amount
        try:
            if choice is None:
                raise IllegalAction(
                    "illegal_verb",
                    f"box {m.box} may {', '.join(c.verb for c in found.choices)} now",
                )
            if choice.setting != (m.setting is not None):
                raise IllegalAction(
                    "setting_required" if choice.setting else "unexpected_setting",
                    f"{m.verb} {'needs' if choice.setting else 'takes no'} setting of the tiles"
                    + (' {"high": [2 tiles], "low": [2 tiles]}' if choice.setting else ""),
                )
            if m.setting is not None:
                argument = m.setting.to_engine()
            cost = choice.resolve(m.amount) or 0
            if cost > self.books.wallet_balance(player.account):
                events = self._engine_decide(engine, found, "insufficient", None)
                self.broadcast(ev.Insufficient(round=self.round_no, box=m.box))
            else:
                before = self._held(engine, m.box, found)
                events = self._engine_decide(engine, found, m.verb, argument)
                added = self._held(engine, m.box, found) - before
                if added > 0:  # the wager the decision put on the layout (bet, play, war...)
                    balance = self.books.wager(player.account, m.box, added, self._place_of(found))
                    if self.sends_balance:
                        cmd.conn.send(Balance(balance))
        except IllegalAction as exc:
            self.error(
                cmd.conn, errors.ILLEGAL_ACTION, exc.message, "decide", exc.code, exc.amounts
            )
            return
        self._after(events)

    def _timeouts(self, engine: BankedRound, now: float) -> None:
        """A decision clock ran out: the engine's rule for each decision still owed."""
        for d in self._promptable(engine):
            key = (d.box, d.street)
            if engine.complete:
                return
            if self.prompted.get(key, math.inf) > now:
                continue  # not due, or prompted again by an earlier time-out's step
            if any((o.box, o.street) == key for o in self._promptable(engine)):
                self._time_out(engine, d)
        if not engine.complete:
            self._prompt(engine, [])

    def _time_out(self, engine: BankedRound, decision: Decision) -> None:
        """One decision not made in time: the engine's timeout for it."""
        place = self._place_of(decision)  # None: the box's player; else a backer
        self.broadcast(
            ev.TimedOut(
                round=self.round_no, box=decision.box, place=UNSET if place is None else place
            )
        )
        self._after(self._engine_decide(engine, decision, "timeout", None))

    # -- settlement --------------------------------------------------------------------------
    def _settle(self, engine: BankedRound) -> None:
        """Sch 19 s7: every wager's result to everyone; winnings to the wallets at once."""
        self.decision_deadline = math.inf
        self.prompted = {}
        result = engine.result
        void = result.state == "void"
        outcomes: dict[tuple[int, str], list[WagerSettled]] = {}
        hands: dict[int, str] = {}
        dealer: dict[str, Any] = {}
        for e in engine.events:
            if type(e) is WagerSettled:
                outcomes.setdefault((e.box, e.wager), []).append(e)
            elif type(e) is JackpotPaid:
                hands[e.box] = e.hand
            elif type(e) is HandShown and e.box is None:
                dealer.update(cards=list(e.cards), hand=e.hand)
            elif type(e) is DealerDeclared:
                dealer["status"] = e.status
        linked = self.link is not None
        boxes_out: dict[str, Any] = {}
        per_account: dict[str, dict[str, Any]] = {}
        jackpot_stakes: dict[int, int] = {}
        for box, place, account, stakes, nets in self._places(engine):
            paid_back = 0
            wagers_out: dict[str, Any] = {}
            for name in [*stakes, *(n for n in nets if n not in stakes)]:
                stake = stakes.get(name, 0)
                if linked and name == "jackpot":
                    jackpot_stakes[box] = stake
                    if void:
                        self.books.jackpot_stake_returned(account, stake)
                        paid_back += stake
                        outcome: dict[str, Any] = {"stake": stake, "net": 0, "outcome": "returned"}
                    elif box in hands:
                        outcome = {
                            "stake": stake,
                            "net": None,
                            "outcome": "pending",
                            "hand": hands[box],
                        }
                    else:
                        outcome = {"stake": stake, "net": -stake, "outcome": "lose"}
                    wagers_out[name] = outcome
                    continue
                net = 0 if void else nets.get(name, 0)
                self.books.settle_wager(account, box, stake, net, place)
                paid_back += stake + net
                label = name if place is None else f"{place} {name}"
                wagers_out[name] = {
                    "stake": stake,
                    "net": net,
                    **self._outcome(outcomes.get((box, label), []), net, void),
                }
            if paid_back:
                self.send_to(account, Balance(self.ledger.balance(account)))
            bet = sum(stakes.values())
            entry = {
                "player": self._name(account),
                "wagers": wagers_out,
                "bet": bet,
                "paid": paid_back,
            }
            key = str(box) if place is None else f"{box}:{place}"
            if place is None:
                boxes_out[key] = entry
            else:
                boxes_out[str(box)].setdefault("others", {})[place] = entry
            rec = per_account.setdefault(account, {"bet_total": 0, "paid_total": 0, "boxes": {}})
            rec["bet_total"] += bet
            rec["paid_total"] += paid_back
            rec["boxes"][key] = entry
        self.desk.coined = {}
        self.past_rounds.append(
            PastRound() if void else PastRound(dict(engine.wagers), dict(self.round_owners))
        )
        self.journal.settlement({"state": result.state, "dealer": dealer, "boxes": boxes_out})
        self.books.close_round("voided" if void else "settled")
        pending = sorted(hands) if linked and not void else []
        self.broadcast(
            ev.RoundResult(
                round=self.round_no,
                round_id=self.round_id,
                state=result.state,
                dealer=dealer,
                boxes=boxes_out,
                jackpot_pending=pending,
            )
        )
        for account, rec in per_account.items():
            rec.update(
                round=self.round_no,
                round_id=self.round_id,
                state=result.state,
                dealer=dealer,
                net=rec["paid_total"] - rec["bet_total"],
            )
            self.last_round[account] = rec
        if self.link is not None and void and jackpot_stakes:
            self.desk.reverse(self.round_id)
        elif self.link is not None and pending:
            self.desk.award(
                self.round_no,
                {b: self.round_owners[b] for b in pending},
                {b: hands[b] for b in pending},
                {b: jackpot_stakes.get(b, 0) for b in pending},
            )
        self._pause()
        for member in list(self.members.values()):
            if member.leaving:
                self.vacate(member, self.leave_reason(member))

    def _places(
        self, engine: BankedRound
    ) -> list[tuple[int, str | None, str, dict[str, int], dict[str, int]]]:
        """Who had money in the round: ``(box, place, account, stakes, nets)``, the box's
        player first (``place`` None), then other players on the box, by wager name."""
        result = engine.result
        return [
            (box, None, self.round_owners[box], dict(ws), result.boxes.get(box, {}))
            for box, ws in sorted(engine.stakes.items())
        ]

    @staticmethod
    def _outcome(settled: list[WagerSettled], net: int, void: bool) -> dict[str, str]:
        """A wager's outcome and detail from its settlements (a wager settled in several
        parts, e.g. split hands, is a win or a loss by its total)."""
        if void:
            return {"outcome": "returned", "detail": ""}
        if not settled:
            return {"outcome": "push", "detail": ""}
        if len(settled) == 1:
            return {"outcome": settled[0].outcome, "detail": settled[0].detail}
        outcome = "win" if net > 0 else "lose" if net < 0 else "push"
        return {"outcome": outcome, "detail": "; ".join(e.detail for e in settled if e.detail)}

    def on_jackpot_awarded(self, item: JackpotAwarded) -> None:
        """The pool committed this round's prizes: the desk pays them; the players' recall
        shows them (s3(2)(h))."""
        for box, account, amount in self.desk.on_awarded(item):
            rec = self.last_round.get(account)
            if rec is not None and rec.get("round") == item.round_no:
                rec["paid_total"] += amount
                rec["net"] += amount
                entry = rec["boxes"].get(str(box))
                if entry is not None:
                    entry["paid"] += amount
                    entry["wagers"]["jackpot"].update(
                        net=amount - item.stakes.get(box, 0), outcome="win"
                    )

    def _pause(self, state: RoundState = "settled") -> None:
        self.books.close_round(state)
        self.phases.to(Phase.PAUSE)
        self.next_round_at = trio.current_time() + self.config.round_pause

    # -- dev ---------------------------------------------------------------------------------
    def on_dev_force(self, cmd: TableCommand[wire.DevForce]) -> None:
        """Dev mode only: the next round's cards (SCENARIOS.md forced outcome)."""
        if not self.config.dev:
            self.error(
                cmd.conn, errors.DEV_ONLY, "forced cards exist only in dev mode", "dev_force"
            )
            return
        m = cmd.message
        try:
            boxes: dict[int, list[int]] = {}
            for key, cs in m.boxes.items():
                box = int(key)
                if not 1 <= box <= self.num_boxes:
                    raise CardError(f"no box {key}")
                boxes[box] = [card(c) for c in cs]
            dealer = [card(c) for c in m.dealer]
            board = [card(c) for c in m.board]
            shoe = [card(c) for c in m.shoe]
        except (CardError, ValueError) as exc:
            self.error(cmd.conn, errors.BAD_CARDS, str(exc), "dev_force")
            return
        every = [c for cs in boxes.values() for c in cs] + dealer + board
        if (
            len(set(every)) != len(every)
            or any(c not in self.spec.deck for c in every + shoe)
            or any(shoe.count(c) > self.options.get("decks", 1) for c in shoe)
        ):
            self.error(
                cmd.conn, errors.BAD_CARDS, "a card is used twice or not in the deck", "dev_force"
            )
            return
        who: Recipient | None = self.spectators.get(cmd.conn.id)
        if self.holds_seat(cmd.conn):
            who = self.members[cmd.conn.account or ""]
        if who is None:
            self.error(cmd.conn, errors.NOT_AT_TABLE, "join the table first", "dev_force")
            return
        self.forced = Forced(boxes, dealer, board, shoe)
        # dealt at this window's "no more bets", else at the next window's
        upcoming = self.round_no if self.phase is Phase.BETTING else self.round_no + 1
        self.event(who, ev.DevForced(round=upcoming).to_wire())

    def on_poker_message(self, cmd: TableCommand[Any]) -> None:
        ref = type(cmd.message).__struct_config__.tag
        self.error(
            cmd.conn, errors.WRONG_GAME, f"{self.game} is a banked game: use wager / decide", ref
        )

    handlers: ClassVar[Mapping[type, Handler]] = {
        **WINDOW_HANDLERS,
        wire.Wager: on_wager,
        wire.Decide: on_decide,
        wire.DevForce: on_dev_force,
        wire.Act: on_poker_message,
        wire.BuyIn: on_poker_message,
        wire.SitOut: on_poker_message,
        wire.SitIn: on_poker_message,
        CoinedIn: on_coined_in,
        CoinInReversed: lambda t, item: t.desk.on_reversed(item),
        JackpotAwarded: on_jackpot_awarded,
        MeterChanged: lambda t, item: t.desk.on_meter(item),
        JackpotAvailability: lambda t, item: t.desk.on_availability(item),
    }

    # -- time --------------------------------------------------------------------------------
    def other_deadline(self) -> float:
        return self.decision_deadline

    def on_other_time(self, now: float) -> None:
        if self.phase is Phase.DECIDING and now >= self.decision_deadline:
            assert self.engine is not None
            self._timeouts(self.engine, now)

    # -- shutdown ----------------------------------------------------------------------------
    def void_round(self, reason: str) -> None:
        """A shutdown: the betting layout is returned; a round in play is void (every wager
        back); a coin-in still at the pool is reversed when its answer comes (the house pays
        the jackpot wager back now)."""
        if self.phase is Phase.BETTING:
            self._return_layout(reason)
        elif self.phase is Phase.NO_MORE_BETS:
            for box, ws in sorted(self.layout.items()):
                account = self.round_owners[box]
                jackpot = ws.get("jackpot", 0)
                self.books.return_wager(account, box, self._layout_money(ws) - jackpot)
                self.books.jackpot_stake_returned(account, jackpot)
                self.send_to(account, Balance(self.ledger.balance(account)))
            self.layout = {}
            self.books.close_round("voided")
        elif self.phase is Phase.DECIDING and self.engine is not None and not self.engine.complete:
            self.journal.command("void", reason=reason)
            self._after(self.engine.void(reason))
