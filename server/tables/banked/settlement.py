"""Settlement of a banked round: typed results built from the engine's events (Sch 19 s7).

Theory of operation. When the engine completes a round, :class:`Settlement` reads its events
once (:func:`read_events`: each wager's settlements, the dealer's hand and status, the boxes
whose jackpot hand won) and walks the places that had money in the round, the box's player
first, then the other players on the box (:class:`Stakeholding`). For each it books every
wager's stake and net (``server/tables/books.py``: a void round returns every stake) and
builds a frozen :class:`WagerResult`; a box's results make a :class:`PlaceResult` (the box's
player's carries the other players' as ``others``), and each account's make its recall
(:class:`Recall`, s3(2)(f)-(h)). A linked jackpot wager is not settled here: its prize is
the pool's (``pending`` with the winning hand, paid later by the desk, then
:func:`with_prize` makes the recall's new value); a void round returns it.

Nothing is changed in place: every result is a new frozen value, and the wire shape is
``msgspec.to_builtins`` of it (absent optional fields are left off).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET, UnsetType

from protocol.messages import Balance
from server.games.banked.base import (
    DealerDeclared,
    Event,
    HandShown,
    JackpotPaid,
    RoundResult,
    WagerSettled,
)

if TYPE_CHECKING:
    from server.tables.banked.table import BankedTable

__all__ = [
    "DealerResult",
    "PlaceResult",
    "Recall",
    "RoundFacts",
    "SettledRound",
    "Settlement",
    "Stakeholding",
    "WagerResult",
    "read_events",
    "with_prize",
]


class WagerResult(msgspec.Struct, frozen=True):
    """One wager's result: ``net`` ``None`` while a jackpot prize is pending (``hand``)."""

    stake: int
    net: int | None
    outcome: str
    detail: str | UnsetType = UNSET
    hand: str | UnsetType = UNSET


class PlaceResult(msgspec.Struct, frozen=True):
    """A place's result (a box's player, or another player on the box: ``others``)."""

    player: str
    wagers: dict[str, WagerResult]
    bet: int
    paid: int
    others: dict[str, PlaceResult] | UnsetType = UNSET


class DealerResult(msgspec.Struct, frozen=True):
    cards: list[str] | UnsetType = UNSET
    hand: str | UnsetType = UNSET
    status: str | UnsetType = UNSET


class Recall(msgspec.Struct, frozen=True):
    """An account's previous round at the table (s3(2)(f)-(h)): bet, result and win."""

    bet_total: int
    paid_total: int
    boxes: dict[str, PlaceResult]
    round: int
    round_id: str
    state: str
    dealer: DealerResult
    net: int


@dataclass(frozen=True)
class Stakeholding:
    """Who had money in the round on a box: the box's player (``place`` None) or another
    player on it, with the stakes and nets the engine holds for that place."""

    box: int
    place: str | None
    account: str
    stakes: Mapping[str, int]
    nets: Mapping[str, int]


@dataclass(frozen=True)
class RoundFacts:
    """What settlement reads from the engine's events."""

    settled: Mapping[tuple[int, str], Sequence[WagerSettled]]
    jackpot_hands: Mapping[int, str]
    dealer: DealerResult


def read_events(events: Iterable[Event]) -> RoundFacts:
    """Each wager's settlements (by box and label), the winning jackpot hands, the dealer."""
    settled: dict[tuple[int, str], list[WagerSettled]] = {}
    hands: dict[int, str] = {}
    cards: list[str] | UnsetType = UNSET
    hand: str | UnsetType = UNSET
    status: str | UnsetType = UNSET
    for e in events:
        if type(e) is WagerSettled:
            settled.setdefault((e.box, e.wager), []).append(e)
        elif type(e) is JackpotPaid:
            hands[e.box] = e.hand
        elif type(e) is HandShown and e.box is None:
            cards, hand = list(e.cards), e.hand
        elif type(e) is DealerDeclared:
            status = e.status
    return RoundFacts(settled, hands, DealerResult(cards, hand, status))


def outcome_of(settled: Sequence[WagerSettled], net: int, void: bool) -> tuple[str, str]:
    """A wager's outcome and detail from its settlements (a wager settled in several parts,
    e.g. split hands, is a win or a loss by its total)."""
    if void:
        return "returned", ""
    if not settled:
        return "push", ""
    if len(settled) == 1:
        return settled[0].outcome, settled[0].detail
    outcome = "win" if net > 0 else "lose" if net < 0 else "push"
    return outcome, "; ".join(e.detail for e in settled if e.detail)


@dataclass(frozen=True)
class SettledRound:
    """A settled round: the results by box (``"N"``; another player's inside its box), each
    account's recall, and the jackpot's part."""

    boxes: dict[str, PlaceResult]
    recalls: dict[str, Recall]
    jackpot_stakes: dict[int, int]
    jackpot_pending: list[int]
    facts: RoundFacts


