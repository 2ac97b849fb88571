"""The scenario command (``../shared/SCENARIOS.md``): settle one round from a fixed outcome.

    croupier scenario FILE.json          # or: python -m server.scenario FILE.json
    croupier scenario --describe GAME

Each game id maps to a module that exposes

* ``describe(game: str) -> dict``: options with defaults, wager names and verbs (JSON);
* ``run(game: str, scenario: dict) -> dict``: the result object. It raises
  :class:`server.errors.ScenarioError` when the file is not a valid scenario; an illegal
  action is *not* an error of the file: it is reported in the result (``state: rejected``).

The modules drive the real engines, the same code the server runs.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

from server.errors import ScenarioError

#: game id -> module implementing ``describe`` and ``run`` for it.
GAMES: dict[str, str] = {
    "holdem-act": "server.games.poker.scenario",
    "omaha-act": "server.games.poker.scenario",
    "manila-act": "server.games.poker.scenario",
    "holdem-qld": "server.games.poker.scenario",
    "omaha-qld": "server.games.poker.scenario",
    "manila-qld": "server.games.poker.scenario",
    "caribbean-stud": "server.games.banked.scenario",
    "holdem-bonus": "server.games.banked.scenario",
    "three-card-poker": "server.games.banked.scenario",
    "mississippi-stud": "server.games.banked.scenario",
    "canberra-poker-2004": "server.games.banked.scenario",
    "canberra-poker-2017": "server.games.banked.scenario",
    "four-card-poker": "server.games.banked.scenario",
    "casino-war": "server.games.banked.scenario",
    "baccarat": "server.games.banked.scenario",
    "lucky-draw-baccarat": "server.games.banked.scenario",
    "roulette": "server.games.banked.scenario",
    "sic-bo": "server.games.banked.scenario",
    "wheel-of-fortune": "server.games.banked.scenario",
    "blackjack": "server.games.banked.scenario",
    "spanish-blackjack": "server.games.banked.scenario",
    "blackjack-switch": "server.games.banked.scenario",
    "blackjack-challenge": "server.games.banked.scenario",
}


def _module(game: Any):
    if not isinstance(game, str) or game not in GAMES:
        raise ScenarioError(f"unknown game: {game!r}")
    return importlib.import_module(GAMES[game])


def run_scenario(scenario: Any) -> dict:
    """Run one parsed scenario and return its result (raises ScenarioError if invalid)."""
    if not isinstance(scenario, dict):
        raise ScenarioError("a scenario must be a JSON object")
    game = scenario.get("game")
    return _module(game).run(game, scenario)


def describe(game: str) -> dict:
    return _module(game).describe(game)


def load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ScenarioError(f"cannot read {path}: {e.strerror}") from e
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ScenarioError(f"not valid JSON: {e}") from e


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if len(args) == 2 and args[0] == "--describe":
            result = describe(args[1])
        elif len(args) == 1 and not args[0].startswith("--"):
            result = run_scenario(load(args[0]))
        else:
            raise ScenarioError("usage: croupier scenario FILE.json | --describe GAME")
    except ScenarioError as e:
        print(
            f"croupier scenario: {str(e).splitlines()[0] if str(e) else 'invalid'}", file=sys.stderr
        )
        return 2
    json.dump(result, sys.stdout, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
