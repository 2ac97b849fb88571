"""The journal: every round of every game on the record, append-only, in the ledger's store.

Theory of operation
-------------------
A table owns one :class:`Journal` (``server/tables/base.py``). When a round starts the table
asks it for the round's random source (:meth:`Journal.begin`: a fresh secret,
``server/fair.py``), builds its engine with it, and opens the round
(:meth:`Journal.open`) with everything needed to rebuild it: the table's config and rule
set, the seats or boxes with their stakes and owners, anything forced. While the round runs
the table records every engine command with its time (:meth:`Journal.command`) and every
engine event with its visibility (:meth:`Journal.events`); at the end the settlement
(:meth:`Journal.settlement`). The base closes the journal's round in the step the books
close it: the reveal (secret and draws) and the round's final state are recorded then.

Each record is a :class:`JournalEntry` ``(round, seq, table, kind, at, body)``; kinds:

===============  ===========================================================================
``start``        ``table kind game options seats|boxes ... commitment``: the round as dealt
``command``      ``op`` (``act``, ``decide``, ``timeout``, ``insufficient``, ``void``, ``wager``)
                 and its arguments, with the wall-clock time ``at``
``event``        one engine event as on the wire, ``visible_to`` included
``table_event``  one of the table's own events while the round is open (``timed_out``,
                 ``decision``, ``round_result``...), with ``visible_to``
``settlement``   what the round paid (stacks after, commission; or each box's wagers)
``reveal``       the secret, the commitment, the draws (``server/fair.py``)
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
    """A table's recorder (see the module docstring)."""

    def __init__(self, table: str, sink: Sink, seeded: RandomSource | None = None) -> None:
        self.table = table
        self._sink = sink
        self._seeded = seeded
        self.round: str | None = None
        self._seq = 0
        self._secret = b""
        self.source: fair.SecretSource | None = None

    def begin(self) -> fair.SecretSource:
        """A fresh round secret and the round's random source (before the engine is built)."""
        self._secret = self.new_secret()
        self.source = fair.SecretSource(self._secret)
        return self.source

    def new_secret(self) -> bytes:
        """A secret for a round, or for something that outlives one (a blackjack shoe)."""
        return fair.new_secret(self._seeded)

    def note(self, kind: str, body: dict[str, Any]) -> None:
        """Another entry of the round in play (``shoe_reveal``: a retired shoe's secret)."""
        if self.round is not None:
            self._add(kind, body)

    def _add(self, kind: str, body: dict[str, Any], at: float | None = None) -> None:
        assert self.round is not None
        self._seq += 1
        when = time.time() if at is None else at
        self._sink.journal(JournalEntry(self.round, self._seq, self.table, kind, when, body))

    def open(self, ref: str, start: dict[str, Any]) -> dict[str, Any]:
        """Record the round's start; the ``commitment`` event to publish before any card."""
        assert self.source is not None, "begin() first"
        self.round, self._seq = ref, 0
        digest = fair.commitment(ref, self._secret)
        self._add("start", {**start, "table": self.table, "commitment": digest})
        return {"type": "commitment", "round": ref, "hash": digest}

    def command(self, op: str, at: float | None = None, **args: Any) -> None:
        """An engine command (or a banked table's wager, made before the deal, at ``at``)."""
        if self.round is not None:
            self._add("command", {"op": op, **args}, at)

    def events(
        self, events: Iterable[Event], wires: Iterable[dict[str, Any]] | None = None
    ) -> None:
        """Engine events as on the wire (``wires``: their wire forms, when the caller built
        them already; the same dicts are then sent, and never changed)."""
        if self.round is not None:
            for wire in wires if wires is not None else (ev.to_wire() for ev in events):
                self._add("event", wire)

    def table_event(self, event: dict[str, Any], visible_to: Visibility | None) -> None:
        """A table's own event in the round (a turn timed out, a wager placed, the result)."""
        if self.round is not None:
            self._add("table_event", {**event, "visible_to": visible_to})

    def settlement(self, body: dict[str, Any]) -> None:
        if self.round is not None:
            self._add("settlement", body)

    def close(self, state: str) -> dict[str, Any] | None:
        """Record the reveal and the end; the ``reveal`` event to publish (None: no round)."""
        if self.round is None or self.source is None:
            return None
        body = fair.reveal(self.round, self._secret, self.source)
        self._add("reveal", body)
        self._add("end", {"state": state})
        self.round, self.source, self._secret = None, None, b""
        return {"type": "reveal", **body, "state": state}


_json = msgspec.json.Encoder()


def record_text(body: object) -> str:
    """A record's body (or a list of records) as compact JSON text, as a store keeps it
    (what ``json.dumps`` with ``separators=(",", ":")`` writes, except that text outside
    ASCII is not escaped; about ten times as fast, and it runs on the ledger's commit path)."""
    return _json.encode(body).decode()


def visible_events(rnd: JournalRound, viewer: int | None, boxes: set[int]) -> list[dict[str, Any]]:
    """The round's events a player saw: ``viewer`` is its poker seat, ``boxes`` its banked
    boxes (``server/games/visibility.py``)."""
    out = []
    for body in rnd.of("event"):
        vis: Visibility | None = body.get("visible_to", EVERYONE)
        if may_see(vis, viewer) or (type(vis) is int and vis in boxes):
            out.append(body)
    return out


#: rounds a player can recall per table (ETG game recall: the last ten)
RECALL_ROUNDS = 10


def recall(rnd: JournalRound, account: str) -> dict[str, Any]:
    """One round as ``account`` was allowed to see it: its own cards, the board, the hands
    shown, its wagers and results (GLI-19 game recall; ETG schedule "last rounds"). The
    reveal is public once the round has ended; an interrupted round reads ``voided``."""
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
        "commitment": start.get("commitment"),
        "reveal": next(iter(rnd.of("reveal")), None),
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
