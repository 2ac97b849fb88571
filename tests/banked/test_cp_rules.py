"""Canberra Poker 2004/2017 (seeds 000, 002): rules not covered by the shared vectors.

The vectors CP-01..CP-13 and JP-*.act-* run in ``tests/test_vectors.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource, cards
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import NOBODY, Forced, JackpotState
from server.games.banked.canberra_poker import (
    CanberraPoker2004,
    CanberraPoker2017,
    dealer_qualifies,
    is_dead_mans_hand,
    jackpot_category,
)
from server.hands import evaluate5
from server.scenario import run_scenario


def scenario(
    game: str,
    boxes: dict,
    hands: dict,
    dealer: str,
    decisions: list,
    options: dict | None = None,
    jackpot: dict | None = None,
) -> dict:
    s = {
        "game": game,
        "options": options or {},
        "boxes": boxes,
        "cards": {"boxes": {b: h.split() for b, h in hands.items()}, "dealer": dealer.split()},
        "decisions": decisions,
    }
    if jackpot is not None:
        s["jackpot"] = jackpot
    return run_scenario(s)


def qualifies(text: str) -> bool:
    five = cards(text.split())
    return dealer_qualifies(evaluate5(five), five)


def test_r9_2_dealer_ace_king_or_better() -> None:
    """r 9.2 (A3): A-K no pair qualifies, A-Q does not, any pair and the wheel do."""
    assert qualifies("Ad Kc 9s 6h 3d")
    assert not qualifies("Ad Qc 9s 6h 3d")
    assert qualifies("2d 2c 9s 6h 3d")
    assert qualifies("Ad 2c 3s 4h 5d")
    assert not qualifies("Kd Qc 9s 6h 3d")


def test_dictionary_dead_mans_hand_2004_only() -> None:
    """2004 dictionary / r 11.1: A-A-8-8-x qualifies in 2004; 2017 r 10.7 has no DMH."""
    dmh = cards("As Ah 8s 8d Td".split())
    assert is_dead_mans_hand(dmh)
    assert jackpot_category(evaluate5(dmh), dmh, 2004) == "dead_mans_hand"
    assert jackpot_category(evaluate5(dmh), dmh, 2017) is None
    other = cards("As Ah 7s 7d Td".split())
    assert jackpot_category(evaluate5(other), other, 2004) is None


def test_r8_1_every_bet_odds_line() -> None:
    """r 8.1: the bet pays 1/1/2/3/4/5/7/20/50/250 to 1 by the player's hand (no cap)."""
    dealer = "Ad Kc 9s 6h 3d"  # A-K high: qualifies, beaten by everything below
    hands = {
        "1": "Ac Ks 9d 6d 4c",
        "2": "2s 2h 9c 6c Th",
        "3": "5h 5c 3h 3s Qh",
        "4": "7s 7d 7h Kh 2d",
        "5": "Ah 2c 3c 4d 5s",
        "6": "Kd Qd Jd 8d 5d",
        "7": "8s 8c 8h Ts Tc",
    }
    boxes = {b: {"ante": 1000} for b in hands}
    res = scenario(
        "canberra-poker-2004",
        boxes,
        hands,
        dealer,
        [[int(b), "bet"] for b in hands],
        {"max_payout": None},
    )
    assert [res["boxes"][b]["bet"] for b in "1234567"] == [
        2000,
        2000,
        4000,
        6000,
        8000,
        10000,
        14000,
    ]
    hands2 = {"1": "6s 6d 6h 6c 3s", "2": "Kh Qh Jh Th 9h", "3": "As Ks Qs Js Ts"}
    res2 = scenario(
        "canberra-poker-2017",
        {b: {"ante": 1000} for b in hands2},
        hands2,
        "Ac Kd 9c 5d 2d",
        [[1, "bet"], [2, "bet"], [3, "bet"]],
        {"max_payout": None},
    )
    assert [res2["boxes"][b]["bet"] for b in "123"] == [40000, 100000, 500000]


def test_r7_2_bet_is_exactly_twice_the_ante() -> None:
    """r 7.2: any other bet amount is rejected and nothing changes."""
    res = scenario(
        "canberra-poker-2017",
        {"1": {"ante": 1000}},
        {"1": "Ks Kd 9h 5c 3d"},
        "Qs 9d 7c 4h 2s",
        [[1, "bet", 3000]],
    )
    assert res["state"] == "rejected"
    assert res["error"]["code"] == "bad_amount" and res["error"]["at"] == 0


def test_a8_timeout_folds_losing_ante_and_jackpot_wager() -> None:
    """A8 / r 7.3: an absent player folds: the ante and the jackpot wager are lost."""
    res = scenario(
        "canberra-poker-2017",
        {"1": {"ante": 1000, "jackpot": 100}},
        {"1": "As Ks Qs Js Ts"},
        "Qs 9d 7c 4h 2s".replace("Qs", "Qd"),
        [[1, "timeout"]],
        {"jackpot_wager": 100},
    )
    assert res["boxes"]["1"] == {"ante": -1000, "jackpot": -100, "net": -1100}


