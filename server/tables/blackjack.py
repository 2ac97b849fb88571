"""The blackjack table: a banked table whose boxes decide in turn, with backers and a shoe.

Seed 004, Schedules 2 (BJ), 9 (SP), 15 (SW) and 17 (CH); the round is the blackjack
engine's (``server/games/banked/blackjack``). Everything else (betting window, no more
bets, prompts on a clock, settlement, recall) is :class:`~server.tables.banked.BankedTable`'s.

Theory of operation
-------------------
1. **Boxes and backers** (BJ s29, SP s30, CH s29; SW s28): a player takes a box with its
   first wager, as at every banked table. Another player joins a box as a *backer* with a
   ``wager`` carrying ``behind: true`` on that box while betting is open: the table gives
   him the box's next free place (``P2``, ``P3``: at most 3 players a box, s29(1)) and the
   engine's ``others`` rules apply (a main wager; SW: super match only). His money is on
   the books account ``box:N:P2``. At no more bets, backers of a box with no wager get
   theirs back.
2. **One hand at a time** (s17(2)): the engine's ``pending()`` is the hand to act and the
   open offers (insurance, even money, backers' double, surrender, cover or follow, a
   Spanish rescue). The table prompts the offers first and the hand to act only once no
   offer is open (BJ digest A2: insurance is a phase before the first play decision; a
   backer answers after the controller acts, s30(6),(7)), so nobody's offer is closed by
   someone else's play decision. Each decision has its own clock (``decision_seconds``):
   an offer not answered in time is declined (:meth:`BlackjackRound.decline_offers`), a
   hand not played in time is played out by the engine's timeout (BJ s61, SP s51, SW s42,
   CH s49).
3. **Cards face up**: every card is dealt face up and seen by everyone (s17(1)); the
   dealer's second card exists only once every hand and offer is done (s17(5)), so no
   event can show it earlier.
4. **The shoe** persists across rounds at the table (s12-s19): each round is dealt from
   the table's :class:`~server.games.banked.blackjack.shoe.BlackjackShoe`, which reshuffles
   itself after the round in which the cutting card came out. ``dev_force`` with a ``shoe``
   (dev mode) replaces it by a fresh shoe whose first cards are the ones given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance
from server import fair
from server.cards import RandomSource
from server.errors import IllegalAction
from server.games.banked.base import (
    BankedRound,
    Decision,
    DecisionMade,
    Event,
    Forced,
    JackpotState,
)
from server.games.banked.blackjack.engine import BlackjackRound
from server.games.banked.blackjack.shoe import BlackjackShoe
from server.store.model import InsufficientFunds
from server.tables import books
from server.tables.banked import BankedTable, with_wager
from server.tables.base import Handler, Member, TableCommand
from server.tables.phases import Phase

#: The places other players take on a box (BJ s29(1): up to 3 players a box).
PLACES = ("P2", "P3")

Place = tuple[int, str]  # (box, place id)


class BlackjackTable(BankedTable):
    """A table of one blackjack-family game (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert issubclass(self.round_cls, BlackjackRound)
        self.bj_cls: type[BlackjackRound] = self.round_cls
        self.shoe: BlackjackShoe | None = None
        self.shoes = 0  # shoes shuffled at this table
        self.shoe_id = ""  # the shoe's id and secret (empty: a dev-forced shoe)
        self.shoe_secret = b""
        self.shoe_at: dict[str, Any] = {}  # where the shoe stood when this round was dealt
        #: this round's backers, (box, place) -> account, and their wagers
        self.backing: dict[Place, str] = {}
        self.back_layout: dict[Place, dict[str, int]] = {}
        #: who owes each open decision: (box, street) -> place (None: the box's player)
        self.owed_by: dict[tuple[int, str], str | None] = {}
        #: the hand to act, when it is prompted (no offer open)
        self.acting_key: tuple[int, str] | None = None

    def _bj(self) -> BlackjackRound:
        engine = self.engine
        assert isinstance(engine, BlackjackRound)
        return engine

    # -- views ---------------------------------------------------------------------------
    def view_for(self, member: Member | None) -> dict[str, Any]:
        view = super().view_for(member)
        account = member.account if member is not None else None
        view["backers"] = [
            {
                "box": box,
                "place": place,
                "player": self._name(acc),
                "wagers": dict(self.back_layout.get((box, place), {})),
            }
            for (box, place), acc in sorted(self.backing.items())
        ]
        view["my_backing"] = [
            {"box": box, "place": place}
            for (box, place), acc in sorted(self.backing.items())
            if acc == account
        ]
        shoe = self.shoe
        view["shoe"] = {
            "decks": self.options["decks"],
            "remaining": shoe.remaining() if shoe is not None else None,
            "reshuffles": shoe.reshuffles if shoe is not None else 0,
        }
        return view

    # -- backers: joining a box ------------------------------------------------------------
    def on_wager(self, cmd: TableCommand[wire.Wager]) -> None:
        if not cmd.message.behind:
            super().on_wager(cmd)
            return
        player = self._player(cmd, "wager")
        if player is None:
            return
        m = cmd.message
        if self.refuse_after_close(cmd.conn, "wager"):
            return
        if not 1 <= m.box <= self.num_boxes:
            self.error(cmd.conn, errors.BAD_BOX, f"boxes are 1 to {self.num_boxes}", "wager")
            return
        owner = self.owners.get(m.box)
        if owner is None or owner == player.account:
            why = "back a box another player holds" if owner is None else "this box is yours"
            self.error(cmd.conn, errors.WAGER_REFUSED, why, "wager", "no_box_to_back")
            return
        at = self._place_for(player.account, m.box)
        if at is None:
            self.error(
                cmd.conn,
                errors.WAGER_REFUSED,
                f"box {m.box} has 3 players (BJ s29(1))",
                "wager",
                "too_many_players",
            )
            return
        old = self.back_layout.get(at, {})
        new = with_wager(old, m.wager, m.amount)
        if new:
            try:
                self.bj_cls.check_other_wagers(self.options, m.box, at[1], new)
                self.bj_cls.check_side_wagers(self.options, m.box, at[1], new)
            except IllegalAction as exc:
                self.error(
                    cmd.conn, errors.WAGER_REFUSED, exc.message, "wager", exc.code, exc.amounts
                )
                return
        delta = self._layout_money(new) - self._layout_money(old)
        try:
            balance = self.books.wager(player.account, m.box, delta, at[1])
        except InsufficientFunds as exc:
            self.error(
                cmd.conn, errors.INSUFFICIENT_FUNDS, str(exc), "wager", amounts=exc.amounts()
            )
            return
        if new:
            self.back_layout[at] = new
            self.backing[at] = player.account
        else:
            self.back_layout.pop(at, None)
            self.backing.pop(at, None)
        cmd.conn.send(Balance(balance))
        self.broadcast(
            {
                "type": "wager_placed",
                "round": self.round_no,
                "box": m.box,
                "place": at[1],
                "wager": m.wager,
                "amount": m.amount,
                "name": player.name,
                "box_wagers": dict(new),
            }
        )

    def _place_for(self, account: str, box: int) -> Place | None:
        for (b, place), acc in self.backing.items():
            if b == box and acc == account:
                return (b, place)
        taken = {place for (b, place) in self.backing if b == box}
        free = [p for p in PLACES if p not in taken]
        return (box, free[0]) if free else None

    def _layout_money(self, wagers: Mapping[str, int]) -> int:
        """SW s6(1),(2): the main wager stands on each of the box's two areas."""
        return sum(wagers.values()) + wagers.get("main", 0) * (self.bj_cls.variant.areas - 1)

    def open_betting(self, now: float) -> None:
        self.backing = {}
        self.back_layout = {}
        super().open_betting(now)

    def close_betting(self) -> None:
        """No more bets: a backer of a box with no wager has his wagers back."""
        for at in sorted(self.back_layout):
            if at[0] not in self.layout:
                self._return_backer(at, "the box has no wager")
        super().close_betting()

    def _return_backer(self, at: Place, reason: str) -> None:
        account = self.backing.pop(at)
        amount = self._layout_money(self.back_layout.pop(at))
        self.send_to(account, Balance(self.books.return_wager(account, at[0], amount, at[1])))
        self.broadcast(
            {
                "type": "backer_returned",
                "round": self.round_no,
                "box": at[0],
                "place": at[1],
                "amount": amount,
                "reason": reason,
            }
        )

    def _return_layout(self, reason: str) -> None:
        for at in sorted(self.back_layout):
            self._return_backer(at, reason)
        super()._return_layout(reason)

    def in_round(self, member: Member) -> bool:
        if super().in_round(member):
            return True
        return self.phases.in_round and member.account in self.backing.values()

    def release(self, member: Member) -> int:
        returned = super().release(member)
        for at, acc in sorted(self.backing.items()):
            if acc == member.account and self.phase is Phase.BETTING:
                amount = self._layout_money(self.back_layout.pop(at, {}))
                self.books.return_wager(acc, at[0], amount, at[1])
                del self.backing[at]
                returned += amount
        return returned

    def where_money_is(self) -> dict[str, int]:
        out = super().where_money_is()
        phase = self.phase
        engine = self.engine
        for at in self.backing:
            if phase is Phase.BETTING or phase is Phase.NO_MORE_BETS:
                amount = self._layout_money(self.back_layout.get(at, {}))
            elif phase is Phase.DECIDING and isinstance(engine, BlackjackRound):
                amount = sum(engine.stakes_of(at[0], at[1]).values())
            else:
                amount = 0
            if amount:
                out[books.box(*at)] = amount
        return out

    # -- the round -----------------------------------------------------------------------
    def _new_round(
        self, forced: Forced | None, jackpot: JackpotState | None, rng: RandomSource
    ) -> BankedRound:
        """The round on the frozen layout and its backers, dealt from the table's shoe (a
        forced shoe, dev mode, starts a fresh one)."""
        wagers: dict[int, dict[str, Any]] = {b: dict(ws) for b, ws in self.layout.items()}
        for (box, place), ws in sorted(self.back_layout.items()):
            wagers[box].setdefault("others", {})[place] = dict(ws)
        fresh = forced is not None and bool(forced.shoe)
        if not fresh and self.shoe is None:
            self._new_shoe()
        engine = self.bj_cls(
            self.options, wagers, rng, forced, jackpot, shoe=None if fresh else self.shoe
        )
        if fresh:  # a dev-forced shoe is shuffled by nobody: no secret to keep
            self.shoe, self.shoe_secret, self.shoe_id = engine.shoe, b"", ""
        self.shoe_at = engine.shoe.state()
        return engine

    # -- the shoe on the record (server/fair.py) ------------------------------------------
    def _new_shoe(self) -> None:
        """A new shoe, shuffled from a secret of its own. Its cards are dealt over many
        rounds, so no round's reveal may let anyone work out its order: each round's record
        carries the shoe's commitment and where the shoe stood, and the shoe's secret is
        revealed (``shoe_reveal``) only when the shoe is retired: after the round in which
        it was reshuffled (the cutting card came out, s19; the discards were shuffled,
        BJ s52). The next round gets a new shoe with a new secret."""
        self.shoes += 1
        self.shoe_id = f"{self.id}.{self.instance}.shoe{self.shoes}"
        self.shoe_secret = self.journal.new_secret()
        self.shoe = self.bj_cls.new_shoe(self.options, fair.SecretSource(self.shoe_secret))

    def round_record(self) -> dict[str, Any]:
        """The backers' wagers (BJ s29) and, for a shoe of the table's, the shoe."""
        backers = [
            {"box": box, "place": place, "account": account, "wagers": self.back_layout[key]}
            for key, account in sorted(self.backing.items())
            for box, place in [key]
            if self.back_layout.get(key)
        ]
        if not self.shoe_id:
            return {"backers": backers}
        return {
            "backers": backers,
            "shoe": {
                "id": self.shoe_id,
                "commitment": fair.commitment(self.shoe_id, self.shoe_secret),
                **self.shoe_at,
            },
        }

    def _settle(self, engine: BankedRound) -> None:
        super()._settle(engine)
        shoe = self.shoe
        if shoe is not None and shoe.reshuffles != self.shoe_at.get("reshuffles"):
            if self.shoe_id:
                self.journal.note(
                    "shoe_reveal", {"id": self.shoe_id, "secret": self.shoe_secret.hex()}
                )
            self.shoe, self.shoe_secret, self.shoe_id = None, b"", ""

    def _promptable(self, engine: BankedRound) -> list[Decision]:
        """The open offers; the hand to act once no offer is open (module docstring, 2)."""
        assert isinstance(engine, BlackjackRound)
        pending = engine.pending()
        acting = engine.acting is not None and not engine.complete
        offers = pending[1:] if acting else pending
        self.owed_by = {
            (d.box, d.street): o.player for d, o in zip(offers, engine.offers, strict=True)
        }
        self.acting_key = None
        if offers or not acting:
            return offers
        self.acting_key = (pending[0].box, pending[0].street)
        self.owed_by[self.acting_key] = None
        return pending[:1]

    def _decided(self, made: DecisionMade) -> tuple[int, str]:
        """An other player's answer is labelled ``"verb P2"`` on the offer's kind; his
        offer's street is ``"kind P2"``."""
        _, _, place = made.verb.partition(" ")
        return (made.box, f"{made.street} {place}" if place else made.street)

    def _decider(self, decision: Decision) -> str | None:
        place = self.owed_by.get((decision.box, decision.street))
        if place is None:
            return self.round_owners.get(decision.box)
        return self.backing.get((decision.box, place))

    def _place_of(self, decision: Decision) -> str | None:
        return self.owed_by.get((decision.box, decision.street))

    def _held(self, engine: BankedRound, box: int, decision: Decision) -> int:
        assert isinstance(engine, BlackjackRound)
        return sum(engine.stakes_of(box, self._place_of(decision)).values())

    def _engine_decide(
        self, engine: BankedRound, decision: Decision, verb: str, amount: int | None
    ) -> list[Event]:
        """A backer's decision carries his place; an offer not answered in time (or that he
        cannot fund) is declined; a hand not played in time is played out by the engine."""
        assert isinstance(engine, BlackjackRound)
        key = (decision.box, decision.street)
        place = self.owed_by.get(key)
        if verb in ("timeout", "insufficient") and key != self.acting_key:
            events = engine.decline_offers(decision.box, place)
            self.journal.command("decline_offers", box=decision.box, player=place)
            return events
        if verb in ("timeout", "insufficient"):
            return super()._engine_decide(engine, decision, verb, amount)
        events = engine.decide(decision.box, verb, amount, {"player": place} if place else None)
        self.journal.command("decide", box=decision.box, verb=verb, amount=amount, player=place)
        return events

    def _places(
        self, engine: BankedRound
    ) -> list[tuple[int, str | None, str, dict[str, int], dict[str, int]]]:
        """The box's player, then each backer with his own stakes and nets."""
        assert isinstance(engine, BlackjackRound)
        out = super()._places(engine)
        for (box, place), account in sorted(self.backing.items()):
            if box in engine.box_play and place in engine.box_play[box].wagers:
                out.append(
                    (box, place, account, engine.stakes_of(box, place), engine.nets_of(box, place))
                )
        out.sort(key=lambda row: (row[0], row[1] or ""))
        return out

    handlers: ClassVar[Mapping[type, Handler]] = {
        **BankedTable.handlers,
        wire.Wager: on_wager,
    }
