"""Blackjack family (QLD Sch 2 blackjack, Sch 9 Spanish, Sch 15 switch, Sch 17 challenge):
one rule per test, naming its schedule and section, beyond vectors BJ-*, SP-*, SW-*, CH-*.

Shoes are given in dealing order: each hand's first card box by box (switch: area 1 then
area 2), the dealer's card, the second cards, then the cards play draws, the dealer's second
card last (there is no hole card, BJ s17(5)).
"""

from __future__ import annotations

import pytest

from server.cards import STANDARD_DECK, SeededRandomSource, card, card_str, rank_of
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import Forced
from server.games.banked.blackjack import ROUNDS, BlackjackRound, BlackjackShoe
from server.games.banked.blackjack.rules import SPANISH_DECK, total
from server.scenario import describe, run_scenario

TABLE = {"minimum": 100, "maximum": 1_000_000}


def play(game: str, boxes: dict, shoe: str, decisions: list, options: dict | None = None) -> dict:
    return run_scenario(
        {
            "game": game,
            "options": {**TABLE, **(options or {})},
            "boxes": boxes,
            "cards": {"shoe": shoe.split()},
            "decisions": decisions,
        }
    )


def new_round(game: str, boxes: dict, shoe: str, options: dict | None = None) -> BlackjackRound:
    r = ROUNDS[game](
        {**TABLE, **(options or {})},
        boxes,
        SeededRandomSource(1),
        forced=Forced(shoe=[card(c) for c in shoe.split()]),
    )
    r.start()
    return r


def verbs(r: BlackjackRound, box: int | None = None) -> set[str]:
    d = r.pending()[0]
    assert box is None or d.box == box
    return {c.verb for c in d.choices}


# ------------------------------------------------------------------------------- the shoe


def test_spanish_decks_have_no_tens_sp_s4() -> None:
    assert len(SPANISH_DECK) == 48 and not any(rank_of(c) == 8 for c in SPANISH_DECK)
    with pytest.raises(ScenarioError, match="not in this game's deck"):
        play("spanish-blackjack", {"1": {"main": 1000}}, "Ts 9h 9c 8d", [])
    shoe = BlackjackShoe(SPANISH_DECK, 6, SeededRandomSource(3))
    assert len(shoe.cards) == 288 and not any(rank_of(c) == 8 for c in shoe.cards)


def test_a_card_at_most_as_often_as_the_shoe_holds_it_bj_s4() -> None:
    with pytest.raises(ScenarioError, match="the shoe holds 5"):
        play("blackjack", {"1": {"main": 1000}}, "As As As As As As", [], {"decks": 5})


@pytest.mark.parametrize(
    ("game", "decks", "ok"),
    [
        ("blackjack", 4, False),
        ("blackjack", 5, True),
        ("blackjack-switch", 5, False),  # SW s4: 6 to 8 decks
        ("blackjack-switch", 6, True),
        ("blackjack-challenge", 8, True),
        ("blackjack-challenge", 9, False),
    ],
)
def test_decks_per_schedule_s4(game: str, decks: int, ok: bool) -> None:
    scen = lambda: play(game, {"1": {"main": 1000}}, "", [], {"decks": decks})  # noqa: E731
    if ok:
        assert scen()["state"] in ("waiting", "complete")
    else:
        with pytest.raises(ScenarioError):
            scen()


def test_cutting_card_reached_round_finishes_then_reshuffle_bj_s19() -> None:
    shoe = BlackjackShoe(STANDARD_DECK, 5, SeededRandomSource(7), cut_from_back=60)
    assert shoe.cut_at == 200
    for _ in range(200):
        shoe.deal()
    assert not shoe.cut_reached and not shoe.end_round()
    shoe.deal()  # the first card behind the cutting card
    assert shoe.cut_reached
    shoe.deal()  # the round goes on (no reshuffle mid-round)
    assert shoe.remaining() == 58
    assert shoe.end_round() and shoe.remaining() == 260 and not shoe.cut_reached


def test_spanish_cutting_card_first_card_of_a_round_reshuffles_at_once_sp_s19_2() -> None:
    for reshuffle_first in (True, False):
        shoe = BlackjackShoe(SPANISH_DECK, 5, SeededRandomSource(7), cut_from_back=48)
        for _ in range(shoe.cut_at):
            shoe.deal()
        shoe.end_round()  # the cutting card is next: not reached yet
        shoe.begin_round(reshuffle_first)
        assert (shoe.reshuffles == 1) is reshuffle_first