class Settlement:
    """Books a completed round's wagers and builds its results (module docstring)."""

    def __init__(self, table: BankedTable) -> None:
        self.table = table  # its books and ledger: a tournament's table plays in chips
        #: each account's last round here, for recall (s3(2)(f)-(h))
        self.recalls: dict[str, Recall] = {}

    def settle(
        self,
        result: RoundResult,
        events: Iterable[Event],
        places: Sequence[Stakeholding],
        names: Mapping[str, str],
        round_no: int,
        round_id: str,
        linked: bool,
    ) -> SettledRound:
        """Book the round (``linked``: the jackpot wagers are the pool's) and build its
        results."""
        t, void = self.table, result.state == "void"
        facts = read_events(events)
        jackpot_stakes: dict[int, int] = {}
        rows: list[tuple[Stakeholding, PlaceResult]] = []
        for p in sorted(places, key=lambda p: (p.box, p.place or "")):  # a box's player first
            wagers: dict[str, WagerResult] = {}
            back = 0
            for name in [*p.stakes, *(n for n in p.nets if n not in p.stakes)]:
                stake = p.stakes.get(name, 0)
                if linked and name == "jackpot":
                    jackpot_stakes[p.box] = stake
                    wagers[name] = self._jackpot(p, stake, void, facts)
                    back += stake if void else 0
                    continue
                net = 0 if void else p.nets.get(name, 0)
                t.books.settle_wager(p.account, p.box, stake, net, p.place)
                back += stake + net
                label = name if p.place is None else f"{p.place} {name}"
                outcome, detail = outcome_of(facts.settled.get((p.box, label), ()), net, void)
                wagers[name] = WagerResult(stake, net, outcome, detail)
            if back:  # the wallet's new balance, after each place's money went back
                t.send_to(p.account, Balance(t.ledger.balance(p.account)))
            place = PlaceResult(names.get(p.account, ""), wagers, sum(p.stakes.values()), back)
            rows.append((p, place))
        boxes = _with_others(rows)
        recalls: dict[str, Recall] = {}
        for p, place in rows:
            key = str(p.box) if p.place is None else f"{p.box}:{p.place}"
            entry = boxes[key] if p.place is None else place
            old = recalls.get(p.account)
            recalls[p.account] = Recall(
                bet_total=(old.bet_total if old else 0) + place.bet,
                paid_total=(old.paid_total if old else 0) + place.paid,
                boxes={**(old.boxes if old else {}), key: entry},
                round=round_no,
                round_id=round_id,
                state=result.state,
                dealer=facts.dealer,
                net=0,
            )
        recalls = {
            a: msgspec.structs.replace(r, net=r.paid_total - r.bet_total)
            for a, r in recalls.items()
        }
        pending = sorted(facts.jackpot_hands) if linked and not void else []
        boxes_out = {k: v for k, v in boxes.items() if ":" not in k}
        self.recalls.update(recalls)
        return SettledRound(boxes_out, recalls, jackpot_stakes, pending, facts)

    def prize(
        self, account: str, round_no: int, box: int, amount: int, stakes: Mapping[int, int]
    ) -> Recall | None:
        """``account``'s recall once the pool paid ``amount`` on ``box``'s jackpot wager of
        round ``round_no`` (``None``: its recall is of another round by now)."""
        recall = self.recalls.get(account)
        if recall is None or recall.round != round_no:
            return None
        self.recalls[account] = with_prize(recall, box, amount, stakes.get(box, 0))
        return self.recalls[account]

    def _jackpot(self, p: Stakeholding, stake: int, void: bool, facts: RoundFacts) -> WagerResult:
        """A linked jackpot wager: returned (void), pending on its hand, or lost."""
        if void:
            self.table.books.jackpot_stake_returned(p.account, stake)
            return WagerResult(stake, 0, "returned")
        if p.box in facts.jackpot_hands:
            return WagerResult(stake, None, "pending", hand=facts.jackpot_hands[p.box])
        return WagerResult(stake, -stake, "lose")


def _with_others(rows: Sequence[tuple[Stakeholding, PlaceResult]]) -> dict[str, PlaceResult]:
    """Results by key: ``"N"`` for a box's player (carrying the box's other players as
    ``others``), ``"N:P2"`` for another player."""
    others: dict[int, dict[str, PlaceResult]] = {}
    for p, place in rows:
        if p.place is not None:
            others.setdefault(p.box, {})[p.place] = place
    out: dict[str, PlaceResult] = {}
    for p, place in rows:
        if p.place is None:
            more = others.get(p.box)
            out[str(p.box)] = place if more is None else msgspec.structs.replace(place, others=more)
        else:
            out[f"{p.box}:{p.place}"] = place
    return out


def with_prize(recall: Recall, box: int, amount: int, stake: int) -> Recall:
    """The recall once the pool paid ``amount`` on ``box``'s jackpot wager (jackpots.md 5.5)."""
    entry = recall.boxes.get(str(box))
    boxes = recall.boxes
    if entry is not None:
        won = msgspec.structs.replace(entry.wagers["jackpot"], net=amount - stake, outcome="win")
        entry = msgspec.structs.replace(
            entry, paid=entry.paid + amount, wagers={**entry.wagers, "jackpot": won}
        )
        boxes = {**boxes, str(box): entry}
    return msgspec.structs.replace(
        recall,
        paid_total=recall.paid_total + amount,
        net=recall.net + amount,
        boxes=boxes,
    )


def to_wire(value: Any) -> Any:
    """A result as plain data (absent optional fields left off)."""
    return msgspec.to_builtins(value)
