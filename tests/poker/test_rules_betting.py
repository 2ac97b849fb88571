"""Betting rules a player notices: amount bounds, minimum raises, caps, short all-ins, folds.

Bounds are the digests' ``[check]`` lines (values the server must compute at that moment),
asserted through the scenario command's ``waiting`` result (``legal``).
"""

from __future__ import annotations

from typing import Any

from server.games.poker.scenario import run

ACT_FULL = {"blinds": [500, 1000], "structure": "full-pot"}
THREE = {"1": 50000, "2": 50000, "3": 50000}


def legal(
    game: str, options: dict, seats: dict, designated: int, actions: list
) -> tuple[int, dict[str, dict[str, Any]]]:
    """(seat to act, {verb: bounds}) after ``actions``."""
    res = run(
        game,
        {
            "game": game,
            "options": options,
            "seats": seats,
            "designated": designated,
            "actions": actions,
        },
    )
    assert res["state"] == "waiting", res
    return res["to_act"], {d["verb"]: d for d in res["legal"]}


def bounds(lg: dict[str, dict[str, Any]], verb: str) -> tuple[int, int]:
    return lg[verb]["min"], lg[verb]["max"]


def test_act_10_7_full_pot_maximum_includes_the_call() -> None:
    """ACT r 10.6-10.7 (HE-ACT-08 [check] lines): max raise = pot + call; min raise = the
    largest earlier wager (r 10.2, digest A-3); max opening bet = the pot."""
    seat, lg = legal("holdem-act", ACT_FULL, THREE, 1, [])
    assert seat == 3 and bounds(lg, "raise") == (2000, 3500) and lg["call"]["amount"] == 1000
    seat, lg = legal("holdem-act", ACT_FULL, THREE, 1, [[3, "raise", 3500]])
    assert seat == 1 and bounds(lg, "raise") == (6000, 11500)
    seat, lg = legal("holdem-act", ACT_FULL, THREE, 1, [[3, "raise", 3500], [1, "raise", 11500]])
    assert seat == 2 and bounds(lg, "raise") == (19500, 38000)
    pre = [[3, "raise", 3500], [1, "raise", 11500], [2, "call"], [3, "call"]]
    seat, lg = legal("holdem-act", ACT_FULL, THREE, 1, pre)
    assert seat == 1 and bounds(lg, "bet") == (1000, 34500) and "check" in lg
    seat, lg = legal("holdem-act", ACT_FULL, THREE, 1, [*pre, [1, "check"], [2, "bet", 10000]])
    # the full-pot maximum 64500 is above S3's stake: the stake caps it (a tap-out)
    assert seat == 3 and bounds(lg, "raise") == (20000, 38500)
    assert lg["allin"]["amount"] == 38500


def test_act_10_6_half_pot_with_three_blinds() -> None:
    """ACT r 5.3, 10.1, 10.6 (OM-ACT-07 [check] lines): half of (pot + call)."""
    opts = {"blinds": [200, 400, 800], "structure": "half-pot"}
    seats = dict.fromkeys(("1", "2", "3", "4"), 30000)
    seat, lg = legal("omaha-act", opts, seats, 1, [])
    assert seat == 4 and bounds(lg, "raise") == (1600, 1900)
    seat, lg = legal("omaha-act", opts, seats, 1, [[4, "raise", 1900]])
    assert seat == 1 and bounds(lg, "raise") == (3000, 4400)
    pre = [[4, "raise", 1900], [1, "raise", 4400], [2, "fold"], [3, "fold"], [4, "call"]]
    seat, lg = legal("omaha-act", opts, seats, 1, pre)
    assert seat == 1 and bounds(lg, "bet") == (800, 5000)
    seat, lg = legal("omaha-act", opts, seats, 1, [*pre, [1, "bet", 4000]])
    assert seat == 4 and bounds(lg, "raise") == (8000, 13000)


def test_qld_s28_5_full_pot_and_s28_4_minimum_raise() -> None:
    """QLD Sch 11 s28(5), s28(4)(b)-(c) (HE-QLD-08 [check] lines)."""
    opts = {"blinds": [500, 1000], "maximum": 2000, "structure": "full-pot"}
    seats = dict.fromkeys(("1", "2", "3"), 100000)
    seat, lg = legal("holdem-qld", opts, seats, 3, [])
    assert seat == 3 and bounds(lg, "raise") == (2000, 3500)
    seat, lg = legal("holdem-qld", opts, seats, 3, [[3, "raise", 3000]])
    assert seat == 1 and bounds(lg, "raise") == (5000, 10000)
    pre = [[3, "raise", 3000], [1, "raise", 5000], [2, "call"], [3, "call"], [1, "bet", 5000]]
    seat, lg = legal("holdem-qld", opts, seats, 3, pre)
    assert seat == 2 and bounds(lg, "raise") == (10000, 30000)


