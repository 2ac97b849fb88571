"""The journal: every round of every game on the record, append-only, in the ledger's store.

Theory of operation
-------------------
A table owns one :class:`Journal` (``server/tables/base.py``). The journal holds the secret
of the table's *next* deal and the players' seeds for it (``server/fair.py``: its hash is
published before any seed is taken). When a round starts the table asks it for the round's
random source (:meth:`Journal.begin`: the secret with the seeds of the players in the
round), builds its engine with it, and opens the round (:meth:`Journal.open`) with
everything needed to rebuild it: the table's config and rule set, the seats or boxes with
their stakes and owners, anything forced. Before the first card it commits the deal
(:meth:`Journal.commit`: the Merkle root published as ``commitment``). While the round runs
the table records every engine command with its time (:meth:`Journal.command`) and every
engine event with its visibility and the openings of the cards it shows
(:meth:`Journal.events`); at the end the settlement (:meth:`Journal.settlement`). The base
closes the journal's round in the step the books close it: the outcomes still unopened (a
die, a wheel) are opened to everyone, and the secret and the deal's items are recorded for
the operator (never sent).

Each record is a :class:`JournalEntry` ``(round, seq, table, kind, at, body)``; kinds:

===============  ===========================================================================
``start``        ``table kind game options seats|boxes ...``: the round as dealt
``commit``       a deal's commitment: ``scheme root size server_hash seeds`` (a blackjack
                 shoe's stack: ``shoe stack position`` too), as published
``command``      ``op`` (``act``, ``decide``, ``timeout``, ``insufficient``, ``void``, ``wager``)
                 and its arguments, with the wall-clock time ``at``
``event``        one engine event as on the wire, ``visible_to`` and ``open`` included
``table_event``  one of the table's own events while the round is open (``timed_out``,
                 ``decision``, ``round_result``, ``opened``...), with ``visible_to``
``settlement``   what the round paid (stacks after, commission; or each box's wagers)
``shoe``         a blackjack shoe's secret and seeds, from the round that starts it
``shoe_retired`` a blackjack shoe dealt its last round (``reason``: reshuffled, stopped)
``secret``       the round's secret, seeds and items (the operator's record only)
``end``          ``state``: ``settled`` or ``voided``
===============  ===========================================================================

Records ride in the ledger's batches (:meth:`~server.store.ledger.Ledger.journal`), so a
round's journal and its money are committed by the same group commit, in order. A record of
a step that moved no money (an action) waits for the next movement, or
:data:`~server.store.ledger.JOURNAL_DELAY` s at most: a settled round's record is always
whole, and a crash can lose only the last moments of a round that is voided anyway. A store
keeps them append-only (``INSERT OR IGNORE`` on ``(round, seq)``: a retried commit adds
nothing, nothing is ever updated or deleted). A round a crash interrupted has a ``start``
and no ``end``: the ledger's recovery voided it, and recall shows it as voided.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from server import fair
from server.cards import RandomSource
from server.games.visibility import EVERYONE, Visibility, may_see

if TYPE_CHECKING:
    from server.games.events import Event


class JournalEntry(msgspec.Struct, frozen=True):
    """One append-only record of a round (see the module docstring). A Struct: several are
    made per action, and a Struct's constructor is C (a frozen dataclass's is Python)."""

    round: str
    seq: int
    table: str
    kind: str
    at: float
    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "at": self.at, "body": self.body}


@dataclass
class JournalRound:
    """A round read back from a store: its records in order, and its ledger state."""

    ref: str
    table: str
    state: str  # open (in play, or interrupted), settled, voided
    entries: list[JournalEntry] = field(default_factory=list)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e.body for e in self.entries if e.kind == kind]

    @property
    def start(self) -> dict[str, Any]:
        found = self.of("start")
        return found[0] if found else {}

    @property
    def at(self) -> float:
        return self.entries[0].at if self.entries else 0.0

    @property
    def final_state(self) -> str:
        """``settled`` or ``voided``; a round with no ``end`` record was interrupted and
        voided by the ledger's crash recovery (or is still in play: ``open``)."""
        ends = self.of("end")
        if ends:
            return str(ends[-1]["state"])
        return "voided" if self.state == "voided" else self.state

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.ref,
            "table": self.table,
            "state": self.final_state,
            "entries": [e.to_json() for e in self.entries],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JournalRound:
        ref, table = str(data["round"]), str(data["table"])
        entries = [
            JournalEntry(ref, int(e["seq"]), table, str(e["kind"]), float(e["at"]), e["body"])
            for e in data["entries"]
        ]
        return cls(ref, table, str(data.get("state", "open")), entries)


