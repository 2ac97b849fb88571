"""The tournament lifecycle (2017 r 17, 2004 r 17, ACT r 19) as a pure state machine: each
test names the rule it checks. The money is checked by booking every step's transfers on a
dict of balances, as the ledger would (double entry: the balances always sum to zero)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from server.cards import SeededRandomSource
from server.store.model import Transfer
from server.tournaments.balancing import Table
from server.tournaments.canberra import ante_order, below_minimum
from server.tournaments.conditions import Conditions, load
from server.tournaments.lifecycle import (
    Cancelled,
    Completed,
    Eliminated,
    Entered,
    ExtraRounds,
    Finished,
    Forfeited,
    Phase,
    Seated,
    Step,
    Tournament,
    TournamentError,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tournaments"
HOLDEM = load(DOCS / "act-holdem-90.toml")
CP2004 = load(DOCS / "canberra-2004-heats.toml")
CP2017 = load(DOCS / "canberra-2017-sng.toml")


class Books:
    """The ledger's view: balances moved only by transfers, each id booked once."""

    def __init__(self) -> None:
        self.balances: Counter[str] = Counter()
        self.seen: set[str] = set()
        self.kinds: Counter[str] = Counter()

    def book(self, step: Step) -> Step:
        for t in step.transfers:
            assert isinstance(t, Transfer) and t.amount > 0 and t.id not in self.seen
            self.seen.add(t.id)
            self.balances[t.source] -= t.amount
            self.balances[t.target] += t.amount
            self.kinds[t.kind] += t.amount
        assert sum(self.balances.values()) == 0
        return step


def entered(conditions: Conditions, n: int, seed: int = 1) -> tuple[Tournament, Books]:
    t = Tournament(conditions, SeededRandomSource(seed))
    books = Books()
    books.book(t.open_registration())
    for i in range(n):
        books.book(t.register(f"p{i}"))
    return t, books


def seated(conditions: Conditions, n: int, seed: int = 1) -> tuple[Tournament, Books]:
    t, books = entered(conditions, n, seed)
    if t.phase is Phase.REGISTERING:
        books.book(t.close_registration())
    for p in list(t.status):
        t.take_seat(p)
    books.book(t.start())
    return t, books


def test_entry_fee_to_the_pool_and_the_commission_act_r_19_4() -> None:
    t, books = entered(HOLDEM, 3)
    assert books.balances["tournament:act-holdem-saturday:pool"] == 3 * 10000
    assert books.balances["tournament:act-holdem-saturday:commission"] == 3 * 1000
    assert books.balances["wallet:p0"] == -11000
    assert [tr.id for tr in t.register("p3").transfers] == [
        "tournament:act-holdem-saturday:7",
        "tournament:act-holdem-saturday:8",
    ]
    assert t.pool == 4 * 10000


def test_one_entry_per_player_r_17_6() -> None:
    t, _ = entered(CP2017, 2)
    with pytest.raises(TournamentError, match="one entry"):
        t.register("p0")
    assert len(t.entries) == 2


def test_entries_only_while_registering_and_up_to_the_maximum() -> None:
    t = Tournament(CP2017, SeededRandomSource(1))
    with pytest.raises(TournamentError) as err:
        t.register("a")
    assert err.value.code == "wrong_phase"
    full = msgspec.structs.replace(HOLDEM, max_players=18, min_players=18)
    t, _ = entered(full, 18)
    with pytest.raises(TournamentError, match="full"):
        t.register("late")


def test_sit_and_go_seats_by_ballot_at_n_entries_r_17_7() -> None:
    t, _ = entered(CP2017, 6)
    assert t.phase is Phase.REGISTERING
    step = t.register("p6")
    assert t.phase is Phase.SEATING and t.session == 1
    draws = [e for e in step.events if isinstance(e, Seated)]
    assert sorted(d.player for d in draws) == [f"p{i}" for i in range(7)]
    assert len({(d.table, d.seat) for d in draws}) == 7
    assert t.draws == draws  # the ballot is part of the state: journalled
    # the same random source draws the same ballot; another source another one
    again, _ = entered(CP2017, 7)
    assert again.draws == t.draws
    other, _ = entered(CP2017, 7, seed=2)
    assert other.draws != t.draws


