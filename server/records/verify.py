"""``croupier verify``: a round's record against its commitment, its deal and its rules.

Theory of operation
-------------------
Two records can be checked, each for what it holds (the scheme: ``server/fair.py``).

**The operator's record** (``croupier history export --format journal``: every record of
every round). :func:`verify_round` checks

1. the order of the records: numbered 1, 2, 3... with no gap (a record deleted) and in that
   order (records reordered), times never going back, ``start`` first, ``end`` last;
2. every opening on every event against the commitment it opens against, published
   before it (a commitment moved after the cards fails), and that it opens a card the
   event shows;
3. the derivation of the whole deal: the secret hashes to the server hash published
   before the seeds; the key comes from the secret and the published seeds; the items the
   engine deals from that key are the ones recorded, and their Merkle tree has the
   published root and size; replaying the recorded commands on that deal gives every
   event recorded, every card included (a changed card, action, winner or shown hand
   fails here);
4. the settlement recorded against the replay's: stacks, commission and fees (poker);
   each wager's stake and net, each box's bet and paid (banked, stadium).

A blackjack round is derived from its shoe (the ``shoe`` record of the round that starts it,
with the shoe's secret and seeds); while the shoe is not retired the round's openings are
checked and its derivation is *not yet verifiable* (deriving it would show the undealt
cards of a shoe in play).

**A player's record** (the rounds of a ``history`` reply, or the events it received, in
order). :func:`verify_seen` checks that a commitment came before the first card; that every
card it was shown carries an opening and every opening leads to the root committed before
it; that the player's own seed is among the seeds; and, at a poker table, replays the hand
on the cards it saw (its own, the board, the hands shown) from the public actions, with
cards it never saw for the hands nobody showed: a folded hand's cards change nothing, a
mucked hand's are drawn until they lose as it lost (an honest deal has such cards: the
real ones). Every event it saw and its stack after the round must come out as recorded.
It cannot check the derivation of the deal: that needs the secret, which would open every
folded hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server import fair
from server.cards import FIRST, SeededRandomSource, card
from server.errors import IllegalAction
from server.games.banked.base import BankedRound, InvalidRound
from server.games.banked.blackjack.engine import BlackjackRound
from server.games.poker import PokerRound
from server.games.replay import replay, replay_poker, table_shoe
from server.games.visibility import may_see
from server.store.journal import JournalRound

#: commands of a betting window, recorded at the deal with the times they were made
WINDOW_COMMANDS = frozenset({"wager", "place", "marker"})
#: substitute deals tried for the hands a player never saw (a mucked hand must lose again)
TRIES = 400


@dataclass
class Verdict:
    """What ``croupier verify`` found about one round: ``problems`` (empty: it verifies),
    or ``pending``: why it cannot be verified yet (a shoe in play, an interrupted round)."""

    ref: str
    problems: list[str] = field(default_factory=list)
    pending: str | None = None
    #: what was checked (printed with "verified")
    checked: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def _bare(event: Mapping[str, Any]) -> dict[str, Any]:
    """An event as the engine gave it: without the openings the table put on it."""
    return {k: v for k, v in event.items() if k != "open"}


# -- the operator's record ------------------------------------------------------------------
@dataclass
class Shoes:
    """The blackjack shoes of the rounds at hand: each shoe's record (secret, seeds) from
    the round that starts it, and the shoes retired."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    retired: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, rounds: Iterable[JournalRound]) -> Shoes:
        out = cls()
        for rnd in rounds:
            for body in rnd.of("shoe"):
                out.records[str(body["id"])] = body
            out.retired |= {str(b["id"]) for b in rnd.of("shoe_retired")}
        return out


def check_order(rnd: JournalRound) -> list[str]:
    """Records numbered 1, 2, 3... in order, times never going back (but the betting
    window's commands, recorded at the deal with their own times), start first, end last."""
    problems: list[str] = []
    prev, prev_at = 0, 0.0
    for e in rnd.entries:
        if e.seq <= prev:
            problems.append(f"record {e.seq} ({e.kind}) comes after record {prev}: reordered")
        elif e.seq != prev + 1:
            gap = f"{prev + 1}" if e.seq == prev + 2 else f"{prev + 1} to {e.seq - 1}"
            problems.append(f"record {gap} missing before record {e.seq} ({e.kind}): deleted")
        window = e.kind == "command" and e.body.get("op") in WINDOW_COMMANDS
        if e.at < prev_at and not window:
            problems.append(f"record {e.seq} ({e.kind}) is dated before the record before it")
        prev = max(prev, e.seq)
        prev_at = prev_at if window else max(prev_at, e.at)
    kinds = [e.kind for e in rnd.entries]
    if kinds and kinds[0] != "start":
        problems.append(f"the first record is {kinds[0]!r}, not the round's start")
    if "end" in kinds and kinds.index("end") != len(kinds) - 1:
        problems.append("records after the round's end")
    return problems


