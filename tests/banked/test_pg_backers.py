"""Pai gow tiles (QLD Sch 6): other players on a box (s15, backers on the places ``P2``,
``P3`` with the blackjack engine's places API) and one player on two boxes (s16)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import CardsDealt, Forced, PastRound, WagerSettled
from server.games.banked.pai_gow import SPEC, PaiGow
from server.scenario import run_scenario

TABLE = {"minimum": 100, "maximum": 1_000_000}
BANK = ["5-5", "5-5", "6-6", "1-4"]  # the house way: pair of high 10s, and 7
#: four tiles against BANK, set the house way: the box's verdict
TILES = {
    "win": ["1-1", "1-1", "4-5", "3-6"],  # pair of days, and 8
    "lose": ["2-2", "2-2", "4-6", "1-5"],  # pair of low 4s, and 6
    "stand off": ["6-6", "1-1", "1-1", "1-3"],  # pair of days wins, 6-6 1-3 (7) a copy loses
}


def pg(boxes: dict, tiles: dict, decisions: list, options: dict | None = None) -> dict:
    return run_scenario(
        {
            "game": "pai-gow",
            "options": {**TABLE, **(options or {})},
            "boxes": boxes,
            "tiles": {"boxes": tiles, "dealer": BANK},
            "decisions": decisions,
        }
    )


def test_the_spec_offers_two_backer_places_s15_1() -> None:
    assert SPEC.backer_places == ("P2", "P3")


@pytest.mark.parametrize("verdict", ["win", "lose", "stand off"])
def test_a_backer_wins_loses_or_stands_off_with_the_box_s15(verdict: str) -> None:
    """Every player on a box is settled on the box's hands (s15(2): the first player sets),
    each winning wager paying its own commission, rounded up to 50c (s19(1),(2))."""
    boxes = {"2": {"bet": 1000, "others": {"P2": {"bet": 500}, "P3": {"bet": 1010}}}}
    res = pg(boxes, {"2": TILES[verdict]}, [[2, "house_way"]])
    assert res["state"] == "complete"
    box = res["boxes"]["2"]
    others = box["others"]
    expected = {
        "win": (950, 450, 910),  # 5% = 50, 25 -> 50, 50.50 -> 100 (s19(2): per wager)
        "lose": (-1000, -500, -1010),
        "stand off": (0, 0, 0),
    }[verdict]
    assert (box["bet"], others["P2"]["bet"], others["P3"]["bet"]) == expected
    assert others["P2"]["net"] == others["P2"]["bet"]
    assert res["commission"] == (200 if verdict == "win" else 0)
    assert res["house"] == -sum(expected)  # the house banks: its net is the players' loss


def test_backers_figures_are_their_ledger_movements_and_the_books_balance() -> None:
    wagers = {2: {"bet": 1000, "others": {"P2": {"bet": 700}}}, 3: {"bet": 400}}
    forced = {"boxes": {"2": TILES["win"], "3": TILES["lose"]}, "dealer": BANK}
    rnd = PaiGow(TABLE, wagers, SeededRandomSource(3), Forced(outcome={"tiles": forced}))
    rnd.start()
    rnd.decide(2, "house_way")
    rnd.decide(3, "house_way")
    assert rnd.complete
    assert rnd.stakes_of(2, "P2") == {"bet": 700} and rnd.nets_of(2, "P2") == {"bet": 650}
    assert rnd.party_net("box:2:P2") == 650 and rnd.party_net("box:2") == 950
    assert rnd.party_net("box:3") == -400
    parties = {p for src, dst, _ in rnd.transfers for p in (src, dst)}
    assert parties == {"box:2", "box:2:P2", "box:3", "house"}
    assert sum(rnd.party_net(p) for p in parties) == 0


def test_a_void_returns_the_backers_wagers() -> None:
    rnd = PaiGow(TABLE, {2: {"bet": 1000, "others": {"P2": {"bet": 700}}}}, SeededRandomSource(1))
    rnd.start()
    rnd.void("the table stopped")
    assert rnd.nets_of(2, "P2") == {"bet": 0} and rnd.transfers == []


def test_the_bank_covers_the_backers_wagers_s18_4() -> None:
    opts = {"player_banking_enabled": True}
    backed = {"2": {"bet": 1000, "others": {"P2": {"bet": 1000}}}}
    with pytest.raises(ScenarioError, match="bank_cannot_cover"):
        pg({"1": {"bank": 1500}, **backed}, {}, [], opts)
    res = pg(
        {"1": {"bank": 2000}, **backed},
        {"2": TILES["win"]},
        [[2, "house_way"], [1, "house_way"]],
        opts,
    )
    assert res["state"] == "complete"
    assert res["boxes"]["1"]["bank"] == -2000  # paid both players on the box
    assert res["boxes"]["2"]["others"]["P2"]["bet"] == 950


def test_the_banks_box_has_no_backers() -> None:
    opts = {"player_banking_enabled": True}
    boxes = {"1": {"bank": 5000, "others": {"P2": {"bet": 500}}}, "2": {"bet": 1000}}
    with pytest.raises(ScenarioError, match="bank_has_no_backers"):
        pg(boxes, {}, [], opts)
    with pytest.raises(IllegalAction) as refused:
        PaiGow.check_layout(
            SPEC.validate_options({**TABLE, **opts}), boxes_int(boxes), {1: "ann", 2: "bob"}
        )
    assert refused.value.code == "bank_has_no_backers"


def boxes_int(boxes: dict) -> dict:
    return {int(b): ws for b, ws in boxes.items()}


@pytest.mark.parametrize(
    ("others", "code"),
    [
        ({"P2": {"bet": 100}, "P3": {"bet": 100}, "P4": {"bet": 100}}, "too_many_players"),
        ({"P2": {"co_bank": 500}}, "backer_bets_only"),
        ({"P2": {}}, "non-empty"),
        ({"P2": {"bet": 50}}, "below_minimum"),
    ],
)
def test_backers_wagers_are_checked_s15_1_s13(others: dict, code: str) -> None:
    try:
        res = pg({"2": {"bet": 1000, "others": others}}, {}, [])
    except ScenarioError as exc:
        assert code in str(exc)
    else:
        raise AssertionError(f"accepted: {res}")


def test_a_priority_box_counts_its_backers_s14_4() -> None:
    """s14(4): "the total of all wagers on a box" reaches half the table maximum."""
    boxes = {"2": {"bet": 300, "others": {"P2": {"bet": 200}}}, "3": {"bet": 100}}
    res = pg(boxes, {}, [], {"maximum": 1000})
    assert [(p["box"], p["street"]) for p in res["pending"]] == [(2, "priority")]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    stakes=st.lists(st.integers(100, 5000), min_size=1, max_size=3),
    banked=st.booleans(),
)
def test_backers_go_with_their_box_and_books_balance(
    seed: int, stakes: list[int], banked: bool
) -> None:
    """Random tiles: each backer's outcome is the box's, his figure his ledger movement,
    and every transfer balances (the house's net is everyone else's loss)."""
    opts = {**TABLE, "player_banking_enabled": True}
    others = {p: {"bet": a} for p, a in zip(("P2", "P3"), stakes[1:], strict=False)}
    wagers: dict = {3: {"bet": stakes[0], **({"others": others} if others else {})}}
    wagers[4] = {"bet": 700}
    if banked:
        wagers[2] = {"bank": 1_000_000}
    rnd = PaiGow(opts, wagers, SeededRandomSource(seed))
    rnd.start()
    while not rnd.complete:
        for d in rnd.pending():
            rnd.decide(d.box, "house_way")
    events = [e for e in rnd.events if isinstance(e, WagerSettled)]
    outcome = {(e.box, e.wager): e.outcome for e in events}
    for place, ws in others.items():
        assert outcome[(3, f"{place} bet")] == outcome[(3, "bet")]
        assert rnd.nets_of(3, place)["bet"] == rnd.party_net(f"box:3:{place}")
        assert rnd.stakes_of(3, place) == ws
    for box, nets in rnd.nets.items():  # the boxes' players, the player/banker included
        assert sum(nets.values()) == rnd.party_net(f"box:{box}")
    parties = {p for src, dst, _ in rnd.transfers for p in (src, dst)}
    assert sum(rnd.party_net(p) for p in parties) == 0


# ------------------------------------------------------------------ one player, two boxes


def layout_code(layout: dict, owners: dict, options: dict | None = None) -> str | None:
    try:
        PaiGow.check_layout(SPEC.validate_options({**TABLE, **(options or {})}), layout, owners)
    except IllegalAction as exc:
        return exc.code
    return None


def test_one_player_on_two_boxes_only_alone_and_twice_the_other_s16() -> None:
    ann2 = {2: "ann", 3: "ann"}
    assert layout_code({2: {"bet": 1000}, 3: {"bet": 500}}, ann2) is None  # s16(2)
    assert layout_code({2: {"bet": 400}, 3: {"bet": 1000}}, ann2) is None
    assert layout_code({2: {"bet": 1000}, 3: {"bet": 600}}, ann2) == "two_boxes_not_twice"
    with_bob = {2: {"bet": 1000}, 3: {"bet": 500}, 4: {"bet": 500}}
    assert layout_code(with_bob, {**ann2, 4: "bob"}) == "two_boxes_not_alone"  # s16(2)(a)
    backed = {2: {"bet": 1000, "others": {"P2": {"bet": 100}}}, 3: {"bet": 500}}
    assert layout_code(backed, ann2) == "two_boxes_not_alone"  # a backer wagers too
    three = {2: {"bet": 4000}, 3: {"bet": 1000}, 4: {"bet": 100}}
    assert layout_code(three, {**ann2, 4: "ann"}) == "one_box_per_player"  # s16(1)


def test_two_boxes_only_against_the_house_s16_2() -> None:
    opts = {"player_banking_enabled": True}
    before = PastRound({2: {"bet": 500}, 3: {"bet": 500}}, {2: "bob", 3: "ann"})
    layout = {2: {"bank": 50_000}, 3: {"bet": 1000}, 4: {"bet": 500}}
    owners = {2: "bob", 3: "ann", 4: "ann"}
    spec = SPEC.validate_options({**TABLE, **opts})
    with pytest.raises(IllegalAction) as refused:
        PaiGow.check_layout(spec, layout, owners, [before])
    assert refused.value.code == "two_boxes_not_alone"


def test_the_higher_box_is_set_before_the_other_is_seen_s16_2_c_d() -> None:
    """s16(2)(c),(d): the box with the higher wager is set first, before its player sees the
    other box's tiles; the other box's tiles come once it is set (and it stays set)."""
    rnd = PaiGow(TABLE, {2: {"bet": 500}, 3: {"bet": 1000}}, SeededRandomSource(7))
    rnd.persons = {(2, None): "ann", (3, None): "ann"}
    events = rnd.start()
    assert {e.box for e in events if isinstance(e, CardsDealt) and e.to == "box"} == {3}
    assert [(d.box, d.street) for d in rnd.pending()] == [(3, "higher_box")]
    later = rnd.decide(3, "house_way")
    assert {e.box for e in later if isinstance(e, CardsDealt) and e.to == "box"} == {2}
    assert [(d.box, d.street) for d in rnd.pending()] == [(2, "set")]
    with pytest.raises(IllegalAction):
        rnd.decide(3, "house_way")  # s16(2)(d): set, not changed
    rnd.decide(2, "house_way")
    assert rnd.complete


def test_two_persons_on_two_boxes_set_together() -> None:
    rnd = PaiGow(TABLE, {2: {"bet": 500}, 3: {"bet": 1000}}, SeededRandomSource(7))
    rnd.persons = {(2, None): "ann", (3, None): "bob"}
    rnd.start()
    assert [(d.box, d.street) for d in rnd.pending()] == [(2, "set"), (3, "set")]
