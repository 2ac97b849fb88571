"""Craps (QLD Sch 4) property tests. Every wager in every state is settled on all 36 dice
pairs against an oracle written here from s4, s7, s10-s12 and s14-s17 (not from the engine's
tables); random sessions (100 sessions x 100 rolls, bets placed, marked and removed between
rolls) conserve money, keep the nets equal to the ledger, and match the oracle roll by roll,
figures and the layout left standing alike."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.errors import IllegalAction
from server.games.banked.craps import Craps, Layout, Standing

OPTS = {"minimum": 100, "maximum": 1_000_000}
POINTS = (4, 5, 6, 8, 9, 10)
PAIRS = list(itertools.product(range(1, 7), repeat=2))
#: s10(1) place odds, s11(2) / s14(5) / s16(5) true odds, s12(2) / s15(5) / s17(5) lay odds
PLACE = {4: (9, 5), 10: (9, 5), 5: (7, 5), 9: (7, 5), 6: (7, 6), 8: (7, 6)}
TRUE = {4: (2, 1), 10: (2, 1), 5: (3, 2), 9: (3, 2), 6: (6, 5), 8: (6, 5)}
LAY = {4: (1, 2), 10: (1, 2), 5: (2, 3), 9: (2, 3), 6: (5, 6), 8: (5, 6)}
#: s10(1) one-roll odds per total, "x to 1" as (win, per); None: the wager loses
ONE_ROLL = {
    "field": {2: (2, 1), 3: (1, 1), 4: (1, 1), 9: (1, 1), 10: (1, 1), 11: (1, 1), 12: (2, 1)},
    "any7": {7: (4, 1)},
    "any_craps": {2: (15, 2), 3: (15, 2), 12: (15, 2)},
    "craps2": {2: (33, 1)},
    "craps3": {3: (16, 1)},
    "craps12": {12: (33, 1)},
    "eleven": {11: (16, 1)},
}
HORN = {2: 33, 3: 16, 11: 16, 12: 33}
#: s7(1)-(2): the on-marker categories (A3)
CATEGORY = {"place": "pb", "buy": "pb", "hard": "hard", "come_odds": "co"}


def kind_and_number(name: str) -> tuple[str, int | None]:
    if name in ("big6", "big8"):
        return "big", int(name[3])
    head, _, tail = name.rpartition("_")
    if tail.isdigit():
        return head, int(tail)
    return name, None


def win(stake: int, odds: tuple[int, int]) -> int:
    return stake * odds[0] // odds[1]


def oracle(w: Standing, puck: int | None, working: bool, d1: int, d2: int) -> tuple[int, Any]:
    """(net, after) for one wager on one roll: after is ``"stays"``, ``"gone"``, a point the
    come bet travels to, or a horn's remaining stake as ``("horn", cents)``."""
    t, pair = d1 + d2, d1 == d2
    kind, n = kind_and_number(w.name)
    s = w.stake
    if kind in ("horn", "horn_high"):
        units = {x: s // (4 if kind == "horn" else 5) for x in HORN}
        if kind == "horn_high":
            assert n is not None
            units[n] *= 2
        if w.units is not None:
            units = dict(w.units)
        won = units.get(t, 0)
        return won * HORN.get(t, 0) - (s - won), (("horn", won) if won else "gone")
    if kind in ONE_ROLL:
        odds = ONE_ROLL[kind].get(t)
        return (win(s, odds), "stays") if odds else (-s, "gone")
    if kind == "win":  # s4 win bet
        if puck is None:
            if t in (7, 11):
                return s, "stays"
            if t in (2, 3, 12):
                return -s, "gone"
            return 0, "stays"
        return (s, "stays") if t == puck else (-s, "gone") if t == 7 else (0, "stays")
    if kind == "dont_win":  # s4 don't win bet, bar 2
        if puck is None:
            if t in (3, 12):
                return s, "stays"
            if t in (7, 11):
                return -s, "gone"
            return 0, "stays"
        return (s, "stays") if t == 7 else (-s, "gone") if t == puck else (0, "stays")
    if kind == "come":
        if w.point is None:
            if t in (7, 11):
                return s, "gone"
            if t in (2, 3, 12):
                return -s, "gone"
            return 0, t
        return (s, "gone") if t == w.point else (-s, "gone") if t == 7 else (0, "stays")
    if kind == "dont_come":
        if w.point is None:
            if t in (3, 12):
                return s, "gone"
            if t == 2:
                return 0, "gone"
            if t in (7, 11):
                return -s, "gone"
            return 0, t
        return (s, "gone") if t == 7 else (-s, "gone") if t == w.point else (0, "stays")
    if kind in ("win_odds", "dont_win_odds"):
        assert puck is not None
        take = kind == "win_odds"
        if t == puck:
            return (win(s, TRUE[puck]), "gone") if take else (-s, "gone")
        if t == 7:
            return (-s, "gone") if take else (win(s, LAY[puck]), "gone")
        return 0, "stays"
    assert n is not None
    if kind in ("come_odds", "dont_come_odds"):
        take = kind == "come_odds"
        if t not in (7, n):
            return 0, "stays"
        if not working:
            return 0, "gone"  # returned with the come bet's decision (digest §3.1)
        if (t == n) == take:
            return win(s, TRUE[n] if take else LAY[n]), "gone"
        return -s, "gone"
    if kind in ("place", "buy", "big", "hard", "lay"):
        if not working or t not in (7, n):
            return 0, "stays"
        if kind == "lay":
            return (win(s, LAY[n]), "gone") if t == 7 else (-s, "gone")
        if t == 7 or (kind == "hard" and not pair):
            return -s, "gone"
        if kind == "hard":
            return win(s, (15, 2) if n in (4, 10) else (19, 2)), "stays"
        if kind == "buy":
            return win(s, TRUE[n]), "gone"
        return win(s, PLACE[n] if kind == "place" else (1, 1)), "stays"
    raise AssertionError(w.name)


def working(w: Standing, layout: list[Standing], puck: int | None) -> bool:
    """s7: off on a come-out roll unless marked on, or a similar wager is (A3)."""
    kind = kind_and_number(w.name)[0]
    if puck is not None or kind not in CATEGORY:
        return True
    if w.marker is not None:
        return w.marker
    return any(
        x.marker is True and CATEGORY.get(kind_and_number(x.name)[0]) == CATEGORY[kind]
        for x in layout
        if x.box == w.box
    )


# ------------------------------------------------------------------ every wager, 36 pairs

NUMBERED = [
    *(f"{k}_{n}" for k in ("place", "buy", "lay") for n in POINTS),
    *(f"hard_{n}" for n in (4, 6, 8, 10)),
    *(f"horn_high_{n}" for n in (2, 3, 11, 12)),
]
PLAIN = ["win", "dont_win", "come", "dont_come", "big6", "big8", "horn", *ONE_ROLL]
ODDS = [
    "win_odds",
    "dont_win_odds",
    *(f"{k}_{n}" for k in ("come_odds", "dont_come_odds") for n in POINTS),
]


@st.composite
def single_wagers(draw: Any) -> tuple[Layout, Standing]:
    name = draw(st.sampled_from(PLAIN + NUMBERED + ODDS))
    kind, n = kind_and_number(name)
    puck = draw(st.sampled_from([None, *POINTS]))
    if kind in ("win_odds", "dont_win_odds"):
        puck = draw(st.sampled_from(POINTS))
    unit = 500 if kind == "horn_high" else 400 if kind == "horn" else 100
    stake = draw(st.integers(1, 200)) * unit
    point = None
    line: list[Standing] = []
    if kind in ("come", "dont_come"):
        point = draw(st.sampled_from([None, *POINTS]))
    if kind in ("come_odds", "dont_come_odds"):
        line = [Standing(1, kind.replace("_odds", ""), 1000, point=n)]
    if kind in ("win_odds", "dont_win_odds"):
        line = [Standing(1, kind.replace("_odds", ""), 1000)]
    w = Standing(1, name, stake, point=point, marker=draw(st.sampled_from([None, True, False])))
    if kind not in CATEGORY:
        w.marker = None
    return Layout(point=puck, wagers=[*line, w]), w


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(single_wagers())
def test_every_wager_on_all_36_pairs_matches_the_oracle(case: tuple[Layout, Standing]) -> None:
    layout, w = case
    on = working(w, layout.wagers, layout.point)
    for d1, d2 in PAIRS:
        rnd = Craps(OPTS, {}, SeededRandomSource(0), layout=layout)
        rnd.start()
        rnd.roll({"dice": [d1, d2]})
        rnd.end_of_decisions()
        net, after = oracle(w, layout.point, on, d1, d2)
        assert rnd.result.boxes[1].get(w.name, 0) == net, (w, d1, d2)
        left = [x for x in rnd.layout.wagers if x.name == w.name]
        if after == "gone":
            assert not left, (w, d1, d2)
        elif isinstance(after, tuple):
            assert [x.stake for x in left] == [after[1]]
        else:
            assert [x.stake for x in left] == [w.stake], (w, d1, d2)
            assert left[0].point == (after if isinstance(after, int) else w.point)
        assert sum(rnd.result.box_totals().values()) + rnd.result.house == 0


# ------------------------------------------------------------------ random sessions

MENU = [
    *PLAIN,
    *NUMBERED,
    *ODDS,
]
AMOUNTS = [100, 200, 400, 500, 600, 1000, 1200, 1500, 2000, 2400, 3000]


@st.composite
def sessions(draw: Any) -> tuple[int, list[list[tuple[int, str, Any]]], dict[str, Any]]:
    rolls = []
    for _ in range(100):
        acts = []
        for _ in range(draw(st.integers(0, 3))):
            box = draw(st.integers(1, 3))
            name = draw(st.sampled_from(MENU))
            verb = draw(st.sampled_from(["bet", "bet", "bet", "bet", "on", "off", "remove"]))
            # on / off / remove name a wager of the box's layout by index, when it has one
            arg: Any = (
                {name: draw(st.sampled_from(AMOUNTS))} if verb == "bet" else draw(st.integers(0, 9))
            )
            acts.append((box, verb, arg))
        rolls.append(acts)
    options = {
        "odds_multiple": draw(st.sampled_from([1, 2])),
        "buy_lay_stays_up": draw(st.booleans()),
        "come_bets_when_puck_off": draw(st.booleans()),
    }
    return draw(st.integers(0, 2**32)), rolls, options


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_random_sessions_conserve_money_and_match_the_oracle(case: Any) -> None:
    seed, plan, options = case
    stays_up = options["buy_lay_stays_up"]
    rnd = Craps({**OPTS, **options}, {}, SeededRandomSource(seed))
    rnd.start()
    for acts in plan:
        for box, verb, arg in acts:
            if isinstance(arg, int):
                mine = [w.name for w in rnd.layout.wagers if w.box == box]
                arg = mine[arg % len(mine)] if mine else "field"
            try:
                rnd.decide(box, verb, arg)
            except IllegalAction:
                pass
        puck = rnd.layout.point
        before = [
            (Standing(**vars(w)), working(w, rnd.layout.wagers, puck)) for w in rnd.layout.wagers
        ]
        nets = {b: dict(ws) for b, ws in rnd.nets.items()}
        rnd.roll()
        d1, d2 = rnd.rolls[-1].dice or (0, 0)
        want: Counter[tuple[int, str]] = Counter()
        left: Counter[tuple[int, str, int, int | None]] = Counter()
        for w, on in before:
            net, after = oracle(w, puck, on, d1, d2)
            kind = kind_and_number(w.name)[0]
            if kind in ("buy", "lay") and net > 0 and stays_up:
                after = "stays"
            want[(w.box, w.name)] += net
            if after == "stays":
                left[(w.box, w.name, w.stake, w.point)] += 1
            elif isinstance(after, int):
                left[(w.box, w.name, w.stake, after)] += 1
            elif isinstance(after, tuple):
                left[(w.box, w.name, after[1], w.point)] += 1
        for (box, name), net in want.items():
            assert rnd.nets[box].get(name, 0) - nets[box].get(name, 0) == net, (name, d1, d2)
        assert Counter((w.box, w.name, w.stake, w.point) for w in rnd.layout.wagers) == left
        t = d1 + d2
        assert rnd.layout.point == (
            (t if t in POINTS else None) if puck is None else (None if t in (7, puck) else puck)
        )
    rnd.end_of_decisions()
    res = rnd.result
    assert res.state == "complete"
    for box in res.boxes:
        assert rnd.party_net(f"box:{box}") == sum(res.boxes[box].values())
    assert sum(res.box_totals().values()) + res.house == 0
