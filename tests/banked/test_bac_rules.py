"""Baccarat (QLD Sch 1): the tableau (s21-s23) exhaustively, every pay table line (s12, s13,
s30, s34, s38, s41), wager limits and scenario validation, beyond vectors BAC-01..BAC-16."""

from __future__ import annotations

import pytest

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.baccarat import Baccarat, banker_win
from server.games.banked.base import EVERYONE, Forced
from server.scenario import run_scenario

TABLE = {"minimum": 100, "maximum": 1_000_000}

#: A card of each baccarat value 0..9 (s5): T counts 0, A counts 1.
VALUE_CARD = {0: "T", 1: "A", **{v: str(v) for v in range(2, 10)}}

#: The digest's tableau (baccarat.md section 6), independent of the engine: banker two-card
#: total -> D/S for "player stood" then player third card 0..9.
TABLEAU = {
    0: "DDDDDDDDDDD",
    1: "DDDDDDDDDDD",
    2: "DDDDDDDDDDD",
    3: "DDDDDDDDDSD",
    4: "DSSDDDDDDSS",
    5: "DSSSSDDDDSS",
    6: "SSSSSSSDDSS",
    7: "SSSSSSSSSSS",
}


def bac(boxes: dict, shoe: str, options: dict | None = None, decisions: list | None = None) -> dict:
    return run_scenario(
        {
            "game": "baccarat",
            "options": {**TABLE, **(options or {})},
            "boxes": boxes,
            "cards": {"shoe": shoe.split()},
            "decisions": decisions or [],
        }
    )


def two(total: int, suits: str = "sh") -> list[str]:
    """Two cards making ``total``: the value card and a ten-value card (never a pair)."""
    return [VALUE_CARD[total] + suits[0], "K" + suits[1]]


def deal(p: int, b: int, third: int | None) -> tuple[str, list[str], list[str]]:
    """A shoe P1 B1 P2 B2 [P3] [B3] for two-card totals ``p``, ``b``."""
    pc, bc = two(p, "sh"), two(b, "dc")
    shoe = [pc[0], bc[0], pc[1], bc[1]]
    if third is not None:
        shoe.append(VALUE_CARD[third] + "s")
    shoe.append("9c")  # the banker's third card, if it draws
    return " ".join(shoe), pc, bc


@pytest.mark.parametrize("b", range(10))
@pytest.mark.parametrize("p", range(10))
def test_s21_s22_s23_tableau_exhaustive(p: int, b: int) -> None:
    """s21 (naturals), s22 (player draws 0-5, stays 6-7), s23 (banker's tableau, A1 4-7):
    every player and banker two-card total, and every player third card value."""
    natural = p >= 8 or b >= 8
    player_draws = not natural and p <= 5
    for third in range(10) if player_draws else [None]:
        shoe, _, _ = deal(p, b, third)
        res = bac({"1": {"player": 1000}}, shoe)
        hands = res["hands"]
        assert len(hands["player"]["cards"]) == (3 if player_draws else 2), (p, b, third)
        if natural:
            expected = False
        else:
            col = 0 if third is None else third + 1
            expected = TABLEAU[b][col] == "D"
        assert len(hands["banker"]["cards"]) == (3 if expected else 2), (p, b, third)


@pytest.mark.parametrize(
    ("third", "draws"), [(3, False), (4, True), (5, False), (6, False), (7, True), (8, False)]
)
def test_s23_4_literal_reading_banker_five(third: int, draws: bool) -> None:
    """s23(4) literal text ("4 or 7"), option banker_five_rule=literal (digest A1)."""
    shoe, _, _ = deal(0, 5, third)
    res = bac({"1": {"player": 1000}}, shoe, {"banker_five_rule": "literal"})
    assert len(res["hands"]["banker"]["cards"]) == (3 if draws else 2)


def test_bac12_under_literal_reading_is_a_tie() -> None:
    """Digest BAC-12 note: under the literal s23(4) the banker stands on 5: a 5-5 tie, the
    banker and player wagers void and the tie wins 8:1."""
    res = bac(
        {"1": {"banker": 10000}, "2": {"tie": 1000, "player": 2000}},
        "Qh Ad Jh 4c 5s 3d",
        {"banker_five_rule": "literal"},
    )
    assert res["boxes"]["1"]["banker"] == 0
    assert res["boxes"]["2"] == {"tie": 8000, "player": 0, "net": 8000}


