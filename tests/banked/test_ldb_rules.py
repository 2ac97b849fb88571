"""Lucky draw baccarat (QLD Sch 16): every draw pay line (s11(2)), the dealer's rule
(s17(5)-(7)) for every two-card total, turns (s17(2)), s34 timeouts, voids and validation,
beyond vectors LDB-01..LDB-08."""

from __future__ import annotations

import pytest

from server.cards import SeededRandomSource, card
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import EVERYONE, Forced
from server.games.banked.lucky_draw_baccarat import LuckyDrawBaccarat
from server.scenario import run_scenario

TABLE = {"minimum": 100, "maximum": 1_000_000}
VALUE_CARD = {0: "T", 1: "A", **{v: str(v) for v in range(2, 10)}}


def ldb(boxes: dict, shoe: str, decisions: list, options: dict | None = None) -> dict:
    return run_scenario(
        {
            "game": "lucky-draw-baccarat",
            "options": {**TABLE, **(options or {})},
            "boxes": boxes,
            "cards": {"shoe": shoe.split()},
            "decisions": decisions,
        }
    )


@pytest.mark.parametrize(
    ("hand", "dealer", "enter", "draw", "line"),
    [
        ("Ks 2h 4d", "Kc Qc Jc", 1000, 1000, "s11(2)(a) 6 or less 1:1"),
        ("As Kh Kd", "Kc Qc Jc", 1000, 1000, "s11(2)(a) total 1 beats 0"),
        ("3s 2h 2d", "Kc 5c", 1001, 1501, "s11(2)(b) lucky 7 3:2, floored to the cent"),
        ("3s 2h 3d", "Kc 5c", 1000, 2000, "s11(2)(c) lucky 8 2:1"),
        ("4s 2h 3d", "Kc 5c", 1000, 3000, "s11(2)(d) lucky 9 3:1"),
        ("3s 3h 3d", "Kc 5c", 1000, 9000, "s11(2)(e) 3-3-3 off suit 9:1 (A3)"),
        ("3s 3s 3h", "Kc 5c", 1000, 9000, "s11(2)(e) two spades and a heart are off suit (A3)"),
        ("3h 3h 3h", "Kc 5c", 1000, 30000, "s11(2)(f) 3-3-3 suited 30:1"),
        ("3h 3h 3h", "9c Kc", 0, 0, "A5: 3-3-3 suited against a dealer 9 is a tie"),
        ("3s 2h Kd", "Kc 6c", -1000, -1000, "s6(2)(b), s6(4)(b): both wagers lost"),
    ],
)
def test_s11_2_every_draw_line(hand: str, dealer: str, enter: int, draw: int, line: str) -> None:
    """s11(1) enter 1:1 and s11(2) the draw wager by the three-card total; a tie returns
    both (s6(2)(c), s6(4)(c), digest A5). One box: shoe = c1, dealer c1, c2, c3, dealer..."""
    h, d = hand.split(), dealer.split()
    shoe = " ".join([h[0], d[0], h[1], h[2], *d[1:]])
    stake = 1001 if "floored" in line else 1000
    res = ldb({"1": {"enter": stake}}, shoe, [[1, "draw"]])
    assert res["state"] == "complete"
    assert res["boxes"]["1"]["enter"] == (stake if enter > 0 else -stake if enter < 0 else 0)
    assert res["boxes"]["1"]["draw"] == draw, line


@pytest.mark.parametrize("total", range(10))
def test_s17_5_to_7_dealer_draws_to_4_stands_on_5(total: int) -> None:
    """s17(5) the dealer's second card after the players; s17(6) a third card on 0-4;
    s3(3) stand on 5-9; s17(7) never more than one extra card."""
    shoe = f"Ks {VALUE_CARD[total]}h Kd Kc 5s 5d"
    res = ldb({"1": {"enter": 1000}}, shoe, [[1, "stand"]])
    dealer = res["dealer_hand"]["cards"]
    assert dealer[:2] == [f"{VALUE_CARD[total]}h", "Kc"]
    assert len(dealer) == (3 if total <= 4 else 2)


