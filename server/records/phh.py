"""PHH (Poker Hand History, ``https://github.com/uoftcprg/phh-std``) from the journal.

One TOML table per hand (a ``.phhs`` file: ``[1]``, ``[2]``, ...), for the hands PHH's
variants express: no-limit hold'em (``NT``) and pot-limit Omaha (``PO``: ACT's full-pot
Omaha). Amounts are integer cents. Not exported: Manila (a 32-card pack), half-pot (no PHH
variant bets half the pot), limit (ACT r 10.2-10.4 offer a choice of sizes, LB or 2LB, 2LB
or 4LB; PHH's fixed-limit ``FT`` has one size a street), hands with a participation fee or a
returning player's live/dead post (QLD Sch 11 s19, s23A), and heads-up hands with a wager
after the flop (the buck holder, who posts the first blind, acts first there; PHH's heads-up
button acts last): no PHH variant plays those rules.

Players are in PHH order: the first blind first (``p1``), the button (the seat before the
first blind) last; heads-up, the big blind is ``p1`` and the small blind (the button) ``p2``,
as PHH's heads-up rule has it. ``finishing_stacks`` are the stacks after our settlement,
commission taken (ACT r 11; the ``_commission`` field is each player's part of the
commission, so that ``finishing_stacks + _commission`` is the hand without commission).

A tournament's hand (amounts in tournament chips, already integers) names its ``event``
(the tournament's name and number), its blind ``level``, and the tournament's id, buy-in and
fee (cents) in the user-defined fields ``_tournament``, ``_buy_in`` and ``_fee``.
"""

from __future__ import annotations

from typing import Any

from server.records.histories import (
    blinds_of,
    call_level,
    commission_parts,
    lone_checks,
    tournament_number,
    tournament_of,
)
from server.store.journal import JournalRound

VARIANTS = {("holdem", "no-limit"): "NT", ("omaha", "full-pot"): "PO"}


def phh_variant(rnd: JournalRound) -> str | None:
    start = rnd.start
    if start.get("kind") != "poker" or rnd.final_state != "settled":
        return None
    variant = str(start["game"]).split("-", 1)[0]
    structure = str(start.get("options", {}).get("structure", "limit"))
    code = VARIANTS.get((variant, structure))
    events = rnd.of("event")
    if code is None or any(e["type"] == "fee_charged" for e in events):
        return None
    if any(e["type"] == "blind_posted" and e["kind"] in ("live", "dead") for e in events):
        return None
    if len(start["seats"]) == 2 and any(
        e["type"] == "action_taken" and i > first_board(events) for i, e in enumerate(events)
    ):
        return None  # heads-up the buck (first blind) bets first after the flop; PHH: last
    return code


def first_board(events: list[dict[str, Any]]) -> int:
    return next((i for i, e in enumerate(events) if e["type"] == "board_dealt"), len(events))


def order(rnd: JournalRound) -> list[int]:
    """The seats in PHH order (see the module docstring)."""
    seats = sorted(int(n) for n in rnd.start["seats"])
    posters = [int(e["seat"]) for e in rnd.of("event") if e["type"] == "blind_posted"]
    first = posters[0]
    ring = [s for s in seats if s >= first] + [s for s in seats if s < first]
    if len(ring) == 2:
        return [ring[1], ring[0]]
    return ring


def hand(rnd: JournalRound) -> dict[str, Any] | None:
    """One hand's PHH fields (None: no PHH variant expresses it)."""
    code = phh_variant(rnd)
    if code is None:
        return None
    start = rnd.start
    seats = order(rnd)
    index = {s: i + 1 for i, s in enumerate(seats)}
    blinds = blinds_of(rnd)
    stakes = start["seats"]
    actions: list[str] = []
    level = 0
    commission = commission_parts(rnd)
    dealt: dict[int, str] = {}
    settled = rnd.of("settlement")[-1]
    lone = lone_checks(rnd)
    for i, ev in enumerate(rnd.of("event")):
        t = ev["type"]
        if i in lone:
            continue
        if t == "hole_cards_dealt":
            dealt[int(ev["seat"])] = "".join(ev["cards"])
            if len(dealt) == len(seats):
                actions += [f"d dh p{index[s]} {dealt[s]}" for s in seats]
        elif t == "blind_posted":
            level = max(level, int(ev["amount"]), call_level(blinds))
        elif t == "board_dealt":
            actions.append("d db " + "".join(ev["cards"]))
            level = 0
        elif t == "action_taken":
            p, verb, total = f"p{index[int(ev['seat'])]}", str(ev["verb"]), int(ev["total"])
            if verb == "fold":
                actions.append(f"{p} f")
            elif verb in ("check", "call") or (verb == "allin" and total <= level):
                actions.append(f"{p} cc")
            else:
                actions.append(f"{p} cbr {total}")
            level = max(level, total)
        elif t == "hand_shown":
            actions.append(f"p{index[int(ev['seat'])]} sm {''.join(ev['cards'])}")
    fields: dict[str, Any] = {
        "variant": code,
        "antes": [0] * len(seats),
        "blinds_or_straddles": blinds + [0] * (len(seats) - len(blinds)),
        "min_bet": blinds[-1],
        "starting_stacks": [int(stakes[str(s)]["stake"]) for s in seats],
        "actions": actions,
        "players": [str(stakes[str(s)]["name"] or stakes[str(s)]["account"]) for s in seats],
        "finishing_stacks": [int(settled["after"].get(str(s), 0)) for s in seats],
        "seats": seats,
        "hand": int(start.get("hand", 0)),
        "table": rnd.table,
        "_round": rnd.ref,
        "_commission": [commission[s] for s in seats],
    }
    record = tournament_of(rnd)
    if record is not None:
        fields["event"] = f"{record['name']} (tournament #{tournament_number(record)})"
        if record.get("level"):
            fields["level"] = int(record["level"])
        fields["_tournament"] = str(record["id"])
        fields["_buy_in"] = int(record["buy_in"])
        fields["_fee"] = int(record["fee"])
    return fields


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def export(rounds: list[JournalRound]) -> str:
    """A ``.phhs`` text: every expressible hand as a numbered TOML table."""
    out: list[str] = []
    number = 0
    for rnd in rounds:
        fields = hand(rnd)
        if fields is None:
            continue
        number += 1
        out.append(f"[{number}]")
        out += [f"{k} = {_toml(v)}" for k, v in fields.items()]
        out.append("")
    return "\n".join(out)