def test_qld_s28_6_half_pot_rounds_down() -> None:
    """QLD Sch 11 s28(6) (OM-QLD-06 [check] lines): (15 + 10)/2 = 12.5 rounds down to 12."""
    opts = {"blinds": [500, 1000], "maximum": 2000, "structure": "half-pot"}
    seats = dict.fromkeys(("1", "2", "3", "4"), 50000)
    seat, lg = legal("omaha-qld", opts, seats, 4, [])
    assert seat == 3 and bounds(lg, "raise") == (2000, 2200)
    seat, lg = legal("omaha-qld", opts, seats, 4, [[3, "raise", 2000], [4, "call"]])
    assert seat == 1 and bounds(lg, "raise") == (3000, 5500)


def test_qld_s28_4_a_short_allin_opening_bet_minimum_raise_is_the_minimum_wager() -> None:
    """QLD s25(5), s28(4)(a) (OM-QLD-07): after a short all-in opening bet of $4 the call is
    below the minimum wager, so the minimum raise is the minimum wager ($10)."""
    opts = {"blinds": [500, 1000], "maximum": 2000, "structure": "no-limit"}
    seats = {"1": 50000, "2": 50000, "3": 1400}
    pre = [[3, "call"], [1, "call"], [2, "check"], [1, "check"], [2, "check"], [3, "allin"]]
    seat, lg = legal("omaha-qld", opts, seats, 3, pre)
    assert seat == 1 and lg["raise"]["min"] == 1400


def test_qld_s29_10_short_allin_does_not_reopen_for_players_who_acted() -> None:
    """QLD s29(10), digest A-3 (OM-QLD-05): S1 (not yet acted) may raise, min raise $20;
    S2 (acted before the short all-in) may only call or fold."""
    opts = {"blinds": [500, 1000], "maximum": 2000, "structure": "no-limit"}
    seats = {"1": 40000, "2": 40000, "3": 40000, "4": 4500}
    pre = [
        [4, "call"],
        [1, "call"],
        [2, "call"],
        [3, "check"],
        [2, "bet", 2000],
        [3, "call"],
        [4, "allin"],
    ]
    seat, lg = legal("omaha-qld", opts, seats, 1, pre)
    assert seat == 1 and lg["raise"]["min"] == 5500
    seat, lg = legal("omaha-qld", opts, seats, 1, [*pre, [1, "call"]])
    assert seat == 2 and "raise" not in lg and lg["call"]["amount"] == 1500
    res = run(
        "omaha-qld",
        {
            "game": "omaha-qld",
            "options": opts,
            "seats": seats,
            "designated": 1,
            "actions": [*pre, [1, "call"], [2, "raise", 5500]],
        },
    )
    assert res["error"]["code"] == "betting_closed"
    # the literal reading (option short_allin_reopens = true) lets S2 raise
    seat, lg = legal(
        "omaha-qld", {**opts, "short_allin_reopens": True}, seats, 1, [*pre, [1, "call"]]
    )
    assert seat == 2 and "raise" in lg


def test_act_12_5_short_tapout_closes_raising_for_everyone() -> None:
    """ACT r 12.5, digest A-8: after a tap-out above the call but below a full raise nobody
    may raise for the rest of the betting round, even a player yet to act."""
    opts = {"blinds": [100, 200], "structure": "no-limit"}
    seats = {"1": 10000, "2": 10000, "3": 300, "4": 10000}
    seat, lg = legal("holdem-act", opts, seats, 1, [[3, "allin"]])  # 300: +100 < min 200
    assert seat == 4 and "raise" not in lg and lg["call"]["amount"] == 300
    res = run(
        "holdem-act",
        {
            "game": "holdem-act",
            "options": opts,
            "seats": seats,
            "designated": 1,
            "actions": [[3, "allin"], [4, "raise", 1000]],
        },
    )
    assert res["state"] == "rejected" and res["error"]["code"] == "betting_closed"


def test_act_10_2_raise_cap_and_heads_up_10_5() -> None:
    """ACT r 10.2 (three raises) and r 10.5 (heads-up: no cap, sizes still apply)."""
    opts = {"blinds": [100, 200], "structure": "limit"}
    seats = dict.fromkeys(("1", "2", "3"), 10000)
    pre = [[3, "raise", 400], [1, "raise", 600], [2, "raise", 800]]
    seat, lg = legal("holdem-act", opts, seats, 1, pre)
    assert seat == 3 and "raise" not in lg
    res = run(
        "holdem-act",
        {
            "game": "holdem-act",
            "options": opts,
            "seats": seats,
            "designated": 1,
            "actions": [*pre, [3, "raise", 1000]],
        },
    )
    assert res["error"]["code"] == "raise_cap_reached"
    heads = [[1, "raise", 400], [2, "raise", 600], [1, "raise", 800], [2, "raise", 1000]]
    seat, lg = legal("holdem-act", opts, {"1": 10000, "2": 10000}, 1, heads)
    assert seat == 1 and lg["raise"]["sizes"] == [1200, 1400]


