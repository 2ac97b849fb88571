"""Hand histories from the journal: Open Hand History JSON (every game), PHH and PokerStars
text (hold'em and Omaha), cash games and tournaments.

Every exporter reads a journalled round (``server/store/journal.py``): the ``start`` record
(seats, stakes, the designated seat, the rule set) and the engine's events. Amounts in the
journal are integer cents; OHH and PokerStars text write dollars with two decimals
(``Decimal``, never a float on the way), PHH writes cents (its amounts are integers). An
operator's export carries every hole card (the journal has them); the commission taken is
the OHH pot's ``rake`` and PokerStars' ``Rake``.

* :func:`ohh` -- OHH 1.4 (``https://hh-specs.handhistory.org``): ``{"ohh": {...}}`` with
  the required header fields, ``players``, ``rounds`` (street, cards, numbered actions) and
  ``pots`` (amount, rake, each player's win). Manila and the banked games export the same
  envelope, OHH-style: their own ``game_type``, the boxes as players, the engine's events as
  actions (:func:`ohh_banked`).

A tournament's hand (its journal record has ``tournament``: the tournament's id, name,
buy-in and fee, chips per entry, the table's number and the blind level; written by
``server/tournaments/tables.py``) is written as trackers read tournament hands: its amounts
are tournament chips, whole numbers without a currency (:func:`amount_of`); OHH sets
``tournament`` and ``tournament_info`` (number, name, start, currency, buy-in and fee in
dollars, initial stack, type, speed); PokerStars text has the tournament header
(``server/records/pokerstars.py``); PHH names the event and the level (``server/records/phh.py``).
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from server.store.journal import JournalRound

SITE = "croupier"
SPEC_VERSION = "1.4.7"
STREETS = ("Preflop", "Flop", "Turn", "River")
OHH_GAME = {"holdem": "Holdem", "omaha": "Omaha"}
OHH_LIMIT = {"no-limit": "NL", "full-pot": "PL", "half-pot": "PL", "limit": "FL"}


def dollars_exact(cents: int) -> Decimal:
    """Cents as an exact two-decimal dollar amount."""
    return Decimal(cents).scaleb(-2).quantize(Decimal("0.01"))


def iso(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def variant(rnd: JournalRound) -> str:
    """``holdem``, ``omaha``, ``manila`` or the banked game's id."""
    game = str(rnd.start.get("game", ""))
    return game.split("-", 1)[0] if rnd.start.get("kind") == "poker" else game


def is_poker(rnd: JournalRound) -> bool:
    return rnd.start.get("kind") == "poker"


def tournament_of(rnd: JournalRound) -> dict[str, Any] | None:
    """The tournament a round was played in (its journal record's ``tournament``), or None
    for a cash game."""
    record = rnd.start.get("tournament")
    return record if isinstance(record, dict) else None


def amount_of(rnd: JournalRound) -> Callable[[int], Decimal | int]:
    """How the round's amounts are written: dollars with two decimals (cents in the journal)
    at a cash table, whole tournament chips at a tournament's."""
    return int if tournament_of(rnd) is not None else dollars_exact


def blinds_of(rnd: JournalRound) -> list[int]:
    """The blinds the round was dealt at: the rule set in force (a tournament's level
    raises them between hands), else the table's options."""
    rules = rnd.start.get("rules", {})
    options = rules.get("options") or rnd.start.get("options", {})
    return [int(b) for b in options.get("blinds", [])]


def lone_checks(rnd: JournalRound) -> set[int]:
    """Indexes (in ``rnd.of("event")``) of the checks a player made with nobody left to bet
    against: every other player in the hand all-in (a short stack's all-in blind, say). The
    engine asks for the action; PokerStars and PHH have no such action (pokerkit refuses a
    hand with one), so their exporters leave these checks out."""
    events = rnd.of("event")
    live = {int(n) for n in rnd.start.get("seats", {})}
    allin: set[int] = set()
    out: set[int] = set()
    for i, ev in enumerate(events):
        t = ev["type"]
        if t not in ("blind_posted", "action_taken"):
            continue
        seat = int(ev["seat"])
        if t == "action_taken" and ev["verb"] == "fold":
            live.discard(seat)
        elif t == "action_taken" and ev["verb"] == "check" and live - {seat} <= allin:
            out.add(i)
        if int(ev.get("stack", 1)) == 0:
            allin.add(seat)
    return out


