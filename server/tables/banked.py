"""The banked table: players against the house, boxes, a betting window, decisions on a timer.

One trio task owns the table (:class:`~server.tables.base.TableActor`); a banked engine
(``server/games/banked``) plays each round. Theory of operation, one round:

1. **Betting window** (QLD Sch 19 s5(4)): ``betting_open`` with a countdown of
   ``betting_seconds``. A player makes, changes or withdraws wagers on boxes (s5(2)); the
   first wager on a free box takes the box for that player, who may hold several. Every
   change moves money between the wallet (the terminal's credit meter, s4(2)) and the layout
   at once, and is checked against the game's rules and limits (s5(3)).
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
   and a player whose wallet cannot fund the wager a decision needs gets
   :meth:`~server.games.banked.base.BankedRound.insufficient`.
5. **Settlement** (Sch 19 s7): ``round_result`` shows every box's every wager with its
   stake, net and outcome to everyone; winnings and returned stakes go to the wallets at
   once. Jackpot prizes are computed on the live pool and committed to the service
   (compare-and-set, commit order across linked tables); while the service is down the
   jackpot payment is held and retried, ante and bet having settled (jackpots.md 5.8).
6. **Recall** (s3(2)(f)-(h)): every player can ask for the previous round's bet, result and
   win (``recall``); it is part of the snapshot as well.

Money bookkeeping, for the conservation checks: ``in_play`` is what sits on the layout,
``house`` the house's net (lost wagers less winnings, plus the operator's part of each
jackpot wager), ``jackpot_contributed`` what went to the pool (prize and reserve parts) and
``jackpot_paid`` the prizes the pool paid: ``issued == wallets + in_play + house +
jackpot_contributed - jackpot_paid`` in every process, and across processes the pool's own
invariant (jackpots.md 5.9) closes the books.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from dataclasses import dataclass
from typing import Any

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance, Left, RoundRecall, Snapshot, TableInfo
from server.cards import CardError, RandomSource, SeededRandomSource, SystemRandomSource, card
from server.config import ConfigError, ServerConfig, TableConfig
from server.errors import IllegalAction
from server.games.banked.base import (
    EVERYONE,
    BankedRound,
    Forced,
    InvalidRound,
    JackpotState,
    validate_wagers,
)
from server.games.banked.scenario import MODULES, round_class
from server.games.visibility import may_see
from server.jackpots.model import JackpotError, MeterUpdate, check_pool_name
from server.jackpots.service import JackpotService
from server.tables.base import Command, Detach, Join, Leave, Message, Recipient, TableActor
from server.tables.connection import Connection
from server.tables.jackpot_link import CoinInResult, JackpotLink, LinkError, pool_config_for
from server.wallet import InsufficientFunds, Wallet

log = logging.getLogger("croupier.tables.banked")

#: Every banked game id the server can table.
BANKED_GAMES: tuple[str, ...] = tuple(MODULES)

#: Engine events the table replaces by its own (settled on the pool's figures).
_TABLE_SETTLED = ("jackpot_paid", "round_settled")

UNAVAILABLE_TEXT = "jackpot system unavailable: no jackpot wagers (QLD Sch 3 s34; ACT 2017 r 4.2)"


# -- commands (connection -> table) ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PlaceWager(Command):
    box: int
    wager: str
    amount: int


@dataclass(frozen=True, slots=True)
class Decide(Command):
    box: int
    verb: str
    amount: int | None


@dataclass(frozen=True, slots=True)
class Recall(Command):
    pass


@dataclass(frozen=True, slots=True)
class DevForce(Command):
    boxes: dict[str, list[str]]
    dealer: list[str]
    board: list[str]


# -- internal commands (the table's helper tasks -> the table) --------------------------------
@dataclass(frozen=True)
class CoinedIn:
    round_no: int
    result: CoinInResult


@dataclass(frozen=True)
class MeterChanged:
    update: MeterUpdate


@dataclass(frozen=True)
class JackpotAvailability:
    open: bool


@dataclass(frozen=True)
class JackpotAwarded:
    round_no: int
    owners: dict[int, str]
    hands: dict[int, str]
    stakes: dict[int, int]
    paid: dict[int, int]


class Player(Recipient):
    """A player at the table: the account, its boxes and its connection state."""

    __slots__ = ("account", "boxes", "connected", "grace_until", "leaving", "name")

    def __init__(self, conn: Connection) -> None:
        super().__init__(conn)
        self.account: str = conn.account or ""
        self.name = conn.name
        self.boxes: set[int] = set()
        self.connected = True
        self.grace_until: float | None = None
        self.leaving = False


class BankedTable(TableActor):
    """A table of one banked game (see the module docstring)."""

    kind = "banked"

    def __init__(self, table: TableConfig, config: ServerConfig, wallet: Wallet) -> None:
        super().__init__(table, config, wallet)
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
        self.rng: RandomSource = (
            SeededRandomSource(table.seed) if table.seed is not None else SystemRandomSource()
        )
        self.link: JackpotLink | None = None
        self.jackpot_open = False
        self.players: dict[str, Player] = {}
        self.owners: dict[int, str] = {}  # box -> account, while the player is at the table
        self.instance = secrets.token_hex(4)  # round ids unique across processes and restarts
        self.phase = "idle"  # idle | betting | coin_in | deciding | pause
        self.round_no = 0
        self.round_id = ""
        self.layout: dict[int, dict[str, int]] = {}
        self.round_owners: dict[int, str] = {}
        self.round_events: list[tuple[dict[str, Any], Any]] = []
        self.engine: BankedRound | None = None
        self.closes_at = math.inf
        self.decision_deadline = math.inf
        self.next_round_at = math.inf
        self.forced: Forced | None = None
        self.last_round: dict[str, dict[str, Any]] = {}
        self.meter: int | None = None
        # money
        self.in_play = 0
        self.house = 0
        self.jackpot_contributed = 0
        self.jackpot_paid = 0
        self.jackpot_wagers = 0
        self.jackpot_wager_total = 0
        self.jackpot_held = 0
        self._work: trio.Nursery | None = None

    @classmethod
    def check_config(cls, table: TableConfig) -> None:
        """Raise ConfigError if ``table`` cannot be tabled (``croupier serve`` exit 2)."""
        cls(table, ServerConfig(), Wallet())

    # -- wiring ------------------------------------------------------------------------------
    def use_jackpots(self, service: JackpotService) -> None:
        """Link this table's jackpot to its pool in ``service`` (``croupier serve``)."""
        if self.table.jackpot_pool is not None:
            self.link = JackpotLink(service, self.table.jackpot_pool, self.game, self.options)

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as work:
            self._work = work
            async with trio.open_nursery() as background:
                if self.link is not None:
                    with trio.move_on_after(1):  # a pool service that is down only closes them
                        await self.link.ensure_pool()
                    self.jackpot_open = self.link.open
                    background.start_soon(self.link.watch, self._on_meter)
                    background.start_soon(self.link.watch_availability, self._on_availability)
                await super().run(task_status)
                background.cancel_scope.cancel()
            work.cancel_scope.deadline = trio.current_time() + 5  # voids, held awards

    def _on_meter(self, update: MeterUpdate) -> None:
        self.submit(MeterChanged(update))  # type: ignore[arg-type]

    def _on_availability(self, is_open: bool) -> None:
        self.submit(JackpotAvailability(is_open))  # type: ignore[arg-type]

    def _spawn(self, fn: Any, *args: Any) -> None:
        assert self._work is not None
        self._work.start_soon(fn, *args)

    # -- lobby, views ------------------------------------------------------------------------
    def info(self) -> TableInfo:
        stakes = {"minimum": self.options["minimum"], "maximum": self.options["maximum"]}
        if self.options.get("jackpot_wager") is not None:
            stakes["jackpot_wager"] = self.options["jackpot_wager"]
        return TableInfo(
            id=self.id,
            name=self.table.name or self.id,
            game=self.game,
            description=f"{self.spec.title} ({self.spec.rules})",
            stakes=stakes,
            min_buy_in=0,
            max_buy_in=None,
            seats=self.num_boxes,
            taken=len(self.owners),
            spectators=len(self.spectators),
        )

    def _jackpot_view(self) -> dict[str, Any] | None:
        if self.link is None:
            return None
        return {
            "pool": self.link.pool,
            "meter": self.meter,
            "open": self.jackpot_open,
            "wager": self.options.get("jackpot_wager"),
            "status": self._jackpot_status(),
        }

    def _jackpot_status(self) -> str:
        if self.jackpot_open:
            return "open"
        if self.link is not None and self.link.mismatch:
            return "no jackpot wagers: " + self.link.mismatch
        return UNAVAILABLE_TEXT

    def _view(self, player: Player | None) -> dict[str, Any]:
        info = self.info()
        now = trio.current_time()
        mine = self._boxes_of(player)
        pending = []
        if self.engine is not None and not self.engine.complete:
            for d in self.engine.pending():
                if d.box in mine:
                    pending.append(
                        {
                            **d.to_wire(),
                            "round": self.round_no,
                            "time_ms": self._ms_left(self.decision_deadline, now),
                        }
                    )
        return {
            "table": {
                "id": info.id,
                "name": info.name,
                "game": info.game,
                "description": info.description,
                "stakes": info.stakes,
                "boxes": self.num_boxes,
                "betting_seconds": self.table.betting_seconds,
                "decision_seconds": self.table.decision_seconds,
                "wagers": self.spec.describe()["wagers"],
                "verbs": list(self.spec.verbs),
            },
            "status": "closing" if self.closing else self.phase,
            "no_more_bets": self.phase != "betting",
            "round": self.round_no,
            "round_id": self.round_id,
            "closes_in_ms": self._ms_left(self.closes_at, now) if self.phase == "betting" else 0,
            "boxes": [
                {"box": b, "player": self._name(a), "wagers": dict(self.layout.get(b, {}))}
                for b, a in sorted(self.owners.items())
            ],
            "my_boxes": sorted(mine),
            "jackpot": self._jackpot_view(),
            "round_events": [w for w, vis in self.round_events if self._may_see(vis, player)],
            "pending": pending,
            "last_round": self.last_round.get(player.account) if player else None,
        }

    def view_for(self, seat: int | None) -> dict[str, Any]:
        return self._view(None)

    def _snapshot_player(self, player: Player) -> None:
        view = self._view(player)
        seat = min(player.boxes) if player.boxes else None
        self.deliver(player, lambda seq: Snapshot(self.id, seq, "player", seat, view))

    @staticmethod
    def _ms_left(deadline: float, now: float) -> int:
        return 0 if deadline == math.inf else max(0, int((deadline - now) * 1000))

    def _name(self, account: str) -> str:
        p = self.players.get(account)
        return p.name if p is not None else ""

    def _boxes_of(self, player: Player | None) -> set[int]:
        if player is None:
            return set()
        in_round = {b for b, a in self.round_owners.items() if a == player.account}
        return in_round | player.boxes

    def _may_see(self, visible_to: Any, player: Player | None) -> bool:
        if visible_to == EVERYONE:
            return True
        return any(may_see(visible_to, b) for b in self._boxes_of(player))

    def recipients(self) -> list[tuple[Recipient, int | None]]:
        out: list[tuple[Recipient, int | None]] = [(p, None) for p in self.players.values()]
        return out + super().recipients()

    def broadcast(self, event: dict[str, Any], visible_to: Any = EVERYONE) -> None:
        for p in self.players.values():
            if self._may_see(visible_to, p):
                self.event(p, event)
        for s in self.spectators.values():
            if visible_to == EVERYONE:
                self.event(s, event)

    def holds_seat(self, conn: Connection) -> bool:
        return any(p.conn is conn for p in self.players.values())

    def seat_of_account(self, account: str) -> int | None:
        p = self.players.get(account)
        if p is None:
            return None
        return min(p.boxes) if p.boxes else self.num_boxes + 1  # joined without a box

    def money(self) -> dict[str, int]:
        return {
            "stakes": self.in_play,
            "commission": 0,
            "house": self.house,
            "jackpot_contributed": self.jackpot_contributed,
            "jackpot_paid": self.jackpot_paid,
        }

    def jackpot_info(self) -> dict[str, Any]:
        """For ``/health``: the link's state and this table's jackpot counts."""
        return {
            "table": self.id,
            "pool": self.link.pool if self.link else None,
            "open": self.jackpot_open,
            "meter": self.meter,
            "wagers": self.jackpot_wagers,
            "wager_total": self.jackpot_wager_total,
            "contributed": self.jackpot_contributed,
            "paid": self.jackpot_paid,
            "held": self.jackpot_held,
        }

    def _player_for(self, conn: Connection, ref: str) -> Player | None:
        p = self.players.get(conn.account or "")
        if p is not None and p.conn is conn:
            return p
        code = errors.NOT_SEATED if conn.id in self.spectators else errors.NOT_AT_TABLE
        self.error(conn, code, "you do not play at this table", ref)
        return None

    # -- joining and leaving -------------------------------------------------------------------
    def on_join(self, cmd: Join) -> None:
        conn = cmd.conn
        account = conn.account or ""
        held = self.players.get(account)
        if held is not None:
            if held.conn is not None and held.conn is not conn:
                held.conn.tables.discard(self.id)
            held.conn, held.connected, held.grace_until = conn, True, None
            conn.tables.add(self.id)
            self._snapshot_player(held)
            return
        if conn.id in self.spectators:
            self.error(conn, errors.ALREADY_AT_TABLE, "already watching this table", "join")
            return
        if self.closing:
            self.error(conn, errors.SHUTTING_DOWN, "the table is closing", "join")
            return
        if cmd.seat is not None and not self._box_free(conn, cmd.seat, "join"):
            return
        player = Player(conn)
        self.players[account] = player
        conn.tables.add(self.id)
        if cmd.seat is not None:
            self._take_box(player, cmd.seat)
        self.broadcast(
            {"type": "player_joined", "name": player.name, "boxes": sorted(player.boxes)}
        )
        self._snapshot_player(player)
        if self.phase == "idle":
            self.next_round_at = trio.current_time()

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
            self.broadcast({"type": "box_taken", "box": box, "name": player.name})

    def on_leave(self, cmd: Leave) -> None:
        if self.leave_spectator(cmd.conn):
            return
        player = self._player_for(cmd.conn, "leave")
        if player is None:
            return
        if self._in_round(player):
            player.leaving = True  # vacated when the round is settled; timers decide for it
            return
        self._vacate(player, "left")

    def _in_round(self, player: Player) -> bool:
        return (
            self.phase in ("coin_in", "deciding") and player.account in self.round_owners.values()
        )

    def on_detach(self, cmd: Detach) -> None:
        if self.spectators.pop(cmd.conn.id, None) is not None:
            return
        for p in self.players.values():
            if p.conn is cmd.conn:
                p.conn, p.connected = None, False
                p.grace_until = trio.current_time() + self.config.grace

    def _vacate(self, player: Player, reason: str) -> None:
        """Free the player's boxes; wagers still in the betting window go back to the wallet."""
        returned = 0
        for box in sorted(player.boxes):
            if self.phase == "betting" and box in self.layout:
                amount = sum(self.layout.pop(box).values())
                returned += amount
                self.in_play -= amount
            self.owners.pop(box, None)
        if returned:
            self.wallet.credit(player.account, returned)
        del self.players[player.account]
        self.deliver(player, lambda seq: Left(self.id, seq, returned, reason))
        if player.conn is not None:
            player.conn.tables.discard(self.id)
            player.conn.send(Balance(self.wallet.balance(player.account)))
        self.broadcast(
            {
                "type": "player_left",
                "name": player.name,
                "boxes": sorted(player.boxes),
                "reason": reason,
                "returned": returned,
            }
        )

    # -- banked messages (routed by the server as ``Message``) ------------------------------
    def on_message(self, cmd: Message) -> None:
        m, conn = cmd.message, cmd.conn
        if isinstance(m, wire.Wager):
            self.on_placewager(PlaceWager(conn, m.box, m.wager, m.amount))
        elif isinstance(m, wire.Decide):
            self.on_decide(Decide(conn, m.box, m.verb, m.amount))
        elif isinstance(m, wire.Recall):
            self.on_recall(Recall(conn))
        elif isinstance(m, wire.DevForce):
            self.on_devforce(DevForce(conn, dict(m.boxes), list(m.dealer), list(m.board)))
        else:
            super().on_message(cmd)

    # -- commands a banked table does not take ---------------------------------------------
    def _wrong_game(self, cmd: Command, ref: str) -> None:
        self.error(
            cmd.conn, errors.WRONG_GAME, f"{self.game} is a banked game: use wager / decide", ref
        )

    def on_act(self, cmd: Command) -> None:
        self._wrong_game(cmd, "act")

    def on_buyin(self, cmd: Command) -> None:
        self._wrong_game(cmd, "buy_in")

    def on_sitout(self, cmd: Command) -> None:
        self._wrong_game(cmd, "sit_out")

    def on_sitin(self, cmd: Command) -> None:
        self._wrong_game(cmd, "sit_in")

    # -- the betting window ------------------------------------------------------------------
    def _open_betting(self, now: float) -> None:
        self.round_no += 1
        self.round_id = f"{self.id}.{self.instance}.{self.round_no}"
        self.phase = "betting"
        self.layout = {}
        self.round_owners = {}
        self.round_events = []
        self.engine = None
        self.closes_at = now + self.table.betting_seconds
        self.next_round_at = math.inf
        wall = int(time.time() * 1000)
        self.broadcast(
            {
                "type": "betting_open",
                "round": self.round_no,
                "round_id": self.round_id,
                "closes_in_ms": int(self.table.betting_seconds * 1000),
                "server_time": wall,
                "closes_at": wall + int(self.table.betting_seconds * 1000),
                "jackpot_open": self.jackpot_open,
            }
        )

    def on_placewager(self, cmd: PlaceWager) -> None:
        """Make, change or withdraw a wager (Sch 19 s5(2)); refused after no more bets (s3(3))."""
        player = self._player_for(cmd.conn, "wager")
        if player is None:
            return
        if self.phase != "betting":
            self.error(
                cmd.conn,
                errors.BETTING_CLOSED,
                "no more bets: wait for the next betting window (Sch 19 s3(3))",
                "wager",
            )
            return
        if not self._box_free(cmd.conn, cmd.box, "wager"):
            return
        spec = self.spec.wager(cmd.wager)
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
        if spec.limits == "jackpot" and cmd.amount and not self.jackpot_open:
            self.error(cmd.conn, errors.JACKPOT_UNAVAILABLE, UNAVAILABLE_TEXT, "wager")
            return
        old = self.layout.get(cmd.box, {})
        new = dict(old)
        if cmd.amount:
            new[cmd.wager] = cmd.amount
        else:
            new.pop(cmd.wager, None)
        if new:
            try:
                validate_wagers(self.spec, self.options, {cmd.box: new})
            except IllegalAction as exc:
                self.error(cmd.conn, errors.WAGER_REFUSED, exc.message, "wager", exc.code)
                return
        delta = cmd.amount - old.get(cmd.wager, 0)
        try:
            if delta > 0:
                balance = self.wallet.debit(player.account, delta)
            else:
                balance = self.wallet.credit(player.account, -delta)
        except InsufficientFunds as exc:
            self.error(cmd.conn, errors.INSUFFICIENT_FUNDS, str(exc), "wager")
            return
        self.in_play += delta
        if new:
            self.layout[cmd.box] = new
        else:
            self.layout.pop(cmd.box, None)
        if new:
            self._take_box(player, cmd.box)
        cmd.conn.send(Balance(balance))
        self.broadcast(
            {
                "type": "wager_placed",
                "round": self.round_no,
                "box": cmd.box,
                "wager": cmd.wager,
                "amount": cmd.amount,
                "name": player.name,
                "box_wagers": dict(new),
            }
        )

    def _close_betting(self) -> None:
        """No more bets: the layout is frozen; coin-in, then the deal."""
        self.closes_at = math.inf
        self.broadcast(
            {
                "type": "no_more_bets",
                "round": self.round_no,
                "boxes": {str(b): dict(ws) for b, ws in sorted(self.layout.items())},
            }
        )
        if not self.layout:
            self._pause()
            return
        self.round_owners = {b: self.owners[b] for b in self.layout}
        jackpots = {b: ws["jackpot"] for b, ws in self.layout.items() if "jackpot" in ws}
        if jackpots and self.link is not None:
            self.phase = "coin_in"
            self._spawn(self._coin_in_task, self.round_no, self.round_id, jackpots)
            return
        self._deal(None)

    async def _coin_in_task(self, round_no: int, round_id: str, wagers: dict[int, int]) -> None:
        assert self.link is not None
        result = await self.link.coin_in(round_id, wagers)
        # The pool's answer is booked here, in the same step as it arrives, so the books
        # balance even if the table closed meanwhile (shutdown voids the round below).
        for amount in result.accepted.values():
            prize, reserve, operator = self.link.split(amount)
            self.jackpot_contributed += prize + reserve
            self.house += operator
            self.in_play -= amount
            self.jackpot_wagers += 1
            self.jackpot_wager_total += amount
        if self.closing and result.accepted:
            reversed_ = await self.link.void(round_id)
            self.jackpot_contributed -= reversed_
            self.house += reversed_
            return
        self.submit(CoinedIn(round_no, result))  # type: ignore[arg-type]

    def on_coinedin(self, cmd: CoinedIn) -> None:
        if cmd.round_no != self.round_no or self.phase != "coin_in":
            return
        for box, amount in sorted(cmd.result.returned.items()):
            self.layout[box].pop("jackpot", None)
            self.in_play -= amount
            account = self.round_owners[box]
            balance = self.wallet.credit(account, amount)
            self._to_account(account, Balance(balance))
            self.broadcast(
                {
                    "type": "jackpot_wager_returned",
                    "round": self.round_no,
                    "box": box,
                    "amount": amount,
                    "reason": UNAVAILABLE_TEXT,
                }
            )
        before = cmd.result.before
        state = JackpotState(before.meter, before.reserve) if before is not None else None
        self._deal(state)

    def _to_account(self, account: str, message: Any) -> None:
        p = self.players.get(account)
        if p is not None and p.conn is not None:
            p.conn.send(message)

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
        wagers = {b: dict(ws) for b, ws in self.layout.items()}
        try:
            self.engine = self.round_cls(
                self.options, wagers, self.rng, forced=forced, jackpot=jackpot
            )
            events = self.engine.start()
        except (IllegalAction, InvalidRound) as exc:
            log.error("table %s round %s could not start: %s", self.id, self.round_id, exc)
            self.engine = None
            self._return_layout("the round could not be dealt")
            return
        self.phase = "deciding"
        self._after(events)

    def _return_layout(self, reason: str) -> None:
        """Give every wager of a round that never started back (nothing was coined in)."""
        for box, ws in sorted(self.layout.items()):
            amount = sum(ws.values())
            self.in_play -= amount
            account = self.round_owners.get(box) or self.owners.get(box)
            if account:
                self._to_account(account, Balance(self.wallet.credit(account, amount)))
        self.broadcast({"type": "round_voided", "round": self.round_no, "reason": reason})
        self._pause()

    def _after(self, events: list[Any]) -> None:
        """Deliver engine events; prompt a new street's decisions; settle a finished round."""
        engine = self.engine
        assert engine is not None
        new_street = False
        for ev in events:
            wire = ev.to_wire()
            if wire["type"] in _TABLE_SETTLED or (
                wire["type"] == "wager_settled" and wire.get("wager") == "jackpot"
            ):
                continue  # the table's round_result / jackpot_paid carry the real figures
            self.round_events.append((wire, ev.visible_to))
            self.broadcast(wire, ev.visible_to)
            new_street = new_street or wire["type"] == "street_opened"
        if engine.complete:
            self._settle()
        elif new_street:
            self._prompt()

    def _prompt(self) -> None:
        assert self.engine is not None
        now = trio.current_time()
        self.decision_deadline = now + self.table.decision_seconds
        time_ms = int(self.table.decision_seconds * 1000)
        for d in self.engine.pending():
            self.broadcast(
                {**d.to_wire(), "type": "decision", "round": self.round_no, "time_ms": time_ms},
                d.box,
            )

    def on_decide(self, cmd: Decide) -> None:
        player = self._player_for(cmd.conn, "decide")
        if player is None:
            return
        engine = self.engine
        if self.phase != "deciding" or engine is None or engine.complete:
            self.error(cmd.conn, errors.NO_DECISION, "no decision is open now", "decide")
            return
        if self.round_owners.get(cmd.box) != player.account:
            self.error(
                cmd.conn, errors.NO_DECISION, f"box {cmd.box} is not yours this round", "decide"
            )
            return
        pending = {d.box: d for d in engine.pending()}
        if cmd.box not in pending:
            self.error(
                cmd.conn, errors.NO_DECISION, f"box {cmd.box} owes no decision now", "decide"
            )
            return
        choice = next((c for c in pending[cmd.box].choices if c.verb == cmd.verb), None)
        try:
            if choice is None:
                raise IllegalAction(
                    "illegal_verb",
                    f"box {cmd.box} may {', '.join(c.verb for c in pending[cmd.box].choices)} now",
                )
            cost = choice.resolve(cmd.amount) or 0
            if cost > self.wallet.balance(player.account):
                events = engine.insufficient(cmd.box)  # cannot fund it: the rules' treatment
                self.broadcast({"type": "insufficient", "round": self.round_no, "box": cmd.box})
            else:
                before = sum(engine.stakes[cmd.box].values())
                events = engine.decide(cmd.box, cmd.verb, cmd.amount)
                self._stake_difference(player.account, cmd.box, before)
        except IllegalAction as exc:
            self.error(cmd.conn, errors.ILLEGAL_ACTION, exc.message, "decide", exc.code)
            return
        self._after(events)

    def _stake_difference(self, account: str, box: int, before: int) -> None:
        """Debit the wager a decision put on the layout (bet, play, war...)."""
        assert self.engine is not None
        added = sum(self.engine.stakes[box].values()) - before
        if added <= 0:
            return
        try:
            balance = self.wallet.debit(account, added)
        except InsufficientFunds:  # pragma: no cover - checked before the decision
            log.error("table %s: box %d decision not funded", self.id, box)
            return
        self.in_play += added
        self._to_account(account, Balance(balance))

    def _timeouts(self) -> None:
        """The decision clock ran out: the engine's rule for each box still owing one."""
        engine = self.engine
        assert engine is not None
        self.decision_deadline = math.inf
        street = engine.street
        for box in [d.box for d in engine.pending()]:
            if engine.complete or engine.street != street:
                return  # the street closed (a new one has its own clock)
            if box not in {d.box for d in engine.pending()}:
                continue
            self.broadcast({"type": "timed_out", "round": self.round_no, "box": box})
            self._after(engine.timeout(box))

    # -- settlement --------------------------------------------------------------------------
    def _settle(self) -> None:
        """Sch 19 s7: every wager's result to everyone; winnings to the wallets at once."""
        engine = self.engine
        assert engine is not None
        self.decision_deadline = math.inf
        result = engine.result
        void = result.state == "void"
        outcomes: dict[tuple[int, str], dict[str, Any]] = {}
        hands: dict[int, str] = {}
        dealer: dict[str, Any] = {}
        for ev in engine.events:
            wire = ev.to_wire()
            if wire["type"] == "wager_settled":
                outcomes[(wire["box"], wire["wager"])] = {
                    "outcome": wire["outcome"],
                    "detail": wire["detail"],
                }
            elif wire["type"] == "jackpot_paid":
                hands[wire["box"]] = wire["hand"]
            elif wire["type"] == "hand_shown" and wire["box"] is None:
                dealer.update(cards=wire["cards"], hand=wire["hand"])
            elif wire["type"] == "dealer_declared":
                dealer["status"] = wire["status"]
        linked = self.link is not None
        boxes_out: dict[str, Any] = {}
        per_account: dict[str, dict[str, Any]] = {}
        jackpot_stakes: dict[int, int] = {}
        for box in sorted(engine.stakes):
            account = self.round_owners[box]
            stakes = engine.stakes[box]
            nets = result.boxes.get(box, {})
            paid_back = 0
            wagers_out: dict[str, Any] = {}
            for name, stake in stakes.items():
                if linked and name == "jackpot":
                    jackpot_stakes[box] = stake
                    if void:
                        self.house -= stake  # returned in full; the pool reverses its part
                        paid_back += stake
                        outcome = {"stake": stake, "net": 0, "outcome": "returned"}
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
                net = nets.get(name, 0)
                self.in_play -= stake
                self.house -= net
                paid_back += stake + net
                got = outcomes.get(
                    (box, name), {"outcome": "returned" if void else "push", "detail": ""}
                )
                wagers_out[name] = {"stake": stake, "net": net, **got}
            if paid_back:
                self._to_account(account, Balance(self.wallet.credit(account, paid_back)))
            bet = sum(stakes.values())
            boxes_out[str(box)] = {
                "player": self._name(account),
                "wagers": wagers_out,
                "bet": bet,
                "paid": paid_back,
            }
            rec = per_account.setdefault(account, {"bet_total": 0, "paid_total": 0, "boxes": {}})
            rec["bet_total"] += bet
            rec["paid_total"] += paid_back
            rec["boxes"][str(box)] = boxes_out[str(box)]
        pending = sorted(hands) if linked and not void else []
        self.broadcast(
            {
                "type": "round_result",
                "round": self.round_no,
                "round_id": self.round_id,
                "state": result.state,
                "dealer": dealer,
                "boxes": boxes_out,
                "jackpot_pending": pending,
            }
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
        if linked and void and jackpot_stakes:
            self._spawn(self._void_task, self.round_id)
        elif linked and pending:
            owners = {b: self.round_owners[b] for b in pending}
            self.jackpot_held += 1
            self._spawn(
                self._award_task,
                self.round_no,
                self.round_id,
                owners,
                {b: hands[b] for b in pending},
                {b: jackpot_stakes.get(b, 0) for b in pending},
            )
        self._pause()
        for p in list(self.players.values()):
            if p.leaving:
                self._vacate(p, "left" if p.connected else "grace_expired")

    async def _award_task(
        self,
        round_no: int,
        round_id: str,
        owners: dict[int, str],
        hands: dict[int, str],
        stakes: dict[int, int],
    ) -> None:
        assert self.link is not None
        paid = await self.link.award(round_id, hands)
        self.submit(JackpotAwarded(round_no, owners, hands, stakes, paid))  # type: ignore[arg-type]

    async def _void_task(self, round_id: str) -> None:
        assert self.link is not None
        reversed_ = await self.link.void(round_id)
        self.jackpot_contributed -= reversed_
        self.house += reversed_

    def on_jackpotawarded(self, cmd: JackpotAwarded) -> None:
        """The pool committed this round's prizes: pay them (QLD s23(3): after ante and bet)."""
        self.jackpot_held -= 1
        for box, amount in sorted(cmd.paid.items(), reverse=True):
            account = cmd.owners[box]
            self.jackpot_paid += amount
            balance = self.wallet.credit(account, amount)
            self._to_account(account, Balance(balance))
            self.broadcast(
                {
                    "type": "jackpot_paid",
                    "round": cmd.round_no,
                    "box": box,
                    "hand": cmd.hands.get(box, ""),
                    "amount": amount,
                }
            )
            rec = self.last_round.get(account)
            if rec is not None and rec.get("round") == cmd.round_no:
                rec["paid_total"] += amount
                rec["net"] += amount
                entry = rec["boxes"].get(str(box))
                if entry is not None:
                    entry["paid"] += amount
                    entry["wagers"]["jackpot"].update(
                        net=amount - cmd.stakes.get(box, 0), outcome="win"
                    )

    def _pause(self) -> None:
        self.phase = "pause" if not self.closing else "closed"
        self.next_round_at = trio.current_time() + self.config.round_pause

    # -- jackpot link events ---------------------------------------------------------------
    def on_meterchanged(self, cmd: MeterChanged) -> None:
        u = cmd.update
        self.meter = u.meter
        self.broadcast(
            {"type": "meter", "pool": u.pool, "meter": u.meter, "version": u.version, "op": u.op}
        )

    def on_jackpotavailability(self, cmd: JackpotAvailability) -> None:
        if cmd.open == self.jackpot_open:
            return
        self.jackpot_open = cmd.open
        if not cmd.open and self.phase == "betting":
            for box, ws in sorted(self.layout.items()):  # not accepted: returned (s34)
                amount = ws.pop("jackpot", 0)
                if amount:
                    self.in_play -= amount
                    account = self.owners[box]
                    self._to_account(account, Balance(self.wallet.credit(account, amount)))
                    self.broadcast(
                        {
                            "type": "jackpot_wager_returned",
                            "round": self.round_no,
                            "box": box,
                            "amount": amount,
                            "reason": UNAVAILABLE_TEXT,
                        }
                    )
        self.broadcast(
            {"type": "jackpot_status", "open": cmd.open, "status": self._jackpot_status()}
        )

    # -- recall and dev ----------------------------------------------------------------------
    def on_recall(self, cmd: Recall) -> None:
        cmd.conn.send(RoundRecall(self.id, self.last_round.get(cmd.conn.account or "")))

    def on_devforce(self, cmd: DevForce) -> None:
        """Dev mode only: the next round's cards (SCENARIOS.md forced outcome)."""
        if not self.config.dev:
            self.error(
                cmd.conn, errors.DEV_ONLY, "forced cards exist only in dev mode", "dev_force"
            )
            return
        try:
            boxes: dict[int, list[int]] = {}
            for key, cs in cmd.boxes.items():
                box = int(key)
                if not 1 <= box <= self.num_boxes:
                    raise CardError(f"no box {key}")
                boxes[box] = [card(c) for c in cs]
            dealer = [card(c) for c in cmd.dealer]
            board = [card(c) for c in cmd.board]
        except (CardError, ValueError) as exc:
            self.error(cmd.conn, errors.BAD_CARDS, str(exc), "dev_force")
            return
        every = [c for cs in boxes.values() for c in cs] + dealer + board
        if len(set(every)) != len(every) or any(c not in self.spec.deck for c in every):
            self.error(
                cmd.conn, errors.BAD_CARDS, "a card is used twice or not in the deck", "dev_force"
            )
            return
        who: Recipient | None = self.spectators.get(cmd.conn.id)
        player = self.players.get(cmd.conn.account or "")
        if player is not None and player.conn is cmd.conn:
            who = player
        if who is None:
            self.error(cmd.conn, errors.NOT_AT_TABLE, "join the table first", "dev_force")
            return
        self.forced = Forced(boxes, dealer, board)
        # dealt at this window's "no more bets", else at the next window's
        upcoming = self.round_no if self.phase == "betting" else self.round_no + 1
        self.event(who, {"type": "dev_forced", "round": upcoming})

    # -- time --------------------------------------------------------------------------------
    def next_deadline(self) -> float:
        deadline = min(self.closes_at, self.decision_deadline)
        for p in self.players.values():
            if p.grace_until is not None:
                deadline = min(deadline, p.grace_until)
        if self.phase in ("idle", "pause") and self.players and not self.closing:
            deadline = min(deadline, self.next_round_at)
        return deadline

    def on_time(self, now: float) -> None:
        for p in list(self.players.values()):
            if p.grace_until is not None and now >= p.grace_until:
                p.grace_until = None
                if self._in_round(p):
                    p.leaving = True
                else:
                    self._vacate(p, "grace_expired")
        if self.phase == "betting" and now >= self.closes_at:
            self._close_betting()
        if self.phase == "deciding" and now >= self.decision_deadline:
            self._timeouts()
        if (
            self.phase in ("idle", "pause")
            and not self.closing
            and self.players
            and now >= self.next_round_at
        ):
            self._open_betting(now)
        if self.phase == "pause" and not self.players:
            self.phase = "idle"

    # -- shutdown ----------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop: the betting layout is returned, a round in play is void (every wager back)."""
        self.closing = True
        self.broadcast({"type": "table_closing"})
        if self.phase == "betting":
            self._return_layout("shutdown")
        elif self.phase == "coin_in":
            # the coin-in task books the pool's answer and voids it there (closing is set)
            for box, ws in sorted(self.layout.items()):
                amount = sum(ws.values())
                jackpot = ws.get("jackpot", 0)
                self.in_play -= amount - jackpot
                self.house -= jackpot
                account = self.round_owners[box]
                self._to_account(account, Balance(self.wallet.credit(account, amount)))
        elif self.phase == "deciding" and self.engine is not None and not self.engine.complete:
            self._after(self.engine.void("shutdown"))
        self.phase = "closed"
        for p in list(self.players.values()):
            self._vacate(p, "shutdown")
        for conn_id in list(self.spectators):
            to = self.spectators.pop(conn_id)
            self.deliver(to, lambda seq: Left(self.id, seq, 0, "shutdown"))
        self.closed.set()