def test_spanish_round_starts_with_reshuffle_when_cut_card_is_first() -> None:
    shoe = BlackjackShoe(SPANISH_DECK, 5, SeededRandomSource(7), cut_from_back=48)
    for _ in range(shoe.cut_at):
        shoe.deal()
    shoe.end_round()
    cls = ROUNDS["spanish-blackjack"]
    r = cls({**TABLE, "decks": 5}, {"1": {"main": 1000}}, SeededRandomSource(2), shoe=shoe)
    r.start()
    assert shoe.reshuffles == 1 and shoe.pos < 10


def test_spanish_last_three_rounds_without_reshuffle_sp_s19_3_4() -> None:
    shoe = BlackjackShoe(SPANISH_DECK, 5, SeededRandomSource(7), cut_from_back=48)
    while shoe.pos < shoe.cut_at - 5:
        shoe.deal()
    shoe.end_round()
    shoe.announce_last_rounds(3)
    for _ in range(3):
        shoe.begin_round(True)
        for _ in range(10):
            shoe.deal()
        assert not shoe.end_round()  # the cutting card came out: no reshuffle
    with pytest.raises(ValueError, match="closes"):
        shoe.begin_round(True)


def test_not_enough_cards_shuffle_the_discards_and_complete_bj_s52() -> None:
    shoe = BlackjackShoe(STANDARD_DECK, 5, SeededRandomSource(9), cut_from_back=10)
    while shoe.pos < shoe.cut_at - 1:  # earlier rounds, all before the cutting card
        shoe.deal()
        if len(shoe.on_table) == 10:
            assert not shoe.end_round()
    shoe.end_round()
    table = [shoe.deal() for _ in range(20)]  # one long round runs out of cards
    assert len(table) == 20 and shoe.reshuffles == 1
    assert shoe.end_round()  # the whole shoe is reshuffled after this round
    assert shoe.remaining() == 260


def test_card_face_up_in_the_shoe_is_discarded_bj_s49() -> None:
    shoe = BlackjackShoe(STANDARD_DECK, 5, SeededRandomSource(9), forced=[card("As"), card("Kd")])
    assert card_str(shoe.discard_face_up()) == "As"
    assert card_str(shoe.deal()) == "Kd"
    assert card("As") in shoe.discards and card("As") not in shoe.on_table


def test_cut_card_depth_option_s13() -> None:
    with pytest.raises(ScenarioError, match="two-thirds"):
        play("blackjack", {"1": {"main": 1000}}, "", [], {"decks": 6, "cut_card": 300})
    r = play("blackjack", {"1": {"main": 1000}}, "Kh 9s Qc", [[1, "stand"]], {"cut_card": 100})
    assert r["state"] == "complete"


# ------------------------------------------------------------------------------- dealing


def test_no_hole_card_dealer_second_card_after_every_player_bj_s17_5() -> None:
    r = new_round("blackjack", {"1": {"main": 1000}, "2": {"main": 1000}}, "Th 9c 6s 7d 5h 2c 9d")
    assert len(r.dealer) == 1 and r.pending()[0].box == 1
    r.decide(1, "stand")
    assert len(r.dealer) == 1 and r.pending()[0].box == 2
    r.decide(2, "hit")  # 9c 5h 2c = 16
    assert len(r.dealer) == 1
    r.decide(2, "stand")
    assert r.complete and [card_str(c) for c in r.dealer][:2] == ["6s", "9d"]
    kinds = [(e.TYPE, getattr(e, "to", None)) for e in r.events if e.TYPE == "cards_dealt"]
    assert kinds[-1] == ("cards_dealt", "dealer")


def test_pending_is_only_the_hand_to_act_in_box_order() -> None:
    r = new_round("blackjack", {"1": {"main": 1000}, "3": {"main": 1000}}, "Th 9c 6s 7d 5h")
    assert [d.box for d in r.pending()] == [1]
    with pytest.raises(IllegalAction) as e:
        r.decide(3, "stand")
    assert e.value.code == "not_awaiting_decision"