@dataclass(frozen=True)
class JournalQuery:
    """Which rounds to read: a table, rounds an account played, since a time; newest
    ``limit`` (oldest first in the answer)."""

    table: str | None = None
    account: str | None = None
    since: float | None = None
    limit: int | None = None
    game: Sequence[str] | None = None


def players_of(start: dict[str, Any]) -> list[str]:
    """The accounts that played a round (its seats' or boxes' owners)."""
    places = [*start.get("seats", {}).values(), *start.get("boxes", {}).values()]
    return sorted({str(s["account"]) for s in [*places, *start.get("backers", ())]})


class Sink(Protocol):
    def journal(self, entry: JournalEntry) -> None: ...


class Journal:
    """A table's recorder and the keeper of its next deal's secret (module docstring)."""

    def __init__(self, table: str, sink: Sink, seeded: RandomSource | None = None) -> None:
        self.table = table
        self._sink = sink
        self._seeded = seeded
        self.round: str | None = None
        self._seq = 0
        #: the last round that ended: its id, state and result (:func:`result_of`; the
        #: staff console's floor)
        self.last: dict[str, Any] | None = None
        self._settled: dict[str, Any] = {}
        #: the next deal's secret (its hash is public) and the seeds given for it, by account
        self._next = self.new_secret()
        self._seeds: dict[str, str] = {}
        #: a deal took the secret: the table publishes the next one's hash
        self.announce = False
        self._secret = b""
        self._used: list[str] = []
        self._hash = ""
        self.source: fair.SecretSource | None = None
        self.deal: fair.Deal | None = None
        #: maps the cards of the round's events to the deal's positions (server/fair.py)
        self.opener: fair.Opener | None = None

    # -- the next deal: its committed secret and the players' seeds -------------------------
    @property
    def server_hash(self) -> str:
        """The hash of the next deal's secret, published before any seed is taken."""
        return fair.server_hash(self._next)

    def seed(self, account: str, seed: str) -> str:
        """A player's seed for the next deal (a later one replaces it); the hash it joins."""
        self._seeds[account] = seed
        return self.server_hash

    def seed_of(self, account: str) -> str | None:
        return self._seeds.get(account)

    def take(self, accounts: Iterable[str]) -> tuple[bytes, list[str], str]:
        """A deal takes the published secret, the seeds of ``accounts`` (sorted) and the
        hash; a new secret is drawn for the next deal (:attr:`announce`)."""
        secret, secret_hash = self._next, self.server_hash
        seeds = sorted({self._seeds[a] for a in accounts if a in self._seeds})
        self._next, self._seeds = self.new_secret(), {}
        self.announce = True
        return secret, seeds, secret_hash

    def begin(self, accounts: Iterable[str] = ()) -> fair.SecretSource:
        """The round's deal: the secret and the seeds of the players in it, and the random
        source keyed by them (before the engine is built)."""
        self._secret, self._used, self._hash = self.take(accounts)
        self.source = fair.SecretSource(fair.deal_key(self._secret, self._used))
        self.deal = self.opener = None
        return self.source

    def new_secret(self) -> bytes:
        """A secret for a deal (a round's, or a blackjack shoe's)."""
        return fair.new_secret(self._seeded)

    def note(self, kind: str, body: dict[str, Any]) -> None:
        """Another entry of the round in play (``shoe``, ``shoe_retired``)."""
        if self.round is not None:
            self._add(kind, body)

    def _add(self, kind: str, body: dict[str, Any], at: float | None = None) -> None:
        assert self.round is not None
        self._seq += 1
        when = time.time() if at is None else at
        self._sink.journal(JournalEntry(self.round, self._seq, self.table, kind, when, body))

    def open(self, ref: str, start: dict[str, Any]) -> None:
        """Record the round's start."""
        self.round, self._seq = ref, 0
        self._add("start", {**start, "table": self.table})

    def commit(self, items: Sequence[str] | None = None) -> dict[str, Any]:
        """Commit the round's deal (its items: the source's, unless given) before any card
        is shown; the ``commitment`` event to publish."""
        assert self.source is not None, "begin() first"
        items = self.source.deal_items() if items is None else items
        self.deal = fair.Deal(self._secret, items)
        self.opener = fair.DeckOpener(self.deal)
        return self.published(fair.commitment_body(self.deal, self._hash, self._used))

    def published(self, body: dict[str, Any]) -> dict[str, Any]:
        """Record a commitment (``commit``); the ``commitment`` event to publish."""
        assert self.round is not None
        self._add("commit", body)
        return {"type": "commitment", "round": self.round, **body}

    def command(self, op: str, at: float | None = None, **args: Any) -> None:
        """An engine command (or a banked table's wager, made before the deal, at ``at``)."""
        if self.round is not None:
            self._add("command", {"op": op, **args}, at)

    def events(
        self, events: Iterable[Event], wires: Iterable[dict[str, Any]] | None = None
    ) -> None:
        """Engine events as on the wire (``wires``: their wire forms, when the caller built
        them already; the same dicts are then sent). The openings of the cards an event
        shows go on it first (``open``), so they reach the event's audience only."""
        if self.round is not None:
            opener = self.opener
            for wire in wires if wires is not None else (ev.to_wire() for ev in events):
                if opener is not None and "cards" in wire:
                    opener.attach(wire)
                self._add("event", wire)

    def table_event(self, event: dict[str, Any], visible_to: Visibility | None) -> None:
        """A table's own event in the round (a turn timed out, a wager placed, the result)."""
        if self.round is not None:
            self._add("table_event", {**event, "visible_to": visible_to})

    def settlement(self, body: dict[str, Any]) -> None:
        if self.round is not None:
            self._settled = body
            self._add("settlement", body)

    def close(self, state: str) -> list[dict[str, Any]]:
        """End the round: the outcomes not yet opened (a die, a wheel: public once thrown)
        to everyone, the secret and the items on the record, the end. The events to
        publish."""
        if self.round is None:
            return []
        out: list[dict[str, Any]] = []
        deal, source = self.deal, self.source
        if deal is not None and source is not None:
            outcomes = [p for p in source.outcomes if p < deal.size]
            if outcomes and state == "settled":
                opened = {
                    "type": "opened",
                    "round": self.round,
                    "open": [deal.opening(p) for p in outcomes],
                }
                self.table_event(opened, EVERYONE)
                out.append(opened)
            self._add(
                "secret",
                {"secret": self._secret.hex(), "seeds": self._used, "items": deal.items},
            )
        self._add("end", {"state": state})
        self.last = {"round": self.round, "state": state, "at": time.time()}
        self.last.update(result_of(self._settled))
        self._settled = {}
        self.round, self.source, self.deal, self.opener = None, None, None, None
        self._secret, self._used = b"", []
        return out