def test_insufficient_folds() -> None:
    """A player who cannot fund the 2x bet folds (r 7.3)."""
    res = scenario(
        "canberra-poker-2004",
        {"2": {"ante": 500}},
        {"2": "Ks Kd 9h 5c 3d"},
        "Qs 9d 7c 4h 2s",
        [[2, "insufficient"]],
    )
    assert res["boxes"]["2"] == {"ante": -500, "net": -500}


def test_r10_1_jackpot_wager_needs_ante_and_exact_denomination() -> None:
    """2004 r 10.1-10.2, 2017 r 10.1, r 3.6: the wager needs an ante and is the fixed amount."""
    with pytest.raises(ScenarioError):
        scenario("canberra-poker-2017", {"1": {"jackpot": 100}}, {}, "Qs 9d 7c 4h 2s", [])
    with pytest.raises(ScenarioError):
        scenario(
            "canberra-poker-2017",
            {"1": {"ante": 1000, "jackpot": 200}},
            {},
            "Qs 9d 7c 4h 2s",
            [],
            {"jackpot_wager": 100},
        )
    with pytest.raises(ScenarioError):  # jackpot not offered (2017 r 4.2)
        scenario(
            "canberra-poker-2017",
            {"1": {"ante": 1000, "jackpot": 100}},
            {},
            "Qs 9d 7c 4h 2s",
            [],
            {"jackpot_wager": None},
        )


def test_a4_seed_below_rf_minimum_is_invalid() -> None:
    """canberra-poker.md A4: the seed must be at least the $10,000 royal flush minimum."""
    with pytest.raises(ScenarioError):
        scenario(
            "canberra-poker-2004",
            {"1": {"ante": 1000}},
            {},
            "Qs 9d 7c 4h 2s",
            [],
            {"jackpot_seed": 999_999},
        )


def test_waiting_lists_pending_decisions() -> None:
    """SCENARIOS.md: decisions ending early leave the round waiting with its pending list."""
    res = scenario(
        "canberra-poker-2017",
        {"1": {"ante": 1000}, "2": {"ante": 500}},
        {},
        "Qs 9d 7c 4h 2s",
        [[1, "bet"]],
    )
    assert res["state"] == "waiting"
    assert res["pending"] == [
        {
            "box": 2,
            "street": "decision",
            "legal": [
                {"verb": "bet", "amounts": [1000], "min": 1000, "max": 1000},
                {"verb": "fold"},
            ],
        }
    ]


def _round(cls, **kw):
    rnd = cls(
        {"jackpot_wager": 100},
        {1: {"ante": 1000, "jackpot": 100}, 3: {"ante": 500}},
        SeededRandomSource(7),
        jackpot=JackpotState(2_000_000, 500_000),
        **kw,
    )
    rnd.start()
    return rnd


def test_r6_2_r12_4_only_the_upcard_is_visible() -> None:
    """r 6.2 / r 12.4: one dealer card face up; each box sees only its own five cards."""
    rnd = _round(CanberraPoker2017)
    dealer_events = [e for e in rnd.events if getattr(e, "to", None) == "dealer"]
    assert [e.visible_to for e in dealer_events].count(NOBODY) == 4
    assert dealer_events[0].visible_to != NOBODY  # automated shuffling shoe: the top card
    seen_by_3 = rnd.view(3)["events"]
    box_cards = [e for e in seen_by_3 if e["type"] == "cards_dealt" and e["to"] == "box"]
    assert [e["box"] for e in box_cards] == [3]
    shoe = CanberraPoker2004({"deal_mode": "shoe"}, {1: {"ante": 1000}}, SeededRandomSource(1))
    shoe.start()
    up = [e for e in shoe.events if getattr(e, "to", None) == "dealer"]
    assert up[4].visible_to != NOBODY and up[0].visible_to == NOBODY


def test_2017_jackpot_wager_acknowledged_and_coin_in_before_the_deal() -> None:
    """2017 r 10.2 (sensor pad) and r 10.6 (all wagers to the pools, at coin-in)."""
    rnd = _round(CanberraPoker2017)
    kinds = [e.TYPE for e in rnd.events]
    assert kinds.index("jackpot_wager_accepted") < kinds.index("cards_dealt")
    assert rnd.result.jackpot == JackpotState(2_000_030, 500_070)


def test_void_returns_everything_and_reverses_coin_in() -> None:
    """Dictionary "Void" / r 12.6: every wager returned; the 2017 coin-in is reversed."""
    rnd = _round(CanberraPoker2017)
    rnd.decide(1, "bet")
    rnd.void("automated shuffling shoe malfunction (r 12.6)")
    res = rnd.result
    assert res.state == "void"
    assert all(v == 0 for ws in res.boxes.values() for v in ws.values())
    assert res.jackpot == JackpotState(2_000_000, 500_000)