def test_ballot_spreads_players_within_one_r_17_8() -> None:
    t, _ = entered(HOLDEM, 40)
    t.close_registration()
    counts = sorted(len(tb.players) for tb in t.tables)
    assert len(counts) == 5 and counts[-1] - counts[0] <= 1
    assert sum(counts) == 40


def test_too_few_entries_cannot_start() -> None:
    t, _ = entered(HOLDEM, 17)
    with pytest.raises(TournamentError, match="minimum 18"):
        t.close_registration()
    assert t.phase is Phase.REGISTERING


def test_a_no_show_forfeits_and_the_fee_stays_in_the_pool_r_17_9() -> None:
    t, books = entered(CP2017, 7)
    for p in ["p0", "p1", "p2", "p3", "p4"]:
        t.take_seat(p)
    step = books.book(t.start())
    assert [e.player for e in step.events if isinstance(e, Forfeited)] == ["p5", "p6"]
    assert step.transfers == []
    assert t.pool == 7 * 1800 == books.balances["tournament:cp-2017-sng:pool"]
    assert sorted(t.playing) == ["p0", "p1", "p2", "p3", "p4"]
    assert {"p5", "p6"}.isdisjoint(p for tb in t.tables for p in tb.players.values())


def test_a_reserve_takes_the_seat_on_paying_the_fee_r_17_10() -> None:
    t, books = entered(CP2017, 6)
    books.book(t.reserve("r1"))
    books.book(t.register("p6"))
    absent_seat = next((d.table, d.seat) for d in t.draws if d.player == "p3")
    step = books.book(t.substitute("p3", "r1"))
    assert isinstance(step.events[0], Forfeited) and step.events[0].player == "p3"
    assert any(isinstance(e, Entered) and e.how == "reserve" for e in step.events)
    assert (t.draws[-1].table, t.draws[-1].seat) == absent_seat
    assert books.balances["wallet:r1"] == -2000
    assert t.pool == 8 * 1800  # the forfeited fee stays (r 17.9), the reserve's is added
    with pytest.raises(TournamentError, match="reserve"):
        t.substitute("p4", "nobody")


def test_a_reserve_who_enters_leaves_the_reserve_list() -> None:
    t, _ = entered(CP2017, 1)
    t.reserve("r")
    t.register("r")
    assert t.reserves == [] and t.status["r"] == "entered"


def test_cancelled_mid_registration_refunds_every_fee_and_commission_r_17_23() -> None:
    t, books = entered(HOLDEM, 25)
    step = books.book(t.cancel("not enough players"))
    assert t.phase is Phase.CANCELLED
    assert isinstance(step.events[-1], Cancelled) and step.events[-1].refunded == 25 * 11000
    assert all(v == 0 for v in books.balances.values())
    assert books.kinds["refund_entry_fee"] == 25 * 10000
    assert books.kinds["refund_commission"] == 25 * 1000
    with pytest.raises(TournamentError):
        t.cancel("again")


def test_a_withdrawal_keeps_the_commission_act_r_19_4_and_a_cancellation_returns_it() -> None:
    t, books = entered(HOLDEM, 3)
    player = next(iter(t.status))
    step = books.book(t.unregister(player))
    assert player not in t.status and step.events[-1].refunded == 10000  # type: ignore[attr-defined]
    assert books.balances[f"wallet:{player}"] == -1000  # the commission kept
    assert t.pool == 2 * 10000
    with pytest.raises(TournamentError):
        t.unregister(player)
    books.book(t.cancel("called off"))  # r 17.23 spirit: every fee and commission back
    assert all(v == 0 for v in books.balances.values())


def test_canberra_poker_entries_are_non_refundable_r_17_23() -> None:
    t, _ = entered(CP2004, 3)
    with pytest.raises(TournamentError) as refused:
        t.unregister(next(iter(t.status)))
    assert refused.value.code == "non_refundable"


def test_cancelled_mid_play_refunds_buy_backs_and_forfeits_too() -> None:
    t, books = entered(CP2017, 7)
    for p in ["p0", "p1", "p2", "p3", "p4", "p5"]:
        t.take_seat(p)
    books.book(t.start())  # p6 forfeits
    books.book(t.eliminate({"p0": 20}))
    books.book(t.buy_back("p0"))
    books.book(t.cancel("power failure"))
    assert all(v == 0 for v in books.balances.values())
    assert books.kinds["refund_entry_fee"] == 8 * 1800


