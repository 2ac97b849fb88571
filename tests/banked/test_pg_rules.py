"""Pai gow tiles (QLD Sch 6): the tiles, rankings, house way, settings, settlement and the
bank, beyond the shared vectors PG-01..PG-13 (tests/test_vectors.py). Each test names its
section of Schedule 6 (and the digest's PA reading where the text is silent)."""

from __future__ import annotations

from collections import Counter

import pytest

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import Forced
from server.games.banked.pai_gow import (
    TILE_SET,
    PaiGow,
    chong_3_or_better,
    hand_wins,
    house_way,
    key,
    points,
)
from server.scenario import run_scenario

TABLE = {"minimum": 100, "maximum": 1_000_000}
DEFAULTS = {"gee_joon_wild": True, "zero_zero_high_bank_wins": False}


def pg(boxes: dict, tiles: dict, bank: list, decisions: list, options: dict | None = None) -> dict:
    return run_scenario(
        {
            "game": "pai-gow",
            "options": {**TABLE, **(options or {})},
            "boxes": boxes,
            "tiles": {"boxes": tiles, "dealer": bank},
            "decisions": decisions,
        }
    )


def setting(high: str, low: str) -> dict:
    return {"high": high.split(), "low": low.split()}


# ------------------------------------------------------------------ tiles and rankings


def test_s6_thirty_two_tiles_sixteen_ranks_of_two() -> None:
    """s6, s7(4): 32 tiles; each of the 16 ranks has two tiles (11 identical pairs, 5 mixed)."""
    from server.games.banked.pai_gow import rank

    assert len(TILE_SET) == 32
    by_rank = Counter(rank(t) for t in TILE_SET)
    assert sorted(by_rank) == list(range(1, 17)) and set(by_rank.values()) == {2}
    assert sum(n == 2 for n in Counter(TILE_SET).values()) == 11


def test_s7_1_pair_order() -> None:
    """s7(1): gee joon > teen > day > high 8 > high 4 > high 10 > high 6 > low 4 > 11 >
    low 10 > high 7 > low 6 > 9 > low 8 > low 7 > 5 (mixed pairs count as pairs)."""
    pairs = [
        ("1-2", "2-4"),
        ("6-6", "6-6"),
        ("1-1", "1-1"),
        ("4-4", "4-4"),
        ("1-3", "1-3"),
        ("5-5", "5-5"),
        ("3-3", "3-3"),
        ("2-2", "2-2"),
        ("5-6", "5-6"),
        ("4-6", "4-6"),
        ("1-6", "1-6"),
        ("1-5", "1-5"),
        ("4-5", "3-6"),
        ("3-5", "2-6"),
        ("3-4", "2-5"),
        ("1-4", "2-3"),
    ]
    keys = [key(p) for p in pairs]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == 16


def test_s7_2_wongs_gongs_high_nines_and_pa7_order() -> None:
    """s7(2), PA7: pair > wong > gong > high 9 > 9 points; teen above day in each; a gong
    takes a high or low 8, a high 9 a high or low 7."""
    ladder = [
        ("5-5", "5-5"),  # pair of high 10
        ("6-6", "4-5"),  # teen wong
        ("1-1", "3-6"),  # day wong
        ("6-6", "3-5"),  # teen gong (low 8)
        ("1-1", "4-4"),  # day gong (high 8)
        ("6-6", "2-5"),  # teen high 9 (low 7)
        ("1-1", "1-6"),  # day high 9 (high 7)
        ("4-5", "5-5"),  # 9 points
    ]
    keys = [key(h) for h in ladder]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)


def test_s8_points_and_pa1_gee_joon_wild() -> None:
    """s8: the right digit of the total (12 + 11 = 23 -> 3); PA1: a 3/6 tile counts 3 or 6,
    whichever is better; with gee_joon_wild off it counts its pips."""
    assert points(("6-6", "5-6")) == 3
    assert points(("1-2", "3-4")) == 3  # 6 + 7
    assert points(("1-2", "3-4"), wild=False) == 0
    assert points(("2-4", "1-5")) == 9  # 3 + 6
    assert points(("2-4", "1-5"), wild=False) == 2


