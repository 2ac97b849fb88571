"""The layout: a banked table's boxes, who holds them, and the wagers on them (Sch 19 s5).

Theory of operation. A player takes a box with his first wager on it (or by joining on it),
and may hold several; nobody takes the bank's box (the spec's ``bank_box``, pai gow s18(13)).
While the betting window is open a wager is made, changed or withdrawn (s5(2)); each change
is checked against the game's rules and limits and against the whole layout (the engine's
``check_layout``), then its money moves between the wallet and the box at once
(``server/tables/books.py``: ``box:N``). A wager may put more than one stake on the layout
(the spec's ``layout_stakes``: SW s6(1),(2), the main wager on each of two areas). At no
more bets the layout is frozen and its owners are the round's (``round_owners``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance
from server.errors import IllegalAction
from server.games.banked.base import BankedRound, validate_wagers
from server.store.model import InsufficientFunds
from server.tables import books
from server.tables.banked import events as ev
from server.tables.banked.jackpot_desk import UNAVAILABLE_TEXT
from server.tables.banked.settlement import Stakeholding
from server.tables.base import Member, TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase

if TYPE_CHECKING:
    from server.tables.banked.table import BankedTable, Player


def with_wager(old: dict[str, int], wager: str, amount: int) -> dict[str, int]:
    """A box's wagers after one is made, changed, or withdrawn (``amount`` 0; Sch 19 s5(2))."""
    new = dict(old)
    if amount:
        new[wager] = amount
    else:
        new.pop(wager, None)
    return new