def test_breaks_r_17_18() -> None:
    t, _ = seated(CP2017, 7)
    t.pause(15)
    assert t.phase is Phase.ON_BREAK
    with pytest.raises(TournamentError):
        t.eliminate({"p0": 10})
    t.resume()
    assert t.phase is Phase.RUNNING


def test_eliminated_players_finish_in_order_and_prizes_are_paid() -> None:
    t, books = seated(CP2017, 7)
    order = t.playing
    for p in order[:-1]:
        step = books.book(t.eliminate({p: 10}))
    assert t.phase is Phase.COMPLETE
    finished = [e for e in step.events if isinstance(e, Finished)]
    assert [f.players for f in finished] == [(p,) for p in reversed(order)]
    assert [f.prizes[0] for f in finished[:3]] == [7560, 3780, 1260]  # 60/30/10 of $126
    assert books.balances["tournament:cp-2017-sng:pool"] == 0
    assert books.balances[f"wallet:{order[-1]}"] == 7560 - 2000
    assert isinstance(step.events[-1], Completed)


def test_eliminated_in_the_same_round_share_2004_r_17_24() -> None:
    one = msgspec.structs.replace(CP2004, sessions=CP2004.sessions[1:], min_players=7)
    one = msgspec.structs.replace(one, max_players=7, breaks=[])
    t, books = seated(one, 7)
    a, b, c, d, e, f, g = t.playing
    for p in (a, b, c, d):
        books.book(t.eliminate({p: 50}))
    step = books.book(t.eliminate({e: 150, f: 10}))  # one round: 2nd and 3rd shared
    paid: dict[str, int] = {}
    for fin in (x for x in step.events if isinstance(x, Finished)):
        paid.update(zip(fin.players, fin.prizes, strict=True))
    pool = 7 * 4500
    assert paid[g] == pool * 35 // 100
    assert paid[e] + paid[f] == pool * 22 // 100 + pool * 15 // 100
    assert abs(paid[e] - paid[f]) <= 1


def test_same_round_by_chips_for_poker() -> None:
    sng = load(DOCS / "act-manila-sng.toml")
    t, books = seated(sng, 9)
    first, *rest = t.playing
    for p in rest[:-2]:
        books.book(t.eliminate({p: 3000}))
    x, y = rest[-2:]
    step = t.eliminate({x: 500, y: 900})  # y had more chips at the start: 2nd
    fins = [e for e in step.events if isinstance(e, Finished)]
    assert [f.players for f in fins[:3]] == [(first,), (y,), (x,)]


def test_canberra_2004_heats_extra_rounds_and_a_final_r_17_14_r_17_23() -> None:
    t, books = seated(CP2004, 42, seed=7)
    assert len(t.tables) == 6 and t.session == 1
    # r 17.15: each table's antes start at its starting marker and go clockwise
    table = t.tables[0]
    order = ante_order(table.players, table.marker)
    assert order[0] == table.players[table.marker]
    assert order == [table.players[b] for b in sorted(table.players)]
    chips = dict(t.chips)
    rng = random.Random(3)
    # r 17.14: before a round, those below the table minimum are eliminated together
    for p in t.playing[:10]:
        chips[p] = rng.randrange(0, 100)
    limits = CP2004.session_limits(1)
    assert limits is not None
    out = below_minimum({p: chips[p] for p in t.playing}, limits)
    step = books.book(t.eliminate({p: chips[p] for p in out}))
    assert [e.first for e in step.events if isinstance(e, Eliminated)] == [33]  # one group
    books.book(t.rebalance())
    # end of the heat: a tie across the 7th place (advance 7) plays extra rounds
    left = t.playing
    final = {p: 1000 + i for i, p in enumerate(left)}
    top = sorted(left, key=final.__getitem__, reverse=True)
    final[top[6]] = final[top[7]]
    step = t.end_session(final)
    assert step.events == [ExtraRounds(players=tuple(sorted((top[6], top[7]), key=left.index)))]
    assert t.phase is Phase.RUNNING
    final[top[6]] += 5
    step = books.book(t.end_session(final))
    assert t.phase is Phase.SEATING and t.session == 2
    assert sorted(e.player for e in step.events if isinstance(e, Seated)) == sorted(top[:7])
    for p in top[:7]:
        t.take_seat(p)
    books.book(t.start())
    assert t.chips == dict.fromkeys(top[:7], 5000)  # chips at each session's start
    # 2004 r 17.23: equal chips for a paid place at the end: extra rounds
    final2 = dict.fromkeys(t.playing, 3000)
    assert isinstance(t.end_session(final2).events[0], ExtraRounds)
    final2 = {p: 3000 + 10 * i for i, p in enumerate(t.playing)}
    step = books.book(t.end_session(final2))
    assert t.phase is Phase.COMPLETE
    assert books.balances["tournament:cp-2004-heats:pool"] == 0
    assert books.kinds["prize"] == 42 * 4500
    places = [e for e in step.events if isinstance(e, Finished)]
    assert places[0].players == (max(final2, key=final2.__getitem__),)
    assert sum(len(f.players) for f in places) == 42