def result_of(settlement: dict[str, Any]) -> dict[str, Any]:
    """A round's result in brief, from its settlement record, whatever the game: the outcome
    (a stadium's), the dealer's hand (a banked game's), what was wagered and paid back (boxes)
    or each seat's net (a pot)."""
    out: dict[str, Any] = {}
    if settlement.get("outcome") is not None:
        out["outcome"] = settlement["outcome"]
    if settlement.get("dealer") is not None:
        out["dealer"] = settlement["dealer"]
    boxes = settlement.get("boxes")
    if isinstance(boxes, dict) and boxes:
        out["bet"] = sum(int(b.get("bet", 0)) for b in boxes.values())
        out["paid"] = sum(int(b.get("paid", 0)) for b in boxes.values())
    before, after = settlement.get("before"), settlement.get("after")
    if isinstance(before, dict) and isinstance(after, dict):
        out["net"] = {s: int(after.get(s, 0)) - int(v) for s, v in before.items()}
    return out


_json = msgspec.json.Encoder()


def record_text(body: object) -> str:
    """A record's body (or a list of records) as compact JSON text, as a store keeps it
    (what ``json.dumps`` with ``separators=(",", ":")`` writes, except that text outside
    ASCII is not escaped; about ten times as fast, and it runs on the ledger's commit path)."""
    return _json.encode(body).decode()