def test_s3_s4_chong_ranking_3_pa8() -> None:
    """s3, s4, PA8: 3 points count only with a high 6 or better on top (high 10 included)."""
    assert chong_3_or_better(("3-3", "3-4"))  # high 6 + low 7 = 3
    assert chong_3_or_better(("5-5", "1-2"))  # high 10 + 3/6 (as 3) = 3, PA8
    assert not chong_3_or_better(("1-5", "3-4"))  # low 6 on top
    assert chong_3_or_better(("1-5", "3-5"))  # 4 points
    assert not chong_3_or_better(("6-6", "5-5"))  # 2 points


# ------------------------------------------------------------------ comparing hands (s36)


def test_s36_4_same_count_higher_top_tile_and_s36_5_copy_to_the_bank() -> None:
    """s36(4): equal counts -> the higher-ranked top tile; s36(5),(6): equal top tiles (a
    copy) -> the bank; the same ranked hand is a copy too."""
    assert hand_wins(("6-6", "2-3"), ("5-5", "3-4"), False, DEFAULTS)  # 7 v 7, teen tops
    assert not hand_wins(("1-1", "1-4"), ("1-1", "2-3"), False, DEFAULTS)  # copy
    assert not hand_wins(("1-1", "1-4"), ("1-1", "2-3"), True, DEFAULTS)
    assert not hand_wins(("6-6", "4-5"), ("6-6", "3-6"), False, DEFAULTS)  # teen wong copy


def test_s36_7_low_zero_v_zero_to_the_bank_and_pa4() -> None:
    """s36(7): two low hands of 0 go to the bank whatever the tiles; PA4: two high hands of 0
    are decided by top tile unless zero_zero_high_bank_wins."""
    player, bank = ("5-5", "4-6"), ("1-5", "2-2")
    assert not hand_wins(player, bank, True, DEFAULTS)
    assert hand_wins(player, bank, False, DEFAULTS)
    assert not hand_wins(player, bank, False, {**DEFAULTS, "zero_zero_high_bank_wins": True})


# ------------------------------------------------------------------ house way (Part 11)


@pytest.mark.parametrize(
    ("tiles", "high", "low", "rule"),
    [
        ("1-6 4-4 5-5 5-6", "4-4 5-6", "1-6 5-5", "s35(2) 7 and 9"),
        ("1-2 2-3 3-3 1-1", "1-2 3-3", "2-3 1-1", "s35(3) 9 and 7, not 8 and 8"),
        ("1-2 1-3 1-4 5-6", "1-3 1-4", "1-2 5-6", "s35(4) play the 9"),
        ("2-2 2-2 6-6 1-4", "2-2 2-2", "6-6 1-4", "s31(1) low 4s never split"),
        ("6-6 6-6 4-5 5-6", "6-6 4-5", "6-6 5-6", "s31(3)(a)(ii) teens split with 9 and 11"),
        ("1-1 1-1 4-4 2-6", "1-1 4-4", "1-1 2-6", "s31(3)(a)(i) days split for 8 and 8"),
        ("4-5 3-6 1-6 5-6", "4-5 3-6", "1-6 5-6", "s31(3)(b) 9s kept: 6/0 split"),
        ("1-6 1-6 1-1 5-5", "1-6 1-1", "1-6 5-5", "s31(3)(d) 7s split for 7 and day 9"),
        ("1-1 3-6 6-6 3-5", "1-1 3-6", "6-6 3-5", "s32(a), s34 day wong/teen gong (PG-02)"),
        ("1-1 2-3 2-2 3-3", "2-3 2-2", "1-1 3-3", "s33(a) highest chong-3 low (PG-04)"),
        ("1-1 2-3 5-5 4-6", "1-1 2-3", "5-5 4-6", "s33(b) highest high (PG-13)"),
    ],
)
def test_house_way(tiles: str, high: str, low: str, rule: str) -> None:
    """Part 11 (ss30-35) as read in the digest, section 5."""
    s = house_way(tiles.split())
    assert (sorted(s.high), sorted(s.low)) == (sorted(high.split()), sorted(low.split())), rule


