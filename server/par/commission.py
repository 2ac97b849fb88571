"""Player-vs-player poker: the house's take is its commission (ACT r 11, QLD Sch 11 s30,
Sch 5 s28). The sheet gives the expected commission per hand (round of play) at a stated
table size and structure, by simulation.

Theory of operation: full hands on the poker engine (:class:`~server.games.poker.PokerRound`)
at a table of ``seats`` players, each starting every hand with the same stack (so the table
never thins out), the button moving round the table; every decision a random legal action
(:func:`server.games.poker.bots.random_action`: what a player is shown, no card reading).
The commission of each hand is what the engine's settlement took (``result.commission``;
a participation fee, QLD, is ``fees``). Hands run in parallel processes like the banked
simulations; the interval is the per-hand 95% interval of the mean.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from typing import Any

from server.par.engine import FastRandom
from server.par.model import Z95, Sheet, Tally
from server.par.sim import Runner, simulate

#: the stack each seat starts each hand with, in big blinds
STACK_BIG_BLINDS = 100


class Poker(Runner):
    def __init__(self, game: str, options: Mapping[str, Any], seats: int) -> None:
        self.game = game
        self.options = dict(options)
        self.boxes = seats
        self.strategy = (
            "random legal actions (server.games.poker.bots.random_action: fold "
            "15% when facing a wager)"
        )

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        from server.games.poker import PokerRound, next_designated, rules_for
        from server.games.poker.bots import random_action

        rules = rules_for(self.game, dict(self.options))
        big = max(rules_blinds(self.options, self.game))
        seats = list(range(1, self.boxes + 1))
        stacks = dict.fromkeys(seats, STACK_BIG_BLINDS * big)
        bots = random.Random(rng.randbelow(2**62))
        unit = self.options.get("chip_unit", 100)
        d = seats[0]
        entries = []
        for _ in range(rounds):
            rnd = PokerRound(rules, stacks, d, rng)
            rnd.start()
            la = rnd.legal_actions()
            while la is not None:
                verb, amount = random_action(la, bots, unit=unit)
                rnd.act(la.seat, verb, amount)
                la = rnd.legal_actions()
            res = rnd.result
            assert res is not None
            take = res.commission + res.fees
            pot = sum(p["amount"] for p in res.pots)
            entries.append(("commission", max(pot, 1), take))
            d = next_designated(rules, d, seats)
        for e in entries:
            tally.add_round([e])


def rules_blinds(options: Mapping[str, Any], game: str) -> list[int]:
    from server.games.poker.rules import defaults

    blinds = options.get("blinds") or defaults(game)["blinds"]
    return [int(b) for b in blinds]


def sheet(
    game: str,
    raw: Mapping[str, Any] | None,
    rounds: int,
    seed: int,
    procs: int | None,
    seats: int = 9,
) -> Sheet:
    from server.games.poker.rules import defaults, rules_for

    rules = rules_for(game, dict(raw or {}))  # validates (ScenarioError on a bad option)

    def plain(key: str, value: Any) -> Any:
        """An option as JSON: a default the rules resolve (raise_cap) as resolved."""
        try:
            json.dumps(value)
        except TypeError:
            return getattr(rules, key, str(value))
        return value

    options = {k: plain(k, v) for k, v in {**defaults(game), **(raw or {})}.items()}
    runner = Poker(game, raw or {}, seats)
    res = simulate(runner, rounds, seed, procs)
    t = res.tally.wagers["commission"]
    n = t.placements
    take = sum(x * c for (_, x), c in t.hist.items())
    take2 = sum(x * x * c for (_, x), c in t.hist.items())
    pots = sum(s * c for (s, _), c in t.hist.items())
    mean = take / n
    sd = math.sqrt(max(take2 / n - mean * mean, 0.0))
    big = max(rules_blinds(options, game))
    commission = {
        "seats": seats,
        "structure": options["structure"],
        "blinds": rules_blinds(options, game),
        "stack_big_blinds": STACK_BIG_BLINDS,
        "hands": n,
        "per_hand": mean,
        "ci95": Z95 * sd / math.sqrt(n),
        "per_hand_big_blinds": mean / big,
        "share_of_pots": take / pots if pots else 0.0,
        "hands_without_commission": sum(c for (_, x), c in t.hist.items() if x == 0) / n,
        "stdev": sd,
    }
    return Sheet(
        game=game,
        options=options,
        method="simulation",
        rounds=n,
        strategy=runner.strategy,
        wagers={},
        seed=seed,
        boxes=seats,
        notes=[
            f"{seats} seats, every seat {STACK_BIG_BLINDS} big blinds at the start of every "
            "hand; commission and participation fees as the engine takes them (cents)",
        ],
        elapsed=res.seconds,
        procs=res.procs,
        cpu=res.cpu,
        extra={"commission": commission},
    )
