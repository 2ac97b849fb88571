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
5. **The shoe on the record** (``server/fair.py``): a shoe is one deal, keyed by the
   table's committed secret and the seeds of the players at the table when it is
   shuffled. Its secret and seeds go on the operator's record in the round that starts it
   (``shoe``), so that no stop can lose them. Each of its stacks (the first shuffle, then
   a reshuffle or the discards shuffled, s52) is committed (``commitment``, ``stack``)
   before its first card, and again at the start of every round dealt from it; every card
   the shoe deals is opened to everyone as it is dealt (every card is face up, s17(1)),
   at the position the shoe reports. A shoe that is reshuffled is retired
   (``shoe_retired``) in that round; a shoe a stop interrupted (graceful or not) is
   retired in the first round after the next start, so every round of every shoe can be
   derived from its secret by a regulator once its shoe is retired.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar, cast

import trio

from protocol import errors
from protocol import messages as wire
from protocol.messages import Balance
from server import fair
from server.cards import RandomSource
from server.errors import IllegalAction
from server.games.banked.base import (
    Argument,
    BankedRound,
    Decision,
    DecisionMade,
    Event,
    Forced,
    JackpotState,
)
from server.games.banked.blackjack.engine import BlackjackRound
from server.games.banked.blackjack.shoe import BlackjackShoe
from server.store.journal import JournalQuery, JournalRound
from server.store.ledger import AsyncStore
from server.store.ledger import Store as SyncStore
from server.store.model import InsufficientFunds, StoreError
from server.tables import books
from server.tables.banked import BankedTable, with_wager
from server.tables.banked import events as ev
from server.tables.base import Handler, Member, TableCommand
from server.tables.phases import Phase

log = logging.getLogger("croupier.tables.blackjack")

#: rounds read back at a start to find a shoe a stop left in play (its last rounds)
STALE_WINDOW = 50

Place = tuple[int, str]  # (box, place id)