def test_s29_1_player_asks_for_the_house_way_and_timeout() -> None:
    """s29(1): a player may ask for the house way; a player who does not set in time gets it
    too (digest section 4, server choice)."""
    tiles = ["1-6", "4-4", "5-5", "5-6"]
    for verb in ("house_way", "timeout"):
        res = pg({"2": {"bet": 1000}}, {"2": tiles}, ["1-5", "2-2", "1-3", "2-3"], [[2, verb]])
        assert res["state"] == "complete"
        assert res["hands"]["2"]["high"] == ["4-4", "5-6"] and res["hands"]["2"]["house_way"]


# ------------------------------------------------------------------ the player's own setting (s2)


def test_s2_setting_validated() -> None:
    """s2, s27: the setting must use the box's four tiles, two per hand, and the high hand
    may not rank below the low hand; a refused setting changes nothing."""
    tiles = {"2": ["6-6", "4-5", "3-3", "5-6"]}
    bank = ["5-5", "1-4", "4-4", "1-5"]
    bad = [
        (setting("3-3 5-6", "6-6 4-5"), "high_below_low"),
        (setting("6-6 4-5", "3-3 1-1"), "not_your_tiles"),
        ({"high": ["6-6"], "low": ["4-5", "3-3", "5-6"]}, "bad_setting"),
        ({"high": ["6-6", "4-5"]}, "bad_setting"),
    ]
    for s, code in bad:
        res = pg({"2": {"bet": 1000}}, tiles, bank, [[2, "set", s]])
        assert res["state"] == "rejected" and res["error"]["code"] == code
    rnd = PaiGow(TABLE, {2: {"bet": 1000}}, SeededRandomSource(1))
    rnd.start()
    t = rnd.tiles[2]
    with pytest.raises(IllegalAction):
        rnd.decide(2, "set", {"high": [t[0], t[1]], "low": [t[0], t[1]]})
    assert rnd.pending() and not rnd.settings
    with pytest.raises(IllegalAction):
        rnd.decide(2, "insufficient")


def test_s2_equal_hands_either_way() -> None:
    """s2(b): two hands of equal count and equal top tile may be set either way round."""
    res = pg(
        {"2": {"bet": 1000}},
        {"2": ["6-6", "1-4", "6-6", "2-3"]},
        ["5-5", "4-6", "2-2", "1-5"],
        [[2, "set", setting("6-6 2-3", "6-6 1-4")]],
    )
    assert res["state"] == "complete"


# ------------------------------------------------------------------ commission (s19)


def test_s19_commission_rounding_and_cap() -> None:
    """s19(1),(2): 5% of the win, rounded up to 50c by default (PG-06); exact without the
    option (PG-09); never more than the win (a $1 win pays at most $1 of commission)."""
    tiles = {"2": ["6-6", "4-5", "3-3", "5-6"]}
    bank = ["5-5", "1-4", "4-4", "1-5"]
    win = [[2, "set", setting("6-6 4-5", "3-3 5-6")]]
    assert pg({"2": {"bet": 1000}}, tiles, bank, win)["boxes"]["2"]["bet"] == 950
    assert pg({"2": {"bet": 1010}}, tiles, bank, win)["boxes"]["2"]["bet"] == 910
    exact = {"player_commission_round_up_50c": False}
    assert pg({"2": {"bet": 1010}}, tiles, bank, win, exact)["boxes"]["2"]["bet"] == 959
    assert pg({"2": {"bet": 30}}, tiles, bank, win, {"minimum": 1})["boxes"]["2"]["bet"] == 0


# ------------------------------------------------------------------ the bank (s18)


def test_s18_13_nobody_wagers_on_box_1_while_the_house_banks() -> None:
    with pytest.raises(ScenarioError, match="box_1_is_bank"):
        run_scenario({"game": "pai-gow", "options": TABLE, "boxes": {"1": {"bet": 1000}}})


PG12 = {
    "1": {"bank": 50_000},
    "2": {"bet": 5000},  # A: loses both
    "3": {"bet": 4000},  # B: wins both
    "4": {"bet": 8750},  # C: loses both
}
PG12_TILES = {
    "2": ["2-2", "2-2", "4-6", "1-5"],
    "3": ["1-1", "1-1", "4-5", "3-6"],
    "4": ["1-6", "1-6", "3-4", "2-3"],
}
PG12_BANK = ["5-5", "5-5", "6-6", "1-4"]
PG12_SETS = [
    [2, "set", setting("2-2 2-2", "4-6 1-5")],
    [3, "set", setting("1-1 1-1", "4-5 3-6")],
    [4, "house_way"],
]