def test_dealer_stops_when_nothing_is_live_sp_s28_2() -> None:
    # box 1 busts; the dealer takes the second card only (s17(5)) and draws no more
    res = play("spanish-blackjack", {"1": {"main": 1000}}, "Kh 5c 6d Qd 2c 9s", [[1, "hit"]])
    assert res["boxes"]["1"]["main"] == -1000 and res["dealer_cards"] == ["5c", "2c"]


# ------------------------------------------------------------------------------- dealer rules


@pytest.mark.parametrize(
    ("game", "hits"),
    [
        ("blackjack", False),  # BJ s27(1)
        ("spanish-blackjack", True),  # SP s28(1)
        ("blackjack-challenge", False),  # CH s26(1)
    ],
)
def test_dealer_soft_17_per_schedule(game: str, hits: bool) -> None:
    res = play(game, {"1": {"main": 1000}}, "Kh Ad Qc 6s 4c", [[1, "stand"]])
    assert res["dealer_cards"] == (["Ad", "6s", "4c"] if hits else ["Ad", "6s"])
    assert res["boxes"]["1"]["main"] == (-1000 if hits else 1000)


def test_switch_dealer_hits_soft_17_stands_on_hard_22_pushes_sw_s27_s6_3_i() -> None:
    # B1 areas: Th 9h (19) and 8c 9c (17); dealer 6d As (soft 17) hits 5s -> hard 12, Ts -> 22
    res = play(
        "blackjack-switch",
        {"1": {"main": 1000}},
        "Th 8c 6d 9h 9c As 5s Ts",
        [[1, "stand"], [1, "stand"]],
    )
    assert res["dealer_cards"] == ["6d", "As", "5s", "Ts"]
    assert res["boxes"]["1"]["hands"] == [0, 0] and res["dealer"] == "22"


# ------------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("game", "shoe", "hits", "can_double"),
    [
        ("blackjack", "As 7d 8h", 0, True),  # BJ s24(1),(4), A1: A-8 is 9 with the ace as 1
        ("blackjack", "5s 7d 3h", 0, False),  # 8: outside 9-11
        ("blackjack", "Ks 7d Ah", 0, False),  # a natural is never doubled
        ("blackjack", "4s 7d 3h 2c", 1, False),  # BJ: only the first 2 cards
        ("spanish-blackjack", "4s 7d 3h 2c", 1, True),  # SP s25(1): any number of cards
        ("spanish-blackjack", "Ks 7d 9h", 0, True),  # SP: any total below 21
        ("blackjack-challenge", "4s 7d 3h 2c", 1, True),  # CH s23(1): 2 or 3 cards
        ("blackjack-challenge", "2s 7d 3h 2c 2h", 2, False),  # not on 4 cards
    ],
)
def test_double_window_per_schedule(game: str, shoe: str, hits: int, can_double: bool) -> None:
    r = new_round(game, {"1": {"main": 1000}}, shoe)
    for _ in range(hits):
        r.decide(1, "hit")
    if r.complete:
        assert not can_double
        return
    assert ("double" in verbs(r)) is can_double


def test_double_ace_counting_bj_s24_4_and_sp_s25_4() -> None:
    # BJ: A-9 doubled gets an A: the first ace stays 1, the drawn ace counts 11 -> 21
    res = play("blackjack", {"1": {"main": 1000}}, "As 7d 9h Ah Td", [[1, "double", 1000]])
    assert res["boxes"]["1"]["main"] == 2000  # 21 v 17
    # SP (literal A1): A-7 doubled is 8 + the card: A-7 + 9 = 17, not 27 -> bust
    res = play("spanish-blackjack", {"1": {"main": 1000}}, "As 7d 7h 9c Jd", [[1, "double", 1000]])
    assert res["boxes"]["1"]["main"] == 0  # 17 v 17 push
    # CH: aces unchanged: A-7 + 9 = 17 (the ace falls to 1 as usual)
    res = play(
        "blackjack-challenge", {"1": {"main": 1000}}, "As 7d 7h 2c Jd", [[1, "double", 1000]]
    )
    assert res["boxes"]["1"]["main"] == 2000  # soft 20 v 17


def test_double_for_less_up_to_the_wager_bj_s24() -> None:
    r = new_round("blackjack", {"1": {"main": 1000}}, "6s 7d 5h")
    with pytest.raises(IllegalAction):
        r.decide(1, "double", 1001)
    r.decide(1, "double", 400)
    assert r.stakes[1]["main"] == 1400