def visible_events(rnd: JournalRound, viewer: int | None, boxes: set[int]) -> list[dict[str, Any]]:
    """The round's events a player saw, in order: ``viewer`` is its poker seat, ``boxes`` its
    banked boxes (``server/games/visibility.py``); the deal's commitments (``commitment``,
    public) and the table's events that open cards (``opened``) among them."""
    out = []
    for e in rnd.entries:
        body = e.body
        if e.kind == "commit":
            out.append({"type": "commitment", "round": rnd.ref, **body, "visible_to": EVERYONE})
            continue
        if e.kind != "event" and not (e.kind == "table_event" and "open" in body):
            continue
        vis: Visibility | None = body.get("visible_to", EVERYONE)
        if may_see(vis, viewer) or (type(vis) is int and vis in boxes):
            out.append(body)
    return out


def public_terms(start: dict[str, Any]) -> dict[str, Any]:
    """A round's start record as the table showed it: every field but the accounts (seats
    and boxes keep their names, stakes and wagers)."""
    out = {k: v for k, v in start.items() if k not in ("seats", "boxes", "backers", "table")}
    for key in ("seats", "boxes"):
        if key in start:
            out[key] = {
                n: {k: v for k, v in place.items() if k != "account"}
                for n, place in start[key].items()
            }
    if "backers" in start:
        out["backers"] = [{k: v for k, v in b.items() if k != "account"} for b in start["backers"]]
    return out


#: rounds a player can recall per table (ETG game recall: the last ten)
RECALL_ROUNDS = 10


def recall(rnd: JournalRound, account: str) -> dict[str, Any]:
    """One round as ``account`` was allowed to see it: its own cards, the board, the hands
    shown, its wagers and results (GLI-19 game recall; ETG schedule "last rounds"), with the
    deal's commitments (``commitments``), the round's public terms (``terms``: the start
    record without accounts) and, on the events, the openings of the cards it was shown: what
    ``croupier verify --player`` checks. An interrupted round reads ``voided``."""
    start = rnd.start
    seat = next(
        (int(n) for n, s in start.get("seats", {}).items() if s["account"] == account), None
    )
    boxes = {int(b) for b, v in start.get("boxes", {}).items() if v["account"] == account}
    settled = rnd.of("settlement")
    out: dict[str, Any] = {
        "round": rnd.ref,
        "table": rnd.table,
        "game": start.get("game"),
        "at": int(rnd.at * 1000),
        "state": rnd.final_state,
        "commitments": rnd.of("commit"),
        "terms": public_terms(start),
        "events": visible_events(rnd, seat, boxes),
    }
    if seat is not None:
        before = int(start["seats"][str(seat)]["stake"])
        after = int(settled[-1]["after"].get(str(seat), 0)) if settled else before
        out.update(seat=seat, stake=before, stake_after=after, net=after - before)
    else:
        out["boxes"] = {str(b): start["boxes"][str(b)]["wagers"] for b in sorted(boxes)}
        if settled:
            results = settled[-1].get("boxes", {})
            out["results"] = {str(b): results[str(b)] for b in sorted(boxes) if str(b) in results}
            out["dealer"] = settled[-1].get("dealer")
            out["net"] = sum(r["paid"] - r["bet"] for r in out["results"].values())
        else:
            out["net"] = 0
    return out