def test_limit_sizes_act_rounds_and_manila_final_round() -> None:
    """ACT r 10.3-10.4 (digest A-2): rounds 2-3 open at exactly 2LB; 3 Card Manila r 10.4
    and QLD Sch 5 s24(3): the final round opens at B, 2B, 3B or 4B."""
    opts = {"blinds": [100, 200], "structure": "limit"}
    seat, lg = legal(
        "holdem-act",
        opts,
        dict.fromkeys(("1", "2", "3"), 10000),
        1,
        [[3, "call"], [1, "call"], [2, "check"]],
    )
    assert seat == 1 and lg["bet"]["sizes"] == [400]
    checks = [[2, "call"], [3, "call"], [1, "check"]] + [[s, "check"] for s in (1, 2, 3)] * 3
    seat, lg = legal(
        "manila-qld", {"blinds": [100]}, dict.fromkeys(("1", "2", "3"), 10000), 1, checks
    )
    assert seat == 1 and lg["bet"]["sizes"] == [100, 200, 300, 400]


def test_manila_qld_s26_4_only_raises_set_the_floor() -> None:
    """QLD Sch 5 s26(4) (digest trap 5): after an opening bet of 2B a raise of B is legal;
    ACT r 10.2-10.4 forbids it (MA-ACT-02)."""
    seats = dict.fromkeys(("1", "2", "3"), 10000)
    pre = [[2, "call"], [3, "call"], [1, "check"], [1, "bet", 200]]
    _, lg = legal("manila-qld", {"blinds": [100]}, seats, 1, pre)
    assert lg["raise"]["sizes"] == [300, 400]
    _, lg = legal("manila-act", {"blinds": [100]}, seats, 1, pre)
    assert lg["raise"]["sizes"] == [400]


def test_folding_when_a_check_is_free_is_legal() -> None:
    """A player may fold although checking is free (ACT r 8.2, QLD s25(2)); the others play
    on and the folder's chips stay in the pot."""
    opts = {"blinds": [100, 200], "structure": "no-limit", "commission": "none"}
    seats = dict.fromkeys(("1", "2", "3"), 10000)
    actions = [[3, "call"], [1, "call"], [2, "check"], [1, "fold"], [2, "check"], [3, "check"]]
    res = run(
        "holdem-act",
        {
            "game": "holdem-act",
            "options": opts,
            "seats": seats,
            "designated": 1,
            "actions": actions,
            "cards": {
                "hole": {"2": ["As", "Ad"], "3": ["7c", "2d"]},
                "board": ["Ks", "Qh", "9c", "5d", "3s"],
            },
        },
    )
    assert res["state"] == "waiting" and res["to_act"] == 2
    res = run(
        "holdem-act",
        {
            "game": "holdem-act",
            "options": opts,
            "seats": seats,
            "designated": 1,
            "actions": actions + [[2, "check"], [3, "check"]] * 2,
            "cards": {
                "hole": {"2": ["As", "Ad"], "3": ["7c", "2d"]},
                "board": ["Ks", "Qh", "9c", "5d", "3s"],
            },
        },
    )
    assert res["stacks"] == {"1": 9800, "2": 10400, "3": 9800}


def test_free_fold_leaving_a_single_allin_player_gives_him_the_pot() -> None:
    """The last blind keeps its round-1 option (ACT r 7.1) even when every other player has
    tapped out or folded; if it folds although checking is free, the all-in player is the
    only one left: he wins the pot he is in (r 12.2) and the blind's excess over his all-in
    is an uncalled wager, returned (r 11.4)."""
    opts = {"blinds": [100, 200], "structure": "no-limit"}
    seats = {"1": 10000, "2": 10000, "3": 150}
    pre = [[3, "allin"], [1, "fold"]]
    seat, lg = legal("holdem-act", opts, seats, 1, pre)
    assert seat == 2 and "check" in lg and "raise" not in lg and "call" not in lg
    res = run(
        "holdem-act",
        {
            "game": "holdem-act",
            "options": opts,
            "seats": seats,
            "designated": 1,
            "actions": [*pre, [2, "fold"]],
        },
    )
    assert res["state"] == "complete"
    assert res["stacks"] == {"1": 9900, "2": 9850, "3": 400}
    assert res["uncalled"] == {"2": 50}
    assert [(p["amount"], p["eligible"], p["winners"]) for p in res["pots"]] == [(400, [3], [3])]


def test_illegal_commands_have_stable_codes() -> None:
    """Bad input gets a stable code (engine module docstring) and changes nothing."""
    opts = {"blinds": [100, 200], "structure": "no-limit"}
    seats = dict.fromkeys(("1", "2", "3"), 10000)

    def code(actions: list) -> str:
        res = run(
            "holdem-act",
            {
                "game": "holdem-act",
                "options": opts,
                "seats": seats,
                "designated": 1,
                "actions": actions,
            },
        )
        assert res["state"] == "rejected" and res["error"]["at"] == len(actions) - 1
        return res["error"]["code"]

    assert code([[1, "call"]]) == "not_your_turn"
    assert code([[3, "check"]]) == "action_not_allowed"
    assert code([[3, "bet", 400]]) == "action_not_allowed"
    assert code([[3, "raise"]]) == "amount_required"
    assert code([[3, "raise", 300]]) == "amount_too_small"
    assert code([[3, "raise", 10001]]) == "amount_too_large"
    assert code([[3, "fold"], [1, "fold"], [2, "check"]]) == "round_complete"