def test_no_resplit_bj_s25_4_a_and_split_aces_one_card_s25_4_b() -> None:
    r = new_round("blackjack", {"1": {"main": 1000}}, "8s 9d 8h 8c 2c")
    r.decide(1, "split")
    assert "split" not in verbs(r)  # 8s 8c
    r = new_round("blackjack", {"1": {"main": 1000}}, "As 9d Ah 2c 3c Td")
    r.decide(1, "split")
    assert r.complete  # one card to each ace, no decisions


def test_challenge_resplit_to_three_hands_and_split_aces_play_on_ch_s24() -> None:
    r = new_round("blackjack-challenge", {"1": {"main": 1000}}, "8s 9d 8h 8c 8d")
    r.decide(1, "split")
    assert "split" in verbs(r)
    r.decide(1, "split")
    assert len(r.box_play[1].hands) == 3 and "split" not in verbs(r)  # 8s 8d: three hands
    r = new_round("blackjack-challenge", {"1": {"main": 1000}}, "As 9d Ah 2c")
    r.decide(1, "split")
    assert {"hit", "double"} <= verbs(r)  # digest A4: split aces may draw and double


def test_challenge_split_aces_make_a_blackjack_2_to_1_ch_s24_4_a() -> None:
    res = play(
        "blackjack-challenge",
        {"1": {"main": 1000}},
        "As 9d Ah Kc 9s Tc",
        [[1, "split"], [1, "stand"]],
    )
    assert res["boxes"]["1"]["hands"][0] == 2000


def test_ten_value_cards_split_k_10_bj_s25_1() -> None:
    r = new_round("blackjack", {"1": {"main": 1000}}, "Ks 9d Th")
    assert "split" in verbs(r)


def test_spanish_surrender_window_sp_s23() -> None:
    r = new_round("spanish-blackjack", {"1": {"main": 1000}}, "9s Kd 6h")
    assert "surrender" in verbs(r)
    r.decide(1, "hit")  # digest A3: only the first decision
    if not r.complete:
        assert "surrender" not in verbs(r)
    r = new_round("spanish-blackjack", {"1": {"main": 1000}}, "9s 9d 6h")
    assert "surrender" not in verbs(r)  # dealer 9: not offered


def test_spanish_surrender_half_or_all_sp_s23_3_4() -> None:
    assert (
        play("spanish-blackjack", {"1": {"main": 1001}}, "9s Kd 6h 8c", [[1, "surrender"]])[
            "boxes"
        ]["1"]["main"]
        == -501
    )  # half, the odd cent to the house
    assert (
        play("spanish-blackjack", {"1": {"main": 1000}}, "9s Ad 6h Kc", [[1, "surrender"]])[
            "boxes"
        ]["1"]["main"]
        == -1000
    )


def test_spanish_rescue_only_after_the_double_card_sp_s25_7_8() -> None:
    boxes = {"1": {"main": 1000}, "2": {"main": 1000}}
    r = new_round("spanish-blackjack", boxes, "5s 9d 9c 6h 2c 5c Kc")
    r.decide(1, "double", 1000)  # 5-6 + 5 = 16
    assert any(d.street == "rescue" for d in r.pending())
    r.decide(2, "stand")  # the next play decision declines the rescue
    assert r.complete
    assert r.result.boxes[1]["main"] == -2000  # doubled 16 v the dealer's 9c Kc
    res = play(
        "spanish-blackjack",
        {"1": {"main": 1000}},
        "5s 9d 6h 5c 9c",
        [[1, "double", 1000], [1, "rescue"]],
    )
    assert res["boxes"]["1"]["main"] == -1000


def test_switch_swaps_second_cards_once_before_any_decision_sw_s17_5() -> None:
    r = new_round("blackjack-switch", {"1": {"main": 1000}}, "9h 2d 7s 3c Ts")
    assert "switch" in verbs(r)
    r.decide(1, "switch")
    h1, h2 = r.box_play[1].hands
    assert [card_str(c) for c in h1.cards] == ["9h", "Ts"]
    assert [card_str(c) for c in h2.cards] == ["2d", "3c"]
    r.decide(1, "stand")
    assert "switch" not in verbs(r)


