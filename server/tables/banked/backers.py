"""Backers: other players on a box's places (BJ s29(1), SP s30, CH s29; SW s28).

Theory of operation. A game whose spec declares ``backer_places`` (blackjack: ``("P2",
"P3")``, at most 3 players a box) lets another player join a box that someone else holds:
a ``wager`` with ``behind: true`` on that box while betting is open gives him the box's
next free place, and his wagers are checked by the engine's rules for other players
(:class:`PlacesRound`: ``check_other_wagers``, ``check_side_wagers``). His money is on the
books account ``box:N:P2``. At no more bets a backer of a box with no wager has his wagers
back; the round is dealt with each box's backers under ``others`` (SCENARIOS.md), and the
engine tells what each place has on the box (``stakes_of``) and its nets (``nets_of``).

The part knows the places API of an engine, nothing of a particular game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance
from server.errors import IllegalAction
from server.store.model import InsufficientFunds
from server.tables import books
from server.tables.banked import events as ev
from server.tables.banked.layout import with_wager
from server.tables.banked.settlement import Stakeholding
from server.tables.base import Member, TableCommand
from server.tables.phases import Phase

if TYPE_CHECKING:
    from server.tables.banked.table import BankedTable, Player

Place = tuple[int, str]  # (box, place id)


@runtime_checkable
class PlacesRound(Protocol):
    """The engine's API for other players on a box (``None``: the box's player)."""

    persons: dict[tuple[int, str | None], str]

    @classmethod
    def check_other_wagers(
        cls, options: Mapping[str, Any], box: int, pid: str, ws: Any
    ) -> dict[str, int]: ...

    @classmethod
    def check_side_wagers(
        cls, options: Mapping[str, Any], box: int, player: str | None, ws: Mapping[str, int]
    ) -> None: ...

    def stakes_of(self, box: int, player: str | None = None) -> dict[str, int]: ...

    def nets_of(self, box: int, player: str | None = None) -> dict[str, int]: ...


class Backers:
    """The other players on the table's boxes, this round (module docstring)."""

    def __init__(self, table: BankedTable, places: tuple[str, ...]) -> None:
        self.table = table
        self.places = places
        #: this round's backers, (box, place) -> account, and their wagers
        self.backing: dict[Place, str] = {}
        self.layout: dict[Place, dict[str, int]] = {}

    def __bool__(self) -> bool:
        """Whether the game has places for other players on a box."""
        return bool(self.places)

    def rules(self) -> type[PlacesRound]:
        return cast("type[PlacesRound]", self.table.round_cls)

    # -- joining a box --------------------------------------------------------------------
    def on_wager(self, player: Player, cmd: TableCommand[wire.Wager]) -> None:
        """A wager ``behind`` a box another player holds (s29(1))."""
        t, m = self.table, cmd.message
        if t.refuse_after_close(cmd.conn, "wager"):
            return
        if not 1 <= m.box <= t.num_boxes:
            t.error(cmd.conn, errors.BAD_BOX, f"boxes are 1 to {t.num_boxes}", "wager")
            return
        owner = t.owners.get(m.box)
        if owner is None or owner == player.account:
            why = "back a box another player holds" if owner is None else "this box is yours"
            t.error(cmd.conn, errors.WAGER_REFUSED, why, "wager", "no_box_to_back")
            return
        at = self.place_for(player.account, m.box)
        if at is None:
            text = f"box {m.box} has {len(self.places) + 1} players (BJ s29(1))"
            t.error(cmd.conn, errors.WAGER_REFUSED, text, "wager", "too_many_players")
            return
        old = self.layout.get(at, {})
        new = with_wager(old, m.wager, m.amount)
        if new:
            try:
                self.rules().check_other_wagers(t.options, m.box, at[1], new)
                self.rules().check_side_wagers(t.options, m.box, at[1], new)
            except IllegalAction as exc:
                t.error(cmd.conn, errors.WAGER_REFUSED, exc.message, "wager", exc.code, exc.amounts)
                return
        delta = t.felt.money(new) - t.felt.money(old)
        try:
            balance = t.books.wager(player.account, m.box, delta, at[1])
        except InsufficientFunds as exc:
            t.error(cmd.conn, errors.INSUFFICIENT_FUNDS, str(exc), "wager", amounts=exc.amounts())
            return
        if new:
            self.layout[at] = new
            self.backing[at] = player.account
        else:
            self.layout.pop(at, None)
            self.backing.pop(at, None)
        cmd.conn.send(Balance(balance))
        t.broadcast(
            ev.WagerPlaced(
                round=t.round_no,
                box=m.box,
                place=at[1],
                wager=m.wager,
                amount=m.amount,
                name=player.name,
                box_wagers=dict(new),
            )
        )

    def place_for(self, account: str, box: int) -> Place | None:
        """The place ``account`` holds on ``box``, else the box's next free one."""
        for (b, place), acc in self.backing.items():
            if b == box and acc == account:
                return (b, place)
        taken = {place for (b, place) in self.backing if b == box}
        free = [p for p in self.places if p not in taken]
        return (box, free[0]) if free else None

    # -- the round's money ----------------------------------------------------------------
    def open_betting(self) -> None:
        self.backing = {}
        self.layout = {}

    def close_betting(self) -> None:
        """No more bets: a backer of a box with no wager has his wagers back."""
        for at in sorted(self.layout):
            if at[0] not in self.table.layout:
                self.give_back(at, "the box has no wager")

    def give_back(self, at: Place, reason: str) -> None:
        t = self.table
        account = self.backing.pop(at)
        amount = t.felt.money(self.layout.pop(at))
        t.send_to(account, Balance(t.books.return_wager(account, at[0], amount, at[1])))
        t.broadcast(
            ev.BackerReturned(
                round=t.round_no, box=at[0], place=at[1], amount=amount, reason=reason
            )
        )

    def give_all_back(self, reason: str) -> None:
        for at in sorted(self.layout):
            self.give_back(at, reason)

    def in_round(self, member: Member) -> bool:
        return self.table.phases.in_round and member.account in self.backing.values()

    def release(self, member: Member) -> int:
        """A backer leaving in the betting window has his wagers back."""
        t, returned = self.table, 0
        for at, acc in sorted(self.backing.items()):
            if acc == member.account and t.phase is Phase.BETTING:
                amount = t.felt.money(self.layout.pop(at, {}))
                t.books.return_wager(acc, at[0], amount, at[1])
                del self.backing[at]
                returned += amount
        return returned

    def where_money_is(self, out: dict[str, int]) -> None:
        """Each backer's money on ``box:N:P2`` (the layout, then the engine's stakes)."""
        t = self.table
        phase, engine = t.phase, t.engine
        for at in self.backing:
            if phase is Phase.BETTING or phase is Phase.NO_MORE_BETS:
                amount = t.felt.money(self.layout.get(at, {}))
            elif phase is Phase.DECIDING and isinstance(engine, PlacesRound):
                amount = sum(engine.stakes_of(at[0], at[1]).values())
            else:
                amount = 0
            if amount:
                out[books.box(*at)] = amount

    def round_wagers(self, wagers: dict[int, dict[str, Any]]) -> None:
        """The frozen layout with each box's backers under ``others`` (SCENARIOS.md)."""
        for (box, place), ws in sorted(self.layout.items()):
            wagers[box].setdefault("others", {})[place] = dict(ws)

    def persons(self, engine: PlacesRound) -> None:
        """Who plays each place, across the boxes (the super bonus pays persons, SP s8(3)(c))."""
        owners = self.table.round_owners
        engine.persons = {(box, None): owner for box, owner in owners.items()}
        engine.persons.update({key: acc for key, acc in self.backing.items()})

    def stakeholdings(self, engine: object) -> list[Stakeholding]:
        """Each backer in the round with his own stakes and nets."""
        if not isinstance(engine, PlacesRound):
            return []
        out = []
        for (box, place), account in sorted(self.backing.items()):
            try:
                stakes = engine.stakes_of(box, place)
            except KeyError:  # not in the round
                continue
            out.append(Stakeholding(box, place, account, stakes, engine.nets_of(box, place)))
        return out

    def record(self) -> list[dict[str, Any]]:
        """The backers' wagers on the round's record (BJ s29)."""
        return [
            {"box": box, "place": place, "account": account, "wagers": self.layout[key]}
            for key, account in sorted(self.backing.items())
            for box, place in [key]
            if self.layout.get(key)
        ]

    def view(self, account: str | None) -> dict[str, Any]:
        t = self.table
        return {
            "backers": [
                {
                    "box": box,
                    "place": place,
                    "player": t.name_of(acc),
                    "wagers": dict(self.layout.get((box, place), {})),
                }
                for (box, place), acc in sorted(self.backing.items())
            ],
            "my_backing": [
                {"box": box, "place": place}
                for (box, place), acc in sorted(self.backing.items())
                if acc == account
            ],
        }