class BlackjackTable(BankedTable):
    """A table of one blackjack-family game (see the module docstring)."""

    fair_unit: ClassVar[str] = "shoe"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert issubclass(self.round_cls, BlackjackRound)
        self.bj_cls: type[BlackjackRound] = self.round_cls
        self.shoe: BlackjackShoe | None = None
        self.shoes = 0  # shoes shuffled at this table
        self.shoe_id = ""  # the shoe's id (empty: a dev-forced shoe, committed to nothing)
        #: the shoe's deal (server/fair.py): its record, source and each stack's tree
        self.shoe_record: dict[str, Any] = {}
        self.shoe_source: fair.SecretSource | None = None
        self.stacks: list[fair.Deal] = []
        self.shoe_new = False  # its ``shoe`` record goes in the round that starts it
        self.committed_stacks = 0  # stacks committed in the round in play
        self.stale_shoes: list[str] = []  # shoes a stop left in play, retired next round
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
            ev.WagerPlaced(
                round=self.round_no,
                box=m.box,
                place=at[1],
                wager=m.wager,
                amount=m.amount,
                name=player.name,
                box_wagers=dict(new),
            )
        )

    def _place_for(self, account: str, box: int) -> Place | None:
        for (b, place), acc in self.backing.items():
            if b == box and acc == account:
                return (b, place)
        taken = {place for (b, place) in self.backing if b == box}
        free = [p for p in self.spec.backer_places if p not in taken]
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
            ev.BackerReturned(
                round=self.round_no, box=at[0], place=at[1], amount=amount, reason=reason
            )
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
        if self.shoe is not None:
            self.shoe_at = self.shoe.state()
        engine = self.bj_cls(
            self.options, wagers, rng, forced, jackpot, shoe=None if fresh else self.shoe
        )
        # who plays each place, across the boxes (the super bonus pays persons, SP s8(3)(c))
        engine.persons = {(box, None): owner for box, owner in self.round_owners.items()}
        engine.persons.update({key: acc for key, acc in self.backing.items()})
        if fresh:  # a dev-forced shoe: committed to nothing, never verifiable
            self.shoe, self.shoe_id, self.shoe_source, self.stacks = engine.shoe, "", None, []
            self.shoe_at = engine.shoe.state()
        return engine

    def round_source(self) -> RandomSource:
        """A round's cards come from the shoe: its own source serves only a dev-forced shoe
        (shuffled from a secret nobody committed to)."""
        return fair.SecretSource(self.journal.new_secret())

    # -- the shoe on the record (server/fair.py) ------------------------------------------
    def _new_shoe(self) -> None:
        """A new shoe, one deal over many rounds: shuffled from the table's committed secret
        and the seeds of the players at the table (``seed`` is for the next shoe here). Its
        cards are dealt over many rounds, so its secret is never sent: each card is opened
        when dealt, against its stack's commitment (module docstring, 5)."""
        self.shoes += 1
        self.shoe_id = f"{self.id}.{self.instance}.shoe{self.shoes}"
        secret, seeds, digest = self.journal.take(sorted(self.members))
        self.shoe_record = {
            "id": self.shoe_id,
            "secret": secret.hex(),
            "seeds": seeds,
            "server_hash": digest,
        }
        self.shoe_source = fair.SecretSource(fair.deal_key(secret, seeds))
        self.shoe = self.bj_cls.new_shoe(self.options, self.shoe_source)
        self.shoe.drawn = []
        self.stacks = []
        self.shoe_new = True

    def open_journal(
        self, ref: str, start: dict[str, Any], items: list[str] | None = None, deal: bool = True
    ) -> None:
        """The round on the record, then the shoe: its secret in the round that starts it,
        the shoes a stop left in play retired, the commitment of every stack the round may
        draw from (from the one it starts in), before its first card."""
        super().open_journal(ref, start, deal=False)
        journal = self.journal
        for stale in self.stale_shoes:
            journal.note("shoe_retired", {"id": stale, "reason": "stopped"})
        self.stale_shoes = []
        if not self.shoe_id or self.shoe_source is None:
            return
        if self.shoe_new:
            journal.note("shoe", self.shoe_record)
            self.shoe_new = False
        first = int(self.shoe_at["reshuffles"])
        self.committed_stacks = first
        journal.opener = fair.ShoeOpener()
        drawn = self.shoe.drawn if self.shoe is not None else None
        self._commit_stacks(max([first, *(k for k, _ in drawn or ())]))

    def _commit_stacks(self, upto: int) -> None:
        """Publish the commitment of the shoe's stacks up to ``upto`` not yet committed in
        this round (a stack's tree is built once, when it is first needed)."""
        source = self.shoe_source
        assert source is not None
        secret = bytes.fromhex(self.shoe_record["secret"])
        while len(self.stacks) <= upto and len(self.stacks) < len(source.stacks):
            k = len(self.stacks)
            self.stacks.append(fair.Deal(secret, source.stacks[k], k))
        record, at = self.shoe_record, self.shoe_at
        while self.committed_stacks <= upto and self.committed_stacks < len(self.stacks):
            k = self.committed_stacks
            self.committed_stacks += 1
            # where the round starts in it: the shoe's position in the stack it stood in
            position = int(at["position"]) if k == at.get("reshuffles") else 0
            body = fair.commitment_body(
                self.stacks[k],
                record["server_hash"],
                record["seeds"],
                shoe=self.shoe_id,
                stack=k,
                position=position,
            )
            self.broadcast(self.journal.published(body), engine=True)  # recorded as ``commit``

    def opening(self, wires: list[dict[str, Any]]) -> None:
        """The cards the shoe dealt in this step, at the positions it dealt them from, for
        the step's card events to open (a new stack committed first)."""
        shoe, opener = self.shoe, self.journal.opener
        if shoe is None or not shoe.drawn or not isinstance(opener, fair.ShoeOpener):
            return
        drawn, shoe.drawn = shoe.drawn, []
        self._commit_stacks(max(k for k, _ in drawn))
        opener.pending.extend((self.stacks[k], pos) for k, pos in drawn)

    def opened(self) -> None:
        """Cards the shoe dealt that no event showed (a card found face up and discarded,
        BJ s49): opened to everyone all the same (every card is seen, s17(1))."""
        opener = self.journal.opener
        if isinstance(opener, fair.ShoeOpener) and opener.pending:
            rest, opener.pending = opener.pending, []
            self.broadcast(
                ev.CardsOpened(round=self.round_id, open=[deal.opening(pos) for deal, pos in rest])
            )

    def round_record(self) -> dict[str, Any]:
        """The backers' wagers (BJ s29) and, for a shoe of the table's, where it stood."""
        backers = [
            {"box": box, "place": place, "account": account, "wagers": self.back_layout[key]}
            for key, account in sorted(self.backing.items())
            for box, place in [key]
            if self.back_layout.get(key)
        ]
        if not self.shoe_id:
            return {"backers": backers}
        return {"backers": backers, "shoe": {"id": self.shoe_id, **self.shoe_at}}

    def _settle(self, engine: BankedRound) -> None:
        super()._settle(engine)
        shoe = self.shoe
        if shoe is not None and shoe.reshuffles != self.shoe_at.get("reshuffles"):
            if self.shoe_id:  # its last round: every round of it can now be derived
                self.journal.note("shoe_retired", {"id": self.shoe_id, "reason": "reshuffled"})
            self.shoe, self.shoe_id, self.shoe_source, self.stacks = None, "", None, []

    async def start_services(self, nursery: trio.Nursery) -> None:
        """Before the first round: the shoe a stop left in play, read back from the record,
        to be retired in the next round (module docstring, 5)."""
        await super().start_services(nursery)
        query = JournalQuery(table=self.id, limit=STALE_WINDOW)
        try:
            if self.ledger.is_async:
                rounds = await cast(AsyncStore, self.ledger.store).journal_rounds(query)
            else:
                read = cast(SyncStore, self.ledger.store).journal_rounds
                rounds = await trio.to_thread.run_sync(read, query)
        except (StoreError, OSError):
            log.exception("table %s: cannot read the shoes left in play", self.id)
            return
        self.stale_shoes = unretired_shoes(rounds)

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
        self, engine: BankedRound, decision: Decision, verb: str, amount: Argument
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


def unretired_shoes(rounds: list[JournalRound]) -> list[str]:
    """The shoes of ``rounds`` (a table's last ones) that no record retires: the shoe a stop
    left in play (every older shoe was retired in or after its last round, in the window)."""
    used = [str(r.start["shoe"]["id"]) for r in rounds if (r.start.get("shoe") or {}).get("id")]
    retired = {str(b["id"]) for r in rounds for b in r.of("shoe_retired")}
    return sorted({s for s in used if s not in retired})
