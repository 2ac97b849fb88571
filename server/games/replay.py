"""Replaying a journalled round through its engine (``croupier verify``:
``server/records/verify.py``).

A journalled round (``server/store/journal.py``) holds what built its engine (``start``) and
the engine commands in order (``command``). :func:`replay` rebuilds the engine on a random
source and feeds it the commands: on :class:`~server.fair.SecretSource` keyed by the deal's
key (the secret with the seeds), it deals what the table dealt; on the cards a player was
shown (:func:`replay_poker` with fixed hole cards and board), it plays the hand again as far
as those cards decide it. The engines are deterministic: same deal + same commands = same
events, same settlement.

Each journal command kind is a typed record (a msgspec Struct tagged by its ``op``): the
commands are decoded once (:func:`decode`, :func:`commands_of`) and replayed through a map
``{kind: handler}`` per kind of round (:data:`POKER`, :data:`BANKED`). The stored format is
the journal's own body (``{"op": ..., fields}``, ``server/store/journal.py``), unchanged:
rows already on disk decode as they are (a field the replay does not use, such as
``refused`` or ``pre``, is ignored; a kind no engine takes, such as a banked table's
``wager``, is left out). This module reads the journal's bodies only: it imports nothing of
``server/store``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import msgspec

from server.cards import FIRST, RandomSource, card, card_str
from server.games.banked.base import Argument, BankedRound, Forced, JackpotState
from server.games.banked.blackjack.engine import BlackjackRound
from server.games.banked.blackjack.shoe import BlackjackShoe
from server.games.banked.craps import Craps, Layout
from server.games.banked.outcome import SharedOutcomeRound
from server.games.banked.scenario import round_class
from server.games.events import Event
from server.games.poker import PokerRound, rules_for

Wire = dict[str, Any]


class Command(msgspec.Struct, frozen=True, tag_field="op"):
    """One engine command of a journalled round (the journal's ``command`` body)."""


class Act(Command, frozen=True, tag="act"):
    """A poker player's action (``PokerRound.act``)."""

    seat: int
    verb: str
    amount: int | None = None


class SeatTimeout(Command, frozen=True, tag="timeout"):
    """A poker seat's turn timer ran out (``PokerRound.timeout``)."""

    seat: int


class Void(Command, frozen=True, tag="void"):
    """The round voided (a misdeal, an interruption): every engine's ``void``."""

    reason: str


class Decide(Command, frozen=True, tag="decide"):
    """A banked decision on a box; ``player``: a blackjack backer's (BJ s29)."""

    box: int
    verb: str
    amount: Argument = None
    player: str | None = None


class DeclineOffers(Command, frozen=True, tag="decline_offers"):
    """A blackjack player's open offers declined (``BlackjackRound.decline_offers``)."""

    box: int
    player: str | None = None


class Insufficient(Command, frozen=True, tag="insufficient"):
    """A box that cannot fund its next wager (``BankedRound.insufficient``)."""

    box: int


class BoxTimeout(Command, frozen=True, tag="timeout"):
    """A box's decision timer ran out (``BankedRound.timeout``)."""

    box: int


class Result(Command, frozen=True, tag="result"):
    """A stadium round's entered result (``server/tables/stadium.py``)."""

    outcome: dict[str, Any]


PokerCommand = Act | SeatTimeout | Void
BankedCommand = Decide | DeclineOffers | Insufficient | BoxTimeout | Void
StadiumCommand = Result

_E = TypeVar("_E")
#: a kind of command -> how its engine takes it (each handler typed on its own kind)
Handlers = dict[type[Command], Callable[[_E, Any], Sequence[Event]]]


def _act(rnd: PokerRound, c: Act) -> Sequence[Event]:
    return rnd.act(c.seat, c.verb, c.amount)


def _seat_timeout(rnd: PokerRound, c: SeatTimeout) -> Sequence[Event]:
    return rnd.timeout(c.seat)


def _void(rnd: PokerRound | BankedRound, c: Void) -> Sequence[Event]:
    return rnd.void(c.reason)


def _decide(rnd: BankedRound, c: Decide) -> Sequence[Event]:
    return rnd.decide(c.box, c.verb, c.amount, {"player": c.player} if c.player else None)


def _decline(rnd: BankedRound, c: DeclineOffers) -> Sequence[Event]:
    assert isinstance(rnd, BlackjackRound)
    return rnd.decline_offers(c.box, c.player)


def _insufficient(rnd: BankedRound, c: Insufficient) -> Sequence[Event]:
    return rnd.insufficient(c.box)


def _box_timeout(rnd: BankedRound, c: BoxTimeout) -> Sequence[Event]:
    return rnd.timeout(c.box)


POKER: Handlers[PokerRound] = {Act: _act, SeatTimeout: _seat_timeout, Void: _void}
BANKED: Handlers[BankedRound] = {
    Decide: _decide,
    DeclineOffers: _decline,
    Insufficient: _insufficient,
    BoxTimeout: _box_timeout,
    Void: _void,
}

#: the kind of round -> the commands its engine takes
_UNIONS: dict[str, Any] = {
    "poker": PokerCommand,
    "stadium": StadiumCommand,
    "banked": BankedCommand,
}


def _ops(union: Any) -> frozenset[str]:
    """The ``op`` tags of a union of :class:`Command` kinds."""
    kinds = getattr(union, "__args__", (union,))
    return frozenset(str(k.__struct_config__.tag) for k in kinds)


_OPS = {kind: _ops(union) for kind, union in _UNIONS.items()}


def decode(kind: str, commands: Sequence[Mapping[str, Any] | Command]) -> list[Command]:
    """The typed commands of a round of ``kind`` ("poker", "stadium", else banked), decoded
    once from the journal's bodies (records already decoded pass as they are); a kind its
    engine never takes (a ``wager``, a ``place``) is left out."""
    union = _UNIONS.get(kind, _UNIONS["banked"])
    ops = _OPS.get(kind, _OPS["banked"])
    out: list[Command] = []
    for c in commands:
        if isinstance(c, Command):
            out.append(c)
        elif c.get("op") in ops:
            out.append(msgspec.convert(c, union, strict=False))
    return out


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


def _wires(events: Sequence[Event]) -> list[Wire]:
    return [ev.to_wire() for ev in events]


def replay_poker(
    start: Mapping[str, Any],
    commands: Sequence[Mapping[str, Any] | Command],
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
    out = _wires(poker.start())
    for c in decode("poker", commands):
        out += _wires(POKER[type(c)](poker, c))
    return out, poker


def replay_banked(
    start: Mapping[str, Any],
    commands: Sequence[Mapping[str, Any] | Command],
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
    for c in decode("banked", commands):
        out += _wires(BANKED[type(c)](banked, c))
    return out, banked


def replay_stadium(
    start: Mapping[str, Any],
    commands: Sequence[Mapping[str, Any] | Command],
    source: RandomSource,
) -> list[Wire]:
    """A stadium round (``server/tables/stadium/``): the frozen layout (craps: the layout
    the roll was thrown on) settled on the entered result, or on the round's source."""
    entered = next((c.outcome for c in decode("stadium", commands) if isinstance(c, Result)), None)
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


def commands_of(entries: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Command]:
    """The engine commands of a round's records (its ``start`` says the kind of round),
    typed, refused ones left out."""
    kind = next((str(body["kind"]) for k, body in entries if k == "start"), "banked")
    return decode(kind, [body for k, body in entries if k == "command" and "refused" not in body])


def replay(
    start: Mapping[str, Any],
    commands: Sequence[Mapping[str, Any] | Command],
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