def test_switched_blackjack_is_21_not_blackjack_sw_s22_5() -> None:
    res = play(
        "blackjack-switch",
        {"1": {"main": 1000}},
        "Ah 5d 9s 2c Kc Ts",
        [[1, "switch"], [1, "stand"]],
    )
    # after the switch: Ah Kc = 21 (no blackjack, 1:1), 5d 2c = 7 stands; dealer 9s Ts 19
    assert res["boxes"]["1"]["hands"] == [1000, -1000]


def test_insurance_limits_and_25c_allowance_bj_s23_4() -> None:
    r = new_round("blackjack", {"1": {"main": 1050}}, "9s Ad 7h")
    ins = next(c for d in r.pending() for c in d.choices if c.verb == "insurance")
    assert ins.resolve(525) == 525
    assert ins.resolve(550) == 550  # $5.50 -> wins $11: whole dollars (A8)
    with pytest.raises(IllegalAction):
        ins.resolve(540)  # over half, not a whole-dollar win
    with pytest.raises(IllegalAction):
        ins.resolve(600)


def test_switch_one_insurance_per_box_half_one_area_sw_s23() -> None:
    r = new_round("blackjack-switch", {"1": {"main": 1000}}, "9s 8d Ad 7h 7c")
    offers = [d for d in r.pending() if d.street == "insurance"]
    assert len(offers) == 1
    ins = next(c for c in offers[0].choices if c.verb == "insurance")
    with pytest.raises(IllegalAction):
        ins.resolve(501)


def test_challenge_has_no_insurance_ch_a9() -> None:
    r = new_round("blackjack-challenge", {"1": {"main": 1000}}, "9s Ad 7h")
    assert [d.street for d in r.pending()] == ["hand 1"]


def test_even_money_on_request_bj_s22_4() -> None:
    res = play("blackjack", {"1": {"main": 1000}}, "As Ad Kh Kc", [[1, "even_money"]])
    assert res["boxes"]["1"]["main"] == 1000  # dealer blackjack would have pushed it
    res = play("blackjack", {"1": {"main": 1000}}, "As Ad Kh 7c", [])
    assert res["boxes"]["1"]["main"] == 1500


# ------------------------------------------------------------------------------- payouts


@pytest.mark.parametrize(
    ("game", "win"),
    [
        ("blackjack", 1500),  # BJ s8(2) 3:2
        ("spanish-blackjack", 1500),  # SP s8(1) 3:2
        ("blackjack-challenge", 2000),  # CH s22(1) 2:1
    ],
)
def test_blackjack_payout_per_schedule(game: str, win: int) -> None:
    res = play(game, {"1": {"main": 1000}}, "As 9d Kh 8c", [])
    assert res["boxes"]["1"]["main"] == win


def test_switch_blackjack_pays_1_to_1_sw_s8_1() -> None:
    res = play("blackjack-switch", {"1": {"main": 1000}}, "As 9c 9d Kh Tc 8s", [[1, "stand"]])
    assert res["boxes"]["1"]["hands"] == [1000, 1000]


def test_spanish_blackjack_beats_dealer_blackjack_sp_s6_2_c() -> None:
    res = play("spanish-blackjack", {"1": {"main": 1000}}, "As Ad Kh Kc", [])
    assert res["boxes"]["1"]["main"] == 1500


@pytest.mark.parametrize(
    ("player", "dealer", "win"),
    [("Kh", "Qc", 5000), ("Qh", "Qc", 4000), ("Jh", "Qc", 3000), ("Th", "Jc", 3000)],
)
def test_challenge_blackjack_v_blackjack_ten_card_rank_ch_s27_1(
    player: str, dealer: str, win: int
) -> None:
    res = play("blackjack-challenge", {"1": {"main": 1000}}, f"As Ad {player} {dealer}", [])
    assert res["boxes"]["1"]["main"] == win


@pytest.mark.parametrize(
    ("shoe", "hits", "net"),
    [
        ("2s Kd 3h 4c 5d 7c Kc", 3, 1500),  # 5-card 21 3:2
        ("2s Kd 2h 3c 3d 4s 7h Kc", 4, 2000),  # 6-card 21 2:1
        ("2s Kd 2h 2c 3d 3s 4h 5c Kc", 5, 3000),  # 7-card 21 3:1
        ("6s Kd 7s 8s Kc", 1, 3000),  # 6-7-8 spades 3:1
        ("6h Kd 7h 8h Kc", 1, 2000),  # 6-7-8 suited 2:1
        ("6h Kd 7c 8h Kc", 1, 1500),  # 6-7-8 mixed 3:2
        ("4h Kd 7c Kh Kc", 1, 1000),  # a 3-card 21: 1:1 at once
    ],
)
def test_spanish_21_bonuses_sp_s8_1(shoe: str, hits: int, net: int) -> None:
    res = play("spanish-blackjack", {"1": {"main": 1000}}, shoe, [[1, "hit"]] * hits)
    assert res["boxes"]["1"]["main"] == net