def _commit_key(body: Mapping[str, Any]) -> tuple[str, int] | None:
    return (str(body["shoe"]), int(body["stack"])) if "shoe" in body else None


def check_openings(rnd: JournalRound) -> list[str]:
    """Every opening against the commitment it names, published before it; every opening
    opens a card its event shows."""
    problems: list[str] = []
    published: dict[tuple[str, int] | None, tuple[str, int]] = {}
    shoe_id = str((rnd.start.get("shoe") or {}).get("id", ""))
    for e in rnd.entries:
        b = e.body
        if e.kind == "commit":
            published[_commit_key(b)] = (str(b["root"]), int(b["size"]))
            continue
        if e.kind not in ("event", "table_event"):
            continue
        opens = b.get("open") or []
        for o in opens:
            key = (shoe_id, int(o["stack"])) if "stack" in o else None
            if key not in published:
                problems.append(
                    f"record {e.seq} ({b.get('type')}): opens a card before the commitment "
                    "it opens against was published"
                )
                continue
            root, size = published[key]
            bad = fair.check_opening(o, root, size)
            if bad is not None:
                problems.append(f"record {e.seq} ({b.get('type')}): {bad}")
        if opens and b.get("cards") is not None:
            extra = Counter(str(o.get("v")) for o in opens) - Counter(map(str, b["cards"]))
            if extra:
                problems.append(
                    f"record {e.seq} ({b.get('type')}): opens {sorted(extra)}, which it does "
                    f"not show ({b['cards']})"
                )
    return problems


