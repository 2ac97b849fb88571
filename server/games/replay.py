"""Replaying a journalled round through its engine, and checking a fair-shuffle reveal.

A journalled round (``server/store/journal.py``) holds what built its engine (``start``),
the engine commands in order (``command``), the events the engine gave (``event``) and the
revealed round secret (``reveal``). :func:`replay` rebuilds the engine on a
:class:`~server.fair.SecretSource` keyed by that secret, feeds it the commands and returns
the events it gives; :func:`verify_round` (``croupier verify``) checks the reveal against the
commitment published before the first card and that every event, every card dealt
included, is what the secret produces (same deck + same commands = same events).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from server import fair
from server.cards import FIRST, card, card_str
from server.games.banked.base import Forced, JackpotState
from server.games.banked.blackjack.engine import BlackjackRound
from server.games.banked.blackjack.shoe import BlackjackShoe
from server.games.banked.craps import Craps, Layout
from server.games.banked.outcome import SharedOutcomeRound
from server.games.banked.scenario import round_class
from server.games.poker import PokerRound, rules_for
from server.games.poker.events import Event
from server.store.journal import JournalRound


def forced_json(forced: Forced) -> dict[str, Any]:
    """A dev-forced outcome as JSON (card strings), for the journal's ``start``."""
    return {
        "boxes": {str(b): [card_str(c) for c in cs] for b, cs in forced.boxes.items()},
        "dealer": [card_str(c) for c in forced.dealer],
        "board": [card_str(c) for c in forced.board],
        "shoe": [card_str(c) for c in forced.shoe],
        "outcome": None if forced.outcome is None else dict(forced.outcome),
    }


def forced_from_json(data: Mapping[str, Any] | None) -> Forced | None:
    if data is None:
        return None
    return Forced(
        {int(b): [card(c) for c in cs] for b, cs in data["boxes"].items()},
        [card(c) for c in data["dealer"]],
        [card(c) for c in data["board"]],
        [card(c) for c in data["shoe"]],
        data["outcome"],
    )


def shoe_secrets(rounds: Iterable[JournalRound]) -> dict[str, str]:
    """The blackjack shoes' secrets revealed in ``rounds`` (``shoe_reveal``), by shoe id."""
    return {b["id"]: b["secret"] for rnd in rounds for b in rnd.of("shoe_reveal")}


def _table_shoe(start: Mapping[str, Any], secret: str) -> BlackjackShoe:
    """The table's shoe as it stood when the round was dealt: shuffled again from its
    revealed secret, then put where the record says it stood."""
    cls = round_class(start["game"])
    assert issubclass(cls, BlackjackRound)
    options = cls.spec.validate_options(dict(start["rules"]))
    shoe = cls.new_shoe(options, fair.SecretSource(bytes.fromhex(secret)))
    shoe.restore(start["shoe"])
    return shoe


def replay(
    rnd: JournalRound, secret: bytes, shoes: Mapping[str, str] | None = None
) -> tuple[list[dict[str, Any]], fair.SecretSource]:
    """The engine events of ``rnd`` replayed with the round secret (and the source); a
    blackjack round dealt from a table's shoe needs that shoe's secret (``shoes``)."""
    start = rnd.start
    source = fair.SecretSource(secret)
    out: list[dict[str, Any]] = []

    def add(events: list[Any]) -> None:
        out.extend(ev.to_wire() for ev in events)

    commands = [c for c in rnd.of("command") if "refused" not in c]
    if start["kind"] == "poker":
        stacks = {int(n): int(s["stake"]) for n, s in start["seats"].items()}
        posts = {int(n): int(v) for n, v in start.get("posts", {}).items()}
        rules = rules_for(start["game"], dict(start["options"]))
        poker = PokerRound(rules, stacks, int(start["designated"]), source, posts=posts or None)
        events: list[Event] = poker.start()
        add(events)
        for c in commands:
            op = c["op"]
            if op == "act":
                add(poker.act(int(c["seat"]), str(c["verb"]), c.get("amount")))
            elif op == "timeout":
                add(poker.timeout(int(c["seat"])))
            elif op == "void":
                add(poker.void(str(c["reason"])))
        return out, source
    if start["kind"] == "stadium":
        add(_stadium(start, commands, source))
        return out, source
    cls = round_class(start["game"])
    options = cls.spec.validate_options(dict(start["rules"]))
    wagers = {int(b): dict(v["wagers"]) for b, v in start["boxes"].items()}
    for backer in start.get("backers", ()):  # blackjack: other players on a box (BJ s29)
        wagers[int(backer["box"])].setdefault("others", {})[backer["place"]] = backer["wagers"]
    jackpot = None if start.get("jackpot") is None else JackpotState(*start["jackpot"])
    extra: dict[str, Any] = {}
    if start.get("shoe") is not None:
        extra["shoe"] = _table_shoe(start, (shoes or {})[start["shoe"]["id"]])
    banked = cls(
        options,
        wagers,
        source,
        forced=forced_from_json(start.get("forced")),
        jackpot=jackpot,
        **extra,
    )
    add(banked.start())
    for c in commands:
        op = c["op"]
        if op == "decide":
            place = c.get("player")  # blackjack: a backer's decision (BJ s29)
            qualifiers = {"player": place} if place else None
            add(banked.decide(int(c["box"]), str(c["verb"]), c.get("amount"), qualifiers))
        elif op == "decline_offers":
            assert isinstance(banked, BlackjackRound)
            add(banked.decline_offers(int(c["box"]), c.get("player")))
        elif op == "insufficient":
            add(banked.insufficient(int(c["box"])))
        elif op == "timeout":
            add(banked.timeout(int(c["box"])))
        elif op == "void":
            add(banked.void(str(c["reason"])))
    return out, source