# ------------------------------------------------------------------ s12, s13: main wagers


@pytest.mark.parametrize(
    ("stake", "rounded", "exact"),
    [
        (10000, 9500, 9500),
        (1500, 1400, 1425),
        (500, 450, 475),
        (1250, 1150, 1187),
        (101, 50, 95),
        (100, 50, 95),
        (20, 0, 19),
    ],
)
def test_s12_2_s12_4_banker_commission_rounding(stake: int, rounded: int, exact: int) -> None:
    """s12(2) 19:20 floored to the cent; s12(4) rounded down to a multiple of 50c (digest
    section 8 worked examples: $15 -> $14.00, $5 -> $4.50, $12.50 -> $11.87 / $11.50)."""
    opts = {"banker_payout": "commission", "decks": 8}
    assert banker_win(stake, {**opts, "banker_round_down_50c": True}, 7) == rounded
    assert banker_win(stake, {**opts, "banker_round_down_50c": False}, 7) == exact


def test_s12_4_round_down_is_the_default() -> None:
    """Digest section 10: 50c rounding on by default (banker 7 beats player 6)."""
    res = run_scenario(
        {
            "game": "baccarat",
            "boxes": {"1": {"banker": 1500}},
            "cards": {"shoe": ["6s", "7h", "Ks", "Kh"]},
        }
    )
    assert res["boxes"]["1"]["banker"] == 1400


@pytest.mark.parametrize(
    ("shoe", "stake", "win", "rule"),
    [
        ("Ks 6h Kd Kc Ts", 2501, 1250, "s13(2)(a) banker 6: 1:2, floored to the cent"),
        ("Ks 7h Kd Kc Ts", 2501, 2501, "s13(2)(b) any other banker count: 1:1"),
    ],
)
def test_s13_no_commission_banker(shoe: str, stake: int, win: int, rule: str) -> None:
    res = bac({"1": {"banker": stake}}, shoe, {"banker_payout": "no_commission"})
    assert res["boxes"]["1"]["banker"] == win, rule


def test_s11_s12_player_tie_and_void() -> None:
    """s12(1) player 1:1; s12(3) tie 8:1; s11(1)(c), (2)(c) player and banker void on a tie;
    s11(3) a tie wager loses when the counts differ."""
    win = bac({"1": {"player": 1000, "tie": 500}}, "7s Kh Kd 6c")
    assert win["boxes"]["1"] == {"player": 1000, "tie": -500, "net": 500}
    tie = bac({"1": {"player": 1000, "banker": 1000, "tie": 500}}, "7s 7h Kd Kc")
    assert tie["boxes"]["1"] == {"player": 0, "banker": 0, "tie": 4000, "net": 4000}


# ------------------------------------------------------------------ side wagers


@pytest.mark.parametrize(
    ("decks", "p1", "p2", "win"),
    [
        (6, "4h", "4s", 5000),
        (6, "4h", "4d", 10000),
        (6, "4s", "4c", 10000),
        (6, "4h", "4h", 30000),
        (8, "4d", "4c", 6000),
        (8, "4h", "4d", 12000),
        (8, "4c", "4c", 25000),
        (8, "4h", "5h", -1000),
        (8, "Th", "Jh", -1000),
    ],
)
def test_s27_s30_perfect_pairs_every_line(decks: int, p1: str, p2: str, win: int) -> None:
    """s30(3)(a) 6 decks 5/10/30:1, (b) 8 decks 6/12/25:1 for mixed/coloured/perfect; s27:
    10-J is no pair though both count 0; s30(5) no pair loses."""
    res = bac({"1": {"perfect_pairs_player": 1000}}, f"{p1} Ks {p2} Kd 9c 9d", {"decks": decks})
    assert res["boxes"]["1"]["perfect_pairs_player"] == win


def test_s30_perfect_pairs_banker_area() -> None:
    """s30(1), (4): the banker area looks at the banker's first two cards."""
    res = bac({"1": {"perfect_pairs_banker": 1000, "perfect_pairs_player": 1000}}, "Ks Qh Kd Qc")
    assert res["boxes"]["1"] == {
        "perfect_pairs_banker": 6000,
        "perfect_pairs_player": 6000,
        "net": 12000,
    }