def test_spanish_super_bonus_paid_to_others_sp_s8_3() -> None:
    # box 1: 7s 7s + 7s against a dealer 7: $1,000 (main $20) and $50 to box 2 and its backer
    res = play(
        "spanish-blackjack",
        {"1": {"main": 2000}, "2": {"main": 1000, "others": {"P9": {"main": 500}}}},
        "7s 9c 7h 7s Kd 7s 8c",
        [[1, "hit"], [2, "stand"]],
    )
    b1, b2 = res["boxes"]["1"], res["boxes"]["2"]
    assert b1["super_bonus"] == 100_000 and b1["main"] == 6000  # 7-7-7 spades 3:1
    assert b2["super_bonus"] == 5000 and b2["others"]["P9"]["super_bonus"] == 5000


def test_spanish_no_super_bonus_after_splitting_suited_sevens_sp_s26_6() -> None:
    res = play(
        "spanish-blackjack",
        {"1": {"main": 2000}},
        "7s 7h 7s 7s 7s Kc 5d",
        [[1, "split"], [1, "hit"], [1, "stand"]],
    )
    assert "super_bonus" not in res["boxes"]["1"]


def test_challenge_immediate_21_and_five_card_trick_beat_dealer_blackjack_ch_s25() -> None:
    res = play(
        "blackjack-challenge",
        {"1": {"main": 1000}, "2": {"main": 1000}},
        "2s 9c Ad 2h 3c 2c 2d 3h 9h Kc",
        [[1, "hit"], [1, "hit"], [1, "hit"], [2, "hit"]],
    )
    assert res["boxes"]["1"]["main"] == 1000  # 2 2 2 2 3: a five card trick, paid at once
    assert res["boxes"]["2"]["main"] == 1000  # 9 3 9: 21, paid at once
    assert res["dealer"] == "blackjack"


def test_challenge_ties_lose_ch_s27_4() -> None:
    res = play("blackjack-challenge", {"1": {"main": 1000}}, "Ks Qd Th Jc", [[1, "stand"]])
    assert res["boxes"]["1"]["main"] == -1000


# --------------------------------------------------------------- dealer blackjack after split


def test_spanish_first_split_hand_bust_keeps_the_original_sp_a4() -> None:
    # 8-8 split; hand 1 8 5 K bust; hand 2 8 9 stands; dealer A K: hand 2 void (literal s26(7))
    res = play(
        "spanish-blackjack",
        {"1": {"main": 1000}},
        "8s Ad 8h 5c Kd 9c Kh",
        [[1, "split"], [1, "hit"], [1, "stand"]],
    )
    assert res["boxes"]["1"]["hands"] == [-1000, 0]


def test_blackjack_dealer_blackjack_after_double_loses_only_the_wager_bj_s24_5() -> None:
    res = play("blackjack", {"1": {"main": 1000}}, "6s Kd 5h 7c Ac", [[1, "double", 1000]])
    assert res["boxes"]["1"]["main"] == -1000


def test_challenge_busted_doubled_hand_loses_both_ch_s23_5() -> None:
    res = play(
        "blackjack-challenge", {"1": {"main": 1000}}, "8s Kd 4h Kc Ac", [[1, "double", 1000]]
    )
    assert res["boxes"]["1"]["main"] == -2000


# ------------------------------------------------------------------------------- side wagers


@pytest.mark.parametrize(
    ("cards", "net"),
    [
        ("9h 9c 2d 4s", 500),  # pair 1:1
        ("9h 2c 9d 2s", 4000),  # two pairs 8:1 (digest A8)
        ("9h 9c 9d 4s", 2500),  # three of a kind 5:1
        ("9h 9c 9d 9s", 20000),  # four of a kind 40:1
        ("9h 8c 2d 4s", -500),
    ],
)
def test_super_match_first_four_cards_sw_s8_3(cards: str, net: int) -> None:
    a1, a2, b1, b2 = cards.split()
    res = play(
        "blackjack-switch",
        {"1": {"main": 1000, "super_match": 500}},
        f"{a1} {a2} Kd {b1} {b2} Kc",
        [],
    )
    assert res["boxes"]["1"]["super_match"] == net