def call_level(blinds: list[int]) -> int:
    """What a player calls after the blinds: the last blind, even when it was posted all-in
    for less (the engine's call stays at the blind, digest A-14)."""
    return blinds[-1] if blinds else 0


def tournament_number(record: dict[str, Any]) -> str:
    """A tournament's number as trackers want it, all digits: the id when it is one, else a
    stable number made from it."""
    ident = str(record["id"])
    return (
        ident if ident.isdigit() else str(int(hashlib.sha256(ident.encode()).hexdigest()[:10], 16))
    )


def tournament_info(record: dict[str, Any]) -> dict[str, Any]:
    """OHH's ``tournament_info`` object for a tournament record (buy-in and fee in dollars:
    the entry fee's prize-pool part and the commission, ACT r 19.4)."""
    minutes = record.get("level_minutes")
    sit_and_go = bool(record.get("sit_and_go"))
    info: dict[str, Any] = {
        "tournament_number": tournament_number(record),
        "name": str(record["name"]),
        "start_date_utc": iso(float(record.get("started_at", 0.0))),
        "currency": str(record.get("currency", "USD")),
        "buyin_amount": dollars_exact(int(record["buy_in"])),
        "fee_amount": dollars_exact(int(record["fee"])),
        "bounty_fee_amount": dollars_exact(0),
        "initial_stack": int(record["chips"]),
        "type": "STT" if sit_and_go else "MTT",
        "flags": ["SNG"] if sit_and_go else [],
    }
    if minutes:
        info["speed"] = {"type": "Normal", "round_time": int(minutes) * 60}
    return info


class _Bets:
    """Per street: what each seat has in front of it, to name an all-in a call or a raise."""

    def __init__(self) -> None:
        self.level = 0
        self.street = 0

    def verb(self, ev: dict[str, Any]) -> str:
        verb, total = str(ev["verb"]), int(ev["total"])
        if verb == "allin":
            verb = "call" if total <= self.level else "bet" if self.level == 0 else "raise"
        self.level = max(self.level, total)
        return verb


def button_seat(rnd: JournalRound) -> int:
    """The dealer button as hand-history formats mean it: the seat before the first blind
    (ACT's buck holder posts the first blind, so the button is the seat before the buck);
    heads-up, the first blind. Manila's designated player posts its only blind and is it."""
    start = rnd.start
    ring = sorted(int(n) for n in start["seats"])
    posters = [int(e["seat"]) for e in rnd.of("event") if e["type"] == "blind_posted"]
    if not posters or len(ring) == 2 or variant(rnd) == "manila":
        return posters[0] if posters else int(start["designated"])
    first = posters[0]
    return max((s for s in ring if s < first), default=ring[-1])


def commission_parts(rnd: JournalRound) -> dict[int, int]:
    """Each seat's part of a poker round's commission, in cents: a commission group's
    commission split between its winners in proportion to their shares (the rest, from
    rounding, to the lowest seat). What a tool that replays the hand without commission
    adds to our final stacks."""
    parts = {int(n): 0 for n in rnd.start.get("seats", {})}
    for ev in rnd.of("event"):
        if ev["type"] != "pot_awarded":
            continue
        shares = {int(s): int(v) for s, v in ev["shares"].items()}
        total, taken = sum(shares.values()), int(ev["commission"])
        left = taken
        for seat, share in sorted(shares.items()):
            part = taken * share // total if total else 0
            parts[seat] += part
            left -= part
        if left:
            parts[min(shares)] += left
    return parts


def ohh(rnd: JournalRound) -> dict[str, Any]:
    """One round as an OHH document (``{"ohh": ...}``): poker rounds per the spec, the other
    games OHH-style."""
    if not is_poker(rnd) or variant(rnd) == "manila":
        return ohh_banked(rnd) if not is_poker(rnd) else _ohh_poker(rnd, manila=True)
    return _ohh_poker(rnd, manila=False)