def _stadium(
    start: Mapping[str, Any], commands: list[dict[str, Any]], source: fair.SecretSource
) -> list[Any]:
    """A stadium round (``server/tables/stadium.py``): the frozen layout (craps: the layout
    the roll was thrown on) settled on the entered result, or on the round's secret."""
    entered = next((c["outcome"] for c in commands if c["op"] == "result"), None)
    cls = round_class(start["game"])
    options = dict(start["rules"])
    if start["before"] is not None:
        craps = Craps(options, {}, source, layout=Layout.from_json(start["before"]))
        craps.start()
        return craps.roll(entered)
    frozen = {int(n): dict(b["wagers"]) for n, b in start["boxes"].items()}
    if issubclass(cls, SharedOutcomeRound):
        return cls(options, frozen, source).start(entered)
    if entered is None:
        return cls(options, frozen, source).start()
    forced = Forced(shoe=[card(c) for c in entered["cards"]])
    return cls(options, frozen, FIRST, forced=forced).start()


def verify_round(rnd: JournalRound, shoes: Mapping[str, str] | None = None) -> list[str]:
    """``croupier verify``: what is wrong with a round's reveal (empty: it verifies).

    A blackjack round dealt from a table's shoe verifies once the shoe's secret is revealed
    (``shoes``: :func:`shoe_secrets` of the rounds at hand, this one included)."""
    problems: list[str] = []
    shoe = rnd.start.get("shoe")
    if shoe is not None:
        shoes = {**(shoes or {}), **shoe_secrets([rnd])}
        if shoe["id"] not in shoes:
            return [
                f"round {rnd.ref}: its shoe {shoe['id']} is still in play (its secret is "
                "revealed after the round that reshuffles it)"
            ]
        if not fair.matches(shoe["id"], shoes[shoe["id"]], str(shoe["commitment"])):
            return ["SHA-256 of the revealed shoe secret does not match the shoe's commitment"]
    reveals = rnd.of("reveal")
    if not reveals:
        return [f"round {rnd.ref}: no reveal (the round has not ended)"]
    shown = reveals[-1]
    published = str(rnd.start.get("commitment", ""))
    if str(shown.get("commitment")) != published:
        problems.append("the reveal names another commitment than the one published")
    if not fair.matches(rnd.ref, str(shown.get("secret", "")), published):
        problems.append("SHA-256 of the revealed secret does not match the commitment")
        return problems
    events, source = replay(rnd, bytes.fromhex(str(shown["secret"])), shoes)
    recorded = rnd.of("event")
    if fair.draws_json(source) != shown.get("draws"):
        problems.append("the revealed draws are not those the secret produces")
    if events != recorded:
        at = next(
            (i for i, (a, b) in enumerate(zip(events, recorded, strict=False)) if a != b),
            min(len(events), len(recorded)),
        )
        problems.append(
            f"event {at}: the secret deals {events[at] if at < len(events) else 'nothing'}, "
            f"the round recorded {recorded[at] if at < len(recorded) else 'nothing'}"
        )
    return problems