def test_illegal_decisions_change_nothing() -> None:
    """A decision for a box not in the round, twice, or an unknown verb: IllegalAction."""
    rnd = _round(CanberraPoker2004)
    before = len(rnd.events)
    for box, verb in ((2, "bet"), (1, "raise")):
        with pytest.raises(IllegalAction):
            rnd.decide(box, verb)
    rnd.decide(1, "fold")
    with pytest.raises(IllegalAction) as e:
        rnd.decide(1, "bet")
    assert e.value.code == "not_awaiting_decision"
    assert len(rnd.events) == before + 1


def test_a_j4_return_option_adds_one_wager_per_winning_box() -> None:
    """jackpots.md A-J4 option: a winning Boomerang wager is returned (CP-06 box 1: +110)."""
    res = scenario(
        "canberra-poker-2004",
        {"1": {"ante": 1000, "jackpot": 100}},
        {"1": "Ac Jc 8c 6c 2c"},
        "Jd 9c 7s 4d 3h",
        [[1, "bet"]],
        {"act2004_winning_wager": "return"},
        {"pool": 2_000_000, "reserve": 500_000},
    )
    assert res["boxes"]["1"]["jackpot"] == 10_000


_deal = st.permutations(list(range(52)))


@settings(max_examples=400, deadline=None)
@given(
    version=st.sampled_from([CanberraPoker2004, CanberraPoker2017]),
    boxes=st.dictionaries(
        st.integers(1, 7),
        st.tuples(st.integers(1, 50).map(lambda n: n * 100), st.booleans()),
        min_size=1,
        max_size=7,
    ),
    verbs=st.lists(
        st.sampled_from(["bet", "fold", "timeout", "insufficient"]), min_size=7, max_size=7
    ),
    seed=st.integers(0, 2**32),
    pool=st.integers(1_000_000, 20_000_000),
    reserve=st.integers(0, 5_000_000),
    forced=st.sampled_from([None, "royal", "straight_flush"]),
    source=st.sampled_from(["reserve", "house"]),
)
def test_property_money_conserved(
    version, boxes, verbs, seed, pool, reserve, forced, source
) -> None:
    """Every round completes; player nets + house + pool/reserve change = 0 (and the ledger
    agrees with the per-wager nets)."""
    wagers = {
        b: ({"ante": a, "jackpot": 100} if jp else {"ante": a}) for b, (a, jp) in boxes.items()
    }
    force = None
    first = min(boxes)
    if forced == "royal":
        force = Forced.from_strings({first: "As Ks Qs Js Ts".split()})
    elif forced == "straight_flush":
        force = Forced.from_strings({first: "9h 8h 7h 6h 5h".split()})
    options = {"jackpot_wager": 100, "fixed_prize_source": source}
    if version is CanberraPoker2004:
        options["act2004_winning_wager"] = "return" if seed % 2 else "keep"
    rnd = version(
        options, wagers, SeededRandomSource(seed), forced=force, jackpot=JackpotState(pool, reserve)
    )
    rnd.start()
    for i, box in enumerate(sorted(boxes)):
        rnd.decide(box, verbs[i])
    res = rnd.result
    assert res.state == "complete"
    players = sum(sum(ws.values()) for ws in res.boxes.values())
    assert res.jackpot is not None
    assert players + res.house + (res.jackpot.pool - pool) + (res.jackpot.reserve - reserve) == 0
    for box, ws in res.boxes.items():
        assert rnd.party_net(f"box:{box}") == sum(ws.values())
    assert rnd.party_net("pool") == res.jackpot.pool - pool
    assert res.jackpot.pool >= 1_000_000


def test_command_line_runs_and_describes_b2_games() -> None:
    """The real command: CP-05 reproduced by a subprocess; --describe for every B2 game id."""
    import json
    import subprocess
    import sys

    from tests.shared import REPO, VECTORS
    from tests.test_vectors import compare

    path = VECTORS / "banked" / "CP-05.json"
    vector = json.loads(path.read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "server.scenario", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr  # a vector file: its "scenario" is run
    assert not compare(vector["expect"], json.loads(proc.stdout))
    scen = REPO / ".pytest-cp05.json"
    scen.write_text(json.dumps(vector["scenario"]))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "server.scenario", str(scen)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,
        )
    finally:
        scen.unlink()
    assert proc.returncode == 0, proc.stderr
    assert not compare(vector["expect"], json.loads(proc.stdout))
    for game, verbs in (
        ("canberra-poker-2004", ["bet", "fold"]),
        ("canberra-poker-2017", ["bet", "fold"]),
        ("four-card-poker", ["play", "fold"]),
        ("casino-war", ["war", "surrender"]),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "server.scenario", "--describe", game],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        described = json.loads(proc.stdout)
        assert described["verbs"] == [*verbs, "timeout", "insufficient"]
