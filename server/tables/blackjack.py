"""The blackjack table: a banked table whose boxes decide in turn, with backers and a shoe.

Seed 004, Schedules 2 (BJ), 9 (SP), 15 (SW) and 17 (CH); the round is the blackjack
engine's (``server/games/banked/blackjack``). Everything else (betting window, no more
bets, prompts on a clock, settlement, recall) is :class:`~server.tables.banked.BankedTable`'s;
blackjack passes it its own parts: :class:`ShoeDealing` (the shoe, 4-5 below),
:class:`BlackjackDeciders` (offers and one hand at a time, 2), and the game's spec declares
the backers' places (1, :mod:`server.tables.banked.backers`).

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
from typing import Any, ClassVar, cast

import trio

from server import fair
from server.cards import RandomSource
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
from server.store.model import StoreError
from server.tables.banked import events as ev
from server.tables.banked.dealing import Dealing
from server.tables.banked.deciders import Deciders
from server.tables.banked.table import BankedTable

log = logging.getLogger("croupier.tables.blackjack")

#: rounds read back at a start to find a shoe a stop left in play (its last rounds)
STALE_WINDOW = 50


class BlackjackTable(BankedTable):
    """A table of one blackjack-family game: the banked table with the blackjack parts
    (see the module docstring)."""

    fair_unit: ClassVar[str] = "shoe"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shoe = ShoeDealing(self)
        self.dealing = self.shoe
        self.deciders = BlackjackDeciders(self)

    @property
    def shoes(self) -> int:
        """Shoes shuffled at this table."""
        return self.shoe.shoes


def _bj(table: BankedTable) -> type[BlackjackRound]:
    cls = table.round_cls
    assert issubclass(cls, BlackjackRound)
    return cls


class ShoeDealing(Dealing):
    """The table's shoe, one deal over many rounds, on the record (module docstring, 4-5)."""

    deal_per_round = False

    def __init__(self, table: BankedTable) -> None:
        super().__init__(table)
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

    def view(self) -> dict[str, Any]:
        shoe = self.shoe
        return {
            "shoe": {
                "decks": self.table.options["decks"],
                "remaining": shoe.remaining() if shoe is not None else None,
                "reshuffles": shoe.reshuffles if shoe is not None else 0,
            }
        }

    def new_round(
        self,
        wagers: dict[int, dict[str, Any]],
        forced: Forced | None,
        jackpot: JackpotState | None,
        rng: RandomSource,
    ) -> BankedRound:
        """The round dealt from the table's shoe (a forced shoe, dev mode, starts a fresh
        one)."""
        fresh = forced is not None and bool(forced.shoe)
        if not fresh and self.shoe is None:
            self.new_shoe()
        if self.shoe is not None:
            self.shoe_at = self.shoe.state()
        t = self.table
        engine = _bj(t)(t.options, wagers, rng, forced, jackpot, shoe=None if fresh else self.shoe)
        if fresh:  # a dev-forced shoe: committed to nothing, never verifiable
            self.shoe, self.shoe_id, self.shoe_source, self.stacks = engine.shoe, "", None, []
            self.shoe_at = engine.shoe.state()
        return engine

    def source(self) -> RandomSource:
        """A round's cards come from the shoe: its own source serves only a dev-forced shoe
        (shuffled from a secret nobody committed to)."""
        return fair.SecretSource(self.table.journal.new_secret())

    # -- the shoe on the record (server/fair.py) ------------------------------------------
    def new_shoe(self) -> None:
        """A new shoe, one deal over many rounds: shuffled from the table's committed secret
        and the seeds of the players at the table (``seed`` is for the next shoe here). Its
        cards are dealt over many rounds, so its secret is never sent: each card is opened
        when dealt, against its stack's commitment (module docstring, 5)."""
        t = self.table
        self.shoes += 1
        self.shoe_id = f"{t.id}.{t.instance}.shoe{self.shoes}"
        secret, seeds, digest = t.journal.take(sorted(t.members))
        self.shoe_record = {
            "id": self.shoe_id,
            "secret": secret.hex(),
            "seeds": seeds,
            "server_hash": digest,
        }
        self.shoe_source = fair.SecretSource(fair.deal_key(secret, seeds))
        self.shoe = _bj(t).new_shoe(t.options, self.shoe_source)
        self.shoe.drawn = []
        self.stacks = []
        self.shoe_new = True

    def journal_opened(self) -> None:
        """The shoe on the record: its secret in the round that starts it, the shoes a stop
        left in play retired, the commitment of every stack the round may draw from (from
        the one it starts in), before its first card."""
        journal = self.table.journal
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
        self.commit_stacks(max([first, *(k for k, _ in drawn or ())]))

    def commit_stacks(self, upto: int) -> None:
        """Publish the commitment of the shoe's stacks up to ``upto`` not yet committed in
        this round (a stack's tree is built once, when it is first needed)."""
        source, t = self.shoe_source, self.table
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
            t.broadcast(t.journal.published(body), engine=True)  # recorded as ``commit``

    def opening(self, wires: list[dict[str, Any]]) -> None:
        """The cards the shoe dealt in this step, at the positions it dealt them from, for
        the step's card events to open (a new stack committed first)."""
        shoe, opener = self.shoe, self.table.journal.opener
        if shoe is None or not shoe.drawn or not isinstance(opener, fair.ShoeOpener):
            return
        drawn, shoe.drawn = shoe.drawn, []
        self.commit_stacks(max(k for k, _ in drawn))
        opener.pending.extend((self.stacks[k], pos) for k, pos in drawn)

    def opened(self) -> None:
        """Cards the shoe dealt that no event showed (a card found face up and discarded,
        BJ s49): opened to everyone all the same (every card is seen, s17(1))."""
        t = self.table
        opener = t.journal.opener
        if isinstance(opener, fair.ShoeOpener) and opener.pending:
            rest, opener.pending = opener.pending, []
            t.broadcast(
                ev.CardsOpened(round=t.round_id, open=[deal.opening(pos) for deal, pos in rest])
            )

    def record(self) -> dict[str, Any]:
        """For a shoe of the table's, where it stood."""
        if not self.shoe_id:
            return {}
        return {"shoe": {"id": self.shoe_id, **self.shoe_at}}

    def settled(self) -> None:
        """A shoe reshuffled in the round is retired (its last round)."""
        shoe = self.shoe
        if shoe is not None and shoe.reshuffles != self.shoe_at.get("reshuffles"):
            if self.shoe_id:  # its last round: every round of it can now be derived
                note = {"id": self.shoe_id, "reason": "reshuffled"}
                self.table.journal.note("shoe_retired", note)
            self.shoe, self.shoe_id, self.shoe_source, self.stacks = None, "", None, []

    async def start(self, nursery: trio.Nursery) -> None:
        """Before the first round: the shoe a stop left in play, read back from the record,
        to be retired in the next round (module docstring, 5)."""
        t = self.table
        query = JournalQuery(table=t.id, limit=STALE_WINDOW)
        try:
            if t.ledger.is_async:
                rounds = await cast(AsyncStore, t.ledger.store).journal_rounds(query)
            else:
                read = cast(SyncStore, t.ledger.store).journal_rounds
                rounds = await trio.to_thread.run_sync(read, query)
        except (StoreError, OSError):
            log.exception("table %s: cannot read the shoes left in play", t.id)
            return
        self.stale_shoes = unretired_shoes(rounds)


