"""The tournament's durable record: the snapshot a restarted server resumes from.

Theory of operation. The whole tournament (:func:`snapshot`: the lifecycle's state, every
player's chips at their table's last completed hand, the level and the seconds left in it, a
break's, the seat map, the buttons) is a fact of the ledger's store
(``tournament_snapshot:ID``, :meth:`Ledger.remember`), rewritten (:func:`save`) at the end
of every step of the runner that changed it, so in the same commit as the step's money; and
when a table settles a hand, in that table's step (:func:`record_hand`), so the hand's result
is not told before the chips it leaves are durable (commit, then speak). At the next start
(after a stop or a kill -9) :func:`restore` resumes from it: the interrupted hands are void,
the tables reopen with the same seats, the players sit out until they join again, and the
level's clock goes on from the time it had left (docs/rulings.md, "Interrupted tournament
play"). These are the runner's methods of the same names (``server/tournaments/runner.py``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec
import trio

from server.store.model import CASHIER, wallet
from server.tournaments.lifecycle import (
    Phase,
    Step,
    Tournament,
)
from server.tournaments.tables import (
    CanberraTournamentTable,
    HandDone,
    MoveOut,
    PokerTournamentTable,
)

log = logging.getLogger("croupier.tournaments")
_encode = msgspec.json.Encoder().encode  # a 90-player snapshot: ~10 KB in ~40 us

if TYPE_CHECKING:
    from server.tournaments.runner import TournamentRunner


def snapshot(runner: TournamentRunner) -> dict[str, Any]:
    """What a restarted server resumes from (see the module docstring): times are the
    seconds left (a stop pauses the clock, docs/rulings.md)."""
    now = trio.current_time()

    def left(at: float) -> float | None:
        return None if math.isinf(at) else round(max(0.0, at - now), 3)

    return {
        "version": 1,
        "tournament": runner.tournament.snapshot(),
        "level": runner.level,
        "level_ends": left(runner.level_ends),
        "level_left": round(runner.level_left, 3),
        "break_ends": left(runner.break_ends),
        "session_ends": left(runner.session_ends),
        "pausing": None if runner.pausing is None else list(runner.pausing),
        "awarding": runner.awarding,
        "rounds": runner.rounds,
        "stacks": dict(sorted(runner.stacks.items())),
        "pending": runner.pending,
        "buttons": sorted(runner.buttons.items()),
        "names": dict(sorted(runner.names.items())),
        "places": sorted([p, place, prize] for p, (place, prize) in runner.places.items()),
        "disqualifying": sorted(runner.disqualifying),
    }


def save(runner: TournamentRunner) -> None:
    """Write the snapshot as a fact of the ledger's store when it changed: in the commit
    that holds what the current step moved, before the step's frames are said; cleared
    once the tournament is complete or cancelled."""
    if runner.stopped:
        return
    text = "" if runner.over else _encode(runner.snapshot()).decode()
    if text != runner.ledger.meta.get(runner.key, ""):
        runner.ledger.remember(runner.key, text)


def record_hand(runner: TournamentRunner, item: HandDone) -> None:
    """A table settled a hand (called in the table's step): its players' chips are the
    tournament's record now; players out wait in :attr:`pending` until the runner books
    them (:meth:`on_hand_done`), so a crash between the two loses neither."""
    if runner.stopped or runner.tournament.phase not in (Phase.RUNNING, Phase.ON_BREAK):
        return
    runner.stacks.update(item.chips)
    if item.busted:
        runner.pending.append({"table": item.number, "busted": dict(item.busted)})
        for player in item.busted:
            runner.stacks[player] = 0
    if runner.conditions.rulebook.poker and item.marker is not None:
        runner.buttons[item.number] = item.marker
    runner.save()


def restore(runner: TournamentRunner, data: Mapping[str, Any]) -> None:
    """Resume the tournament a snapshot recorded (at the start, before anyone connects):
    hands a table had settled but the runner had not booked are booked; every table of
    the session reopens with its players in their seats, their chips as at their
    table's last completed hand (the hands interrupted are void, docs/rulings.md), and
    the clock goes on from the time the level (or the break) had left."""
    t = Tournament.restore(runner.conditions, runner.tournament.rng, data["tournament"])
    runner.tournament = t
    runner.resumed = True
    now = trio.current_time()

    def at(left: float | None) -> float:
        return math.inf if left is None else now + float(left)

    runner.level = int(data["level"])
    runner.level_left = float(data["level_left"])
    runner.rounds = int(data["rounds"])
    runner.awarding = bool(data["awarding"])
    pausing = data["pausing"]
    runner.pausing = None if pausing is None else (int(pausing[0]), bool(pausing[1]))
    runner.stacks = {p: int(v) for p, v in data["stacks"].items()}
    runner.buttons = {int(n): int(b) for n, b in data["buttons"]}
    runner.names = dict(data["names"])
    runner.places = {p: (place, prize) for p, place, prize in data["places"]}
    runner.disqualifying = set(data.get("disqualifying", ()))
    log.warning(
        "tournament %s resumes: %s, session %d, level %d, %d players",
        runner.id,
        t.phase.value,
        t.session,
        runner.level + 1,
        len(t.playing) or len(t.status),
    )
    for hand in data["pending"]:  # settled, told, not booked: booked now
        busted = {p: int(v) for p, v in hand["busted"].items() if t.status.get(p) == "playing"}
        if busted and t.phase is Phase.RUNNING and len(busted) < len(t.playing):
            runner._apply(t.eliminate(busted))
    if runner.over:
        return
    if t.phase is Phase.SEATING:  # the ballot was drawn, the start not made: made now;
        # the server's stop is not an entrant's absence (r 17.9): nobody forfeits by it
        for player in [p for p, s in t.status.items() if s == "entered"]:
            runner._apply(t.take_seat(player))
        runner._begin()
        return
    if t.phase not in (Phase.RUNNING, Phase.ON_BREAK):
        return
    runner.level_ends = at(data["level_ends"])
    runner.break_ends = at(data["break_ends"])
    runner.session_ends = at(data["session_ends"])
    for player in t.playing:
        chips = runner.stacks.get(player, 0)
        if chips <= 0 and runner.conditions.rulebook.poker:
            runner.problems.append(f"resume: {player} is playing with {chips} chips")
        runner.chips.move(CASHIER, wallet(player), max(chips, 0), "tournament_chips", None)
    for table in t.tables:
        actor = runner._table(table.number, table.seats)
        if isinstance(actor, PokerTournamentTable):
            actor.designated = runner.buttons.get(table.number)
        elif isinstance(actor, CanberraTournamentTable):
            actor.marker = table.marker
        runner.tables[table.number] = actor
        runner.held.add(table.number)
        runner.host.open_tournament_table(actor)
        for seat, player in sorted(table.players.items()):
            runner.at[player] = table.number
            runner._seat(player, table.number, seat)
    # a disqualification waiting for a hand the stop voided takes effect now, before the
    # next hand (docs/rulings.md, "Interrupted tournament play"); its release rebalances
    runner.disqualifying &= {p for p in t.playing if p in runner.at}
    for player in sorted(runner.disqualifying):
        runner.tables[runner.at[player]].submit(MoveOut(player, "disqualified"))
    if t.phase is Phase.RUNNING and not runner.disqualifying:
        runner._moves(t.rebalance())
    runner._publish(Step(), everyone=True)
    runner._award_if_ready()
    runner._pause_if_ready()
    for number in sorted(runner.tables):
        runner._proceed(number)