def test_pg12_player_banker_commission_s19_3_4() -> None:
    """PG-12 (s18, s19(1)-(4)): A 50 loses, B 40 wins, C 87.50 loses; the player/banker's
    profit 97.50 pays 4.50 (rounded down to 50c); banker net +93; B nets +38."""
    opts = {"player_banking_enabled": True}
    res = pg(
        PG12, PG12_TILES, PG12_BANK, [*PG12_SETS, [1, "set", setting("5-5 5-5", "6-6 1-4")]], opts
    )
    assert res["state"] == "complete"
    assert {b: v["net"] for b, v in res["boxes"].items()} == {
        "1": 9300,
        "2": -5000,
        "3": 3800,
        "4": -8750,
    }
    assert res["boxes"]["1"]["bank"] == 9300 and res["commission"] == 650
    assert res["house"] == 650
    exact = pg(
        PG12,
        PG12_TILES,
        PG12_BANK,
        [*PG12_SETS, [1, "house_way"]],
        {**opts, "banker_commission_round_down_50c": False},
    )
    assert exact["boxes"]["1"]["bank"] == 9750 - 487


def test_s28_8_player_banker_sets_after_every_player() -> None:
    """s28(8): the bank's tiles are set after all players have set; the player/banker sets
    them (s29(3) house way only when the house banks)."""
    opts = {"player_banking_enabled": True}
    res = pg(PG12, PG12_TILES, PG12_BANK, [[1, "house_way"]], opts)
    assert res["error"]["code"] == "not_awaiting_decision"
    waiting = pg(PG12, PG12_TILES, PG12_BANK, PG12_SETS, opts)
    assert waiting["state"] == "waiting"
    assert [p["box"] for p in waiting["pending"]] == [1]


@pytest.mark.parametrize(
    ("boxes", "options", "code"),
    [
        (PG12, {}, "player_banking_disabled"),
        (
            {"1": {"bank": 10_000}, "2": {"bet": 20_000}},
            {"player_banking_enabled": True},
            "bank_cannot_cover",
        ),
        (
            {"1": {"bank": 10_000, "bet": 1000}, "2": {"bet": 1000}},
            {"player_banking_enabled": True},
            "banker_may_not_bet",
        ),
        ({"1": {"co_bank": 10_000}, "2": {"bet": 1000}}, {}, "co_banking_disabled"),
        (
            {"1": {"co_bank": 10_000}, "2": {"bet": 30_000}},
            {"co_banking_enabled": True},
            "bank_cannot_cover",
        ),
        (
            {"1": {"co_bank": 10_000}, "2": {"bet": 20_000}},
            {"co_banking_enabled": True, "house_max_liability": 5000},
            "house_liability",
        ),
        (
            {"1": {"bank": 10_000}, "2": {"bank": 10_000}},
            {"player_banking_enabled": True},
            "one_bank",
        ),
    ],
)
def test_s18_s14_bank_refusals(boxes: dict, options: dict, code: str) -> None:
    """s18(4), s14(1),(2): the bank covers every wager; s18(7)(b): a banker wagers on no
    hand; s18: banking only where the operator allows it; one bank per round."""
    with pytest.raises(ScenarioError, match=code):
        run_scenario(
            {"game": "pai-gow", "options": {**TABLE, **options}, "boxes": boxes, "seed": 1}
        )


def test_s2_co_banker_shares_equally_with_the_house() -> None:
    """s2 co-banker, s29(3), s19(3): the house sets the bank the house way; the co-banker
    takes half the bank's result and pays 5% on a profit, rounded down to 50c."""
    boxes = {"1": {"co_bank": 20_000}, "2": {"bet": 5000}, "4": {"bet": 8750}}
    tiles = {"2": PG12_TILES["2"], "4": PG12_TILES["4"]}
    res = pg(boxes, tiles, PG12_BANK, [PG12_SETS[0], PG12_SETS[2]], {"co_banking_enabled": True})
    share = 13_750 // 2
    commission = share * 5 // 100 // 50 * 50
    assert res["boxes"]["1"]["co_bank"] == share - commission
    assert res["house"] == 13_750 - share + commission
    assert res["hands"]["bank"]["house_way"]