class BlackjackDeciders(Deciders):
    """Offers first, then the hand to act; a backer owes his own (module docstring, 2)."""

    def __init__(self, table: BankedTable) -> None:
        super().__init__(table)
        #: who owes each open decision: (box, street) -> place (None: the box's player)
        self.owed_by: dict[tuple[int, str], str | None] = {}
        #: the hand to act, when it is prompted (no offer open)
        self.acting_key: tuple[int, str] | None = None

    def promptable(self, engine: BankedRound) -> list[Decision]:
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

    def decided(self, made: DecisionMade) -> tuple[int, str]:
        """An other player's answer is labelled ``"verb P2"`` on the offer's kind; his
        offer's street is ``"kind P2"``."""
        _, _, place = made.verb.partition(" ")
        return (made.box, f"{made.street} {place}" if place else made.street)

    def decider(self, decision: Decision) -> str | None:
        place = self.owed_by.get((decision.box, decision.street))
        if place is None:
            return self.table.round_owners.get(decision.box)
        return self.table.backers.backing.get((decision.box, place))

    def place_of(self, decision: Decision) -> str | None:
        return self.owed_by.get((decision.box, decision.street))

    def held(self, engine: BankedRound, box: int, decision: Decision) -> int:
        assert isinstance(engine, BlackjackRound)
        return sum(engine.stakes_of(box, self.place_of(decision)).values())

    def decide(
        self, engine: BankedRound, decision: Decision, verb: str, amount: Argument
    ) -> list[Event]:
        """A backer's decision carries his place; an offer not answered in time (or that he
        cannot fund) is declined; a hand not played in time is played out by the engine."""
        assert isinstance(engine, BlackjackRound)
        journal = self.table.journal
        key = (decision.box, decision.street)
        place = self.owed_by.get(key)
        if verb in ("timeout", "insufficient") and key != self.acting_key:
            events = engine.decline_offers(decision.box, place)
            journal.command("decline_offers", box=decision.box, player=place)
            return events
        if verb in ("timeout", "insufficient"):
            return super().decide(engine, decision, verb, amount)
        events = engine.decide(decision.box, verb, amount, {"player": place} if place else None)
        journal.command("decide", box=decision.box, verb=verb, amount=amount, player=place)
        return events


def unretired_shoes(rounds: list[JournalRound]) -> list[str]:
    """The shoes of ``rounds`` (a table's last ones) that no record retires: the shoe a stop
    left in play (every older shoe was retired in or after its last round, in the window)."""
    used = [str(r.start["shoe"]["id"]) for r in rounds if (r.start.get("shoe") or {}).get("id")]
    retired = {str(b["id"]) for r in rounds for b in r.of("shoe_retired")}
    return sorted({s for s in used if s not in retired})
