"""Casino war (QLD Sch 14): wager validation (casino-war.md CW-09), decisions, shoe,
and the rules not covered by the shared vectors CW-01..CW-08."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource, rank_of
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import Forced
from server.games.banked.casino_war import CasinoWar
from server.scenario import run_scenario

TABLE = {"minimum": 500, "maximum": 100_000}


def war(
    boxes: dict, hands: dict, dealer: str, decisions: list, options: dict | None = None
) -> dict:
    return run_scenario(
        {
            "game": "casino-war",
            "options": TABLE if options is None else options,
            "boxes": boxes,
            "cards": {"boxes": {b: h.split() for b, h in hands.items()}, "dealer": dealer.split()},
            "decisions": decisions,
        }
    )


@pytest.mark.parametrize(
    ("wagers", "ok", "rule"),
    [
        ({"war": 1000, "tie": 3000}, True, "s7(5) 3 x 10 = 30"),
        ({"war": 1000, "tie": 3500}, False, "s7(5)"),
        ({"war": 50000, "tie": 10000}, True, "s11(2) 1,000 / 10 = 100"),
        ({"war": 50000, "tie": 15000}, False, "s11(2)"),
        ({"tie": 1000}, False, "s7(4) tie only with a war wager"),
        ({"war": 400}, False, "s11(1) below the minimum"),
        ({"war": 100100}, False, "s11(1) above the maximum"),
    ],
)
def test_cw09_wager_validation(wagers, ok, rule) -> None:
    """casino-war.md CW-09 rows 1-7 (table minimum 5, maximum 1,000)."""
    scen = {"game": "casino-war", "options": TABLE, "boxes": {"1": wagers}, "seed": 1}
    if ok:
        assert run_scenario(scen)["state"] in ("complete", "waiting"), rule
    else:
        with pytest.raises(ScenarioError):
            run_scenario(scen)


def test_cw09_row8_tie_below_minimum() -> None:
    """CW-09 row 8 (A2): a tie wager under the table minimum is refused."""
    with pytest.raises(ScenarioError):
        run_scenario(
            {
                "game": "casino-war",
                "options": {"minimum": 500, "maximum": 100_000},
                "boxes": {"1": {"war": 500, "tie": 300}},
            }
        )


@pytest.mark.parametrize("verb", ["timeout", "insufficient"])
def test_s28_absent_player_deemed_to_surrender(verb) -> None:
    """s28: not present to decide = surrender (half the war wager); so is a player who
    cannot fund the go to war wager."""
    res = war({"2": {"war": 2000, "tie": 500}}, {"2": "Qs"}, "Qd", [[2, verb]])
    assert res["boxes"]["2"] == {"war": -1000, "tie": 5000, "net": 4000}


def test_a1_surrender_of_an_odd_cent_wager() -> None:
    """s17(5)(a), A1: the house takes half rounded down; 25.01 loses 12.50."""
    res = war({"1": {"war": 2501}}, {"1": "5s"}, "5h", [[1, "surrender"]])
    assert res["boxes"]["1"]["war"] == -1250


def test_s2_go_to_war_wager_equals_the_war_wager() -> None:
    """s2 "go to war wager": exactly the casino war wager; anything else is rejected."""
    res = war({"1": {"war": 1000}}, {"1": "5s"}, "5h", [[1, "war", 2000]])
    assert res["state"] == "rejected" and res["error"]["code"] == "bad_amount"


def test_s17_4_only_tied_boxes_decide() -> None:
    """s17(4): a box whose first card differs owes no decision."""
    res = war({"1": {"war": 1000}, "2": {"war": 1000}}, {"1": "5s", "2": "9c"}, "5h", [[2, "war"]])
    assert res["error"]["code"] == "not_awaiting_decision"
    waiting = war({"1": {"war": 1000}, "2": {"war": 1000}}, {"1": "5s", "2": "9c"}, "5h", [])
    assert waiting["state"] == "waiting"
    assert waiting["boxes"]["2"] == {"war": 1000, "net": 1000}  # settled at once (s17(2))


def test_s4_shoe_holds_decks_copies_of_each_card() -> None:
    """s4(1): six decks hold six of each card; seven copies of one card cannot be dealt."""
    seven = {str(b): {"war": 1000} for b in range(1, 7)}
    hands = {str(b): "As" for b in range(1, 7)}
    with pytest.raises(ScenarioError):
        war(seven, hands, "As", [])
    res = war(seven, hands, "As", [], options={**TABLE, "decks": 8})
    assert res["state"] == "waiting"
    with pytest.raises(ScenarioError):
        war({"1": {"war": 1000}}, {"1": "Xs"}, "As", [])


def test_s18_1_one_dealer_card_for_every_war() -> None:
    """s18(1): a single additional dealer card settles every war (event count)."""
    rnd = CasinoWar(TABLE, {1: {"war": 1000}, 2: {"war": 1000}}, SeededRandomSource(0))
    rnd.start()
    while rnd.pending():
        rnd.decide(rnd.pending()[0].box, "war")
    dealer_cards = [e for e in rnd.events if getattr(e, "to", None) == "dealer"]
    assert len(dealer_cards) in (1, 2)
    assert rnd.complete


def test_illegal_verb_changes_nothing() -> None:
    rnd = CasinoWar(TABLE, {1: {"war": 1000}}, SeededRandomSource(0))
    rnd.start()
    with pytest.raises(IllegalAction):
        rnd.decide(1, "double")


@settings(max_examples=400, deadline=None)
@given(
    boxes=st.dictionaries(
        st.integers(1, 7),
        st.tuples(st.integers(5, 1000).map(lambda n: n * 100), st.integers(0, 3)),
        min_size=1,
        max_size=7,
    ),
    verbs=st.lists(
        st.sampled_from(["war", "surrender", "timeout", "insufficient"]), min_size=7, max_size=7
    ),
    seed=st.integers(0, 2**32),
    decks=st.sampled_from([6, 8]),
)
def test_property_money_conserved(boxes, verbs, seed, decks) -> None:
    """Random wagers (tie within both caps), decisions and shoes: every round completes, money
    is conserved, and no box loses more than it staked."""
    wagers = {}
    for b, (w, t) in boxes.items():
        tie = min(t * w, 10_000)
        wagers[b] = {"war": w, **({"tie": tie} if tie >= 500 else {})}
    rnd = CasinoWar({**TABLE, "decks": decks}, wagers, SeededRandomSource(seed))
    rnd.start()
    i = 0
    while rnd.pending():
        rnd.decide(rnd.pending()[0].box, verbs[i])
        i += 1
    res = rnd.result
    assert res.state == "complete"
    assert sum(sum(ws.values()) for ws in res.boxes.values()) + res.house == 0
    for box, ws in res.boxes.items():
        assert rnd.party_net(f"box:{box}") == sum(ws.values())
        assert sum(ws.values()) >= -sum(rnd.stakes[box].values())


def test_s30_misdeal_voids_every_wager_even_after_first_card_settlement() -> None:
    """s30(2): on a misdeal all wagers are void, including tie and war wagers already
    settled at the initial deal (s17(2))."""
    rnd = CasinoWar(
        TABLE,
        {1: {"war": 1000, "tie": 500}, 2: {"war": 1000}},
        SeededRandomSource(5),
        forced=Forced.from_strings({1: ["5s"], 2: ["Kd"]}, dealer=["5h"]),
    )
    rnd.start()
    assert rnd.pending() and rnd.result.boxes[2] == {"war": 1000}
    rnd.void("misdeal: the dealer's hand has the wrong number of cards (s30(1)(b))")
    res = rnd.result
    assert res.state == "void" and res.house == 0
    assert all(v == 0 for ws in res.boxes.values() for v in ws.values())


def test_s17_1_every_card_is_dealt_face_up() -> None:
    """s17(1), s18(1): every card is dealt face up, so every event is public."""
    rnd = CasinoWar(TABLE, {1: {"war": 1000}, 4: {"war": 1000}}, SeededRandomSource(2))
    rnd.start()
    assert len(rnd.view(None)["events"]) == len(rnd.events)


# ------------------------------------------------------------------ others on a box (s8)

CW06_BOX = {
    "war": 1000,
    "tie": 1000,
    "others": {"B": {"war": 2000}, "C": {"war": 3000, "tie": 3000}},
}


def cw06(decisions: list) -> dict:
    return war({"3": CW06_BOX}, {"3": "Jc Kd"}, "Js 5h", decisions)


def test_cw06_three_players_on_one_box_decide_separately() -> None:
    """casino-war.md CW-06 (s8(1), s17(4), s18(1), A6): A surrenders, B and C go to war on
    the box's one additional card; each player's wagers are settled on their own."""
    res = cw06(
        [[3, "surrender"], [3, "war", 2000, {"player": "B"}], [3, "war", 3000, {"player": "C"}]]
    )
    assert res["state"] == "complete"
    assert res["boxes"]["3"] == {
        "war": -500,
        "tie": 10_000,
        "net": 9500,
        "others": {
            "B": {"war": 0, "go_to_war": 2000, "net": 2000},
            "C": {"war": 0, "go_to_war": 3000, "tie": 30_000, "net": 33_000},
        },
    }
    assert res["house"] == -(9500 + 2000 + 33_000)


def test_s17_4_the_box_gets_its_card_if_any_player_goes_to_war() -> None:
    """A6: the box's own player surrenders, one other player goes to war: the box still takes
    an additional card; a player who is absent is deemed to surrender (s28)."""
    res = cw06(
        [[3, "surrender"], [3, "timeout", None, {"player": "C"}], [3, "war", 2000, {"player": "B"}]]
    )
    assert res["boxes"]["3"]["others"]["B"] == {"war": 0, "go_to_war": 2000, "net": 2000}
    assert res["boxes"]["3"]["others"]["C"]["war"] == -1500
    assert res["dealer"] == "Js then 5h"


def test_s17_4_each_player_decides_once_and_pending_names_them() -> None:
    rnd = CasinoWar(
        TABLE,
        {3: CW06_BOX},
        SeededRandomSource(1),
        forced=Forced.from_strings({3: ["Jc", "Kd"]}, dealer=["Js", "5h"]),
    )
    rnd.start()
    assert [d.to_wire().get("player") for d in rnd.pending()] == [None, "B", "C"]
    rnd.decide(3, "war")
    with pytest.raises(IllegalAction, match="decided"):
        rnd.decide(3, "surrender")
    with pytest.raises(IllegalAction) as e:
        rnd.decide(3, "war", 1000, {"player": "B"})  # B's go to war wager is B's war wager
    assert e.value.code == "bad_amount"
    with pytest.raises(IllegalAction) as e:
        rnd.decide(3, "war", 2000, {"player": "Z"})
    assert e.value.code == "no_such_player"
    assert [d.to_wire().get("player") for d in rnd.pending()] == ["B", "C"]
    rnd.decide(3, "surrender", None, {"player": "B"})
    rnd.decide(3, "insufficient", None, {"player": "C"})
    assert rnd.complete
    assert rnd.result.boxes[3] == {"war": 0, "tie": 10_000, "go_to_war": 1000}


def test_s30_void_returns_the_others_wagers() -> None:
    rnd = CasinoWar(
        TABLE,
        {3: CW06_BOX},
        SeededRandomSource(1),
        forced=Forced.from_strings({3: ["Jc", "Kd"]}, dealer=["Js", "5h"]),
    )
    rnd.start()
    rnd.decide(3, "war", 2000, {"player": "B"})
    rnd.void("misdeal (s30)")
    assert rnd.result.house == 0
    assert rnd.backer_nets[3] == {"B": {"war": 0, "go_to_war": 0}, "C": {"war": 0, "tie": 0}}


@pytest.mark.parametrize(
    ("box", "options", "ok", "rule"),
    [
        (
            {"war": 1000, "others": {"B": {"war": 1000}, "C": {"war": 1000}, "D": {"war": 1000}}},
            {},
            False,
            "row 9, s8(1)",
        ),
        (
            {"war": 60_000, "others": {"B": {"war": 50_000}}},
            {"box_limit_mode": "total_per_box"},
            False,
            "row 10, s8(2)(a)",
        ),
        (
            {"war": 60_000, "others": {"B": {"war": 50_000}}},
            {"box_limit_mode": "per_player"},
            True,
            "row 11, s8(2)(b)",
        ),
        ({"war": 60_000, "others": {"B": {"war": 50_000}}}, {}, True, "row 11, default per_player"),
        ({"war": 1000, "others": {"B": {"war": 300}}}, {}, False, "row 12, s10(2), s11(1)"),
        ({"war": 1000, "others": {"B": {"war": 1000, "tie": 3500}}}, {}, False, "s7(5) for others"),
        ({"war": 1000, "others": {"B": {"tie": 1000}}}, {}, False, "s7(4) for others"),
        ({"war": 1000, "others": {}}, {}, False, "others must name players"),
    ],
)
def test_cw09_players_on_a_box(box: dict, options: dict, ok: bool, rule: str) -> None:
    """casino-war.md CW-09 rows 9-12 (table minimum 5, maximum 1,000)."""
    scen = {"game": "casino-war", "options": {**TABLE, **options}, "boxes": {"1": box}, "seed": 1}
    if ok:
        assert run_scenario(scen)["state"] in ("complete", "waiting"), rule
    else:
        with pytest.raises(ScenarioError):
            run_scenario(scen)


@settings(max_examples=200, deadline=None)
@given(
    players=st.lists(st.integers(5, 300).map(lambda n: n * 100), min_size=1, max_size=3),
    ties=st.lists(st.booleans(), min_size=3, max_size=3),
    verbs=st.lists(
        st.sampled_from(["war", "surrender", "timeout", "insufficient"]), min_size=3, max_size=3
    ),
    seed=st.integers(0, 2**32),
)
def test_property_others_money_conserved(players, ties, verbs, seed) -> None:
    """s8, s17, s18 with others: every player's figure equals their ledger movement, money is
    conserved, and each player's figure follows the s9 table of casino-war.md."""
    ids = [None, "P2", "P3"][: len(players)]
    ws = [
        {"war": w, **({"tie": min(w, 10_000)} if t else {})}
        for w, t in zip(players, ties, strict=False)
    ]
    box = {**ws[0], **({"others": dict(zip(ids[1:], ws[1:], strict=True))} if len(ws) > 1 else {})}
    rnd = CasinoWar(
        TABLE,
        {2: box},
        SeededRandomSource(seed),
        forced=Forced.from_strings({2: ["7c"]}, dealer=["7d"]),
    )
    rnd.start()
    for pid, verb in zip(ids, verbs, strict=False):
        quals = None if pid is None else {"player": pid}
        rnd.decide(2, verb, None, quals)
    assert rnd.complete
    nets = {None: rnd.nets[2], **rnd.backer_nets.get(2, {})}
    total = 0
    d = rnd.dealer_additional
    for pid, verb, w in zip(ids, verbs, ws, strict=False):
        party = "box:2" if pid is None else f"box:2:{pid}"
        n = nets[pid]
        assert sum(n.values()) == rnd.party_net(party)
        total += sum(n.values())
        assert n.get("tie", 0) == (w["tie"] * 10 if "tie" in w else 0)  # s12(2)
        if verb == "war":
            assert d is not None
            p, q = rank_of(rnd.additional[2]), rank_of(d)
            want = (0, 2 * w["war"] if p == q else w["war"]) if p >= q else (-w["war"], -w["war"])
            assert (n["war"], n["go_to_war"]) == want
        else:
            assert n["war"] == -(w["war"] // 2) and "go_to_war" not in n
    assert total + rnd.party_net("house") == 0