@pytest.mark.parametrize(
    ("shoe", "player", "banker"),
    [
        ("9s 2h Kd Kc", 1000, -1000),  # player natural 9 v 2
        ("Ks 9h 2d Kc", -1000, 1000),  # banker natural 9 v 2 (A3)
    ],
)
def test_s34_a_dragon_natural_win_pays_even_money(shoe: str, player: int, banker: int) -> None:
    """s34(a): a winning natural pays 1:1 whatever the margin (digest A3)."""
    res = bac({"1": {"dragon_bonus_player": 1000, "dragon_bonus_banker": 1000}}, shoe)
    assert res["boxes"]["1"]["dragon_bonus_player"] == player
    assert res["boxes"]["1"]["dragon_bonus_banker"] == banker


@pytest.mark.parametrize(
    ("margin", "win"),
    [
        (9, 30000),
        (8, 10000),
        (7, 6000),
        (6, 4000),
        (5, 2000),
        (4, 1000),
        (3, -1000),
        (2, -1000),
        (1, -1000),
    ],
)
def test_s34_b_dragon_non_natural_margins(margin: int, win: int) -> None:
    """s34(b) 30/10/6/4/2/1:1 by 9..4 points; s33(1)(b)(ii) a non-natural win by 1-3 loses.
    Player 0 draws a ten-value card and stays at 0; banker 0 draws ``margin`` (s23(1))."""
    shoe = f"Ks Kh Qs Qh Js {VALUE_CARD[margin]}d"
    res = bac({"1": {"dragon_bonus_banker": 1000}}, shoe)
    assert res["hands"]["banker"]["points"] == margin and res["hands"]["player"]["points"] == 0
    assert res["boxes"]["1"]["dragon_bonus_banker"] == win


def test_s33_dragon_ties_digest_a2() -> None:
    """s33(1)(c), (3) with digest A2: a tie of naturals is void; a tie without naturals
    loses (s33(1)(b)(ii))."""
    natural = bac({"1": {"dragon_bonus_player": 1000, "dragon_bonus_banker": 1000}}, "8s 8h Kd Kc")
    assert natural["boxes"]["1"] == {"dragon_bonus_player": 0, "dragon_bonus_banker": 0, "net": 0}
    plain = bac({"1": {"dragon_bonus_player": 1000, "dragon_bonus_banker": 1000}}, "7s 7h Kd Kc")
    assert plain["boxes"]["1"] == {
        "dragon_bonus_player": -1000,
        "dragon_bonus_banker": -1000,
        "net": -2000,
    }


def test_s38_player_and_banker_pair() -> None:
    """s38(3) 11:1 on a pair of the first two cards; s38(4),(5) otherwise lost; s35 a pair
    is by face value (K-K yes, K-Q no)."""
    res = bac({"1": {"player_pair": 1000, "banker_pair": 1000}}, "Ks Kh Kd Qc")
    assert res["boxes"]["1"] == {"player_pair": 11000, "banker_pair": -1000, "net": 10000}


@pytest.mark.parametrize(
    ("shoe", "payout", "win", "rule"),
    [
        ("Ks 6h Kd Kc Ts", "commission", 15000, "s41(2) banker wins with 6"),
        ("Ks 6h Kd Kc Ts", "no_commission", 15000, "s41(2), in either mode (A6)"),
        ("Ks 3h Kd Kc Ts 3d", "commission", 15000, "s41(2) three-card 6"),
        ("Ks 7h Kd Kc Ts", "commission", -1000, "s41(3)(a) banker wins with 7"),
        ("7s 6h Kd Kc", "commission", -1000, "s41(3)(b) player wins"),
        ("6s 6h Kd Kc", "commission", -1000, "s41(3)(c) tie"),
    ],
)
def test_s41_super_6(shoe: str, payout: str, win: int, rule: str) -> None:
    res = bac({"1": {"super_6": 1000}}, shoe, {"banker_payout": payout})
    assert res["boxes"]["1"]["super_6"] == win, rule


# ------------------------------------------------------------------ limits and validation


def test_s9_3_tie_at_most_one_eighth_of_the_maximum() -> None:
    """s9(3): a tie wager above maximum/8 is refused (no round could start: exit 2)."""
    ok = bac({"1": {"tie": 125_000}}, "Ks Kh Kd Kc Ts Td")
    assert ok["boxes"]["1"]["tie"] == 1_000_000
    with pytest.raises(ScenarioError, match="tie_above_limit"):
        bac({"1": {"tie": 125_001}}, "Ks Kh Kd Kc")