def test_canberra_2017_ties_share_at_the_end_r_17_3_a_xii_c() -> None:
    t, books = seated(CP2017, 7)
    chips = dict.fromkeys(t.playing, 1000)
    a, b = t.playing[:2]
    chips[a] = chips[b] = 4000  # 1st and 2nd tie: (60% + 30%) / 2 each
    step = books.book(t.end_session(chips))
    fin = next(e for e in step.events if isinstance(e, Finished))
    assert fin.first == 1 and set(fin.players) == {a, b}
    assert fin.prizes == (7 * 1800 * 90 // 100 // 2,) * 2


def test_buy_backs_as_the_conditions_allow_r_17_3_a_ii_f() -> None:
    t, books = seated(HOLDEM, 20)
    p = t.playing[0]
    with pytest.raises(TournamentError, match="not out"):
        t.buy_back(p, level=1)
    books.book(t.eliminate({p: 100}))
    with pytest.raises(TournamentError, match="level 4"):
        t.buy_back(p, level=5)
    step = books.book(t.buy_back(p, level=2))
    assert any(isinstance(e, Entered) and e.how == "buy_back" for e in step.events)
    assert p in t.playing and t.out == [] and t.issued == 21 * 10000
    books.book(t.eliminate({p: 100}))
    with pytest.raises(TournamentError, match="no buy-back left"):
        t.buy_back(p, level=2)
    no = msgspec.structs.replace(CP2004, min_players=14)
    t2, _ = seated(no, 14)
    t2.eliminate({t2.playing[0]: 10})
    with pytest.raises(TournamentError):
        t2.buy_back(t2.playing[0])


def test_poker_chips_are_conserved_at_the_end_of_a_session() -> None:
    timed = msgspec.structs.replace(
        CP2017, game="holdem-act", limits=None, levels=HOLDEM.levels, commission=200
    )
    t, _ = seated(timed, 7)
    chips = dict.fromkeys(t.playing, 2000)
    chips[t.playing[0]] += 1
    with pytest.raises(TournamentError, match="not the 14000 issued"):
        t.end_session(chips)


def run_poker(seed: int) -> tuple[list[object], list[Transfer]]:
    """A 90-player, ten-table hold'em tournament to a winner, with random eliminations."""
    t, books = seated(HOLDEM, 90, seed=seed)
    events: list[object] = []
    transfers: list[Transfer] = []
    rng = random.Random(seed)
    assert len(t.tables) == 10
    while t.phase is Phase.RUNNING:
        left = t.playing
        gone = rng.sample(left, rng.randint(1, min(3, len(left) - 1)))
        step = books.book(t.eliminate({p: rng.randrange(1, 4) * 100 for p in gone}))
        events += step.events
        transfers += step.transfers
        if t.phase is Phase.RUNNING:
            step = t.rebalance()
            events += step.events
            counts = [len(tb.players) for tb in t.tables]
            assert max(counts) - min(counts) <= 1
            assert sum(counts) == len(t.playing)
            assert all(isinstance(tb, Table) for tb in t.tables)
    assert books.kinds["entry_fee"] == 90 * 10000 == t.pool
    assert books.kinds["tournament_commission"] == 90 * 1000
    assert books.kinds["prize"] == t.pool
    assert books.balances["tournament:act-holdem-saturday:pool"] == 0
    places = [e for e in events if isinstance(e, Finished)]
    assert sum(len(f.players) for f in places) == 90
    return events, transfers


def test_ninety_players_to_a_winner_deterministic() -> None:
    assert run_poker(11) == run_poker(11)


def test_canberra_seats_are_kept_for_the_session_r_17_7() -> None:
    t, _ = seated(CP2004, 30)
    t.eliminate({p: 10 for p in t.playing[:12]})

    def seats() -> dict[str, tuple[int, int]]:
        return {p: (tb.number, s) for tb in t.tables for s, p in tb.players.items()}

    before = seats()
    assert t.rebalance().events == []
    assert seats() == before and len(before) == 18


def test_nobody_can_wager_the_minimum_so_ties_share_without_extra_rounds_2004() -> None:
    """2004 r 17.23 wants extra rounds for a tie, but when every player is below the table
    minimum none can be played (r 17.14): the tied players share (our reading)."""
    t, books = seated(CP2004, 14)
    chips = {p: 3000 for p in t.playing}
    assert isinstance(t.end_session(chips).events[0], ExtraRounds)  # a tie across the cut
    step = books.book(t.before_round(dict.fromkeys(t.playing, 40)))  # all below 100
    assert t.phase is Phase.SEATING and t.session == 2  # all fourteen progress together
    assert len([e for e in step.events if isinstance(e, Seated)]) == 14


def test_before_each_round_below_the_minimum_is_out_r_17_14() -> None:
    t, books = seated(CP2017, 7)
    a, b, c, *rest = t.playing
    chips = dict.fromkeys(t.playing, 2000)
    assert t.before_round(chips).events == []
    chips.update({a: 49, b: 0})  # the table minimum is 50
    step = books.book(t.before_round(chips))
    assert step.events == [Eliminated(players=tuple(sorted((a, b), key=[a, b].index)), first=6)]
    assert set(t.playing) == {c, *rest}
    # everyone below the minimum: the session ends on the chip counts
    last = {p: 10 + i for i, p in enumerate(t.playing)}
    step = books.book(t.before_round(last))
    assert t.phase is Phase.COMPLETE
    with pytest.raises(TournamentError):
        seated(HOLDEM, 18)[0].before_round({})


def test_the_tables_report_their_marker_for_moves_that_keep_position() -> None:
    t, _ = seated(HOLDEM, 18)
    number = t.tables[0].number
    t.mark(number, 5)
    assert t.tables[0].marker == 5 and all(tb.marker != 5 or tb.number == number for tb in t.tables)


def run_restored(seed: int, restore: bool) -> tuple[list[object], list[Transfer], Books]:
    """30 hold'em players to a winner with a buy-back, breaks and table breaking; with
    ``restore``, the tournament is rebuilt from its snapshot (through JSON) after every
    step, as a restarted server rebuilds it (the same random source goes on)."""
    t, books = seated(HOLDEM, 30, seed=seed)
    rng = random.Random(seed)
    events: list[object] = []
    transfers: list[Transfer] = []

    def record(step: Step) -> None:
        nonlocal t
        books.book(step)
        events.extend(step.events)
        transfers.extend(step.transfers)
        if restore:
            data = json.loads(json.dumps(t.snapshot()))
            back = Tournament.restore(HOLDEM, t.rng, data)
            assert back.snapshot() == t.snapshot()
            t = back

    while t.phase is Phase.RUNNING:
        left = t.playing
        gone = rng.sample(left, rng.randint(1, min(3, len(left) - 1)))
        record(t.eliminate({p: rng.randrange(1, 4) * 100 for p in gone}))
        if t.phase is not Phase.RUNNING:
            break
        out = [p for group in t.out for p in group if not t.buy_backs.get(p)]
        if out and rng.random() < 0.3:
            record(t.buy_back(out[-1], level=1))
        record(t.rebalance())
        if rng.random() < 0.2:
            record(t.pause(10))
            record(t.resume())
    assert t.phase is Phase.COMPLETE and books.kinds["prize"] == t.pool
    return events, transfers, books


def test_a_tournament_restored_from_its_snapshot_plays_on_as_the_original() -> None:
    """Interrupted tournament play (docs/rulings.md): everything the lifecycle holds is in
    its snapshot, so a tournament restored after every step (buy-backs, breaks, table
    breaking) gives the same events, transfers and places as one never interrupted."""
    plain = run_restored(7, restore=False)
    restored = run_restored(7, restore=True)
    assert plain[0] == restored[0] and plain[1] == restored[1]
    assert plain[2].balances == restored[2].balances
    assert any(isinstance(e, Entered) and e.how == "buy_back" for e in plain[0])
