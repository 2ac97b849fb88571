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

The table is composed of parts, each a small class in its own module of this package, each
with one job: :class:`~.layout.Layout` (boxes, owners, wagers, where the money is),
:class:`~.jackpot_desk.JackpotDesk` (the pool: coin-in, reversal, award, availability,
meter), :class:`~.deciders.Deciders` and :class:`~.deciders.DecisionClock` (who owes a
decision, prompts, clocks), :class:`~.backers.Backers` (other players on a box, for a game
whose spec declares places), :class:`~.dealing.Dealing` (the round's cards on the record),
:class:`~.settlement.Settlement` (typed results) and the snapshot (:mod:`.view`). A game
passes its own parts (blackjack: its deciders and its shoe, ``server/tables/blackjack.py``)
instead of overriding the table's methods; its facts are in its spec.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import TableInfo
from server.cards import RandomSource, random_source
from server.config import ConfigError, ServerConfig, TableConfig
from server.errors import IllegalAction
from server.games.banked.base import (
    EVERYONE,
    BankedRound,
    Event,
    Forced,
    InvalidRound,
    JackpotPaid,
    JackpotState,
    PastRound,
    RoundSettled,
    WagerSettled,
)
from server.games.banked.scenario import round_class
from server.games.registry import tabled
from server.games.replay import forced_json
from server.games.visibility import Visibility, may_see
from server.jackpots.model import JackpotError, check_pool_name
from server.jackpots.service import JackpotService
from server.store.ledger import Ledger
from server.store.model import RoundState
from server.tables.banked import events as ev
from server.tables.banked.backers import Backers, PlacesRound
from server.tables.banked.dealing import Dealing
from server.tables.banked.deciders import Deciders, DecisionClock
from server.tables.banked.jackpot_desk import (
    CoinedIn,
    CoinInReversed,
    JackpotAvailability,
    JackpotAwarded,
    JackpotDesk,
    MeterChanged,
)
from server.tables.banked.layout import Layout
from server.tables.banked.settlement import Settlement, to_wire
from server.tables.banked.view import banked_view
from server.tables.base import Handler, Member, TableCommand
from server.tables.connection import Connection
from server.tables.jackpot_link import JackpotLink, LinkError, pool_config_for
from server.tables.phases import Phase
from server.tables.window import WINDOW_HANDLERS, WindowTable

log = logging.getLogger("croupier.tables.banked")

#: Every banked game id the server can table.
BANKED_GAMES: tuple[str, ...] = tabled("banked")

#: Engine events the table replaces by its own (settled on the pool's figures).
_TABLE_SETTLED = ("jackpot_paid", "round_settled")


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
        self.round_events: list[tuple[dict[str, Any], Visibility | None]] = []
        self.engine: BankedRound | None = None
        self.forced: Forced | None = None
        self.staged_options: dict[str, Any] | None = None  # new limits, next window
        reopen = table.jackpot_reopen or self.spec.jackpot_reopen
        if reopen not in ("auto", "approval"):
            raise ConfigError(f"table {table.id}: jackpot_reopen must be auto or approval")
        self.felt = Layout(self)
        self.desk = JackpotDesk(self, reopen_needs_approval=reopen == "approval")
        self.backers = Backers(self, self.spec.backer_places)
        self.deciders: Deciders = Deciders(self)
        self.dealing: Dealing = Dealing(self)
        self.clock = DecisionClock(self)
        self.settlement = Settlement(self)
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
        """The jackpot desk's watchers and its awards owed since before a stop; the deal's
        own start (a shoe a stop left in play)."""
        await self.desk.start(nursery)
        await self.dealing.start(nursery)

    @property
    def owners(self) -> dict[int, str]:
        """Box -> account, while the player is at the table (the layout part's)."""
        return self.felt.owners

    @property
    def layout(self) -> dict[int, dict[str, int]]:
        """Box -> its wagers in the window (the layout part's)."""
        return self.felt.wagers

    @property
    def round_owners(self) -> dict[int, str]:
        """Box -> account in the round in play (the layout part's)."""
        return self.felt.round_owners

    @property
    def backing(self) -> dict[tuple[int, str], str]:
        """This round's other players on the boxes: (box, place) -> account."""
        return self.backers.backing

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
        return banked_view(self, member if isinstance(member, Player) else None)

    def name_of(self, account: str) -> str:
        p = self.members.get(account)
        return p.name if p is not None else ""

    def boxes_of(self, player: Player | None) -> set[int]:
        if player is None:
            return set()
        return self.felt.boxes_of(player.account, player.boxes)

    def may_see(self, visible_to: Visibility | None, player: Player | None) -> bool:
        if visible_to == EVERYONE:
            return True
        return any(may_see(visible_to, b) for b in self.boxes_of(player))

    def sees(self, member: Member, visible_to: Visibility | None) -> bool:
        return self.may_see(visible_to, member if isinstance(member, Player) else None)

    def seat_of(self, member: Member) -> int | None:
        boxes = member.boxes if isinstance(member, Player) else set()
        return min(boxes) if boxes else None

    def where_money_is(self) -> dict[str, int]:
        return self.felt.where_money_is()

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
        if join.seat is not None and not self.felt.box_free(conn, join.seat, "join"):
            return None
        player = Player(conn)
        if join.seat is not None:
            self.felt.take_box(player, join.seat)
        return player

    def after_admit(self, member: Member) -> None:
        assert isinstance(member, Player)
        self.broadcast(ev.PlayerJoined(name=member.name, boxes=sorted(member.boxes)), skip=member)
        if self.phase is Phase.IDLE:
            self.next_round_at = trio.current_time()

    def in_round(self, member: Member) -> bool:
        if self.phases.in_round and self.felt.in_round(member):
            return True
        return self.backers.in_round(member)

    def release(self, member: Member) -> int:
        """Free the player's boxes; wagers still in the betting window go back to the wallet."""
        assert isinstance(member, Player)
        return self.felt.release(member) + self.backers.release(member)

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
        self.felt.open()
        self.round_events = []
        self.desk.coined = {}
        self.engine = None
        self.clock.stop()
        self.backers.open_betting()
        self.open_window(now, jackpot_open=self.desk.open)

    def on_wager(self, cmd: TableCommand[wire.Wager]) -> None:
        """Make, change or withdraw a wager (Sch 19 s5(2)); refused after no more bets (s3(3))."""
        player = self._player(cmd, "wager")
        if player is None:
            return
        m = cmd.message
        if m.behind and self.backers:  # another player's box (BJ s29(1))
            self.backers.on_wager(player, cmd)
        else:
            self.felt.on_wager(player, cmd)

    def lay_wager(
        self, player: Player, conn: Connection | None, box: int, wager: str, amount: int
    ) -> bool:
        """Put a wager on the layout (the layout part's :meth:`Layout.lay`)."""
        return self.felt.lay(player, conn, box, wager, amount)

    def close_betting(self) -> None:
        """No more bets: the layout is frozen (a backer of a box with no wager has his wagers
        back); coin-in, then the deal."""
        self.backers.close_betting()
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
        self.felt.freeze()
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
            rng = self.dealing.source()
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
                "boxes": self.felt.record(),
                "forced": None if forced is None else forced_json(forced),
                "jackpot": None if jackpot is None else [jackpot.pool, jackpot.reserve],
                **({"backers": self.backers.record()} if self.backers else {}),
                **self.dealing.record(),
            },
            deal=self.dealing.deal_per_round,
        )
        self.dealing.journal_opened()
        for w in self.felt.made:  # the betting window's commands (the layout is in start)
            self.journal.command("wager", **w)
        self.play(events)

    def _new_round(
        self, forced: Forced | None, jackpot: JackpotState | None, rng: RandomSource
    ) -> BankedRound:
        """The engine for the round, on the frozen layout and its backers, drawing from
        ``rng`` (the deal's: server/fair.py)."""
        wagers: dict[int, dict[str, Any]] = {b: dict(ws) for b, ws in self.layout.items()}
        if self.backers:
            self.backers.round_wagers(wagers)
        engine = self.dealing.new_round(wagers, forced, jackpot, rng)
        if self.backers and isinstance(engine, PlacesRound):
            self.backers.persons(engine)
        return engine

    def _return_layout(self, reason: str) -> None:
        """Give every wager of a round that never started back (nothing was coined in)."""
        self.backers.give_all_back(reason)
        self.felt.give_all_back()
        self.past_rounds.append(PastRound())  # not played: a break in play
        self.broadcast(ev.RoundVoided(round=self.round_no, reason=reason))
        self._pause("voided")

    def play(self, events: list[Event]) -> None:
        """Deliver engine events; prompt the decisions the step opened; settle a finished
        round."""
        engine = self.engine
        assert engine is not None
        wires = [e.to_wire() for e in events]
        self.dealing.opening(wires)
        self.journal.events(events, wires)  # the openings go on the events (server/fair.py)
        for e, wire_ev in zip(events, wires, strict=True):
            if type(e) in (JackpotPaid, RoundSettled) or (
                type(e) is WagerSettled and e.wager == "jackpot"
            ):
                continue  # the table's round_result / jackpot_paid carry the real figures
            self.round_events.append((wire_ev, e.visible_to))
            self.broadcast(wire_ev, e.visible_to, engine=True)
        self.dealing.opened()
        if engine.complete:
            self._settle(engine)
        else:
            self.clock.prompt(engine, events)

    def on_decide(self, cmd: TableCommand[wire.Decide]) -> None:
        player = self._player(cmd, "decide")
        if player is not None:
            self.clock.on_decide(player, cmd)

    # -- settlement --------------------------------------------------------------------------
    def _settle(self, engine: BankedRound) -> None:
        """Sch 19 s7: every wager's result to everyone; winnings to the wallets at once (the
        :class:`~server.tables.banked.settlement.Settlement` part books and builds them)."""
        self.clock.stop()
        result = engine.result
        void = result.state == "void"
        names = {a: self.name_of(a) for a in {*self.round_owners.values(), *self.members}}
        done = self.settlement.settle(
            result,
            engine.events,
            self.felt.stakeholdings(engine) + self.backers.stakeholdings(engine),
            names,
            self.round_no,
            self.round_id,
            linked=self.link is not None,
        )
        self.desk.coined = {}
        self.past_rounds.append(
            PastRound() if void else PastRound(dict(engine.wagers), dict(self.round_owners))
        )
        dealer, boxes = to_wire(done.facts.dealer), to_wire(done.boxes)
        self.journal.settlement({"state": result.state, "dealer": dealer, "boxes": boxes})
        self.books.close_round("voided" if void else "settled")
        pending = done.jackpot_pending
        self.broadcast(
            ev.RoundResult(
                round=self.round_no,
                round_id=self.round_id,
                state=result.state,
                dealer=dealer,
                boxes=boxes,
                jackpot_pending=pending,
            )
        )
        for account, recall in done.recalls.items():
            self.last_round[account] = to_wire(recall)
        self.desk.settled(done, void)
        self._pause()
        for member in list(self.members.values()):
            if member.leaving:
                self.vacate(member, self.leave_reason(member))
        self.dealing.settled()

    def on_jackpot_awarded(self, item: JackpotAwarded) -> None:
        """The pool committed this round's prizes: the desk pays them; the players' recall
        shows them (s3(2)(h))."""
        for box, account, amount in self.desk.on_awarded(item):
            recall = self.settlement.prize(account, item.round_no, box, amount, item.stakes)
            if recall is not None:
                self.last_round[account] = to_wire(recall)

    def _pause(self, state: RoundState = "settled") -> None:
        self.books.close_round(state)
        self.phases.to(Phase.PAUSE)
        self.next_round_at = trio.current_time() + self.config.round_pause
        self.round_over()

    def round_over(self) -> None:
        """The round is closed in the books and the table pauses: a hook for a table kind
        that decides what comes next itself (a tournament's table); nothing here."""

    # -- dev ---------------------------------------------------------------------------------
    def on_dev_force(self, cmd: TableCommand[wire.DevForce]) -> None:
        """Dev mode only: the next round's cards (SCENARIOS.md forced outcome)."""
        self.dealing.force(cmd)

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
        return self.clock.deadline

    def on_other_time(self, now: float) -> None:
        if self.phase is Phase.DECIDING and now >= self.clock.deadline:
            assert self.engine is not None
            self.clock.on_time(self.engine, now)

    # -- shutdown ----------------------------------------------------------------------------
    def void_round(self, reason: str) -> None:
        """A shutdown: the betting layout is returned; a round in play is void (every wager
        back); a coin-in still at the pool is reversed when its answer comes (the house pays
        the jackpot wager back now)."""
        if self.phase is Phase.BETTING:
            self._return_layout(reason)
        elif self.phase is Phase.NO_MORE_BETS:
            self.felt.void_frozen()
            self.books.close_round("voided")
        elif self.phase is Phase.DECIDING and self.engine is not None and not self.engine.complete:
            self.journal.command("void", reason=reason)
            self.play(self.engine.void(reason))