def _first_difference(replayed: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> str:
    at = next(
        (i for i, (a, b) in enumerate(zip(replayed, recorded, strict=False)) if a != b),
        min(len(replayed), len(recorded)),
    )
    deal = replayed[at] if at < len(replayed) else "nothing"
    got = recorded[at] if at < len(recorded) else "nothing"
    return f"event {at}: the deal and the commands give {deal}, the round recorded {got}"


def _poker_settlement(
    engine: PokerRound, start: Mapping[str, Any], body: Mapping[str, Any]
) -> list[str]:
    result = engine.result
    assert result is not None
    expected = {
        "before": {str(n): int(s["stake"]) for n, s in start["seats"].items()},
        "after": {str(n): v for n, v in result.stacks.items()},
        "commission": result.commission,
        "fees": result.fees,
        "voided": result.voided,
    }
    return [
        f"settlement: {key} {body.get(key)!r} where the rules give {want!r}"
        for key, want in expected.items()
        if body.get(key) != want
    ]


def _banked_settlement(engine: BankedRound, body: Mapping[str, Any]) -> list[str]:
    """Each place's wagers (stake, net), bet and paid against the engine's (a linked
    jackpot wager's net is the pool's: its stake only)."""
    problems: list[str] = []
    result = engine.result
    void = result.state == "void"
    boxes = body.get("boxes", {})
    for box, ws in sorted(engine.stakes.items()):
        rows: list[tuple[str | None, dict[str, int], dict[str, int]]] = [
            (None, dict(ws), result.boxes.get(box, {}))
        ]
        if isinstance(engine, BlackjackRound):
            for other in sorted(p for p in engine.box_play[box].wagers if p):
                rows.append((other, engine.stakes_of(box, other), engine.nets_of(box, other)))
        for place, stakes, nets in rows:
            where = f"box {box}" + (f" {place}" if place else "")
            entry = boxes.get(str(box))
            if place is not None:
                entry = (entry or {}).get("others", {}).get(place)
            if entry is None:
                problems.append(f"settlement: {where} is missing")
                continue
            paid = 0
            for name in [*stakes, *(n for n in nets if n not in stakes)]:
                rec = entry["wagers"].get(name)
                stake, net = stakes.get(name, 0), 0 if void else nets.get(name, 0)
                if rec is None:
                    problems.append(f"settlement: {where} {name} is missing")
                    continue
                if rec["stake"] != stake:
                    problems.append(f"settlement: {where} {name} stake {rec['stake']}, not {stake}")
                if rec["net"] is not None and name != "jackpot" and rec["net"] != net:
                    problems.append(f"settlement: {where} {name} net {rec['net']}, not {net}")
                paid += rec["stake"] + rec["net"] if rec["net"] is not None else 0
            if entry["bet"] != sum(stakes.values()):
                problems.append(
                    f"settlement: {where} bet {entry['bet']}, not {sum(stakes.values())}"
                )
            if entry["paid"] != paid:
                problems.append(f"settlement: {where} paid {entry['paid']}, its wagers make {paid}")
    return problems


def _stadium_settlement(
    start: Mapping[str, Any], events: list[dict[str, Any]], body: Mapping[str, Any]
) -> list[str]:
    """Each terminal's wagers as the replayed settlement events give them; paid = bet +
    their nets."""
    problems: list[str] = []
    frozen = {str(n): b["wagers"] for n, b in start["boxes"].items()}
    figures: dict[str, dict[str, dict[str, Any]]] = {}
    for ev in events:
        if ev.get("type") == "wager_settled" and str(ev.get("box")) in frozen:
            n, name = str(ev["box"]), str(ev["wager"])
            figures.setdefault(n, {})[name] = {
                "stake": frozen[n][name],
                "net": ev["net"],
                "outcome": ev["outcome"],
                "detail": ev["detail"],
            }
    for n, entry in sorted(body.get("boxes", {}).items()):
        if start["before"] is None and n in frozen and entry["wagers"] != figures.get(n, {}):
            problems.append(f"settlement: terminal {n}'s wagers are not those the rules give")
        nets = sum(int(w["net"]) for w in entry["wagers"].values())
        if start["before"] is None and entry["paid"] - entry["bet"] != nets:
            problems.append(f"settlement: terminal {n} paid {entry['paid']} on {entry['bet']}")
    return problems


def _derive_round(rnd: JournalRound) -> tuple[list[str], str | None]:
    """A round's own deal from its secret and seeds: problems, or why not yet."""
    start, problems = rnd.start, []
    commits = [b for b in rnd.of("commit") if "shoe" not in b]
    secrets = rnd.of("secret")
    if not commits:
        if rnd.final_state != "settled":
            return [], "voided before its deal: nothing was dealt"
        return ["a settled round with no commitment on the record"], None
    if not secrets:
        if rnd.final_state == "settled" or rnd.of("end"):
            return ["the round ended without its secret on the record"], None
        return [], "interrupted (voided by the recovery): its secret was never recorded"
    commit, sec = commits[0], secrets[-1]
    secret = bytes.fromhex(str(sec["secret"]))
    if fair.server_hash(secret) != commit["server_hash"]:
        problems.append("the secret does not hash to the server hash published before the seeds")
    if sorted(sec.get("seeds", [])) != sorted(commit["seeds"]):
        problems.append("the seeds on the record are not the seeds of the commitment")
    source = fair.SecretSource(fair.deal_key(secret, commit["seeds"]))
    commands = [c for c in rnd.of("command") if "refused" not in c]
    events, engine = replay(start, commands, source)
    items = fair.deck_items(engine.deck) if isinstance(engine, PokerRound) else source.deal_items()
    if items != sec.get("items"):
        problems.append("the items on the record are not those the secret and the seeds deal")
    deal = fair.Deal(secret, items)
    if deal.root != commit["root"] or deal.size != commit["size"]:
        problems.append(
            f"the published commitment {str(commit['root'])[:16]}... is not the root of the "
            f"deal the secret and the seeds make ({deal.root[:16]}...)"
        )
    problems += _replayed(rnd, events, engine)
    return problems, None


def _replayed(
    rnd: JournalRound, events: list[dict[str, Any]], engine: PokerRound | BankedRound | None
) -> list[str]:
    recorded = [_bare(b) for b in rnd.of("event")]
    problems = [] if events == recorded else [_first_difference(events, recorded)]
    settled = rnd.of("settlement")
    if settled:
        body = settled[-1]
        if isinstance(engine, PokerRound):
            problems += _poker_settlement(engine, rnd.start, body)
        elif isinstance(engine, BankedRound):
            problems += _banked_settlement(engine, body)
        else:
            problems += _stadium_settlement(rnd.start, events, body)
    return problems


def _derive_shoe_round(rnd: JournalRound, shoes: Shoes) -> tuple[list[str], str | None]:
    """A round dealt from a blackjack shoe, derived from the shoe's secret and seeds."""
    start = rnd.start
    shoe_id = str(start["shoe"]["id"])
    record = shoes.records.get(shoe_id)
    if shoe_id not in shoes.retired:
        return [], f"its shoe {shoe_id} is still in play"
    if record is None:
        return [], (  # not a fault of the round: the file given lacks it (issue 27)
            f"its shoe's record (the round that starts {shoe_id}) is not among the rounds "
            "given: export that round too (history export without --since)"
        )
    problems: list[str] = []
    secret = bytes.fromhex(str(record["secret"]))
    if fair.server_hash(secret) != record["server_hash"]:
        problems.append("the shoe's secret does not hash to the server hash published for it")
    source = fair.SecretSource(fair.deal_key(secret, record["seeds"]))
    shoe = table_shoe(start, source)
    commands = [c for c in rnd.of("command") if "refused" not in c]
    events, engine = replay(start, commands, FIRST, shoe)
    for body in rnd.of("commit"):
        if body.get("shoe") != shoe_id:
            continue
        k = int(body["stack"])
        if body["server_hash"] != record["server_hash"] or body["seeds"] != record["seeds"]:
            problems.append(f"stack {k}'s commitment names other seeds or another secret")
        if k >= len(source.stacks):
            problems.append(f"stack {k} is committed but the shoe's secret never shuffles it")
            continue
        deal = fair.Deal(secret, source.stacks[k], k)
        if deal.root != body["root"] or deal.size != body["size"]:
            problems.append(
                f"the published commitment of stack {k} {str(body['root'])[:16]}... is not the "
                "root of the stack the shoe's secret and seeds shuffle"
            )
    problems += _replayed(rnd, events, engine)
    return problems, None


def verify_round(rnd: JournalRound, shoes: Shoes | None = None) -> Verdict:
    """The operator's record of one round (module docstring); ``shoes``: the blackjack
    shoes of every round at hand (:meth:`Shoes.of`)."""
    checked = "records, openings, derivation, replay, settlement"
    verdict = Verdict(rnd.ref, check_order(rnd) + check_openings(rnd), checked=checked)
    forced = rnd.start.get("forced") or {}
    try:
        if rnd.start.get("shoe") is not None:
            found, pending = _derive_shoe_round(rnd, shoes or Shoes.of([rnd]))
        elif any(forced.get(k) for k in ("boxes", "dealer", "board", "shoe")):
            found, pending = [], "dev-forced cards: not committed, not verifiable"
        else:
            found, pending = _derive_round(rnd)
    except (IllegalAction, InvalidRound, KeyError, ValueError, TypeError, AssertionError) as exc:
        found, pending = [f"the round cannot be replayed: {exc!r}"], None
    verdict.problems += found
    verdict.pending = pending
    return verdict


# -- a player's record -----------------------------------------------------------------------
def rounds_seen(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The events a player received, in order (event bodies, or ``events`` frames), as
    rounds: each starts at a commitment to a new round's deal."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for item in events:
        ev = item.get("event", item) if item.get("type") in ("event", "events") else item
        if not isinstance(ev, Mapping):
            continue
        if ev.get("type") == "commitment" and (current is None or current["round"] != ev["round"]):
            current = {"round": ev["round"], "events": []}
            out.append(current)
        if current is not None:
            current["events"].append(dict(ev))
    return out


def _seen_openings(events: list[dict[str, Any]], root: str | None, seed: str | None) -> list[str]:
    problems: list[str] = []
    published: dict[tuple[str, int] | None, tuple[str, int]] = {}
    shoe_id = ""
    for i, ev in enumerate(events):
        kind = ev.get("type")
        if kind == "commitment":
            published[_commit_key(ev)] = (str(ev["root"]), int(ev["size"]))
            shoe_id = str(ev.get("shoe", shoe_id))
            if seed is not None and seed not in ev.get("seeds", ()):
                problems.append(f"your seed {seed!r} is not among the seeds of the commitment")
            continue
        cards = [str(c) for c in ev.get("cards") or ()]
        opens = ev.get("open") or []
        if (cards or opens) and not published:
            problems.append(f"event {i} ({kind}) shows cards before any commitment")
            continue
        for o in opens:
            key = (shoe_id, int(o["stack"])) if "stack" in o else None
            if key not in published:
                problems.append(f"event {i} ({kind}): an opening against no commitment shown")
                continue
            bad = fair.check_opening(o, *published[key])
            if bad is not None:
                problems.append(f"event {i} ({kind}): {bad}")
        if cards:
            opened = Counter(str(o.get("v")) for o in opens)
            missing, extra = Counter(cards) - opened, opened - Counter(cards)
            if missing:
                problems.append(f"event {i} ({kind}) shows {sorted(missing)} without an opening")
            if extra:
                problems.append(f"event {i} ({kind}) opens {sorted(extra)}, which it does not show")
    if not published:
        problems.append("no commitment before the round's cards")
    elif root is not None and all(r != root for r, _ in published.values()):
        problems.append(f"the round's commitment is not the one you were shown ({root[:16]}...)")
    return problems


#: the poker engine's events (what a poker player's record replays)
POKER_EVENTS = frozenset(
    {
        "fee_charged",
        "blind_posted",
        "hole_cards_dealt",
        "board_dealt",
        "action_taken",
        "betting_round_ended",
        "uncalled_returned",
        "hand_shown",
        "hand_mucked",
        "commission_taken",
        "pot_awarded",
        "round_voided",
        "round_ended",
    }
)


def _seen_poker(seen: Mapping[str, Any], events: list[dict[str, Any]]) -> list[str]:
    """Replay a poker hand on the cards the player saw (module docstring)."""
    terms = seen["terms"]
    seat = seen.get("seat")
    mine = [_bare(e) for e in events if e.get("type") in POKER_EVENTS]
    hole: dict[int, list[int]] = {}
    board: list[int] = []
    commands: list[dict[str, Any]] = []
    mucked = False
    for e in mine:
        kind = e["type"]
        if kind in ("hole_cards_dealt", "hand_shown"):
            hole[int(e["seat"])] = [card(c) for c in e["cards"]]
        elif kind == "board_dealt":
            board += [card(c) for c in e["cards"]]
        elif kind == "hand_mucked":
            mucked = True
        elif kind == "action_taken":
            verb = str(e["verb"])
            amount = int(e["total"]) if verb in ("bet", "raise") else None
            commands.append({"op": "act", "seat": e["seat"], "verb": verb, "amount": amount})
        elif kind == "round_voided":
            commands.append({"op": "void", "reason": e["reason"]})
    if not any(e["type"] in ("round_ended", "round_voided") for e in mine):
        return []  # the round had not ended: nothing to settle yet
    problem = "no replay"
    for attempt in range(TRIES if mucked else 1):
        try:
            wires, engine = replay_poker(terms, commands, SeededRandomSource(attempt), hole, board)
        except (IllegalAction, ValueError) as exc:
            return [f"the actions cannot be replayed: {exc}"]
        got = [w for w in wires if w["type"] in POKER_EVENTS and may_see(w["visible_to"], seat)]
        if got == mine:
            result = engine.result
            after = seen.get("stake_after")
            if seat is not None and after is not None and result is not None:
                if result.stacks.get(int(seat)) != after:
                    return [f"your stack after the round {after}: the rules give {result.stacks}"]
            return []
        problem = _first_difference(got, mine)
    return [problem]


def verify_seen(
    seen: Mapping[str, Any], root: str | None = None, seed: str | None = None
) -> Verdict:
    """A player's record of one round (module docstring): ``seen`` has ``events`` in the
    order received (commitments included), and from a ``history`` reply ``terms``, ``seat``
    and ``stake_after``; ``root``: the commitment the player was shown; ``seed``: its seed."""
    events = [dict(e) for e in seen.get("events", ())]
    verdict = Verdict(str(seen.get("round", "?")), _seen_openings(events, root, seed))
    verdict.checked = "the commitment and every opening"
    terms = seen.get("terms") or {}
    try:
        if terms.get("kind") == "poker":
            verdict.problems += _seen_poker(seen, events)
            verdict.checked += ", the hand replayed on the cards seen"
        elif terms:
            verdict.problems += _seen_results(seen)
            verdict.checked += ", the results' sums (a replay needs the operator's record)"
    except (KeyError, TypeError, ValueError) as exc:
        verdict.problems.append(f"the round cannot be replayed: {exc!r}")
    return verdict


def _seen_results(seen: Mapping[str, Any]) -> list[str]:
    """A banked player's own results: each box's bet and paid against its wagers' stakes
    and nets, and its net against them."""
    problems: list[str] = []
    total = 0
    for box, row in sorted((seen.get("results") or {}).items()):
        wagers = row["wagers"].values()
        bet = sum(int(w["stake"]) for w in wagers)
        paid = sum(int(w["stake"]) + int(w["net"]) for w in wagers if w["net"] is not None)
        if row["bet"] != bet or row["paid"] != paid:
            problems.append(
                f"box {box}: bet {row['bet']}, paid {row['paid']}: its wagers make {bet} and {paid}"
            )
        total += row["paid"] - row["bet"]
    if seen.get("results") and seen.get("net") != total:
        problems.append(f"the round's net {seen.get('net')} is not its boxes' {total}")
    return problems