class Layout:
    """The boxes, their owners and their wagers (see the module docstring)."""

    def __init__(self, table: BankedTable) -> None:
        self.table = table
        self.owners: dict[int, str] = {}  # box -> account, while the player is at the table
        self.wagers: dict[int, dict[str, int]] = {}  # box -> its wagers, this window
        self.round_owners: dict[int, str] = {}  # box -> account, the round in play's
        #: the window's wager commands, journalled with their times when the round is dealt
        self.made: list[dict[str, Any]] = []

    def open(self) -> None:
        """A new betting window: an empty layout."""
        self.wagers, self.round_owners, self.made = {}, {}, []

    def freeze(self) -> None:
        """No more bets: the boxes with wagers are the round's, with their owners."""
        self.round_owners = {b: self.owners[b] for b in self.wagers}

    def money(self, wagers: Mapping[str, int]) -> int:
        """The money a box's wagers put on the layout: one stake per wager, or as many as
        the game's spec says (``layout_stakes``)."""
        times = self.table.spec.layout_stakes
        return sum(amount * times.get(name, 1) for name, amount in wagers.items())

    def boxes_of(self, account: str, held: set[int]) -> set[int]:
        """The boxes ``account`` plays: those it holds and those it has in the round."""
        return {b for b, a in self.round_owners.items() if a == account} | held

    # -- boxes ------------------------------------------------------------------------------
    def box_free(self, conn: Connection, box: int, ref: str) -> bool:
        """Whether ``conn``'s player may take or wager on ``box`` (refused to ``conn``)."""
        t = self.table
        if not 1 <= box <= t.num_boxes:
            t.error(conn, errors.BAD_BOX, f"boxes are 1 to {t.num_boxes}", ref)
            return False
        owner = self.owners.get(box)
        if owner is not None and owner != conn.account:
            t.error(conn, errors.BOX_TAKEN, f"box {box} is another player's", ref)
            return False
        return True

    def take_box(self, player: Player, box: int) -> None:
        if self.owners.get(box) != player.account:
            self.owners[box] = player.account
            player.boxes.add(box)
            self.table.broadcast(ev.BoxTaken(box=box, name=player.name))

    def release(self, member: Player) -> int:
        """Free the player's boxes; wagers still in the betting window go back to the wallet."""
        t, returned = self.table, 0
        for box in sorted(member.boxes):
            if t.phase is Phase.BETTING and box in self.wagers:
                amount = self.money(self.wagers.pop(box))
                t.books.return_wager(member.account, box, amount)
                returned += amount
            self.owners.pop(box, None)
        return returned

    def give_all_back(self) -> None:
        """Every wager of a round that never started back to its wallet."""
        t = self.table
        for box, ws in sorted(self.wagers.items()):
            account = self.round_owners.get(box) or self.owners.get(box)
            if account:
                t.send_to(account, Balance(t.books.return_wager(account, box, self.money(ws))))
        self.wagers = {}

    # -- wagers -----------------------------------------------------------------------------
    def on_wager(self, player: Player, cmd: TableCommand[wire.Wager]) -> None:
        """Make, change or withdraw a wager (Sch 19 s5(2)); refused after no more bets (s3(3))."""
        t, m = self.table, cmd.message
        if t.refuse_after_close(cmd.conn, "wager"):
            return
        if not self.box_free(cmd.conn, m.box, "wager"):
            return
        spec = t.spec.wager(m.wager)
        if spec is None or not spec.initial:
            names = ", ".join(w.name for w in t.spec.wagers if w.initial)
            text = f"wagers placed before the deal here: {names}"
            t.error(cmd.conn, errors.WAGER_REFUSED, text, "wager", "unknown_wager")
            return
        if spec.limits == "jackpot" and t.link is None:
            text = "no jackpot wager at this table"
            t.error(cmd.conn, errors.WAGER_REFUSED, text, "wager", "no_jackpot")
            return
        if spec.limits == "jackpot" and m.amount and not t.desk.open:
            t.error(cmd.conn, errors.JACKPOT_UNAVAILABLE, UNAVAILABLE_TEXT, "wager")
            return
        self.lay(player, cmd.conn, m.box, m.wager, m.amount)

    def lay(
        self, player: Player, conn: Connection | None, box: int, wager: str, amount: int
    ) -> bool:
        """Put a wager checked for the window on the layout (or change or withdraw it):
        the rules' limits, then the money; refusals go to ``conn``. True when laid."""
        t = self.table
        old = self.wagers.get(box, {})
        new = with_wager(old, wager, amount)
        after = {b: ws for b, ws in self.wagers.items() if b != box}
        if new:
            after[box] = new
        owners = {b: self.owners.get(b, "") for b in after}
        owners[box] = player.account
        try:
            if new:  # a withdrawal is always allowed (Sch 19 s5(2))
                validate_wagers(t.spec, t.options, {box: new})
                t.round_cls.check_layout(t.options, after, owners, tuple(t.past_rounds))
        except IllegalAction as exc:
            if conn is not None:
                t.error(conn, errors.WAGER_REFUSED, exc.message, "wager", exc.code, exc.amounts)
            return False
        try:
            balance = t.books.wager(player.account, box, self.money(new) - self.money(old))
        except InsufficientFunds as exc:
            if conn is not None:
                text = str(exc)
                t.error(conn, errors.INSUFFICIENT_FUNDS, text, "wager", amounts=exc.amounts())
            return False
        if new:
            self.wagers[box] = new
            self.take_box(player, box)
        else:
            self.wagers.pop(box, None)
        if conn is not None and t.sends_balance:
            conn.send(Balance(balance))
        self.made.append({"box": box, "wager": wager, "amount": amount, "at": time.time()})
        t.broadcast(
            ev.WagerPlaced(
                round=t.round_no,
                box=box,
                wager=wager,
                amount=amount,
                name=player.name,
                box_wagers=dict(new),
            )
        )
        return True

    def in_round(self, member: Member) -> bool:
        return member.account in self.round_owners.values()

    def where_money_is(self) -> dict[str, int]:
        """``box:N`` holds the box's wagers (the layout, then the engine's stakes), less the
        jackpot wager once the pool accepted it; jackpot wagers awaiting the pool's answer
        stay on their box until it comes; ``box:N:P2`` a backer's."""
        t = self.table
        phase, coined = t.phase, t.desk.coined
        held: dict[int, int] = {}
        if phase is Phase.BETTING or phase is Phase.NO_MORE_BETS:
            held = {b: self.money(ws) for b, ws in self.wagers.items()}
        elif phase is Phase.DECIDING and t.engine is not None:
            held = {b: sum(ws.values()) for b, ws in t.engine.stakes.items()}
        out = {books.box(b): amount - coined.get(b, 0) for b, amount in held.items()}
        if phase is not Phase.NO_MORE_BETS:
            for b, amount in t.desk.in_flight.items():
                out[books.box(b)] = out.get(books.box(b), 0) + amount
        t.backers.where_money_is(out)
        return out

    def record(self) -> dict[str, Any]:
        """The frozen layout on the round's record: each box's player and wagers."""
        name = self.table.name_of
        return {
            str(b): {
                "account": self.round_owners[b],
                "name": name(self.round_owners[b]),
                "wagers": ws,
            }
            for b, ws in sorted(self.wagers.items())
        }

    def void_frozen(self) -> None:
        """A shutdown at no more bets, before the deal: every wager back to its wallet (the
        jackpot wager from the house: its coin-in is reversed when the pool answers)."""
        t = self.table
        for box, ws in sorted(self.wagers.items()):
            account = self.round_owners[box]
            jackpot = ws.get("jackpot", 0)
            t.books.return_wager(account, box, self.money(ws) - jackpot)
            t.books.jackpot_stake_returned(account, jackpot)
            t.send_to(account, Balance(t.ledger.balance(account)))
        self.wagers = {}

    def stakeholdings(self, engine: BankedRound) -> list[Stakeholding]:
        """Each box's player in the round, with the engine's stakes and nets."""
        nets = engine.result.boxes
        return [
            Stakeholding(box, None, self.round_owners[box], dict(ws), nets.get(box, {}))
            for box, ws in sorted(engine.stakes.items())
        ]
