"""Replaying a journalled round through its engine (``croupier verify``, ``server/verify.py``).

A journalled round (``server/store/journal.py``) holds what built its engine (``start``) and
the engine commands in order (``command``). :func:`replay` rebuilds the engine on a random
source and feeds it the commands: on :class:`~server.fair.SecretSource` keyed by the deal's
key (the secret with the seeds), it deals what the table dealt; on the cards a player was
shown (:func:`replay_poker` with fixed hole cards and board), it plays the hand again as far
as those cards decide it. The engines are deterministic: same deal + same commands = same
events, same settlement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.cards import FIRST, RandomSource, card, card_str
from server.games.banked.base import BankedRound, Forced, JackpotState
from server.games.banked.blackjack.engine import BlackjackRound
from server.games.banked.blackjack.shoe import BlackjackShoe
from server.games.banked.craps import Craps, Layout
from server.games.banked.outcome import SharedOutcomeRound
from server.games.banked.scenario import round_class
from server.games.poker import PokerRound, rules_for
from server.games.poker.events import Event

Wire = dict[str, Any]


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


def table_shoe(start: Mapping[str, Any], source: RandomSource) -> BlackjackShoe:
    """The table's shoe as it stood when the round was dealt: shuffled again from its
    source (keyed by the shoe's secret and seeds), then put where the record says it
    stood."""
    cls = round_class(str(start["game"]))
    assert issubclass(cls, BlackjackRound)
    options = cls.spec.validate_options(dict(start["rules"]))
    shoe = cls.new_shoe(options, source)
    shoe.restore(start["shoe"])
    return shoe


def _wires(events: Sequence[Any]) -> list[Wire]:
    return [ev.to_wire() for ev in events]


def replay_poker(
    start: Mapping[str, Any],
    commands: Sequence[Mapping[str, Any]],
    source: RandomSource,
    hole: Mapping[int, Sequence[int]] | None = None,
    board: Sequence[int] | None = None,
) -> tuple[list[Wire], PokerRound]:
    """A poker round's events replayed (``hole``, ``board``: cards fixed, the rest from
    ``source``), and the engine (its ``result``, its ``deck``)."""
    stacks = {int(n): int(s["stake"]) for n, s in start["seats"].items()}
    posts = {int(n): int(v) for n, v in start.get("posts", {}).items()}
    rules = rules_for(str(start["game"]), dict(start["options"]))
    poker = PokerRound(
        rules,
        stacks,
        int(start["designated"]),
        source,
        hole=hole or None,
        board=board or None,
        posts=posts or None,
    )
    out: list[Wire] = []
    events: list[Event] = poker.start()
    out += _wires(events)
    for c in commands:
        op = c["op"]
        if op == "act":
            out += _wires(poker.act(int(c["seat"]), str(c["verb"]), c.get("amount")))
        elif op == "timeout":
            out += _wires(poker.timeout(int(c["seat"])))
        elif op == "void":
            out += _wires(poker.void(str(c["reason"])))
    return out, poker


def replay_banked(
    start: Mapping[str, Any],
    commands: Sequence[Mapping[str, Any]],
    source: RandomSource,
    shoe: BlackjackShoe | None = None,
) -> tuple[list[Wire], BankedRound]:
    """A banked round's events replayed on ``source`` (a blackjack round: from ``shoe``)."""
    cls = round_class(str(start["game"]))
    options = cls.spec.validate_options(dict(start["rules"]))
    wagers: dict[int, dict[str, Any]] = {
        int(b): dict(v["wagers"]) for b, v in start["boxes"].items()
    }
    for backer in start.get("backers", ()):  # blackjack: other players on a box (BJ s29)
        wagers[int(backer["box"])].setdefault("others", {})[backer["place"]] = backer["wagers"]
    jackpot = None if start.get("jackpot") is None else JackpotState(*start["jackpot"])
    extra: dict[str, Any] = {} if shoe is None else {"shoe": shoe}
    banked = cls(
        options,
        wagers,
        source,
        forced=forced_from_json(start.get("forced")),
        jackpot=jackpot,
        **extra,
    )
    out = _wires(banked.start())
    for c in commands:
        op = c["op"]
        if op == "decide":
            place = c.get("player")  # blackjack: a backer's decision (BJ s29)
            qualifiers = {"player": place} if place else None
            out += _wires(banked.decide(int(c["box"]), str(c["verb"]), c.get("amount"), qualifiers))
        elif op == "decline_offers":
            assert isinstance(banked, BlackjackRound)
            out += _wires(banked.decline_offers(int(c["box"]), c.get("player")))
        elif op == "insufficient":
            out += _wires(banked.insufficient(int(c["box"])))
        elif op == "timeout":
            out += _wires(banked.timeout(int(c["box"])))
        elif op == "void":
            out += _wires(banked.void(str(c["reason"])))
    return out, banked


def replay_stadium(
    start: Mapping[str, Any], commands: Sequence[Mapping[str, Any]], source: RandomSource
) -> list[Wire]:
    """A stadium round (``server/tables/stadium/``): the frozen layout (craps: the layout
    the roll was thrown on) settled on the entered result, or on the round's source."""
    entered = next((c["outcome"] for c in commands if c["op"] == "result"), None)
    cls = round_class(str(start["game"]))
    options = dict(start["rules"])
    if start["before"] is not None:
        craps = Craps(options, {}, source, layout=Layout.from_json(start["before"]))
        craps.start()
        return _wires(craps.roll(entered))
    frozen = {int(n): dict(b["wagers"]) for n, b in start["boxes"].items()}
    if issubclass(cls, SharedOutcomeRound):
        return _wires(cls(options, frozen, source).start(entered))
    if entered is None:
        return _wires(cls(options, frozen, source).start())
    forced = Forced(shoe=[card(c) for c in entered["cards"]])
    return _wires(cls(options, frozen, FIRST, forced=forced).start())


def commands_of(entries: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Mapping[str, Any]]:
    """The engine commands of a round's records, refused ones left out."""
    return [body for kind, body in entries if kind == "command" and "refused" not in body]


def replay(
    start: Mapping[str, Any],
    commands: Sequence[Mapping[str, Any]],
    source: RandomSource,
    shoe: BlackjackShoe | None = None,
) -> tuple[list[Wire], PokerRound | BankedRound | None]:
    """Any round's events replayed on ``source`` (and its engine; a stadium round: None)."""
    kind = start["kind"]
    if kind == "poker":
        return replay_poker(start, commands, source)
    if kind == "stadium":
        return replay_stadium(start, commands, source), None
    return replay_banked(start, commands, source, shoe)