def test_s17_2_cards_keep_seat_order_whatever_the_order_of_decisions() -> None:
    """s17(2), s17(4): terminals decide concurrently, but draw cards go out from the dealer's
    left: box 2 drawing before box 1 has decided waits; it gets the card after box 1's."""
    shoe = [card(c) for c in "Ks Kh 5d Td Jd 2c 4c Qc".split()]
    rnd = LuckyDrawBaccarat(
        TABLE,
        {1: {"enter": 1000}, 2: {"enter": 1000}},
        SeededRandomSource(3),
        forced=Forced(shoe=shoe),
    )
    rnd.start()
    assert [d.box for d in rnd.pending()] == [1, 2]
    early = rnd.decide(2, "draw")
    assert [e.TYPE for e in early] == ["decision_made"]  # box 1 has not acted yet
    late = rnd.decide(1, "draw")
    dealt = [(e.box, e.cards) for e in late if e.TYPE == "cards_dealt" and e.to == "box"]
    assert dealt == [(1, ("2c",)), (2, ("4c",))]
    assert rnd.complete and rnd.dealer == [card("5d"), card("Qc")]


def test_s17_4_in_turn_draw_gets_its_card_at_once() -> None:
    """s17(4): a box acting in turn gets its card as it decides."""
    shoe = [card(c) for c in "Ks Kh 5d Td Jd 2c 4c Qc".split()]
    rnd = LuckyDrawBaccarat(
        TABLE,
        {1: {"enter": 1000}, 2: {"enter": 1000}},
        SeededRandomSource(3),
        forced=Forced(shoe=shoe),
    )
    rnd.start()
    events = rnd.decide(1, "draw")
    assert [(e.box, e.cards) for e in events if e.TYPE == "cards_dealt"] == [(1, ("2c",))]


def test_out_of_order_scenario_matches_in_order() -> None:
    """The scenario's decision order does not change the cards (s17(2) seat order)."""
    boxes = {"1": {"enter": 1000}, "2": {"enter": 1000}, "3": {"enter": 5000}}
    shoe = "8c 5h 6s Kh Tc 2d Jh 2s Qd 9s"
    a = ldb(boxes, shoe, [[1, "stand"], [2, "draw"], [3, "stand"]])
    b = ldb(boxes, shoe, [[3, "stand"], [2, "draw"], [1, "stand"]])
    assert a == b and a["state"] == "complete"


def test_s17_4_drawn_card_dealt_at_once_in_seat_order() -> None:
    """s17(4): a drawing player gets the next card at once; the dealer's second card comes
    after every player (s17(5)). Box 1 draws 2c, box 2 draws 4c, the dealer then Qc."""
    res = ldb(
        {"1": {"enter": 1000}, "2": {"enter": 1000}},
        "Ks Kh 5d Td Jd 2c 4c Qc",
        [[1, "draw"], [2, "draw"]],
    )
    assert res["hands"]["1"]["cards"] == ["Ks", "Td", "2c"]
    assert res["hands"]["2"]["cards"] == ["Kh", "Jd", "4c"]
    assert res["dealer_hand"]["cards"] == ["5d", "Qc"]


@pytest.mark.parametrize("verb", ["timeout", "insufficient"])
def test_s34_absent_player_keeps_two_cards(verb: str) -> None:
    """s34: a player who does not act keeps the first two cards (no draw wager); so does a
    player who cannot fund the draw wager (s6(3))."""
    res = ldb({"1": {"enter": 1000}}, "7s Kc Kd 5h", [[1, verb]])
    assert res["state"] == "complete"
    assert res["boxes"]["1"] == {"enter": 1000, "net": 1000}
    assert res["hands"]["1"]["cards"] == ["7s", "Kd"]


def test_a2_draw_on_any_total() -> None:
    """Digest A2: a player may draw on a two-card 9 (9 + K = lucky 9, 3:1)."""
    res = ldb({"1": {"enter": 1000}}, "9s Kc Kd Ks 5h", [[1, "draw"]])
    assert res["boxes"]["1"] == {"enter": 1000, "draw": 3000, "net": 4000}