def _ohh_poker(rnd: JournalRound, *, manila: bool) -> dict[str, Any]:
    start = rnd.start
    rules = start.get("rules", {})
    options = rules.get("options", start.get("options", {}))
    blinds = blinds_of(rnd)
    money = amount_of(rnd)
    seats = start["seats"]
    ids = {int(n): i for i, n in enumerate(sorted(seats, key=int))}
    players = [
        {
            "id": ids[int(n)],
            "seat": int(n),
            "name": str(s["name"] or s["account"]),
            "starting_stack": money(int(s["stake"])),
        }
        for n, s in sorted(seats.items(), key=lambda kv: int(kv[0]))
    ]
    rounds: list[dict[str, Any]] = []
    number = 0
    bets = _Bets()
    current: dict[str, Any] = {"id": 0, "street": STREETS[0], "actions": []}
    rounds.append(current)
    pots: list[dict[str, Any]] = []
    commission = 0

    def act(seat: int, action: str, amount: int = 0, **more: Any) -> None:
        nonlocal number
        number += 1
        entry: dict[str, Any] = {"action_number": number, "player_id": ids[seat], "action": action}
        if amount:
            entry["amount"] = money(amount)
        entry.update(more)
        current["actions"].append(entry)

    for ev in rnd.of("event"):
        t = ev["type"]
        if t == "blind_posted":
            kind = str(ev["kind"])
            name = {"blind1": "Post SB", "blind2": "Post BB"}.get(kind, "Post Extra Blind")
            if kind == "dead":
                name = "Post Dead"
            if len(blinds) == 1 and kind == "blind1":
                name = "Post BB"
            act(int(ev["seat"]), name, int(ev["amount"]), is_allin=int(ev["stack"]) == 0)
            bets.level = max(bets.level, int(ev["amount"]), call_level(blinds))
        elif t == "hole_cards_dealt":
            act(int(ev["seat"]), "Dealt Cards", cards=list(ev["cards"]))
        elif t == "board_dealt":
            street = int(ev["round"])
            current = {
                "id": len(rounds),
                "street": STREETS[street] if street < len(STREETS) else f"Street {street}",
                "cards": list(ev["cards"]),
                "actions": [],
            }
            rounds.append(current)
            bets.level = 0
        elif t == "action_taken":
            verb = bets.verb(ev)
            act(
                int(ev["seat"]),
                verb.capitalize(),
                int(ev["amount"]),
                is_allin=int(ev["stack"]) == 0 and verb != "fold",
            )
        elif t == "hand_shown":
            if current.get("street") != "Showdown":
                current = {"id": len(rounds), "street": "Showdown", "actions": []}
                rounds.append(current)
            act(int(ev["seat"]), "Shows Cards", cards=list(ev["cards"]))
        elif t == "hand_mucked":
            if current.get("street") != "Showdown":
                current = {"id": len(rounds), "street": "Showdown", "actions": []}
                rounds.append(current)
            act(int(ev["seat"]), "Mucks Cards")
        elif t == "commission_taken":
            commission += int(ev["amount"])
        elif t == "pot_awarded":
            pots.append(
                {
                    "number": int(ev["pot"]),
                    "amount": money(int(ev["amount"])),
                    "rake": money(int(ev["commission"])),
                    "jackpot": money(0),
                    "player_wins": [
                        {
                            "player_id": ids[int(seat)],
                            "win_amount": money(int(share)),
                            "contributed_rake": money(0),
                        }
                        for seat, share in sorted(ev["shares"].items(), key=lambda kv: int(kv[0]))
                    ],
                }
            )
    structure = str(rules.get("options", {}).get("structure", options.get("structure", "limit")))
    doc: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "site_name": SITE,
        "network_name": SITE,
        "internal_version": "1",
        "tournament": False,
        "game_number": rnd.ref,
        "start_date_utc": iso(rnd.at),
        "table_name": rnd.table,
        "table_handle": rnd.table,
        "game_type": "Manila" if manila else OHH_GAME[variant(rnd)],
        "bet_limit": {"bet_type": OHH_LIMIT.get(structure, "FL"), "bet_cap": money(0)},
        "table_size": int(rules.get("max_seats", len(seats))),
        "currency": "USD",
        "dealer_seat": button_seat(rnd),
        "small_blind_amount": money(blinds[0] if len(blinds) > 1 else 0),
        "big_blind_amount": money(blinds[-1] if blinds else 0),
        "ante_amount": money(0),
        "flags": [] if rnd.final_state == "settled" else ["Voided"],
        "players": players,
        "rounds": rounds,
        "pots": pots,
    }
    if manila or structure == "half-pot":
        doc["croupier"] = {"game": start["game"], "structure": structure}
    return {"ohh": _tournament_fields(rnd, doc)}


