"""PAR simulation speed: the banked engines' rounds per second under the PAR players.

    .venv/bin/python benchmarks/par_bench.py [--seconds S] [--game GAME ...] [--profile]

For each simulated game (``server.par.games.SIMULATED``) and the card games the exact
sheets also simulate in their tests, this plays full rounds the way ``croupier par`` does
(``server.par`` runners: a full table of boxes, the stated strategy, every settled wager
booked in a tally) for ``--seconds`` of process time on one core, and then the same engine
with the same boxes driven through the scenario path (``server.games.banked.scenario.run``:
a scenario object validated, the round started with its seed, every box timing out, the
result JSON built), the baseline, in the same process. Printed per game: rounds/s and
hands (box-rounds)/s of both and the ratio PAR / scenario. The PAR sheets need the first
figure: docs/par/README.md turns it into the time a sheet takes to a 0.05% interval.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.games.banked.scenario import run as run_scenario
from server.par import players
from server.par.engine import FastRandom, options_for, unit_stake
from server.par.model import Tally
from server.par.sim import Runner


def runner_for(game: str) -> Runner:
    from server.par.blackjack import Blackjack
    from server.par.fourcard import FourCardPoker
    from server.par.holdem import HoldemBonus
    from server.par.mississippi import MississippiStud

    options = options_for(game, None)
    if game in ("caribbean-stud", "canberra-poker-2004", "canberra-poker-2017"):
        return players.FiveCardStud(game, options, jackpot=False)
    if game == "holdem-bonus":
        return HoldemBonus(options)
    if game == "mississippi-stud":
        return MississippiStud(options)
    if game == "four-card-poker":
        return FourCardPoker(options)
    if game == "pai-gow":
        return players.PaiGow(options)
    if game == "casino-war":
        return players.CasinoWar(options)
    if game == "baccarat":
        return players.Baccarat(options)
    return Blackjack(game, options)


GAMES = [
    "blackjack",
    "spanish-blackjack",
    "blackjack-switch",
    "blackjack-challenge",
    "caribbean-stud",
    "canberra-poker-2004",
    "canberra-poker-2017",
    "holdem-bonus",
    "mississippi-stud",
    "four-card-poker",
    "pai-gow",
    "casino-war",
    "baccarat",
]


def scenario_for(game: str, runner: Runner, seed: int) -> dict[str, Any]:
    """The same table through the scenario path: the runner's boxes and initial wagers,
    every box timing out on every street (the rules' treatment of an absent player)."""
    options = options_for(game, None)
    stake = unit_stake(options)
    first = 2 if game == "pai-gow" else 1
    boxes: dict[str, dict[str, int]] = {str(b): {} for b in range(first, first + runner.boxes)}
    main = {
        "caribbean-stud": "ante",
        "canberra-poker-2004": "ante",
        "canberra-poker-2017": "ante",
        "holdem-bonus": "ante",
        "mississippi-stud": "ante",
        "four-card-poker": "ante",
        "pai-gow": "bet",
        "casino-war": "war",
        "baccarat": "banker",
    }.get(game, "main")
    for b in boxes:
        boxes[b] = {main: stake}
    streets = 3 if game in ("holdem-bonus", "mississippi-stud") else 1
    decisions = [[int(b), "timeout"] for _ in range(streets) for b in boxes]
    if game == "baccarat":
        decisions = []
    return {"game": game, "seed": seed, "boxes": boxes, "decisions": decisions}


def par_rate(runner: Runner, seconds: float) -> float:
    tally = Tally()
    rng = FastRandom(1)
    rounds = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        runner.play(50, rng, tally)
        rounds += 50
    return rounds / (time.process_time() - t0)


def scenario_rate(game: str, runner: Runner, seconds: float) -> float:
    rounds = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        for _ in range(20):
            run_scenario(game, scenario_for(game, runner, rounds))
            rounds += 1
    return rounds / (time.process_time() - t0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0, help="process time per measurement")
    p.add_argument("--game", action="append", help="one game (repeatable; default: all)")
    p.add_argument("--profile", action="store_true", help="profile the PAR runs instead")
    args = p.parse_args(argv)
    games = args.game or GAMES
    if args.profile:
        for game in games:
            runner = runner_for(game)
            runner.prepare()
            prof = cProfile.Profile()
            prof.runcall(par_rate, runner, args.seconds)
            print(f"== {game}")
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        return 0
    print(f"{'game':<22}{'PAR rounds/s':>14}{'hands/s':>10}{'scenario rounds/s':>19}{'ratio':>8}")
    for game in games:
        runner = runner_for(game)
        runner.prepare()
        ours = par_rate(runner, args.seconds)
        base = scenario_rate(game, runner, args.seconds)
        print(
            f"{game:<22}{ours:>14,.0f}{ours * runner.boxes:>10,.0f}{base:>19,.0f}"
            f"{ours / base:>8.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