def test_s6_3_draw_wager_equals_the_enter_wager() -> None:
    """s6(3): the draw wager must equal the enter wager (A4: hence within the limits)."""
    res = ldb({"1": {"enter": 1000}}, "9s Kc Kd Ks 5h", [[1, "draw", 2000]])
    assert res["state"] == "rejected" and res["error"]["code"] == "bad_amount"
    assert res["pending"][0]["legal"][0] == {
        "verb": "draw",
        "amounts": [1000],
        "min": 1000,
        "max": 1000,
    }
    ok = ldb({"1": {"enter": 1000}}, "9s Kc Kd Ks 5h", [[1, "draw", 1000]])
    assert ok["state"] == "complete"


def test_decisions_ending_early_leave_the_round_waiting() -> None:
    res = ldb({"1": {"enter": 1000}, "2": {"enter": 1000}}, "9s Kc Kd Ks 5h", [[1, "stand"]])
    assert res["state"] == "waiting"
    assert [p["box"] for p in res["pending"]] == [2]
    assert res["boxes"]["1"] == {"net": 0}


def test_one_decision_per_box() -> None:
    """s17(7): one extra card at most; a box that has acted owes nothing more."""
    res = ldb(
        {"1": {"enter": 1000}, "2": {"enter": 1000}}, "9s Kc Kd Ks 5h", [[1, "draw"], [1, "draw"]]
    )
    assert res["state"] == "rejected" and res["error"]["at"] == 1


def test_s16_2_cards_face_up_and_void_returns_every_wager() -> None:
    """s16(2): every card is dealt face up (visible to everyone). A void round (general
    Part 1 s4) returns the enter and draw wagers."""
    shoe = [card(c) for c in "9s 5h Kc Kd Ks 2h".split()]
    rnd = LuckyDrawBaccarat(
        TABLE,
        {1: {"enter": 1000}, 2: {"enter": 500}},
        SeededRandomSource(2),
        forced=Forced(shoe=shoe),
    )
    events = rnd.start()
    events += rnd.decide(1, "draw")
    assert all(e.visible_to == EVERYONE for e in events)
    rnd.void("card machine malfunction (s36)")
    assert rnd.result.state == "void"
    assert rnd.result.boxes == {1: {"enter": 0, "draw": 0}, 2: {"enter": 0}}
    assert rnd.transfers == []
    with pytest.raises(IllegalAction):
        rnd.decide(2, "stand")


@pytest.mark.parametrize(
    ("scenario", "why"),
    [
        ({"options": {"decks": 5}}, "s4: six to eight decks"),
        ({"options": {"num_boxes": 8}, "boxes": {"8": {"enter": 1000}}}, "num_boxes is fine"),
        ({"boxes": {"8": {"enter": 1000}}}, "s3(1): seven boxes"),
        ({"boxes": {"1": {"draw": 1000}}}, "the draw wager is placed by a decision"),
        ({"boxes": {"1": {"enter": 99}}}, "s10(1): below the minimum"),
        ({"cards": {"dealer": ["As"]}}, "dealt from a shoe"),
        ({"cards": {"shoe": ["Kd"] * 9}}, "nine king of diamonds in eight decks"),
    ],
)
def test_scenario_validation(scenario: dict, why: str) -> None:
    base = {
        "game": "lucky-draw-baccarat",
        "options": TABLE,
        "boxes": {"1": {"enter": 1000}},
        "seed": 1,
    }
    merged = {**base, **scenario, "options": {**TABLE, **scenario.get("options", {})}}
    if why == "num_boxes is fine":
        assert run_scenario(merged)["state"] == "waiting"
    else:
        with pytest.raises(ScenarioError):
            run_scenario(merged)


@pytest.mark.parametrize("decks", [6, 7, 8])
def test_s4_six_to_eight_decks(decks: int) -> None:
    """s4: 6, 7 or 8 decks; a card appears as often as the shoe holds it."""
    shoe = " ".join(["3h"] * decks)
    res = ldb({"1": {"enter": 1000}}, shoe, [[1, "draw"]], {"decks": decks})
    assert res["state"] == "complete"