def ohh_banked(rnd: JournalRound) -> dict[str, Any]:
    """A banked round OHH-style: the same envelope, the boxes as players, the engine's events
    as actions, each box's settled wagers as its ``pots`` entry."""
    start = rnd.start
    money = amount_of(rnd)
    boxes = start["boxes"]
    settled = rnd.of("settlement")
    results = settled[-1].get("boxes", {}) if settled else {}
    players = [
        {
            "id": int(b),
            "seat": int(b),
            # a stadium round's terminals carry no name, only the account (issue 27)
            "name": str(v.get("name") or v["account"]),
            "starting_stack": money(sum(int(x) for x in v["wagers"].values())),
        }
        for b, v in sorted(boxes.items(), key=lambda kv: int(kv[0]))
    ]
    actions = []
    for i, ev in enumerate(rnd.of("event"), 1):
        entry: dict[str, Any] = {"action_number": i, "action": ev["type"]}
        box = ev.get("box")
        if isinstance(box, int):
            entry["player_id"] = box
        entry["detail"] = {k: v for k, v in ev.items() if k not in ("type", "box")}
        actions.append(entry)
    pots = [
        {
            "number": int(b),
            "amount": money(int(r["bet"])),
            "rake": money(0),
            "player_wins": [{"player_id": int(b), "win_amount": money(int(r["paid"]))}],
            "wagers": r["wagers"],
        }
        for b, r in sorted(results.items(), key=lambda kv: int(kv[0]))
    ]
    doc = {
        "ohh": {
            "spec_version": SPEC_VERSION,
            "site_name": SITE,
            "network_name": SITE,
            "internal_version": "1",
            "tournament": False,
            "game_number": rnd.ref,
            "start_date_utc": iso(rnd.at),
            "table_name": rnd.table,
            "game_type": str(start["game"]),
            "bet_limit": {"bet_type": "FL", "bet_cap": money(0)},
            "table_size": len(boxes),
            "currency": "USD",
            "dealer_seat": 0,
            "small_blind_amount": money(0),
            "big_blind_amount": money(0),
            "ante_amount": money(0),
            "flags": [] if rnd.final_state == "settled" else ["Voided"],
            "players": players,
            "rounds": [{"id": 0, "street": "Round", "actions": actions}],
            "pots": pots,
        }
    }
    return {"ohh": _tournament_fields(rnd, doc["ohh"])}


def _tournament_fields(rnd: JournalRound, doc: dict[str, Any]) -> dict[str, Any]:
    """A tournament's hand: ``tournament`` true and its ``tournament_info`` (amounts are
    chips; ``currency`` is the tournament's, that of its buy-in); a cash game's as it is."""
    record = tournament_of(rnd)
    if record is None:
        return doc
    doc["tournament"] = True
    doc["tournament_info"] = tournament_info(record)
    doc["currency"] = str(record.get("currency", "USD"))
    if record.get("level"):
        doc.setdefault("croupier", {})["level"] = int(record["level"])
    return doc


def dumps_json(doc: Any) -> str:
    """JSON text with exact dollar amounts (a ``Decimal`` with two places is written as the
    number it is: its shortest float text is the same decimal)."""
    import json

    def default(v: Any) -> Any:
        if isinstance(v, Decimal):
            return float(v)
        raise TypeError(f"not JSON: {v!r}")

    return json.dumps(doc, default=default)