def test_any_pair_same_rank_only_ch_s35() -> None:
    assert (
        play("blackjack-challenge", {"1": {"main": 1000, "any_pair": 100}}, "Jh 9d Qh 8c", [])[
            "boxes"
        ]["1"]["any_pair"]
        == -100
    )
    assert (
        play("blackjack-challenge", {"1": {"main": 1000, "any_pair": 100}}, "Jh 9d Jc 8c", [])[
            "boxes"
        ]["1"]["any_pair"]
        == 1100
    )


def test_bonus_blackjack_controller_only_one_dollar_six_or_eight_decks_bj_s38_s39() -> None:
    with pytest.raises(ScenarioError, match="exactly"):
        play("blackjack", {"1": {"main": 1000, "bonus_blackjack": 200}}, "", [])
    with pytest.raises(ScenarioError, match="6 or 8"):
        play("blackjack", {"1": {"main": 1000, "bonus_blackjack": 100}}, "", [], {"decks": 7})
    with pytest.raises(ScenarioError, match="controller"):
        play(
            "blackjack",
            {"1": {"main": 1000, "others": {"P2": {"main": 100, "bonus_blackjack": 100}}}},
            "",
            [],
        )


def test_side_wagers_per_schedule() -> None:
    wagers = {
        g: {w["name"] for w in describe(g)["wagers"]}
        for g in ("blackjack", "spanish-blackjack", "blackjack-switch", "blackjack-challenge")
    }
    assert wagers["blackjack"] >= {"super_sevens", "bonus_blackjack", "perfect_pairs"}
    assert "perfect_pairs" in wagers["spanish-blackjack"]
    assert "super_match" in wagers["blackjack-switch"]
    assert "any_pair" in wagers["blackjack-challenge"]
    assert "super_sevens" not in wagers["spanish-blackjack"] | wagers["blackjack-challenge"]
    with pytest.raises(ScenarioError):
        play("blackjack-challenge", {"1": {"main": 1000, "perfect_pairs": 100}}, "", [])


# ------------------------------------------------------------------------------- timeouts


@pytest.mark.parametrize(
    ("game", "shoe", "drawn"),
    [
        ("blackjack", "As 9d 6h 2c", 0),  # BJ s61: a soft 17 stands
        ("blackjack-switch", "As 9d 9c 6h Kc 2c 5s", 1),  # SW s42: a soft 17 draws
        ("blackjack", "5s 9d 3h 2c 3d 9s", 2),  # BJ s61: hard 8, 10 draw; 13 stands
        ("blackjack-challenge", "9s 9d 2h 7c 5d", 1),  # CH s49: hard 11 draws, 18 stands
    ],
)
def test_timeout_auto_play_per_schedule(game: str, shoe: str, drawn: int) -> None:
    r = new_round(game, {"1": {"main": 1000}}, shoe)
    first = r.box_play[1].hands[0]
    before = len(first.cards)
    r.decide(1, "timeout")
    assert r.complete
    assert not any(e.TYPE == "decision_made" and e.verb == "switch" for e in r.events)
    hand = first
    t, soft = total(hand.cards)
    assert len(hand.cards) - before == drawn
    limit = 17 if game == "blackjack-switch" else 16
    assert t > 21 or (t > limit if soft else t > 11)


def test_insufficient_declines_the_offer_then_auto_plays() -> None:
    r = new_round("blackjack", {"1": {"main": 1000}}, "9s Ad 7h")
    r.decide(1, "insufficient")  # cannot fund insurance: declined; the hand plays itself
    assert r.complete and "insurance" not in r.result.boxes[1]


# ------------------------------------------------------------------------------- backers


def test_switch_admits_others_only_for_super_match_sw_s28_s7_3() -> None:
    with pytest.raises(ScenarioError, match="one player per box"):
        play("blackjack-switch", {"1": {"main": 1000, "others": {"P2": {"main": 1000}}}}, "", [])
    res = play(
        "blackjack-switch",
        {"1": {"main": 1000, "others": {"P2": {"super_match": 500}}}},
        "9h 9c Kd 2d 4s Kc",
        [[1, "stand"], [1, "stand"]],
    )
    assert res["boxes"]["1"]["others"]["P2"] == {"super_match": 500, "net": 500}


