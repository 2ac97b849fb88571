"""Which method each game's sheet uses, and the sheet builders.

Exact: roulette, sic-bo, wheel of fortune, craps, baccarat, lucky draw baccarat, casino war,
three card poker, Mississippi stud (under its optimal strategy). Simulated (with the exact
lines where a wager allows it, and control variates, :mod:`server.par.controls`): the
blackjack family, Caribbean stud and Canberra Poker (their jackpot wagers exact), Texas
hold'em bonus, four card poker (Aces Up exact), pai gow. p2p poker: the commission per
hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from server.games.registry import BANKED, GAMES, POKER
from server.par import baccarat, cards, craps, exact, mississippi
from server.par.controls import Fit, estimate, fit, shifted
from server.par.engine import options_for, spec_of, unit_stake
from server.par.model import Sheet, WagerSheet, controlled
from server.par.sim import Runner, Simulation, simulate

#: the default number of rounds of a simulated sheet (a quick run; docs/par shows the long
#: runs' rounds and intervals)
DEFAULT_ROUNDS = 20_000
DEFAULT_SEED = 1


@dataclass
class Request:
    game: str
    options: dict[str, Any]
    rounds: int = DEFAULT_ROUNDS
    seed: int = DEFAULT_SEED
    procs: int | None = None


def lobby() -> list[str]:
    """The banked games of the lobby (every banked game of the registry), in lobby order."""
    return [g for g in GAMES if g in BANKED]


EXACT: dict[str, Callable[[Mapping[str, Any] | None], Sheet]] = {
    "roulette": exact.roulette,
    "sic-bo": exact.sic_bo,
    "wheel-of-fortune": exact.wheel_of_fortune,
    "craps": craps.sheet,
    "baccarat": baccarat.baccarat,
    "lucky-draw-baccarat": baccarat.lucky_draw,
    "casino-war": cards.casino_war,
    "three-card-poker": cards.three_card_poker,
    "mississippi-stud": mississippi.exact_sheet,
}


def _line(
    res: Simulation,
    wager: str,
    basis: str | None = None,
    plain: dict[str, float] | None = None,
    fits: list[Fit] | None = None,
) -> WagerSheet:
    """A simulated wager's line: the plain tally's, with the control-variate estimate of
    its RTP and interval where the runner books controls (:mod:`server.par.controls`,
    ``fits`` the folds' regressions); the plain estimate's half-width goes to ``plain``."""
    line = res.tally.wagers[wager].sheet(basis=basis)
    if res.folds:
        est = estimate(res.folds, res.means, wager, fits)
        coefs = res.fixed.get(wager)
        if est is not None and coefs:
            fixed = estimate(shifted(res.folds, res.means, wager, coefs), res.means, wager)
            if fixed is not None:
                est = replace(fixed, plain_ci95=est.plain_ci95)
        if est is not None:
            if plain is not None:
                plain[wager] = est.plain_ci95
            controlled(line, est)
    return line


def _simulated(
    req: Request,
    runner: Runner,
    order: list[str],
    basis: str,
    lines: Mapping[str, WagerSheet] | None = None,
) -> Sheet:
    exact_lines = lines
    options = runner.options  # type: ignore[attr-defined]
    res: Simulation = simulate(runner, req.rounds, req.seed, req.procs)
    wagers: dict[str, WagerSheet] = {}
    plain: dict[str, float] = {}
    fits = [fit(f) for f in res.folds if f.n]
    for w in order:
        if exact_lines and w in exact_lines:
            wagers[w] = exact_lines[w]
        elif w in res.tally.wagers:
            wagers[w] = _line(res, w, plain=plain, fits=fits)
    per_round = (
        _line(res, "round", basis, plain=plain, fits=fits) if "round" in res.tally.wagers else None
    )
    return Sheet(
        game=req.game,
        options=options,
        method="simulation",
        rounds=req.rounds,
        strategy=runner.strategy,  # type: ignore[attr-defined]
        wagers=wagers,
        seed=req.seed,
        boxes=runner.boxes,
        per_round=per_round,
        elapsed=res.seconds,
        procs=res.procs,
        cpu=res.cpu,
        extra=(
            {
                "variance_reduction": {
                    "estimator": "control variates of known mean, fitted on one half of the "
                    "rounds and applied to the other (docs/par/README.md)",
                    "controls": runner.controls_doc,
                    "plain_ci95": {w: round(x, 8) for w, x in plain.items()},
                }
            }
            if res.folds
            else {}
        ),
    )


def _stud(req: Request) -> Sheet:
    from server.par.jackpot import jackpot_sheet
    from server.par.players import FiveCardStud

    options = options_for(req.game, req.options)
    lines: dict[str, WagerSheet] = {}
    section = None
    if options["jackpot_wager"] is not None:
        line, section = jackpot_sheet(req.game, options)
        lines["jackpot"] = line
    boxes = 7
    runner = FiveCardStud(req.game, options, boxes, jackpot=False)
    out = _simulated(
        req,
        runner,
        ["ante", "jackpot", "bet"],
        "ante (ante and bet, per unit of the ante)",
        lines=lines,
    )
    out.jackpot = section
    out.notes.append("bet: per unit of the bet (twice the ante), over the hands raised")
    if section is not None:
        out.notes.append(
            "jackpot: exact (every five-card hand through the engine), with the "
            "meter at the seed; see the jackpot section"
        )
    return out


def _holdem_bonus(req: Request) -> Sheet:
    from server.par.holdem import HoldemBonus

    options = options_for(req.game, req.options)
    out = _simulated(
        req,
        HoldemBonus(options),
        ["ante", "bonus", "flop", "turn", "river"],
        "ante (ante, flop, turn and river, per unit of the ante)",
    )
    out.notes.append("flop, turn, river: per unit of that wager, over the hands it was made")
    return out


def _four_card(req: Request) -> Sheet:
    from server.par.fourcard import FourCardPoker

    options = options_for(req.game, req.options)
    dist, n = cards.aces_up_distribution(options, unit_stake(options))
    from server.par.model import from_distribution

    line = from_distribution(dist)
    line.note = f"exact: {n} groups of the 2,598,960 five-card hands, each through the engine"
    out = _simulated(
        req,
        FourCardPoker(options),
        ["ante", "aces_up", "play"],
        "ante (ante and play, per unit of the ante)",
        lines={"aces_up": line},
    )
    out.notes.append("play: per unit of the play wager (1x or 3x the ante), over the hands played")
    return out


def _pai_gow(req: Request) -> Sheet:
    from server.par.players import PaiGow

    options = options_for(req.game, req.options)
    out = _simulated(req, PaiGow(options), ["bet"], "bet")
    for flag, bank in (("player_banking_enabled", "bank"), ("co_banking_enabled", "co_bank")):
        if options[flag]:
            banked = _simulated(req, PaiGow(options, bank), [bank], bank)
            out.wagers[bank] = banked.wagers[bank]
            out.wagers[bank].note = banked.strategy
            out.notes.append(f"{bank}: per unit of the banker's cover, seven players against it")
        else:
            out.notes.append(f"{bank}: not offered at this table (option {flag} is false)")
    return out


def _blackjack(req: Request) -> Sheet:
    from server.par import blackjack

    options = options_for(req.game, req.options)
    offered = tuple(options["side_wagers"])
    lines: dict[str, WagerSheet] = {}
    for w in offered:
        if w in ("perfect_pairs", "any_pair", "super_match"):
            lines[w] = blackjack.first_cards(req.game, options, w)
    line = blackjack.insurance(req.game, options)
    if line is not None:
        lines["insurance"] = line
    simulated = tuple(w for w in offered if w == "bonus_blackjack")
    runner = blackjack.Blackjack(req.game, options, simulated)
    if "super_sevens" in offered:
        lines["super_sevens"] = blackjack.super_sevens(options, runner._choose)
    order = [
        w.name
        for w in spec_of(req.game).wagers
        if w.name in ("main", "insurance") or w.name in offered
    ]
    areas = runner.solver.v.areas
    basis = "main (every hand's main, split and double money per unit of the main wager" + (
        " on both areas)" if areas > 1 else ")"
    )
    out = _simulated(req, runner, order, basis, lines=lines)
    edge = runner.solver.house_edge()
    out.strategy_table = runner.solver.table()
    out.extra["exact_per_round"] = {
        "rtp": 1 - edge,
        "house_edge": edge,
        "basis": "main, infinite deck, the solver's strategy",
    }
    out.notes.append(
        f"main: the infinite-deck solver gives {1 - edge:.4%} (house edge {edge:.4%}); the "
        f"simulation plays {options['decks']} decks, the cut card one deck from the back"
    )
    out.notes.append(
        "side wagers and insurance: exact (see their outcomes), but bonus "
        "blackjack, which depends on every card the strategy draws: simulated"
    )
    return out


SIMULATED: dict[str, Callable[[Request], Sheet]] = {
    "caribbean-stud": _stud,
    "canberra-poker-2004": _stud,
    "canberra-poker-2017": _stud,
    "holdem-bonus": _holdem_bonus,
    "four-card-poker": _four_card,
    "pai-gow": _pai_gow,
    "blackjack": _blackjack,
    "spanish-blackjack": _blackjack,
    "blackjack-switch": _blackjack,
    "blackjack-challenge": _blackjack,
}


def build(req: Request) -> Sheet:
    """The sheet of ``req.game`` (exact, simulated, or p2p commission)."""
    t0 = time.perf_counter()
    if req.game in EXACT:
        sheet = EXACT[req.game](req.options)
    elif req.game in SIMULATED:
        sheet = SIMULATED[req.game](req)
    elif req.game in POKER:
        from server.par import commission

        return commission.sheet(req.game, req.options, req.rounds, req.seed, req.procs)
    else:
        raise KeyError(req.game)
    if sheet.elapsed is None:
        sheet.elapsed = time.perf_counter() - t0
    return sheet


assert set(EXACT) | set(SIMULATED) == set(BANKED), set(BANKED) - set(EXACT) - set(SIMULATED)
