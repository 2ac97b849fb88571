"""The exact and the simulated method agree on every game where both run.

Each simulated wager's 95% interval must cover the exact figure for all but a few wagers
(about one in twenty misses by chance, and wagers settled on one outcome, as baccarat's
player, banker and dragon bonus, miss together: at most a fifth of a game's wagers, and two
may), and no miss may exceed four standard errors. Seeds are fixed, so the test is repeatable;
the rounds are few (seconds), the intervals honest (per-round sums, boxes of a round
together)."""

from __future__ import annotations

import math

from server.hands.three_card import evaluate3
from server.par import baccarat, cards, craps, exact, players, sim
from server.par.controls import estimate
from server.par.engine import options_for
from server.par.model import WagerSheet


def agree(exact_lines: dict[str, WagerSheet], tally_sheet: dict[str, WagerSheet]) -> None:
    common = [w for w in exact_lines if w in tally_sheet]
    assert common
    misses = []
    for w in common:
        e, s = exact_lines[w], tally_sheet[w]
        sigma = s.ci95 / 1.959963984540054
        z = abs(s.rtp - e.rtp) / sigma if sigma else (0 if s.rtp == e.rtp else math.inf)
        assert z < 4, (w, e.rtp, s.rtp, s.ci95)
        if z > 1.959963984540054:
            misses.append(w)
    assert len(misses) <= max(2, len(common) // 5), misses


def simulated(
    runner: sim.Runner, rounds: int, seed: int = 11, procs: int = 1
) -> dict[str, WagerSheet]:
    res = sim.simulate(runner, rounds, seed, procs)
    return {w: t.sheet() for w, t in res.tally.wagers.items()}


def test_shared_outcome_games() -> None:
    sheet = exact.roulette(None)
    wagers = [
        "straight_0",
        "split_1_2",
        "street_1_2_3",
        "corner_1_2_4_5",
        "six_line_1_2_3_4_5_6",
        "column_1",
        "dozen_3",
        "red",
        "odd",
        "high",
    ]
    sim_roulette = simulated(
        players.SharedOutcome("roulette", sheet.options, wagers), 6000, procs=2
    )
    agree(sheet.wagers, sim_roulette)
    sb = exact.sic_bo(None)
    wagers = [
        "small",
        "even",
        "triple_2",
        "any_triple",
        "double_5",
        "total_4",
        "total_10",
        "combo_1_6",
        "single_3",
        "four_2356",
    ]
    agree(sb.wagers, simulated(players.SharedOutcome("sic-bo", sb.options, wagers), 6000))
    wf = exact.wheel_of_fortune({"wheel_type": 54})
    agree(
        wf.wagers,
        simulated(players.SharedOutcome("wheel-of-fortune", wf.options, list(wf.wagers)), 6000),
    )


def test_craps() -> None:
    sheet = craps.sheet(None)
    wagers = [
        "win",
        "dont_win",
        "place_6",
        "place_4",
        "buy_5",
        "lay_10",
        "big8",
        "hard_6",
        "hard_4",
        "field",
        "any7",
        "craps2",
        "horn",
        "horn_high_12",
    ]
    runner = players.Craps(sheet.options, wagers, craps.stake_for(sheet.options))
    agree(sheet.wagers, simulated(runner, 2500))


def test_baccarat_and_lucky_draw() -> None:
    sheet = baccarat.baccarat(None)
    agree(sheet.wagers, simulated(players.Baccarat(sheet.options), 2500))
    ld = baccarat.lucky_draw(None)
    assert ld.strategy_table is not None
    table = {
        f"{hand} v {dealer}": ("draw" if v == "D" else "stand")
        for hand, row in ld.strategy_table["rows"].items()
        for dealer, v in row.items()
    }
    res = simulated(players.LuckyDraw(ld.options, table), 800)
    assert ld.per_round is not None
    agree({**ld.wagers, "round": ld.per_round}, res)


def test_casino_war_and_three_card_poker() -> None:
    war = cards.casino_war(None)
    assert war.per_round is not None
    agree({**war.wagers, "round": war.per_round}, simulated(players.CasinoWar(war.options), 1500))
    tcp = cards.three_card_poker(None)
    threshold = evaluate3([40, 17, 10])  # Qs 6h 4d: the sheet's lowest played hand
    assert tcp.strategy is not None and "play Q-6-4 or better" in tcp.strategy
    assert tcp.per_round is not None
    agree(
        {**tcp.wagers, "round": tcp.per_round},
        simulated(players.ThreeCardPoker(tcp.options, threshold), 1500),
    )


def test_four_card_aces_up_and_stud_jackpots() -> None:
    options = options_for("four-card-poker", None)
    dist, _ = cards.aces_up_distribution(options, 1000)
    from server.par.fourcard import FourCardPoker
    from server.par.model import from_distribution

    agree({"aces_up": from_distribution(dist)}, simulated(FourCardPoker(options), 600))
    from server.par.jackpot import jackpot_sheet

    options = options_for("canberra-poker-2004", None)
    line, _ = jackpot_sheet("canberra-poker-2004", options)
    agree({"jackpot": line}, simulated(players.FiveCardStud("canberra-poker-2004", options), 600))


def test_solvers_against_the_engines() -> None:
    """Mississippi stud's dynamic programme and the blackjack solver against the engines
    playing their strategies (the solver's deck is infinite, the shoe's six decks differ by
    a few hundredths of a point: far inside these intervals)."""
    from server.par.blackjack import Blackjack
    from server.par.mississippi import MississippiStud

    ms = MississippiStud(options_for("mississippi-stud", None))
    value = ms.plan.solve()
    res = simulated(ms, 1500)
    assert abs(res["round"].rtp - (1 + value)) < 4 * res["round"].ci95 / 1.96
    for game in ("blackjack", "blackjack-challenge"):
        bj = Blackjack(game, options_for(game, None))
        edge = bj.solver.house_edge()
        res = sim.simulate(bj, 1500, 11, 1)
        plain = res.tally.wagers["main"].sheet()
        assert abs(plain.rtp - (1 - edge)) < 4 * plain.ci95 / 1.96, game
        # the same rounds with the shoe's martingale controls (server.par.blackjack_controls)
        est = estimate(res.folds, res.means, "main")
        assert est is not None
        assert abs(1 + est.mean - (1 - edge)) < 4 * est.ci95 / 1.96, (game, est)
        assert est.ci95 < plain.ci95 / 3, game