def test_at_most_three_players_on_a_box_bj_s29_1() -> None:
    others = {"P2": {"main": 100}, "P3": {"main": 100}, "P4": {"main": 100}}
    with pytest.raises(ScenarioError, match="at most 3"):
        play("blackjack", {"1": {"main": 1000, "others": others}}, "", [])


def test_backers_insure_on_their_own_bj_s30_5() -> None:
    res = play(
        "blackjack",
        {"1": {"main": 1000, "others": {"P2": {"main": 1000}}}},
        "9s Ad 7h Kc",
        [[1, "insurance", 500, {"player": "P2"}], [1, "stand"]],
    )
    assert res["boxes"]["1"]["others"]["P2"] == {"main": -1000, "insurance": 1000, "net": 0}
    assert "insurance" not in res["boxes"]["1"]


def test_backer_follows_the_first_hand_by_default_ch_s24_6() -> None:
    res = play(
        "blackjack",
        {"1": {"main": 1000, "others": {"P2": {"main": 1000}}}},
        "8s 9d 8h Tc Kc 8c",
        [[1, "split"], [1, "stand"], [1, "stand"]],
    )
    assert res["boxes"]["1"]["others"]["P2"]["hands"] == [1000, 0]


SUPER_SHOE = "7s 9c Jd 7h 7s Kd Qd 7s 8c 5d 5c 5h"  # box 1: 7s 7s + 7s against a dealer 7
SUPER_BOXES = {
    "1": {"main": 2000, "others": {"P2": {"main": 3000}}},  # the qualifying hand, backed
    "2": {"main": 1000, "others": {"P9": {"main": 500}}},
    "3": {"main": 1000, "others": {"P9": {"main": 500}}},  # P9 again: the same player
}


def test_spanish_super_bonus_with_backers_once_per_person_sp_s8_3() -> None:
    """Issue 25: every player on the qualifying hand is paid by his own main wager (A2(v));
    every other player $50 once per qualifying hand, a person however many boxes he plays
    (A2(vii)); never the $50 to a player on the hand itself."""
    res = play(
        "spanish-blackjack", SUPER_BOXES, SUPER_SHOE, [[1, "hit"], [2, "stand"], [3, "stand"]]
    )
    b1, b2, b3 = (res["boxes"][b] for b in ("1", "2", "3"))
    assert b1["super_bonus"] == 100_000  # $20 main: $1,000 (s8(3)(a))
    assert b1["others"]["P2"]["super_bonus"] == 500_000  # $30 main: $5,000 (s8(3)(b))
    assert b2["super_bonus"] == 5000 and b3["super_bonus"] == 5000  # two other players
    assert b2["others"]["P9"]["super_bonus"] == 5000  # P9: once, on his first box
    assert "super_bonus" not in b3["others"]["P9"]


def test_spanish_super_bonus_pays_a_person_at_two_boxes_once_sp_s8_3() -> None:
    """At a table the players are accounts: one person who holds boxes 2 and 3 gets $50
    once, and a backer of the qualifying box who also holds box 3 gets his $5,000 and no
    $50 (the table tells the engine who plays each place: ``persons``)."""
    r = new_round(
        "spanish-blackjack",
        {int(b): ws for b, ws in SUPER_BOXES.items()},
        SUPER_SHOE,
    )
    r.persons = {
        (1, None): "ann", (1, "P2"): "bob", (2, None): "cy", (2, "P9"): "dee",
        (3, None): "bob", (3, "P9"): "cy",
    }  # fmt: skip
    for box, verb in ((1, "hit"), (2, "stand"), (3, "stand")):
        r.decide(box, verb)
    paid: dict[str, int] = {}
    for e in r.events:
        if e.TYPE == "wager_settled" and e.wager.endswith("super_bonus"):
            place = e.wager.split()[0] if " " in e.wager else None
            who = r.persons[(e.box, place)]
            paid[who] = paid.get(who, 0) + e.net
    assert paid == {"ann": 100_000, "bob": 500_000, "cy": 5000, "dee": 5000}