def test_s9_1_table_limits_per_wager() -> None:
    """s9(1): every wager between the table minimum and maximum."""
    with pytest.raises(ScenarioError, match="below_minimum"):
        bac({"1": {"player": 99}}, "Ks Kh Kd Kc")
    with pytest.raises(ScenarioError, match="above_maximum"):
        bac({"1": {"super_6": 1_000_001}}, "Ks Kh Kd Kc")


def test_s29_s32_s37_side_wager_not_on_layout() -> None:
    """s29(1), s32(1), s37(1): a side wager only where the layout provides it."""
    with pytest.raises(ScenarioError, match="wager_not_offered"):
        bac({"1": {"super_6": 1000}}, "Ks Kh Kd Kc", {"side_wagers": ["player_pair"]})
    with pytest.raises(ScenarioError, match="side_wagers"):
        bac({"1": {"player": 1000}}, "Ks Kh Kd Kc", {"side_wagers": ["lucky_7"]})


def test_s32_2_side_wager_without_a_baccarat_wager() -> None:
    """s32(2): a dragon bonus may be placed in any player's area, without a player/banker
    wager in the same box."""
    res = bac({"5": {"dragon_bonus_banker": 1000}}, "Ks 9h Kd Kc")
    assert res["boxes"]["5"] == {"dragon_bonus_banker": 1000, "net": 1000}


@pytest.mark.parametrize(
    ("scenario", "why"),
    [
        ({"options": {"decks": 7}}, "digest A4: 6 or 8 decks only (s4(1))"),
        ({"options": {"banker_payout": "five_percent"}}, "unknown payout mode"),
        ({"options": {"surrender": True}}, "unknown option"),
        ({"cards": {"boxes": {"1": ["As", "Ks"]}}}, "baccarat is dealt from a shoe"),
        ({"cards": {"shoe": ["As"] * 9}}, "nine aces of spades in eight decks"),
        ({"cards": {"shoe": ["Ax"]}}, "no such card"),
        ({"boxes": {"15": {"player": 1000}}}, "s3(1): at most 14 places"),
        ({"boxes": {"1": {"ante": 1000}}}, "no ante in baccarat"),
        ({"boxes": {"1": {"player": 10.5}}}, "cents are integers"),
    ],
)
def test_invalid_scenarios_exit_2(scenario: dict, why: str) -> None:
    base = {"game": "baccarat", "boxes": {"1": {"player": 1000}}, "seed": 1}
    with pytest.raises(ScenarioError):
        run_scenario({**base, **scenario})


def test_eight_of_a_card_in_eight_decks_is_fine() -> None:
    """SCENARIOS.md: in a multi-deck shoe a card may appear as often as the shoe holds it."""
    res = bac({"1": {"player": 1000}}, " ".join(["As"] * 8))
    assert res["hands"]["player"]["cards"] == ["As", "As", "As"]


def test_digest_s7_no_decisions() -> None:
    """Digest section 7: nothing to decide in a round; any decision is refused, the settled
    round stands."""
    res = bac({"1": {"player": 1000}}, "7s Kh Kd 6c", decisions=[[1, "stand"]])
    assert res["state"] == "rejected"
    assert res["error"]["code"] == "no_decisions"
    assert res["boxes"]["1"]["player"] == 1000


def test_s19_5_every_card_visible_to_everyone_and_settled_from_the_deal() -> None:
    """s4(2), s19(5): all cards are exposed; the round settles at the deal (s24); losers are
    collected before winners are paid (s24(3))."""
    rnd = Baccarat(
        TABLE,
        {1: {"player": 1000}, 2: {"banker": 1000}},
        SeededRandomSource(1),
        forced=Forced(shoe=[0, 4, 8, 12]),
    )
    events = rnd.start()
    assert rnd.complete and rnd.pending() == []
    assert all(e.visible_to == EVERYONE for e in events)
    settled = [e for e in events if e.TYPE == "wager_settled"]
    outcomes = [e.outcome for e in settled]
    assert outcomes == sorted(outcomes, key=lambda o: o != "lose")
    with pytest.raises(IllegalAction):
        rnd.timeout(1)