# ------------------------------------------------------------------ dealing (s11, s14(4), s21)


class Counting:
    def __init__(self) -> None:
        self.calls: list[int] = []
        self._inner = SeededRandomSource(5)

    def randbelow(self, n: int) -> int:
        self.calls.append(n)
        return self._inner.randbelow(n)


def test_s21_s11_unbiased_shuffle_then_three_dice() -> None:
    """s21: the tiles are shuffled (Fisher-Yates over the 32 tiles: randbelow(32..2)); s10,
    s11: three dice, counting from the chung's box as 1, 9, 17 to the first box; all 32
    tiles are dealt once."""
    rng = Counting()
    rnd = PaiGow(TABLE, {b: {"bet": 1000} for b in range(2, 9)}, rng)
    rnd.start()
    assert rng.calls == [*range(32, 1, -1), 6, 6, 6]
    assert rnd.first_box == (sum(rnd.dice) - 1) % 8 + 1
    dealt = [*rnd.bank_tiles, *(t for ts in rnd.tiles.values() for t in ts)]
    assert Counter(dealt) == Counter(TILE_SET)


def test_s14_4_priority_box_sets_first() -> None:
    """s14(4): a box with at least half the table maximum sets before the other boxes see
    their tiles; s14(5): not needed when every box qualifies."""
    rnd = PaiGow(TABLE, {2: {"bet": 500_000}, 3: {"bet": 1000}}, SeededRandomSource(3))
    rnd.start()
    assert [d.box for d in rnd.pending()] == [2] and rnd.street == "priority"
    seen = [e for e in rnd.view(3)["events"] if e["type"] == "cards_dealt" and e["box"] == 3]
    assert not seen
    rnd.decide(2, "house_way")
    assert rnd.street == "set"
    assert [e for e in rnd.view(3)["events"] if e["type"] == "cards_dealt" and e["box"] == 3]
    assert not [
        e for e in rnd.view(3)["events"] if e.get("box") == 2 and e["type"] == "cards_dealt"
    ]
    both = PaiGow(TABLE, {2: {"bet": 500_000}, 3: {"bet": 600_000}}, SeededRandomSource(3))
    both.start()
    assert both.street == "set"


def test_s28_6_tiles_hidden_until_everyone_has_set() -> None:
    """s28(6), s28(8): the bank's tiles and every setting are shown only at settlement."""
    rnd = PaiGow(TABLE, {2: {"bet": 1000}, 3: {"bet": 1000}}, SeededRandomSource(9))
    rnd.start()
    rnd.decide(2, "house_way")
    assert not [e for e in rnd.view(3)["events"] if e["type"] == "hand_shown"]
    assert not [
        e for e in rnd.view(3)["events"] if e["type"] == "cards_dealt" and e["to"] == "dealer"
    ]
    rnd.decide(3, "house_way")
    assert rnd.complete
    assert len([e for e in rnd.view(None)["events"] if e["type"] == "hand_shown"]) == 6


@pytest.mark.parametrize(
    "tiles",
    [
        {"boxes": {"2": ["7-7"]}},
        {"boxes": {"2": ["1-2", "1-2"]}},
        {"boxes": {"2": ["6-6", "6-6"]}, "dealer": ["6-6"]},
        {"boxes": {"3": ["6-6"]}},
        {"boxes": {"2": ["6-6", "6-6", "1-1", "1-1", "2-2"]}},
        {"dealer": "6-6"},
    ],
)
def test_s6_bad_tiles_make_an_invalid_scenario(tiles: dict) -> None:
    """s6: only the 32 tiles, each as often as the set holds it (SCENARIOS.md: exit 2)."""
    with pytest.raises(ScenarioError):
        run_scenario(
            {"game": "pai-gow", "options": TABLE, "boxes": {"2": {"bet": 1000}}, "tiles": tiles}
        )


def test_forced_cards_are_refused() -> None:
    with pytest.raises(Exception, match="tiles"):
        PaiGow(TABLE, {2: {"bet": 1000}}, SeededRandomSource(1), Forced.from_strings({2: ["As"]}))
